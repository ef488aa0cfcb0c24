import { z } from 'zod';

/** One of the signed-in user's passkeys, as the personal settings list it. Times are Unix seconds. */
export const passkeySchema = z.strictObject({
  id: z.number().int(),
  name: z.string().describe('The name given when it was added ("" when none).'),
  created_at: z.number().int(),
  last_used_at: z.number().int().describe('Last sign-in or verification with it (0: never).'),
  backup_eligible: z.boolean().describe('A synced (multi-device) passkey.'),
  backup_state: z.boolean().describe('Backed up by its provider.'),
  transports: z.array(z.string()),
});
export type Passkey = z.output<typeof passkeySchema>;

/**
 * `GET /api/user/passkey`: new-api's `{enabled, last_used_at}` (an ISO time or null, the most
 * recent use of any of the user's passkeys) and the passkeys themselves.
 */
export const passkeyStatusSchema = z.strictObject({
  enabled: z.boolean().describe('Whether the user has at least one passkey.'),
  last_used_at: z.string().nullable(),
  passkeys: z.array(passkeySchema),
});
export type PasskeyStatus = z.output<typeof passkeyStatusSchema>;

/**
 * A ceremony's begin: the WebAuthn options, under `publicKey` as new-api's console reads them
 * (PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON).
 */
export const passkeyCeremonySchema = z.strictObject({
  options: z.strictObject({ publicKey: z.record(z.string(), z.unknown()) }),
});
export type PasskeyCeremony = z.output<typeof passkeyCeremonySchema>;

/** The browser's answer to `navigator.credentials.create` (RegistrationResponseJSON), as finish takes it. */
export const passkeyRegistrationSchema = z.object({
  id: z.string().min(1, '缺少凭证 ID').max(512, '凭证 ID 过长'),
  rawId: z.string().min(1, '缺少凭证 ID').max(512, '凭证 ID 过长'),
  type: z.literal('public-key', { error: '凭证类型必须是 public-key' }),
  response: z.looseObject({
    clientDataJSON: z.string({ error: '缺少 clientDataJSON' }).max(8192),
    attestationObject: z.string({ error: '缺少 attestationObject' }).max(65536),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
  authenticatorAttachment: z.string().max(32).nullish(),
  clientExtensionResults: z.record(z.string(), z.unknown()).optional().default({}),
});

/** The browser's answer to `navigator.credentials.get` (AuthenticationResponseJSON), as finish takes it. */
export const passkeyAssertionSchema = z.object({
  id: z.string().min(1, '缺少凭证 ID').max(512, '凭证 ID 过长'),
  rawId: z.string().min(1, '缺少凭证 ID').max(512, '凭证 ID 过长'),
  type: z.literal('public-key', { error: '凭证类型必须是 public-key' }),
  response: z.looseObject({
    clientDataJSON: z.string({ error: '缺少 clientDataJSON' }).max(8192),
    authenticatorData: z.string({ error: '缺少 authenticatorData' }).max(8192),
    signature: z.string({ error: '缺少 signature' }).max(2048),
    userHandle: z.string().max(256).nullish(),
  }),
  authenticatorAttachment: z.string().max(32).nullish(),
  clientExtensionResults: z.record(z.string(), z.unknown()).optional().default({}),
});
