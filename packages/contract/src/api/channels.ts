import { z } from 'zod';
import { pageSchema } from './paging.js';

/** new-api's channel_info: a multi-key channel's per-key states (by key index) and how a request picks its key. */
export const channelInfoSchema = z.strictObject({
  is_multi_key: z.boolean(),
  multi_key_size: z.number().int(),
  multi_key_status_list: z.record(z.string(), z.number().int()).describe('Key index → 2 (disabled by hand) or 3 (disabled automatically); absent = enabled.'),
  multi_key_disabled_reason: z.record(z.string(), z.string()),
  multi_key_disabled_time: z.record(z.string(), z.number().int()),
  multi_key_polling_index: z.number().int(),
  multi_key_mode: z.enum(['random', 'polling']),
});
export type ChannelInfo = z.output<typeof channelInfoSchema>;

/** One key of a multi-key channel (POST /api/channel/multi_key/manage get_key_status): never the key itself. */
export const keyStatusSchema = z.strictObject({
  index: z.number().int(),
  status: z.number().int().describe('1 enabled, 2 disabled by hand, 3 disabled automatically.'),
  disabled_time: z.number().int().optional(),
  reason: z.string().optional(),
  key_preview: z.string().describe('The key’s ends, enough to tell keys apart.'),
  served_count: z.number().int().optional().describe('Calls the key served on the answering node since it started.'),
  failed_count: z.number().int().optional().describe('Calls the key failed on the answering node since it started.'),
  last_served_time: z.number().int().optional().describe('Unix seconds of its last served call on that node; 0 = none.'),
});
export const keyStatusPageSchema = z.strictObject({
  keys: z.array(keyStatusSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  total_pages: z.number().int(),
  enabled_count: z.number().int(),
  manual_disabled_count: z.number().int(),
  auto_disabled_count: z.number().int(),
  multi_key_mode: z.enum(['random', 'polling']),
});
export type KeyStatusPage = z.output<typeof keyStatusPageSchema>;

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
  channel_info: channelInfoSchema,
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
