import { z } from 'zod';

/** The user a sign-in answers (password, OAuth, WeChat, Telegram): what the console keeps as signed in. */
export const signedInUserSchema = z.strictObject({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  role: z.number().int(),
  status: z.number().int(),
  group: z.string(),
});
export type SignedInUser = z.output<typeof signedInUserSchema>;

/** One signed-in browser of the user (GET /api/user/self/sessions). */
export const userSessionSchema = z.strictObject({
  id: z.number().int(),
  created_at: z.number().int(),
  last_seen_at: z.number().int(),
  expires_at: z.number().int(),
  ip: z.string(),
  user_agent: z.string(),
  current: z.boolean().describe('The session making this call.'),
});
export type UserSession = z.output<typeof userSessionSchema>;

/** The endpoints read from an OpenID provider's discovery document (POST /api/oauth/oidc/discovery). */
export const oidcDiscoverySchema = z.strictObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  user_info_endpoint: z.string(),
  jwks_uri: z.string(),
});
export type OidcDiscovery = z.output<typeof oidcDiscoverySchema>;
