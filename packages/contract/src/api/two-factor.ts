import { z } from 'zod';

/** `GET /api/user/2fa/status`: whether the signed-in user has 2FA on, and their backup codes left. */
export const twoFactorStatusSchema = z.strictObject({
  enabled: z.boolean(),
  locked: z.boolean().describe('Too many wrong codes: code checks are refused for a while.'),
  backup_codes_remaining: z.number().int().optional().describe('Unused backup codes (when 2FA is on).'),
});
export type TwoFactorStatus = z.output<typeof twoFactorStatusSchema>;

/** `POST /api/user/2fa/setup`: a pending secret, its otpauth:// URI and the backup codes, shown once. */
export const twoFactorSetupSchema = z.strictObject({
  secret: z.string().describe('Base32 TOTP secret, for typing into an authenticator.'),
  qr_code_data: z.string().describe('The otpauth://totp/ URI to draw as a QR code.'),
  backup_codes: z.array(z.string()),
});
export type TwoFactorSetup = z.output<typeof twoFactorSetupSchema>;

/** `POST /api/user/2fa/backup_codes`: the new backup codes (the old ones no longer work). */
export const twoFactorBackupCodesSchema = z.strictObject({ backup_codes: z.array(z.string()) });
export type TwoFactorBackupCodes = z.output<typeof twoFactorBackupCodesSchema>;

/** `GET /api/user/2fa/stats` (administrators). */
export const twoFactorStatsSchema = z.strictObject({
  total_users: z.number().int(),
  enabled_users: z.number().int(),
  enabled_rate: z.string().describe('Percent with 2FA on, e.g. "12.5%".'),
});
export type TwoFactorStats = z.output<typeof twoFactorStatsSchema>;

/**
 * `POST /api/user/login` when the account has 2FA: no session yet; the code goes to
 * `POST /api/user/login/2fa` within `expires_at`, from the same browser (a cookie) or with `flow_token`.
 */
export const loginTwoFactorRequiredSchema = z.strictObject({
  require_2fa: z.literal(true),
  flow_token: z.string(),
  expires_at: z.number().int(),
});
export type LoginTwoFactorRequired = z.output<typeof loginTwoFactorRequiredSchema>;
