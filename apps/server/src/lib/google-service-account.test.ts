import { createPublicKey, createVerify, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockVertex, type MockVertex } from '../providers/vertex/testing/mock-vertex.js';
import { AppError } from '../errors/app-error.js';
import { AccessTokenCache, DEFAULT_TOKEN_URI, exchangeJwtForToken, parseServiceAccount, signServiceAccountJwt } from './google-service-account.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_PEM = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const KEY_BODY_LINE = PRIVATE_PEM.split('\n')[1]!;

const keyJson = (fields: Record<string, unknown>): string =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'p1',
    private_key: PRIVATE_PEM,
    client_email: 'a@p1.iam.gserviceaccount.com',
    token_uri: 'https://oauth2.googleapis.com/token',
    ...fields,
  });

function errorOf(action: () => unknown): AppError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an error');
}

describe('service-account keys', () => {
  it('reads the fields Google’s key files have; token_uri defaults to Google’s', () => {
    const account = parseServiceAccount(keyJson({ private_key_id: 'kid1', token_uri: undefined }));
    expect(account).toMatchObject({ projectId: 'p1', clientEmail: 'a@p1.iam.gserviceaccount.com', privateKeyId: 'kid1', tokenUri: DEFAULT_TOKEN_URI });
    expect(account.cacheKey).not.toContain(KEY_BODY_LINE);
  });

  it('takes a private key whose newlines were pasted as \\n', () => {
    expect(parseServiceAccount(keyJson({ private_key: PRIVATE_PEM.replace(/\n/g, '\\n') })).projectId).toBe('p1');
  });

  it('says what is wrong with a bad key, without quoting it', () => {
    expect(errorOf(() => parseServiceAccount('{not json')).message).toContain('not valid JSON');
    expect(errorOf(() => parseServiceAccount(keyJson({ project_id: undefined, client_email: '' }))).message).toContain('missing project_id, client_email');
    expect(errorOf(() => parseServiceAccount(keyJson({ type: 'authorized_user' }))).message).toContain('service_account');
    const broken = errorOf(() => parseServiceAccount(keyJson({ private_key: PRIVATE_PEM.replace(KEY_BODY_LINE, 'AAAA') })));
    expect(broken.message).toContain('private_key is not a PEM private key');
    expect(broken.message).not.toContain(PRIVATE_PEM.split('\n')[2]!);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(errorOf(() => parseServiceAccount(keyJson({ private_key: ec }))).message).toContain('not an RSA key');
  });

  it('signs an RS256 JWT with the claims Google’s token endpoint asks for', () => {
    const account = parseServiceAccount(keyJson({ private_key_id: 'kid1' }));
    const jwt = signServiceAccountJwt(account, Date.parse('2025-01-01T00:00:00Z'));
    const [header, claims, signature] = jwt.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'kid1' });
    expect(JSON.parse(Buffer.from(claims, 'base64url').toString())).toEqual({
      iss: 'a@p1.iam.gserviceaccount.com',
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: 'https://oauth2.googleapis.com/token',
      iat: 1735689600,
      exp: 1735693200,
    });
    expect(createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(createPublicKey(rsa.privateKey), Buffer.from(signature, 'base64url'))).toBe(true);
  });
});

describe('access tokens from the (mock) token endpoint', () => {
  let mock: MockVertex;
  beforeAll(async () => {
    mock = await startMockVertex();
  });
  afterAll(() => mock.close());

  it('many calls, one fetch; the token is the one the endpoint issued', async () => {
    const cache = new AccessTokenCache();
    const account = parseServiceAccount(mock.serviceAccountKey);
    const before = mock.tokenRequests.length;
    const first = await cache.token(account);
    for (let index = 0; index < 5; index += 1) expect(await cache.token(account)).toBe(first);
    expect(mock.tokenRequests.length - before).toBe(1);
    expect(mock.tokenRequests.at(-1)?.issued).toBe(first);
  });

  it('concurrent calls share one fetch', async () => {
    const cache = new AccessTokenCache();
    const account = parseServiceAccount(mock.serviceAccountKey);
    const before = mock.tokenRequests.length;
    const tokens = await Promise.all(Array.from({ length: 10 }, () => cache.token(account)));
    expect(new Set(tokens).size).toBe(1);
    expect(mock.tokenRequests.length - before).toBe(1);
  });

  it('a token is replaced 5 minutes before it expires, not sooner', async () => {
    // The cache's clock starts 57 minutes back, so every assertion it signs is still one the endpoint accepts.
    let now = Date.now() - 57 * 60_000;
    const cache = new AccessTokenCache({ now: () => now });
    const account = parseServiceAccount(mock.serviceAccountKey);
    mock.setTokenExpiresIn(3600);
    const first = await cache.token(account);
    now += 54 * 60_000;
    expect(await cache.token(account)).toBe(first);
    now += 2 * 60_000;
    const second = await cache.token(account);
    expect(second).not.toBe(first);
    mock.setTokenExpiresIn(3599);
  });

  it('a failing token endpoint gives a clear error, is not cached, and quotes neither key nor assertion', async () => {
    const cache = new AccessTokenCache();
    const account = parseServiceAccount(mock.serviceAccountKey);
    mock.setTokenFailure({ status: 400, error: 'invalid_grant', description: 'Invalid JWT Signature.' });
    let failure: unknown;
    try {
      await cache.token(account);
    } catch (error) {
      failure = error;
    }
    mock.setTokenFailure(undefined);
    expect(failure).toBeInstanceOf(AppError);
    const message = (failure as AppError).message;
    expect(message).toContain('HTTP 400 invalid_grant: Invalid JWT Signature.');
    expect(message).toContain(mock.clientEmail);
    expect(message).not.toMatch(/BEGIN|eyJ/);
    await expect(cache.token(account)).resolves.toMatch(/^ya29\.mock-/);
  });

  it('the endpoint refuses an assertion signed with another key (the mock checks the signature)', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const forged = parseServiceAccount(JSON.stringify({ ...JSON.parse(mock.serviceAccountKey), private_key: other }));
    await expect(exchangeJwtForToken(forged, signServiceAccountJwt(forged, Date.now()))).rejects.toThrow(/Invalid JWT Signature/);
  });

  it('an unreachable endpoint is a clear error', async () => {
    const account = parseServiceAccount(JSON.stringify({ ...JSON.parse(mock.serviceAccountKey), token_uri: 'http://127.0.0.1:9/token' }));
    await expect(new AccessTokenCache().token(account)).rejects.toThrow(/cannot reach the token endpoint/);
  });
});
