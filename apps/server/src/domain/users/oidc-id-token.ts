import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { badRequest } from '../../errors/app-error.js';

/** A JWKS key as providers publish it. */
export type Jwk = JsonWebKey & { kid?: string; use?: string; alg?: string };

export interface IdTokenExpectations {
  issuer: string;
  clientId: string;
  /** Unix seconds; defaults to now. */
  now?: number;
}

/** The claims this server reads from a verified ID token. */
export interface IdTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  azp?: string;
  email?: string;
  name?: string;
}

/** Clock difference between us and the provider that is still accepted (seconds). */
const CLOCK_SKEW_SECONDS = 60;

/** JOSE algorithm → node:crypto digest and key type. HS* and `none` are refused on purpose. */
const ALGORITHMS: Record<string, { digest: string; kty: 'RSA' | 'EC' }> = {
  RS256: { digest: 'sha256', kty: 'RSA' },
  RS384: { digest: 'sha384', kty: 'RSA' },
  RS512: { digest: 'sha512', kty: 'RSA' },
  ES256: { digest: 'sha256', kty: 'EC' },
  ES384: { digest: 'sha384', kty: 'EC' },
};

const invalid = (message: string, code: string) => badRequest(message, `oauth:oidc_${code}`);

function decodeSegment(segment: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // handled below
  }
  throw invalid('OIDC ID Token 格式错误', 'id_token_malformed');
}

/** The key that signed the token: by `kid`, or the only key of the right type when the token names none. */
function pickKey(keys: Jwk[], kid: string | undefined, kty: string): Jwk | undefined {
  const usable = keys.filter((key) => key.kty === kty && (key.use === undefined || key.use === 'sig'));
  if (kid !== undefined) return usable.find((key) => key.kid === kid);
  return usable.length === 1 ? usable[0] : undefined;
}

/**
 * Checks an ID token (OpenID Connect Core §3.1.3.7): its signature against the provider's JWKS,
 * then issuer, audience (and azp), and expiry. `loadKeys(true)` must fetch the JWKS again,
 * bypassing any cache, for a provider that has rotated its keys.
 */
export async function verifyIdToken(token: string, expected: IdTokenExpectations, loadKeys: (fresh: boolean) => Promise<Jwk[]>): Promise<IdTokenClaims> {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => part === '')) throw invalid('OIDC ID Token 格式错误', 'id_token_malformed');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeSegment(headerPart);
  const payload = decodeSegment(payloadPart);

  const alg = typeof header.alg === 'string' ? header.alg : '';
  const algorithm = ALGORITHMS[alg];
  if (!algorithm) throw invalid(`OIDC ID Token 的签名算法 ${alg || '(空)'} 不受支持`, 'id_token_alg');
  const kid = typeof header.kid === 'string' ? header.kid : undefined;

  let jwk = pickKey(await loadKeys(false), kid, algorithm.kty);
  if (!jwk) jwk = pickKey(await loadKeys(true), kid, algorithm.kty);
  if (!jwk) throw invalid('OIDC ID Token 的签名密钥不在提供方的 JWKS 中', 'id_token_unknown_key');

  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw invalid('OIDC 提供方的 JWKS 密钥无效', 'jwks_invalid');
  }
  const signed = Buffer.from(`${headerPart}.${payloadPart}`);
  const signature = Buffer.from(signaturePart, 'base64url');
  const valid =
    algorithm.kty === 'EC' ? verify(algorithm.digest, signed, { key, dsaEncoding: 'ieee-p1363' }, signature) : verify(algorithm.digest, signed, key, signature);
  if (!valid) throw invalid('OIDC ID Token 签名无效', 'id_token_signature');

  if (payload.iss !== expected.issuer) throw invalid('OIDC ID Token 的签发者（iss）与提供方不符', 'id_token_issuer');
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audiences.includes(expected.clientId)) throw invalid('OIDC ID Token 的受众（aud）不是本站的 Client ID', 'id_token_audience');
  if (audiences.length > 1 && payload.azp !== undefined && payload.azp !== expected.clientId) {
    throw invalid('OIDC ID Token 的受众（azp）不是本站的 Client ID', 'id_token_audience');
  }
  const now = expected.now ?? Math.floor(Date.now() / 1000);
  if (typeof payload.exp !== 'number' || payload.exp + CLOCK_SKEW_SECONDS < now) throw invalid('OIDC ID Token 已过期，请重新登录', 'id_token_expired');
  if (typeof payload.sub !== 'string' || payload.sub === '') throw invalid('OIDC ID Token 缺少 sub', 'id_token_sub');

  return {
    iss: payload.iss,
    sub: payload.sub,
    aud: payload.aud as string | string[],
    exp: payload.exp,
    azp: typeof payload.azp === 'string' ? payload.azp : undefined,
    email: typeof payload.email === 'string' ? payload.email : undefined,
    name: typeof payload.name === 'string' ? payload.name : undefined,
  };
}
