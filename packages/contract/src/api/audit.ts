import { z } from 'zod';

/**
 * What an audit row records: one code per kind of admin or root action (an administrator's own
 * sign-ins, password, second factors and passkeys included).
 */
export const AUDIT_ACTIONS = [
  'user.create',
  'user.update',
  'user.delete',
  'user.promote',
  'user.demote',
  'user.disable',
  'user.enable',
  'user.quota_change',
  'channel.create',
  'channel.copy',
  'channel.update',
  'channel.delete',
  'channel.delete_disabled',
  'channel.batch_delete',
  'channel.batch_tag',
  'channel.tag_edit',
  'channel.tag_status',
  'channel.keys_manage',
  'channel.abilities_fix',
  'token.key_reveal',
  'redemption.create',
  'redemption.update',
  'redemption.status',
  'redemption.delete',
  'option.update',
  'option.reset_model_ratio',
  'log.delete',
  'admin.login',
  'admin.login_failed',
  'channel.key_reveal',
  'user.password_change',
  'user.security_verify',
  'user.2fa_enable',
  'user.2fa_disable',
  'user.2fa_admin_disable',
  'user.passkey_register',
  'user.passkey_delete',
  'user.passkey_admin_reset',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export const auditActionSchema = z.enum(AUDIT_ACTIONS);

/** What an action was done to. */
export const AUDIT_TARGET_TYPES = ['user', 'channel', 'token', 'redemption', 'option', 'log', 'session'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** Before and after of the fields an action changed, secrets masked; either side may be absent (a creation has no before). */
export const auditDetailsSchema = z.strictObject({
  before: z.record(z.string(), z.unknown()).optional(),
  after: z.record(z.string(), z.unknown()).optional(),
  /** Figures the summary is rendered from (a count, a mode, an amount). */
  params: z.record(z.string(), z.unknown()).optional(),
});
export type AuditDetails = z.output<typeof auditDetailsSchema>;

/** One audit row as GET /api/audit/ answers it. */
export const auditEntrySchema = z.strictObject({
  id: z.number().int(),
  created_at: z.number().int().describe('Unix seconds.'),
  actor_id: z.number().int().describe('0 for a failed sign-in by an unknown name.'),
  actor_username: z.string(),
  actor_role: z.number().int(),
  ip: z.string(),
  action: z.string().describe('An action code (AUDIT_ACTIONS).'),
  target_type: z.string(),
  target_id: z.string(),
  summary: z.string().describe('A one-line description in Chinese; the console renders its own from the action and details.'),
  details: auditDetailsSchema,
});
export type AuditEntry = z.output<typeof auditEntrySchema>;
