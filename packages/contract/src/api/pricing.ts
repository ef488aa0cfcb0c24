import { z } from 'zod';

/** One model of the pricing page, in new-api's field names. */
export const pricedModelSchema = z.strictObject({
  model_name: z.string(),
  quota_type: z.union([z.literal(0), z.literal(1)]).describe('0: billed by tokens (model_ratio), 1: a fixed price per call (model_price, USD).'),
  model_ratio: z.number(),
  model_price: z.number(),
  completion_ratio: z.number(),
  cache_ratio: z
    .number()
    .optional()
    .describe("Only for a model the CacheRatio option lists (new-api's omitempty): what a cached prompt token costs relative to model_ratio."),
  enable_groups: z.array(z.string()).describe('The groups in which some enabled channel serves the model.'),
  owner_by: z.string(),
  tags: z
    .string()
    .optional()
    .describe("Comma-separated capability tags (reasoning, vision, image, video, audio, embedding, rerank); left out when none (new-api's omitempty)."),
  vendor_id: z.number().int().positive().optional().describe('The id of its entry in `vendors`; left out when the vendor is unknown.'),
});
export type PricedModel = z.output<typeof pricedModelSchema>;

/** A model maker of the pricing page, as new-api's PricingVendor; `icon` names a @lobehub/icons icon as new-api's do. */
export const pricingVendorSchema = z.strictObject({
  id: z.number().int().positive(),
  name: z.string(),
  icon: z.string().optional(),
});
export type PricingVendor = z.output<typeof pricingVendorSchema>;

/** GET /api/pricing answers its groups and vendors beside the envelope's data, as new-api does. */
export const pricingExtrasSchema = z.strictObject({
  vendors: z.array(pricingVendorSchema).describe('The vendors of the models listed, by id.'),
  group_ratio: z.record(z.string(), z.number()).describe('Group name → ratio, for the groups the caller may use.'),
  usable_group: z.record(z.string(), z.string()).describe('Group name → description.'),
});
export type PricingExtras = z.output<typeof pricingExtrasSchema>;
