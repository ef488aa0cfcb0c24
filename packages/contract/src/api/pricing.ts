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
});
export type PricedModel = z.output<typeof pricedModelSchema>;

/** GET /api/pricing answers its groups beside the envelope's data, as new-api does. */
export const pricingExtrasSchema = z.strictObject({
  group_ratio: z.record(z.string(), z.number()).describe('Group name → ratio, for the groups the caller may use.'),
  usable_group: z.record(z.string(), z.string()).describe('Group name → description.'),
});
export type PricingExtras = z.output<typeof pricingExtrasSchema>;
