import { z } from 'zod';

/** A quota_data row: one user's (or, summed for administrators, everyone's) use of a model in one hour. */
export const quotaDataRowSchema = z.strictObject({
  id: z.number().int().describe('0 in sums over every user.'),
  user_id: z.number().int().describe('0 in sums over every user.'),
  username: z.string().describe("'' in sums over every user."),
  model_name: z.string(),
  created_at: z.number().int().describe('Unix seconds, the start of the hour.'),
  token_used: z.number().int(),
  count: z.number().int(),
  quota: z.number(),
});
export type QuotaDataRow = z.output<typeof quotaDataRowSchema>;
