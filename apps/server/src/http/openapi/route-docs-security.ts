import { twoFactorBackupCodesSchema, twoFactorSetupSchema, twoFactorStatsSchema, twoFactorStatusSchema } from '@modelgate/contract';
import { z } from 'zod';
import { twoFactorCodeBody } from '../api/two-factor.js';
import { twoFactorLoginBody } from '../api/two-factor-login.js';
import { userId } from '../api/users.js';
import type { RouteDocs } from './route-doc-types.js';

/** Two-factor sign-in (new-api's /api/user/2fa/* and the sign-in's code step). */
export const SECURITY_ROUTE_DOCS: RouteDocs = {
  'POST /api/user/login/2fa': {
    summary:
      "The sign-in's code step: a TOTP or backup code for the pending sign-in of POST /api/user/login (5 minutes, this browser's cookie or flow_token); sets the session cookie",
    auth: 'public',
    body: twoFactorLoginBody,
  },
  'GET /api/user/2fa/status': { summary: 'Whether the signed-in user has 2FA on, and their unused backup codes', auth: 'user', data: twoFactorStatusSchema },
  'POST /api/user/2fa/setup': {
    summary: 'Start 2FA: a pending secret, its otpauth:// URI and backup codes (needs a fresh POST /api/verify, else code VERIFICATION_REQUIRED)',
    auth: 'user',
    data: twoFactorSetupSchema,
  },
  'POST /api/user/2fa/enable': { summary: 'Turn 2FA on with a first code from the authenticator', auth: 'user', body: twoFactorCodeBody },
  'POST /api/user/2fa/disable': { summary: 'Turn 2FA off with a TOTP or backup code', auth: 'user', body: twoFactorCodeBody },
  'POST /api/user/2fa/backup_codes': {
    summary: 'New backup codes after a TOTP code (the old ones stop working)',
    auth: 'user',
    body: twoFactorCodeBody,
    data: twoFactorBackupCodesSchema,
  },
  'GET /api/user/2fa/stats': { summary: 'How many users have 2FA on', auth: 'admin', data: twoFactorStatsSchema },
  'DELETE /api/user/:id/2fa': {
    summary: "Turn a user's 2FA off and end their sessions (administrators for users below them, root for all)",
    auth: 'admin',
    params: z.object({ id: userId }),
  },
};
