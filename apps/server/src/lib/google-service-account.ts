import { createHash, createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import { request } from 'undici';
import { z } from 'zod';
import { AppError } from '../errors/app-error.js';

/**
 * Google service-account keys and the OAuth 2.0 access tokens they buy, per "Using OAuth 2.0 for
 * Server to Server Applications" (developers.google.com/identity/protocols/oauth2/service-account):
 * a JWT signed RS256 with the account's private key is exchanged at its token_uri for a bearer
 * token that lasts about an hour. Nothing here logs or quotes a private key or a token.
 */

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
export const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** A token is replaced this long before Google says it expires. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;
const TOKEN_LIFETIME_SECONDS = 3600;
const MAX_CACHED_ACCOUNTS = 1000;

export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKeyId: string | undefined;
  privateKey: KeyObject;
  tokenUri: string;
  /** Identifies the account and key in the token cache without holding the key's text. */
  cacheKey: string;
}

const keyError = (what: string): AppError =>
  new AppError('channel:invalid_key', `Vertex AI 渠道的密钥应为服务账号 JSON：${what} (the channel key must be a service account JSON key)`, {
    status: 500,
    retryable: true,
    type: 'channel_error',
  });

const REQUIRED_FIELDS = ['project_id', 'private_key', 'client_email'] as const;

/** Reads a service-account JSON key. Errors name what is missing or wrong, never the key's contents. */
export function parseServiceAccount(keyText: string): ServiceAccount {
  let json: unknown;
  try {
    json = JSON.parse(keyText);
  } catch {
    throw keyError('不是有效的 JSON (not valid JSON)');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw keyError('不是 JSON 对象 (not a JSON object)');
  const record = json as Record<string, unknown>;
  if (record.type !== undefined && record.type !== 'service_account') throw keyError(`type 应为 service_account (type must be "service_account")`);
  const missing = REQUIRED_FIELDS.filter((field) => typeof record[field] !== 'string' || (record[field] as string).trim() === '');
  if (missing.length > 0) throw keyError(`缺少 ${missing.join(', ')} (missing ${missing.join(', ')})`);
  const tokenUri = typeof record.token_uri === 'string' && record.token_uri.trim() !== '' ? record.token_uri.trim() : DEFAULT_TOKEN_URI;
  let tokenUrl: URL;
  try {
    tokenUrl = new URL(tokenUri);
  } catch {
    throw keyError('token_uri 不是有效的 URL (token_uri is not a URL)');
  }
  if (tokenUrl.protocol !== 'https:' && tokenUrl.protocol !== 'http:') throw keyError('token_uri 不是 http(s) URL (token_uri is not an http(s) URL)');
  // Keys pasted through some editors carry their newlines as the two characters \n.
  const pem = (record.private_key as string).replace(/\\n/g, '\n');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    throw keyError('private_key 不是有效的 PEM 私钥 (private_key is not a PEM private key)');
  }
  if (privateKey.asymmetricKeyType !== 'rsa') throw keyError('private_key 不是 RSA 私钥 (private_key is not an RSA key)');
  const clientEmail = (record.client_email as string).trim();
  return {
    projectId: (record.project_id as string).trim(),
    clientEmail,
    privateKeyId: typeof record.private_key_id === 'string' ? record.private_key_id : undefined,
    privateKey,
    tokenUri,
    cacheKey: `${clientEmail}\n${tokenUri}\n${createHash('sha256').update(pem).digest('hex')}`,
  };
}

const base64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

/** The signed JWT assertion for the token endpoint (iat/exp in seconds). */
export function signServiceAccountJwt(account: ServiceAccount, nowMs: number, scope = CLOUD_PLATFORM_SCOPE): string {
  const issuedAt = Math.floor(nowMs / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(account.privateKeyId ? { kid: account.privateKeyId } : {}) };
  const claims = { iss: account.clientEmail, scope, aud: account.tokenUri, iat: issuedAt, exp: issuedAt + TOKEN_LIFETIME_SECONDS };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(account.privateKey);
  return `${unsigned}.${base64url(signature)}`;
}

export interface IssuedToken {
  accessToken: string;
  expiresInSeconds: number;
}

const tokenAnswer = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().positive().optional() }).loose();
const tokenError = z.object({ error: z.string().optional(), error_description: z.string().optional() }).loose();

/**
 * `channel:credentials_refused` when the token endpoint refused the key itself (a 4xx such as
 * invalid_grant: a deleted or revoked key), which disables the channel as a rejected API key does;
 * `channel:token_failed` for anything else (unreachable, a 5xx, an unreadable answer).
 */
const tokenFailure = (account: ServiceAccount, reason: string, cause?: unknown, refused = false): AppError =>
  new AppError(refused ? 'channel:credentials_refused' : 'channel:token_failed', `Vertex AI 获取访问令牌失败 (${account.clientEmail})：${reason}`, {
    status: 500,
    retryable: true,
    type: 'channel_error',
    cause,
  });

/** POSTs the assertion to the account's token_uri (jwt-bearer grant). */
export async function exchangeJwtForToken(account: ServiceAccount, assertion: string): Promise<IssuedToken> {
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString();
  let status: number;
  let text: string;
  try {
    const answer = await request(account.tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    status = answer.statusCode;
    text = (await answer.body.text()).slice(0, 64 * 1024);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw tokenFailure(account, `无法连接令牌服务 (cannot reach the token endpoint${typeof code === 'string' ? `: ${code}` : ''})`, error);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (status !== 200) {
    const parsed = tokenError.safeParse(json);
    const detail = parsed.success ? [parsed.data.error, parsed.data.error_description].filter(Boolean).join(': ') : '';
    throw tokenFailure(account, `HTTP ${status}${detail ? ` ${detail.slice(0, 300)}` : ''}`, undefined, status >= 400 && status < 500 && status !== 429);
  }
  const parsed = tokenAnswer.safeParse(json);
  if (!parsed.success) throw tokenFailure(account, '令牌服务的回答没有 access_token (the answer has no access_token)');
  return { accessToken: parsed.data.access_token, expiresInSeconds: parsed.data.expires_in ?? TOKEN_LIFETIME_SECONDS };
}

type CacheEntry = { kind: 'ready'; token: string; refreshAt: number } | { kind: 'pending'; promise: Promise<string> };

export interface AccessTokenCacheOptions {
  /** Default: the real exchange at the account's token_uri. */
  exchange?: (account: ServiceAccount, assertion: string) => Promise<IssuedToken>;
  now?: () => number;
}

/**
 * Access tokens per service account, kept until 5 minutes before they expire. Concurrent callers
 * for one account share one fetch; a failed fetch is not kept, so the next call tries again.
 */
export class AccessTokenCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly exchange: (account: ServiceAccount, assertion: string) => Promise<IssuedToken>;
  private readonly now: () => number;

  constructor(options: AccessTokenCacheOptions = {}) {
    this.exchange = options.exchange ?? exchangeJwtForToken;
    this.now = options.now ?? Date.now;
  }

  async token(account: ServiceAccount): Promise<string> {
    const key = account.cacheKey;
    const entry = this.entries.get(key);
    if (entry?.kind === 'pending') return entry.promise;
    if (entry?.kind === 'ready' && this.now() < entry.refreshAt) return entry.token;
    const isCurrent = (): boolean => {
      const current = this.entries.get(key);
      return current?.kind === 'pending' && current.promise === promise;
    };
    const promise: Promise<string> = this.fetch(account).then(
      ({ token, refreshAt }) => {
        if (isCurrent()) this.remember(key, { kind: 'ready', token, refreshAt });
        return token;
      },
      (error: unknown) => {
        // A failed fetch is not kept: the next call tries again.
        if (isCurrent()) this.entries.delete(key);
        throw error;
      },
    );
    this.entries.set(key, { kind: 'pending', promise });
    return promise;
  }

  /** Drops an account's token (the upstream refused it). */
  forget(account: ServiceAccount): void {
    this.entries.delete(account.cacheKey);
  }

  /** Drops every token (an upstream refused one and does not say whose). */
  clear(): void {
    this.entries.clear();
  }

  private remember(key: string, entry: CacheEntry): void {
    this.entries.delete(key);
    if (this.entries.size >= MAX_CACHED_ACCOUNTS) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, entry);
  }

  private async fetch(account: ServiceAccount): Promise<{ token: string; refreshAt: number }> {
    const issued = await this.exchange(account, signServiceAccountJwt(account, this.now()));
    return { token: issued.accessToken, refreshAt: this.now() + issued.expiresInSeconds * 1000 - TOKEN_REFRESH_MARGIN_MS };
  }
}
