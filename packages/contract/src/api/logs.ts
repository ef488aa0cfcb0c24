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
