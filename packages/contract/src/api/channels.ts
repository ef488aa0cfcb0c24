import { z } from 'zod';
import { pageSchema } from './paging.js';

/** A channel as the console sees it. The key never leaves the server: it is always ''. */
export const wireChannelSchema = z.strictObject({
  id: z.number().int(),
  type: z.number().int().describe('The channel type (CHANNEL_TYPES).'),
  key: z.literal('').describe('Always empty: keys are written, never read back.'),
  openai_organization: z.string(),
  test_model: z.string(),
  status: z.number().int().describe('1 enabled, 2 disabled by hand, 3 disabled automatically.'),
  name: z.string(),
  weight: z.number().int(),
  created_time: z.number().int(),
  test_time: z.number().int(),
  response_time: z.number().int().describe('Milliseconds of the last successful test; 0 = never tested.'),
  base_url: z.string(),
  other: z.string(),
  balance: z.number(),
  balance_updated_time: z.number().int(),
  models: z.string().describe('Comma-separated model names.'),
  group: z.string().describe('Comma-separated group names.'),
  used_quota: z.number(),
  model_mapping: z.string(),
  status_code_mapping: z.string(),
  priority: z.number().int(),
  auto_ban: z.number().int(),
  other_info: z.string().describe('JSON text with status_reason and status_time once the channel was disabled automatically.'),
  tag: z.string(),
  setting: z.string(),
  param_override: z.string(),
  header_override: z.string(),
  remark: z.string(),
  expired_time: z.number().int(),
});
export type WireChannel = z.output<typeof wireChannelSchema>;

export const breakerStateSchema = z.enum(['closed', 'open', 'half_open']);
export type BreakerState = z.output<typeof breakerStateSchema>;

/** The answering node's circuit breaker for a channel (kept in memory per node). */
export const breakerViewSchema = z.strictObject({
  breaker_state: breakerStateSchema,
  breaker_reason: z.string().describe("The last failure that counted, while open or probing; '' when closed."),
  breaker_until: z.number().int().describe('Unix seconds: the end of the cool-down (open) or of the probe’s lease (probing); 0 when closed.'),
  breaker_open_keys: z.number().int().describe('Keys whose own breaker is open or probing; a multi-key channel stays closed while some keys work.'),
});
export type BreakerView = z.output<typeof breakerViewSchema>;

/** A channel of the list and of GET /api/channel/{id}: the stored fields and this node's breaker. */
export const listedChannelSchema = z.strictObject({ ...wireChannelSchema.shape, ...breakerViewSchema.shape });
export type ListedChannel = z.output<typeof listedChannelSchema>;

/** The list and the search: a page, with how many channels of each type the filter matched. */
export const channelPageSchema = z.strictObject({
  ...pageSchema(listedChannelSchema).shape,
  type_counts: z.record(z.string(), z.number().int()).describe('Channel type → channels of that type.'),
});
export type ChannelPage = z.output<typeof channelPageSchema>;

/** A model of GET /api/channel/models, with the channel types that serve it. */
export const catalogueModelSchema = z.strictObject({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
  channel_types: z.array(z.number().int()).describe('Channel types that serve the model by name or by a configured channel.'),
});
export type CatalogueModel = z.output<typeof catalogueModelSchema>;

/** GET /api/channel/update_balance: how the refresh of every enabled channel went. */
export const balanceRefreshSchema = z.strictObject({ updated: z.number().int(), failed: z.number().int(), unsupported: z.number().int() });
export type BalanceRefresh = z.output<typeof balanceRefreshSchema>;

/** POST /api/channel/fix: channels whose abilities were rebuilt, and those that failed. */
export const abilityRepairSchema = z.strictObject({ success: z.number().int(), fails: z.number().int() });
export type AbilityRepair = z.output<typeof abilityRepairSchema>;
