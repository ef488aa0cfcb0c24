import { ChannelType, passkeyCeremonySchema, passkeyStatusSchema, Role } from '@modelgate/contract';
import type { InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { SoftAuthenticator } from '../../test-support/soft-authenticator.js';
import { sessionCookieOf, startTestApp, type TestApp } from '../../test-support/test-app.js';

/*
 * Issue 28, passkeys: the real WebAuthn ceremonies (SimpleWebAuthn on the server) driven by a
 * software authenticator, through the routes new-api's console calls.
 */

interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  code?: string;
  data?: T;
}
type Headers = Record<string, string>;
type Ceremony = { options: { publicKey: Record<string, unknown> & { challenge: string } } };

const HOST = 'localhost:3000';
const ORIGIN = `http://${HOST}`;
const PASSWORD = 'password123';

let test: TestApp;
let fresh: FreshDb | undefined;
afterEach(async () => {
  await test?.close();
  await fresh?.drop();
  fresh = undefined;
});

async function start(dialect: 'sqlite' | 'postgres' | 'mysql' = 'sqlite'): Promise<void> {
  if (dialect === 'sqlite') {
    test = await startTestApp();
    return;
  }
  fresh = await createFreshDb(dialect, { migrate: false });
  test = await startTestApp({ SQL_DSN: fresh.sqlDsn });
}

async function call<T = unknown>(method: InjectOptions['method'], url: string, headers: Headers = {}, payload?: object) {
  const response = await test.app.inject({ method, url, headers: { host: HOST, ...headers }, ...(payload ? { payload } : {}) });
  return { response, body: response.json() as Envelope<T> };
}

async function addUser(username: string, role: number = Role.Common): Promise<Headers> {
  await test.context.users.repository.insert({ username, password: await hashPassword(PASSWORD), display_name: username, role });
  return test.login(username, PASSWORD);
}

async function verifyWithPassword(headers: Headers, password: string) {
  return (await call('POST', '/api/verify', headers, { method: 'password', password })).body;
}

async function verifyWithPasskey(headers: Headers, authenticator: SoftAuthenticator, credentialId?: string) {
  const begun = await call<Ceremony>('POST', '/api/user/passkey/verify/begin', headers);
  expect(begun.body.success, begun.body.message).toBe(true);
  const assertion = authenticator.assert(begun.body.data!.options.publicKey as never, { credentialId });
  return (await call('POST', '/api/user/passkey/verify/finish', headers, assertion)).body;
}

/** Adds a passkey through begin and finish; the session must be freshly verified. */
async function register(headers: Headers, authenticator: SoftAuthenticator, name: string) {
  const begun = await call<Ceremony>('POST', '/api/user/passkey/register/begin', headers, { name });
  if (!begun.body.success) return begun.body;
  const credential = authenticator.register(begun.body.data!.options.publicKey as never);
  return (await call('POST', '/api/user/passkey/register/finish', headers, credential)).body;
}

async function beginLogin() {
  const begun = await call<Ceremony>('POST', '/api/user/passkey/login/begin');
  expect(begun.body.success, begun.body.message).toBe(true);
  return begun.body.data!.options.publicKey;
}

/** Signs in with a passkey: answers the envelope and, on success, the new session's headers. */
async function signIn(authenticator: SoftAuthenticator, credentialId: string) {
  const assertion = authenticator.assert((await beginLogin()) as never, { credentialId });
  const finished = await call<{ id: number; username: string }>('POST', '/api/user/passkey/login/finish', {}, assertion);
  const headers = finished.body.success ? { cookie: sessionCookieOf(finished.response), 'new-api-user': String(finished.body.data!.id) } : undefined;
  return { body: finished.body, headers };
}

const listOf = async (headers: Headers) =>
  (await call<{ enabled: boolean; passkeys: { id: number; name: string; last_used_at: number }[] }>('GET', '/api/user/passkey', headers)).body.data!;

const dialects = (['sqlite', 'postgres', 'mysql'] as const).filter(
  (dialect) => dialect === 'sqlite' || (dialect === 'postgres' ? process.env.MODELGATE_TEST_PG : process.env.MODELGATE_TEST_MYSQL),
);

describe.each(dialects)('passkeys on %s', (dialect) => {
  it('adds two passkeys after a fresh verification, signs in with each without a password, and removes one', async () => {
    await start(dialect);
    const alice = await addUser('alice');
    const authenticator = new SoftAuthenticator(ORIGIN);

    const refused = await register(alice, authenticator, 'laptop');
    expect(refused).toMatchObject({ success: false, code: 'VERIFICATION_REQUIRED' });
    expect(authenticator.credentials).toHaveLength(0);

    expect((await verifyWithPassword(alice, PASSWORD)).success).toBe(true);
    expect(await register(alice, authenticator, 'laptop')).toMatchObject({ success: true, message: 'Passkey 注册成功' });
    // With a passkey the password no longer re-verifies: the passkey does.
    expect((await call<{ methods: string[] }>('GET', '/api/verify/status', alice)).body.data!.methods).toEqual(['passkey']);
    const passwordAgain = await verifyWithPassword(alice, PASSWORD);
    expect(passwordAgain).toMatchObject({ success: false, message: '你已启用两步验证或通行密钥，请使用它们验证' });
    expect(await verifyWithPasskey(alice, authenticator)).toMatchObject({ success: true, data: { verified: true, method: 'passkey' } });
    expect((await call('POST', '/api/verify', alice, { method: 'passkey' })).body).toMatchObject({ success: true, data: { method: 'passkey' } });
    expect(await register(alice, authenticator, 'phone')).toMatchObject({ success: true });

    const listed = await listOf(alice);
    expect(listed.enabled).toBe(true);
    // The contract's strict schemas describe what the routes answer, rows included.
    expect(passkeyStatusSchema.safeParse(listed).error).toBeUndefined();
    expect(passkeyCeremonySchema.safeParse((await call('POST', '/api/user/passkey/login/begin')).body.data).error).toBeUndefined();
    expect(listed.passkeys.map((passkey) => passkey.name).sort()).toEqual(['laptop', 'phone']);
    const [laptop, phone] = authenticator.credentials;

    for (const credential of [laptop!, phone!]) {
      const { body, headers } = await signIn(authenticator, credential.id);
      expect(body).toMatchObject({ success: true, message: '登录成功！', data: { username: 'alice' } });
      const self = await call<{ username: string }>('GET', '/api/user/self', headers);
      expect(self.body.data!.username).toBe('alice');
    }
    expect((await listOf(alice)).passkeys.every((passkey) => passkey.last_used_at > 0)).toBe(true);

    // Removing one needs a fresh verification too; the removed one no longer signs in, the other does.
    const phoneRow = (await listOf(alice)).passkeys.find((passkey) => passkey.name === 'phone')!;
    const second = await test.login('alice', PASSWORD);
    expect((await call('DELETE', `/api/user/passkey?id=${phoneRow.id}`, second)).body).toMatchObject({ success: false, code: 'VERIFICATION_REQUIRED' });
    expect((await verifyWithPasskey(second, authenticator, laptop!.id)).success).toBe(true);
    expect((await call('DELETE', `/api/user/passkey?id=${phoneRow.id}`, second)).body).toMatchObject({ success: true });
    expect((await listOf(alice)).passkeys.map((passkey) => passkey.name)).toEqual(['laptop']);
    const removed = await signIn(authenticator, phone!.id);
    expect(removed.body.success).toBe(false);
    expect(removed.body.message).toContain('Passkey 验证失败');
    expect((await signIn(authenticator, laptop!.id)).body.success).toBe(true);
  });
});

describe('passkey ceremonies refuse', () => {
  async function aliceWithPasskey() {
    await start();
    const alice = await addUser('alice');
    const authenticator = new SoftAuthenticator(ORIGIN);
    await verifyWithPassword(alice, PASSWORD);
    expect((await register(alice, authenticator, 'laptop')).success).toBe(true);
    return { alice, authenticator, credential: authenticator.credentials[0]! };
  }

  it('a replayed signature counter', async () => {
    const { authenticator, credential } = await aliceWithPasskey();
    expect((await signIn(authenticator, credential.id)).body.success).toBe(true);
    const used = credential.counter;
    const replay = authenticator.assert((await beginLogin()) as never, { credentialId: credential.id, counter: used });
    const answer = await call('POST', '/api/user/passkey/login/finish', {}, replay);
    expect(answer.body.success).toBe(false);
    expect(answer.body.message).toMatch(/^通行密钥验证失败：.*counter/i);
    expect(answer.response.cookies.find((cookie) => cookie.name === 'session')).toBeUndefined();
  });

  it('an assertion made for another origin', async () => {
    const { authenticator, credential } = await aliceWithPasskey();
    const phished = authenticator.assert((await beginLogin()) as never, { credentialId: credential.id, origin: 'https://evil.example' });
    const answer = await call('POST', '/api/user/passkey/login/finish', {}, phished);
    expect(answer.body.success).toBe(false);
    expect(answer.body.message).toContain('https://evil.example');
  });

  it('a challenge used twice, and a verification finished in another session', async () => {
    const { alice, authenticator, credential } = await aliceWithPasskey();
    const options = (await beginLogin()) as never;
    const assertion = authenticator.assert(options, { credentialId: credential.id });
    expect((await call('POST', '/api/user/passkey/login/finish', {}, assertion)).body.success).toBe(true);
    // A second assertion over the same challenge, with a counter that moved on: only the challenge is stale.
    const again = await call('POST', '/api/user/passkey/login/finish', {}, authenticator.assert(options, { credentialId: credential.id }));
    expect(again.body.success).toBe(false);
    expect(again.body.message).toMatch(/^通行密钥验证失败：.*challenge/i);
    expect(again.response.cookies.find((cookie) => cookie.name === 'session')).toBeUndefined();

    // A verification's challenge belongs to the session that began it.
    const other = await test.login('alice', PASSWORD);
    const begun = await call<Ceremony>('POST', '/api/user/passkey/verify/begin', alice);
    const proof = authenticator.assert(begun.body.data!.options.publicKey as never);
    expect((await call('POST', '/api/user/passkey/verify/finish', other, proof)).body.success).toBe(false);
    expect((await call<{ verified: boolean }>('GET', '/api/verify/status', other)).body.data!.verified).toBe(false);
  });

  it('everything once an administrator turns passkeys off; the password verifies again', async () => {
    const { alice, authenticator, credential } = await aliceWithPasskey();
    await test.context.options.set('passkey.enabled', 'false');
    expect((await call<{ passkey_login: boolean }>('GET', '/api/status')).body.data!.passkey_login).toBe(false);
    const begin = await call('POST', '/api/user/passkey/login/begin');
    expect(begin.body).toMatchObject({ success: false, message: '管理员未启用 Passkey 登录' });
    await test.context.options.set('passkey.enabled', 'true');
    const options = await beginLogin();
    await test.context.options.set('passkey.enabled', 'false');
    const finish = await call('POST', '/api/user/passkey/login/finish', {}, authenticator.assert(options as never, { credentialId: credential.id }));
    expect(finish.body).toMatchObject({ success: false, message: '管理员未启用 Passkey 登录' });
    expect((await verifyWithPassword(alice, PASSWORD)).success).toBe(true);
  });
});

describe('passkeys and secrets', () => {
  it("a root's passkey verification lets it read a channel's key", async () => {
    await start();
    const root = await test.login();
    const authenticator = new SoftAuthenticator(ORIGIN);
    await verifyWithPassword(root, '123456');
    expect((await register(root, authenticator, 'key')).success).toBe(true);
    const created = await call('POST', '/api/channel/', root, {
      mode: 'single',
      channel: { name: 'c1', type: ChannelType.OpenAI, key: 'sk-upstream-secret-9', models: 'gpt-4o', group: 'default' },
    });
    expect(created.body.success).toBe(true);
    const id = Number((await test.context.db.kysely.selectFrom('channels').select('id').executeTakeFirstOrThrow()).id);

    const later = await test.login();
    expect((await call('POST', `/api/channel/${id}/key`, later)).body.code).toBe('VERIFICATION_REQUIRED');
    expect((await verifyWithPassword(later, '123456')).success).toBe(false);
    expect((await verifyWithPasskey(later, authenticator)).success).toBe(true);
    expect((await call('POST', `/api/channel/${id}/key`, later)).body).toMatchObject({ success: true, data: { key: 'sk-upstream-secret-9' } });
  });

  it('an administrator resets the passkeys of a user below it, not of the root; the root resets anyone', async () => {
    await start();
    const root = await test.login();
    const admin = await addUser('admin1', Role.Admin);
    const alice = await addUser('alice');
    const authenticator = new SoftAuthenticator(ORIGIN);
    for (const headers of [alice, root]) {
      await verifyWithPassword(headers, headers === root ? '123456' : PASSWORD);
      expect((await register(headers, authenticator, 'k')).success).toBe(true);
    }
    const aliceId = Number(alice['new-api-user']);
    expect((await call('DELETE', '/api/user/1/reset_passkey', admin)).body).toMatchObject({
      success: false,
      message: '无权更新同权限等级或更高权限等级的用户信息',
    });
    expect((await call('DELETE', `/api/user/${aliceId}/reset_passkey`, alice)).body).toMatchObject({ success: false, message: '无权进行此操作，权限不足' });
    expect((await call('DELETE', `/api/user/${aliceId}/reset_passkey`, admin)).body).toMatchObject({ success: true, message: 'Passkey 已重置' });
    expect((await listOf(alice)).enabled).toBe(false);
    expect((await signIn(authenticator, authenticator.credentials[0]!.id)).body.success).toBe(false);
    expect((await call('DELETE', `/api/user/${aliceId}/reset_passkey`, admin)).body).toMatchObject({ success: false, message: '该用户尚未绑定 Passkey' });
    expect((await call('DELETE', '/api/user/1/reset_passkey', root)).body.success).toBe(true);
  });
});
