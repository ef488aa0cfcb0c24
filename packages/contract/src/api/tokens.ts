import { z } from 'zod';
import { wireRateLimitsSchema } from './rate-limits.js';

/** A token as its owner sees it; the key is masked (first and last four characters, without `sk-`). */
export const wireTokenSchema = z.strictObject({
  id: z.number().int(),
  user_id: z.number().int(),
  key: z.string().describe('Masked: the full key comes only from GET /api/token/{id}/key.'),
  status: z.number().int().describe('1 enabled, 2 disabled, 3 expired, 4 exhausted.'),
  name: z.string(),
  created_time: z.number().int(),
  accessed_time: z.number().int(),
  expired_time: z.number().int().describe('Unix seconds; -1 never expires.'),
  remain_quota: z.number(),
  unlimited_quota: z.boolean(),
  model_limits_enabled: z.boolean(),
  model_limits: z.string().describe('Comma-separated model names.'),
  allow_ips: z.string().describe('One IP address or CIDR range per line.'),
  used_quota: z.number(),
  group: z.string(),
  ...wireRateLimitsSchema.shape,
});
export type WireToken = z.output<typeof wireTokenSchema>;

/** A token's full key, without `sk-`. */
export const tokenKeySchema = z.strictObject({ key: z.string() });
export type TokenKey = z.output<typeof tokenKeySchema>;

/** Full keys of several own tokens by id; ids not found are left out. */
export const tokenKeysSchema = z.strictObject({ keys: z.record(z.string(), z.string()) });
export type TokenKeys = z.output<typeof tokenKeysSchema>;
