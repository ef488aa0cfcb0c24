import { z } from 'zod';
import { wireRateLimitsSchema } from './rate-limits.js';

/** What the console sees of a user (the list, one user, the signed-in user): never the password or the access token. */
export const publicUserSchema = z.strictObject({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  role: z.number().int().describe('1 common user, 10 administrator, 100 root.'),
  status: z.number().int().describe('1 enabled, 2 disabled.'),
  email: z.string(),
  github_id: z.string(),
  oidc_id: z.string().describe("The OIDC provider's `sub` of the linked account."),
  wechat_id: z.string(),
  telegram_id: z.string(),
  linux_do_id: z.string(),
  quota: z.number().describe('What the user can spend, with the calls in flight counted in.'),
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
  DeletedAt: z.string().nullable().describe('Non-null once the account was deregistered (an ISO time).'),
  ...wireRateLimitsSchema.shape,
  two_fa_enabled: z.boolean().optional().describe("Whether the user has 2FA on (in the administrators' user list)."),
});
export type PublicUser = z.output<typeof publicUserSchema>;

/** POST /api/user/manage: the user's state after the action. */
export const manageResultSchema = z.strictObject({
  status: z.number().int(),
  role: z.number().int(),
  quota: z.number().describe('What the user can spend, the relay’s leases counted in.'),
});
export type ManageResult = z.output<typeof manageResultSchema>;

/** One group a user may give a token (GET /api/user/self/groups is name → this). */
export const usableGroupSchema = z.strictObject({ desc: z.string(), ratio: z.number() });
export type UsableGroup = z.output<typeof usableGroupSchema>;
export const usableGroupsSchema = z.record(z.string(), usableGroupSchema);
export type UsableGroups = z.output<typeof usableGroupsSchema>;
