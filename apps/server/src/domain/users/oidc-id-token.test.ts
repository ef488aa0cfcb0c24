import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyIdToken, type Jwk } from './oidc-id-token.js';

const ISSUER = 'https://idp.example.com';
const CLIENT = 'client-1';
const NOW = 1_800_000_000;

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwkOf = (key: KeyObject, kid: string, extra: Partial<Jwk> = {}): Jwk => ({ ...key.export({ format: 'jwk' }), kid, use: 'sig', ...extra });

const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function token(claims: Record<string, unknown>, options: { alg?: string; kid?: string | null; key?: KeyObject } = {}): string {
  const alg = options.alg ?? 'RS256';
  const header: Record<string, unknown> = { alg, typ: 'JWT' };
  if (options.kid !== null) header.kid = options.kid ?? 'rsa-1';
  const input = `${segment(header)}.${segment({ iss: ISSUER, aud: CLIENT, sub: 'user-1', exp: NOW + 300, iat: NOW, ...claims })}`;
  const signature = alg.startsWith('ES')
    ? sign('sha256', Buffer.from(input), { key: options.key ?? ec.privateKey, dsaEncoding: 'ieee-p1363' })
    : sign('sha256', Buffer.from(input), options.key ?? rsa.privateKey);
  return `${input}.${signature.toString('base64url')}`;
}

/** A JWKS loader that counts calls and can answer a rotated set on a fresh fetch. */
function keys(cached: Jwk[], fresh: Jwk[] = cached) {
  const calls: boolean[] = [];
  const load = async (bypass: boolean) => {
    calls.push(bypass);
    return bypass ? fresh : cached;
  };
  return { load, calls };
}

const expected = { issuer: ISSUER, clientId: CLIENT, now: NOW };

describe('verifyIdToken', () => {
  it('accepts an RS256 and an ES256 token signed by a JWKS key, answering the claims', async () => {
    const set = keys([jwkOf(rsa.publicKey, 'rsa-1'), jwkOf(ec.publicKey, 'ec-1')]);
    expect(await verifyIdToken(token({ email: 'a@b.c' }), expected, set.load)).toMatchObject({ sub: 'user-1', iss: ISSUER, email: 'a@b.c' });
    expect((await verifyIdToken(token({}, { alg: 'ES256', kid: 'ec-1' }), expected, set.load)).sub).toBe('user-1');
    expect(set.calls).toEqual([false, false]);
  });

  it('fetches the JWKS again once for a key it does not know (rotation), and refuses a key still unknown', async () => {
    const rotated = keys([jwkOf(ec.publicKey, 'old')], [jwkOf(rsa.publicKey, 'rsa-1')]);
    expect((await verifyIdToken(token({}), expected, rotated.load)).sub).toBe('user-1');
    expect(rotated.calls).toEqual([false, true]);
    const never = keys([jwkOf(rsa.publicKey, 'other')]);
    await expect(verifyIdToken(token({}), expected, never.load)).rejects.toThrow('OIDC ID Token 的签名密钥不在提供方的 JWKS 中');
  });

  it('takes the only key of the right type when the token names no kid', async () => {
    const set = keys([jwkOf(rsa.publicKey, 'only'), jwkOf(ec.publicKey, 'ec')]);
    expect((await verifyIdToken(token({}, { kid: null }), expected, set.load)).sub).toBe('user-1');
  });

  it('refuses a forged or altered signature, none and HMAC algorithms, and malformed tokens', async () => {
    const set = keys([jwkOf(rsa.publicKey, 'rsa-1')]);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    await expect(verifyIdToken(token({}, { key: other }), expected, set.load)).rejects.toThrow('OIDC ID Token 签名无效');
    const [header, , signature] = token({}).split('.');
    const altered = `${header}.${segment({ iss: ISSUER, aud: CLIENT, sub: 'admin', exp: NOW + 300 })}.${signature}`;
    await expect(verifyIdToken(altered, expected, set.load)).rejects.toThrow('OIDC ID Token 签名无效');
    const unsigned = `${segment({ alg: 'none' })}.${segment({ iss: ISSUER, aud: CLIENT, sub: 'x', exp: NOW + 1 })}.`;
    await expect(verifyIdToken(unsigned, expected, set.load)).rejects.toThrow('OIDC ID Token 格式错误');
    const none = `${segment({ alg: 'none' })}.${segment({ sub: 'x' })}.c2ln`;
    await expect(verifyIdToken(none, expected, set.load)).rejects.toThrow('OIDC ID Token 的签名算法 none 不受支持');
    await expect(verifyIdToken(token({}, { alg: 'HS256' }), expected, set.load)).rejects.toThrow('OIDC ID Token 的签名算法 HS256 不受支持');
    await expect(verifyIdToken('abc.def', expected, set.load)).rejects.toThrow('OIDC ID Token 格式错误');
    await expect(verifyIdToken('!!.!!.!!', expected, set.load)).rejects.toThrow('OIDC ID Token 格式错误');
  });

  it('checks issuer, audience (with azp), expiry within a minute of skew, and sub', async () => {
    const set = keys([jwkOf(rsa.publicKey, 'rsa-1')]);
    const verify = (claims: Record<string, unknown>) => verifyIdToken(token(claims), expected, set.load);
    await expect(verify({ iss: 'https://other.example.com' })).rejects.toThrow('OIDC ID Token 的签发者（iss）与提供方不符');
    await expect(verify({ aud: 'client-2' })).rejects.toThrow('OIDC ID Token 的受众（aud）不是本站的 Client ID');
    expect((await verify({ aud: ['client-2', CLIENT], azp: CLIENT })).sub).toBe('user-1');
    await expect(verify({ aud: ['client-2', CLIENT], azp: 'client-2' })).rejects.toThrow('OIDC ID Token 的受众（azp）不是本站的 Client ID');
    expect((await verify({ exp: NOW - 30 })).sub).toBe('user-1');
    await expect(verify({ exp: NOW - 61 })).rejects.toThrow('OIDC ID Token 已过期，请重新登录');
    await expect(verify({ exp: undefined })).rejects.toThrow('OIDC ID Token 已过期，请重新登录');
    await expect(verify({ sub: '' })).rejects.toThrow('OIDC ID Token 缺少 sub');
  });
});
