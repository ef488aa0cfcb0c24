import { request as httpRequest } from 'undici';
import { z } from 'zod';
import { AppError, badRequest } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';
import type { ProviderAccount } from './oauth-providers.js';
import { verifyIdToken, type Jwk } from './oidc-id-token.js';

/** new-api waits 5 s for its OIDC provider; a little more leaves room for a slow discovery. */
const TIMEOUT_MS = 8_000;
/** Discovery documents and JWKS change rarely; a rotated key is fetched at once anyway (see verifyIdToken). */
const CACHE_MS = 10 * 60_000;
const MAX_BODY_BYTES = 512 * 1024;

const httpUrl = z.string().regex(/^https?:\/\/[^\s/]+/i);

/** The parts of an OpenID Provider's discovery document this server uses. */
const discoverySchema = z
  .object({
    issuer: z.string().min(1),
    authorization_endpoint: httpUrl,
    token_endpoint: httpUrl,
    userinfo_endpoint: httpUrl.optional(),
    jwks_uri: httpUrl.optional(),
    token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  })
  .loose();
export type OidcDiscovery = z.output<typeof discoverySchema>;

const jwksSchema = z.object({ keys: z.array(z.object({ kty: z.string() }).loose()) }).loose();

const tokenSchema = z
  .object({
    access_token: z.string().optional(),
    id_token: z.string().optional(),
    error: z.string().optional(),
    error_description: z.string().optional(),
  })
  .loose();

const userInfoSchema = z
  .object({
    sub: z.union([z.string(), z.number()]).optional(),
    email: z.string().nullish(),
    email_verified: z.union([z.boolean(), z.string()]).nullish(),
    name: z.string().nullish(),
    preferred_username: z.string().nullish(),
  })
  .loose();

const unreachable = (cause: unknown) => new AppError('oauth:unreachable', '无法连接至 OIDC 服务器，请稍后重试！', { status: 502, retryable: true, cause });
const badAnswer = () => new AppError('oauth:bad_answer', 'OIDC 服务器返回值非法，请检查设置！', { status: 502 });

/** One HTTP call to the provider with a deadline; answers the status and the parsed JSON body (undefined when not JSON). */
async function callJson(
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<{ status: number; payload: unknown }> {
  let status: number;
  let text: string;
  try {
    const response = await httpRequest(url, {
      ...init,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    throw unreachable(error);
  }
  if (text.length > MAX_BODY_BYTES) throw badAnswer();
  try {
    return { status, payload: JSON.parse(text) as unknown };
  } catch {
    return { status, payload: undefined };
  }
}

const discoveryCache = new Map<string, { at: number; document: OidcDiscovery }>();
const jwksCache = new Map<string, { at: number; keys: Jwk[] }>();

/**
 * Reads an OpenID Provider's discovery document (`.../.well-known/openid-configuration`).
 * The console's "fetch" button fills the endpoints from it; sign-in reads the issuer and JWKS
 * address from it to check ID tokens.
 */
export async function fetchOidcDiscovery(wellKnown: string, options: { fresh?: boolean } = {}): Promise<OidcDiscovery> {
  if (!/^https?:\/\//i.test(wellKnown)) throw badRequest('Well-Known URL 必须以 http:// 或 https:// 开头', 'oauth:oidc_well_known_invalid');
  const cached = discoveryCache.get(wellKnown);
  if (!options.fresh && cached && Date.now() - cached.at < CACHE_MS) return cached.document;
  const { status, payload } = await callJson(wellKnown, { method: 'GET', headers: { accept: 'application/json' } });
  const parsed = discoverySchema.safeParse(payload);
  if (status !== 200 || !parsed.success) {
    throw new AppError('oauth:oidc_discovery_failed', '获取 OIDC 配置失败，请检查网络状况和 Well-Known URL 是否正确', { status: 502 });
  }
  discoveryCache.set(wellKnown, { at: Date.now(), document: parsed.data });
  return parsed.data;
}

async function fetchJwks(jwksUri: string, fresh: boolean): Promise<Jwk[]> {
  const cached = jwksCache.get(jwksUri);
  if (!fresh && cached && Date.now() - cached.at < CACHE_MS) return cached.keys;
  const { status, payload } = await callJson(jwksUri, { method: 'GET', headers: { accept: 'application/json' } });
  const parsed = jwksSchema.safeParse(payload);
  if (status !== 200 || !parsed.success) throw new AppError('oauth:oidc_jwks_failed', '获取 OIDC 签名密钥（JWKS）失败，请检查设置！', { status: 502 });
  const keys = parsed.data.keys as Jwk[];
  jwksCache.set(jwksUri, { at: Date.now(), keys });
  return keys;
}

/** Never let the client secret travel in a message, whatever the provider echoes back. */
const withoutSecret = (text: string, secret: string) => (secret === '' ? text : text.split(secret).join('***'));

/**
 * Exchanges an authorization code at the configured OIDC provider and answers the account it
 * belongs to. The token request authenticates with client_secret_post, as new-api does, unless
 * the discovery document says the provider only takes client_secret_basic. When the provider
 * returns an ID token and a discovery document is configured, the token's signature, issuer,
 * audience and expiry are checked and its `sub` must be the userinfo's.
 */
export async function fetchOidcAccount(options: OptionService, code: string, redirectUri: string): Promise<ProviderAccount & { preferredUsername: string }> {
  const clientId = options.string('oidc.client_id');
  const clientSecret = options.raw('oidc.client_secret');
  const tokenEndpoint = options.string('oidc.token_endpoint');
  const userInfoEndpoint = options.string('oidc.user_info_endpoint');
  const wellKnown = options.string('oidc.well_known');
  if (clientId === '' || tokenEndpoint === '' || userInfoEndpoint === '') {
    throw badRequest('OIDC 登录尚未配置完整（Client ID、Token 端点、用户信息端点），请联系管理员', 'oauth:oidc_not_configured');
  }
  const discovery = wellKnown === '' ? undefined : await fetchOidcDiscovery(wellKnown);

  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  const methods = discovery?.token_endpoint_auth_methods_supported;
  if (methods && !methods.includes('client_secret_post') && methods.includes('client_secret_basic')) {
    // RFC 6749 §2.3.1: both parts form-encoded before joining.
    const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
  } else {
    form.set('client_id', clientId);
    form.set('client_secret', clientSecret);
  }
  const tokenCall = await callJson(tokenEndpoint, { method: 'POST', headers, body: form.toString() });
  const token = tokenSchema.safeParse(tokenCall.payload);
  if (!token.success) throw badAnswer();
  if (!token.data.access_token) {
    const reason = token.data.error_description || token.data.error || '请检查设置';
    throw badRequest(withoutSecret(`OIDC 获取 Token 失败：${reason}`, clientSecret), 'oauth:invalid_code');
  }

  const claims =
    token.data.id_token && discovery?.jwks_uri
      ? await verifyIdToken(token.data.id_token, { issuer: discovery.issuer, clientId }, (fresh) => fetchJwks(discovery.jwks_uri!, fresh))
      : undefined;

  const userCall = await callJson(userInfoEndpoint, {
    method: 'GET',
    headers: { authorization: `Bearer ${token.data.access_token}`, accept: 'application/json' },
  });
  if (userCall.status !== 200) throw badRequest('OIDC 获取用户信息失败！请检查设置！', 'oauth:oidc_userinfo_failed');
  const user = userInfoSchema.safeParse(userCall.payload);
  if (!user.success) throw badAnswer();
  const sub = user.data.sub === undefined ? '' : String(user.data.sub);
  if (sub === '') throw badRequest('OIDC 获取用户信息为空！请检查设置！', 'oauth:oidc_userinfo_empty');
  // Core §5.3.2: the userinfo answer is only about the signed-in user if its sub is the ID token's.
  if (claims && claims.sub !== sub) throw badRequest('OIDC 用户信息与 ID Token 不属于同一账户', 'oauth:oidc_sub_mismatch');
  if (sub.length > 64) throw badRequest('OIDC 用户标识（sub）过长', 'oauth:oidc_sub_too_long');

  const preferredUsername = user.data.preferred_username?.trim() ?? '';
  return {
    id: sub,
    displayName: user.data.name?.trim() || preferredUsername || 'OIDC User',
    email: user.data.email?.trim() ?? '',
    // Some providers send the flag as a string.
    emailVerified: user.data.email_verified === true || user.data.email_verified === 'true',
    preferredUsername,
  };
}
