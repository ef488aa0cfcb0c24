import { z } from 'zod';
import type { WireToken } from '../../domain/tokens/token-fields.js';
import type { PublicUser } from '../../domain/users/user-repository.js';

/*
 * The shapes of the answers' `data` for the main resources. Typed against the TypeScript types the
 * routes answer with, so a field added there and not here fails the type check; strict objects, so
 * a field answered and not described fails openapi.test.ts, which checks real answers against them.
 */

export const wireTokenSchema: z.ZodType<WireToken> = z.strictObject({
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
  allow_ips: z.string(),
  used_quota: z.number(),
  group: z.string(),
});

export const publicUserSchema: z.ZodType<PublicUser> = z.strictObject({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  role: z.number().int().describe('1 common user, 10 administrator, 100 root.'),
  status: z.number().int().describe('1 enabled, 2 disabled.'),
  email: z.string(),
  github_id: z.string(),
  oidc_id: z.string(),
  wechat_id: z.string(),
  telegram_id: z.string(),
  linux_do_id: z.string(),
  quota: z.number(),
  used_quota: z.number(),
  request_count: z.number().int(),
  group: z.string(),
  aff_code: z.string(),
  aff_count: z.number().int(),
  aff_quota: z.number(),
  aff_history_quota: z.number(),
  inviter_id: z.number().int(),
  setting: z.string().describe('JSON text of the notification and relay settings.'),
  remark: z.string(),
  created_at: z.number().int(),
  DeletedAt: z.string().nullable(),
});

/** One page of a list (PageData in @modelgate/contract). */
export const pageOfSchema = <T extends z.ZodType>(item: T) =>
  z.strictObject({ items: z.array(item), total: z.number().int(), page: z.number().int(), page_size: z.number().int() });

/** `?p=` and `?page_size=` of every list (lib/paging.ts): p counts from 1. */
export const pagingFields = {
  p: z.string().regex(/^\d+$/).optional().describe('Page number, from 1.'),
  page_size: z.string().regex(/^\d+$/).optional().describe('Rows per page (clamped to the maximum).'),
};
export const pagingQuery = z.object(pagingFields);

/** A page of rows this description does not spell out field by field. */
export const pageData = pageOfSchema(z.record(z.string(), z.unknown()));
