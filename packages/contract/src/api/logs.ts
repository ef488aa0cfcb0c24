import { z } from 'zod';

/** A usage log row (new-api's field names: `channel` is the channel id). */
export const wireLogSchema = z.strictObject({
  id: z.number().int(),
  user_id: z.number().int(),
  created_at: z.number().int(),
  type: z.number().int().describe('1 top-up, 2 consume, 3 manage, 4 system, 5 error.'),
  content: z.string(),
  username: z.string(),
  token_name: z.string(),
  model_name: z.string(),
  quota: z.number(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  use_time: z.number().int().describe('Seconds the call took.'),
  is_stream: z.boolean(),
  channel: z.number().int(),
  channel_name: z.string(),
  token_id: z.number().int(),
  group: z.string(),
  ip: z.string(),
  other: z.string().describe('JSON text the relay stored; admin_info is left out of a user’s own rows.'),
});
export type WireLog = z.output<typeof wireLogSchema>;

/** Quota spent over the filtered logs, and calls and tokens of the last minute. */
export const logStatSchema = z.strictObject({ quota: z.number(), rpm: z.number().int(), tpm: z.number().int() });
export type LogStat = z.output<typeof logStatSchema>;

/**
 * What a non-consume log row's `other` names, so a console can word the row in its reader's language
 * without reading `content` (which stays in Chinese, as new-api writes it, for new-api's clients).
 * `other.kind` is one of these; the amounts ride beside it, in quota units:
 *
 * | kind | written by | other keys |
 * |---|---|---|
 * | `redeem` | a redemption code (type 1) | `quota` |
 * | `online_topup` | a paid top-up order (type 1) | `quota`, `money` (the amount paid) |
 * | `admin_add` / `admin_subtract` | an admin changed a balance by an amount (type 3) | `quota` (positive), `admin_id`, `admin_username` |
 * | `admin_set` | an admin set a balance (type 3) | `quota_before`, `quota_after`, `admin_id`, `admin_username` |
 * | `register_gift` | the new-user gift (type 4) | `quota` |
 * | `invitee_gift` | the gift for signing up with an invitation code (type 4) | `quota` |
 * | `inviter_reward` | the inviter's reward (type 4) | `quota` |
 * | `aff_transfer` | invitation rewards moved into the balance (type 4) | `quota` |
 * | `task_refund` | a failed async task given back (type 4) | `quota`, `task_id`, `task_table` (`midjourneys` or `tasks`) |
 * | `token_key_view` | a root read another user's token key (type 3) | `op.params`: `target_user_id`, `target_username`, `token_id`, `token_name` |
 *
 * Consume rows (type 2) carry new-api's billing keys instead (model_ratio, completion_ratio, group_ratio,
 * model_price, cache_*, audio_ratio, audio_completion_ratio, output_cap) and, when they apply,
 * `sensitive_words` (string[]: listed words found in the answer), `task_action` and `task_detail` (an
 * async task's action and the upstream's id, e.g. `ID 1712...`). Rows without these (old or imported
 * rows) are shown by their `content`.
 */
export const LogKind = {
  Redeem: 'redeem',
  OnlineTopUp: 'online_topup',
  AdminAdd: 'admin_add',
  AdminSubtract: 'admin_subtract',
  AdminSet: 'admin_set',
  RegisterGift: 'register_gift',
  InviteeGift: 'invitee_gift',
  InviterReward: 'inviter_reward',
  AffTransfer: 'aff_transfer',
  TaskRefund: 'task_refund',
  TokenKeyView: 'token_key_view',
} as const;
export type LogKindValue = (typeof LogKind)[keyof typeof LogKind];
