import { z } from 'zod';

/** A redemption code as administrators list it. */
export const redemptionSchema = z.strictObject({
  id: z.number().int(),
  user_id: z.number().int().describe('The administrator who created it.'),
  key: z.string(),
  status: z.number().int().describe('1 unused, 2 disabled, 3 used.'),
  name: z.string(),
  quota: z.number(),
  created_time: z.number().int(),
  redeemed_time: z.number().int(),
  used_user_id: z.number().int().describe('0 while nobody has redeemed it.'),
  expired_time: z.number().int().describe('Unix seconds; 0 never expires.'),
});
export type Redemption = z.output<typeof redemptionSchema>;
