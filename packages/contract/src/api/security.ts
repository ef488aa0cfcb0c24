import { z } from 'zod';

/** How a user proves themselves again before a secret is read or an account secret changes. */
export const verificationMethodSchema = z.enum(['2fa', 'passkey', 'password']);
export type VerificationMethod = z.output<typeof verificationMethodSchema>;

/** A successful `POST /api/verify`: the session counts as verified until `expires_at` (Unix seconds). */
export const verifyResultSchema = z.strictObject({
  verified: z.literal(true),
  method: verificationMethodSchema,
  expires_at: z.number().int(),
});
export type VerifyResult = z.output<typeof verifyResultSchema>;

/** `GET /api/verify/status`: whether this session is freshly verified, and how the user can verify. */
export const verifyStatusSchema = z.strictObject({
  verified: z.boolean(),
  method: z.string().describe('How the session last verified ("" when it never did).'),
  expires_at: z.number().int().describe('Until when the verification counts (Unix seconds, 0 when not verified).'),
  methods: z.array(verificationMethodSchema).describe("The user's methods: their 2FA and passkeys, else the password."),
  window_seconds: z.number().int(),
});
export type VerifyStatus = z.output<typeof verifyStatusSchema>;

/** `POST /api/channel/:id/key`: a channel's full key, for the super administrator after a fresh verification. */
export const channelKeySchema = z.strictObject({ key: z.string() });
export type ChannelKey = z.output<typeof channelKeySchema>;
