import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UserStatus } from '@modelgate/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { startFakeOidcProvider, type FakeOidcAccount, type FakeOidcProvider } from '../../test-support/fake-oidc-provider.js';
import { sessionCookieOf, startTestApp, type TestApp } from '../../test-support/test-app.js';

interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}
type Headers = Record<string, string>;
type LoginData = { id: number; username: string; display_name: string };

const PASSWORD = 'password123';
const SERVER_ADDRESS = 'https://gate.example.com';

let provider: FakeOidcProvider;
let test: TestApp;
/** Every body the server answered in a test, to check the client secret never leaves it. */
let answered: string[];

beforeAll(async () => {
  provider = await startFakeOidcProvider();
});
afterAll(() => provider.close());

beforeEach(async () => {
  test = await startTestApp();
  answered = [];
  provider.faults = {};
  const { options } = test.context;
  await options.set('ServerAddress', SERVER_ADDRESS);
  await options.set('oidc.enabled', 'true');
  await options.set('oidc.client_id', provider.client.id);
  await options.set('oidc.client_secret', provider.client.secret);
  await options.set('oidc.well_known', provider.wellKnown);
  await options.set('oidc.authorization_endpoint', provider.endpoints.authorization);
  await options.set('oidc.token_endpoint', provider.endpoints.token);
  await options.set('oidc.user_info_endpoint', provider.endpoints.userInfo);
  return async () => {
    for (const body of answered) expect(body).not.toContain(provider.client.secret);
    await test.close();
  };
});

async function call<T = unknown>(method: 'GET' | 'PUT' | 'POST', url: string, headers: Headers = {}, payload?: unknown) {
  const response = await test.app.inject({ method, url, headers, payload: payload as Record<string, unknown> | undefined });
  answered.push(response.body);
  return { status: response.statusCode, body: response.json() as Envelope<T>, response };
}

async function addUser(username: string, extra: Record<string, unknown> = {}): Promise<number> {
  return test.context.users.repository.insert({ username, password: await hashPassword(PASSWORD), display_name: username, ...extra });
}

/** What the console's /oauth/oidc page does: a state from /api/oauth/state, then the callback with the provider's code. */
async function finishOidc(code: string, options: { aff?: string; session?: Headers; state?: string } = {}) {
  const started = await test.app.inject({ method: 'GET', url: `/api/oauth/state${options.aff ? `?aff=${options.aff}` : ''}` });
  const state = (started.json() as Envelope<string>).data!;
  const cookie = started.cookies.find((candidate) => candidate.name === 'oauth_state')!;
  const headers: Headers = { cookie: [`oauth_state=${cookie.value}`, options.session?.cookie].filter(Boolean).join('; ') };
  if (options.session) headers['new-api-user'] = options.session['new-api-user']!;
  return call<LoginData>('GET', `/api/oauth/oidc?code=${code}&state=${options.state ?? state}`, headers);
}

/** A code the fake provider will accept once, for `redirect_uri` as our server sends it. */
function issueCode(code: string, account: FakeOidcAccount) {
  provider.codes.set(code, { account, redirectUri: `${SERVER_ADDRESS}/oauth/oidc` });
  return code;
}

describe('OIDC options and status', () => {
  it('stores the oidc.* keys through PUT /api/option/, never answers the secret, and shows the status fields', async () => {
    const root = await test.login();
    const put = (key: string, value: string) => call('PUT', '/api/option/', root, { key, value });
    expect((await put('oidc.client_id', 'console-client')).body).toMatchObject({ success: true });
    expect((await put('oidc.client_secret', 'written-only-secret')).body).toMatchObject({ success: true });
    expect((await put('oidc.token_endpoint', 'https://idp.example.com/token/')).body).toMatchObject({ success: true });
    expect(test.context.options.raw('oidc.client_secret')).toBe('written-only-secret');

    const listed = await call<{ key: string; value: string }[]>('GET', '/api/option/', root);
    const values = Object.fromEntries(listed.body.data!.map((option) => [option.key, option.value]));
    expect(values).toMatchObject({ 'oidc.client_id': 'console-client', 'oidc.token_endpoint': 'https://idp.example.com/token', 'oidc.enabled': 'true' });
    expect(values).not.toHaveProperty('oidc.client_secret');
    expect(JSON.stringify(listed.body)).not.toContain('written-only-secret');

    for (const bad of ['javascript:alert(1)', 'ftp://idp.example.com/token', 'idp.example.com/token']) {
      const refused = await put('oidc.user_info_endpoint', bad);
      expect(refused.body).toEqual({ success: false, message: 'oidc.user_info_endpoint 必须是以 http:// 或 https:// 开头的地址' });
    }
    expect((await put('oidc.user_info_endpoint', '')).body.success).toBe(true);

    await put('oidc.authorization_endpoint', 'https://idp.example.com/auth');
    const status = await call<Record<string, unknown>>('GET', '/api/status');
    expect(status.body.data).toMatchObject({
      oidc_enabled: true,
      oidc_client_id: 'console-client',
      oidc_authorization_endpoint: 'https://idp.example.com/auth',
    });
    expect(status.response.body).not.toContain('written-only-secret');
  });

  it('reads the endpoints from the discovery document for the super administrator only', async () => {
    const root = await test.login();
    const found = await call('POST', '/api/oauth/oidc/discovery', root, { well_known: provider.wellKnown });
    expect(found.body).toEqual({
      success: true,
      message: '',
      data: {
        issuer: provider.issuer,
        authorization_endpoint: provider.endpoints.authorization,
        token_endpoint: provider.endpoints.token,
        user_info_endpoint: provider.endpoints.userInfo,
        jwks_uri: provider.endpoints.jwks,
      },
    });
    expect((await call('POST', '/api/oauth/oidc/discovery', root, { well_known: 'file:///etc/passwd' })).body).toMatchObject({
      success: false,
      message: 'Well-Known URL 必须以 http:// 或 https:// 开头',
    });
    const empty = await call('POST', '/api/oauth/oidc/discovery', root, {});
    expect(empty.body.success).toBe(false);
    expect(empty.body.message).toContain('请填写 Well-Known URL');
    expect((await call('POST', '/api/oauth/oidc/discovery', root, { well_known: `${provider.issuer}/nothing-here` })).body).toMatchObject({
      success: false,
      message: '获取 OIDC 配置失败，请检查网络状况和 Well-Known URL 是否正确',
    });

    await addUser('plain');
    const plain = await test.login('plain', PASSWORD);
    const refused = await call('POST', '/api/oauth/oidc/discovery', plain, { well_known: provider.wellKnown });
    // new-api's rule: a missing role is a failed call (200), a missing session is 401.
    expect(refused.status).toBe(200);
    expect(refused.body.success).toBe(false);
    expect((await call('POST', '/api/oauth/oidc/discovery', {}, { well_known: provider.wellKnown })).status).toBe(401);
  });
});

describe('OIDC sign-in', () => {
  it('registers on the first sign-in with the provider name, signs the same account in later, and credits the inviter', async () => {
    await test.context.options.set('QuotaForInviter', '7');
    const inviterId = await addUser('host', { aff_code: 'HOST' });
    const first = await finishOidc(issueCode('c1', { sub: 'sub-alice', email: 'Alice@IdP.test', name: 'Alice A.', preferred_username: 'alice' }), {
      aff: 'HOST',
    });
    expect(first.body).toMatchObject({ success: true, message: '登录成功！', data: { username: 'alice', display_name: 'Alice A.' } });
    const created = (await test.context.users.repository.findById(first.body.data!.id))!;
    expect(created).toMatchObject({ oidc_id: 'sub-alice', email: 'alice@idp.test', password: '', inviter_id: inviterId });
    expect(await test.context.users.repository.findById(inviterId)).toMatchObject({ aff_count: 1, aff_quota: 7 });

    // The token request carried our client and the redirect_uri registered at the provider.
    const exchange = provider.seen.filter((request) => request.path === '/token').at(-1)!;
    expect(exchange.form).toEqual({
      grant_type: 'authorization_code',
      code: 'c1',
      redirect_uri: `${SERVER_ADDRESS}/oauth/oidc`,
      client_id: provider.client.id,
      client_secret: provider.client.secret,
    });
    const session = { cookie: sessionCookieOf(first.response), 'new-api-user': String(created.id) };
    expect((await call('GET', '/api/user/self', session)).body.data).toMatchObject({ username: 'alice', oidc_id: 'sub-alice' });

    const second = await finishOidc(issueCode('c2', { sub: 'sub-alice', preferred_username: 'alice-renamed' }));
    expect(second.body).toMatchObject({ success: true, data: { id: created.id } });
    expect(await test.context.users.repository.count()).toBe(3);
  });

  it('falls back to oidc_<id> when the suggested name breaks the sign-up rules or is taken', async () => {
    await addUser('taken');
    for (const [index, preferred] of ['taken', 'a-name-far-too-long', 'mail@x.io', ''].entries()) {
      const answer = await finishOidc(issueCode(`n${index}`, { sub: `sub-n${index}`, preferred_username: preferred }));
      expect(answer.body.success).toBe(true);
      expect(answer.body.data!.username).toMatch(/^oidc_\d+$/);
      expect(answer.body.data!.display_name).toBe(preferred || 'OIDC User');
    }
  });

  it('binds to the signed-in user and refuses a sub bound to someone else', async () => {
    const id = await addUser('binder');
    const session = await test.login('binder', PASSWORD);
    const bound = await finishOidc(issueCode('b1', { sub: 'sub-bind' }), { session });
    expect(bound.body).toEqual({ success: true, message: 'bind' });
    expect((await test.context.users.repository.findById(id))!.oidc_id).toBe('sub-bind');

    await addUser('other');
    const other = await test.login('other', PASSWORD);
    const taken = await finishOidc(issueCode('b2', { sub: 'sub-bind' }), { session: other });
    expect(taken.body).toEqual({ success: false, message: '该 OIDC 账户已被绑定' });
    // Binding one's own sub again is fine.
    expect((await finishOidc(issueCode('b3', { sub: 'sub-bind' }), { session })).body.message).toBe('bind');
  });

  it('signs an unbound account into the user with the same email only when the provider verified it, as new-api links them', async () => {
    const owner = await addUser('mailowner', { email: 'owner@idp.test' });
    const unverified = await finishOidc(issueCode('e1', { sub: 'sub-unverified', email: 'Owner@IdP.test', email_verified: false }));
    expect(unverified.body.success).toBe(true);
    expect(unverified.body.data!.id).not.toBe(owner);
    // The new account does not get an address another user holds.
    expect((await test.context.users.repository.findById(unverified.body.data!.id))!.email).toBe('');

    const verified = await finishOidc(issueCode('e2', { sub: 'sub-verified', email: 'Owner@IdP.test', email_verified: true }));
    expect(verified.body).toMatchObject({ success: true, data: { id: owner } });
    expect((await test.context.users.repository.findById(owner))!.oidc_id).toBe('sub-verified');

    const another = await finishOidc(issueCode('e3', { sub: 'sub-third', email: 'owner@idp.test', email_verified: true }));
    expect(another.body).toEqual({ success: false, message: '该邮箱对应的账户已绑定其他 OIDC 账户' });
  });

  it('works without an ID token (userinfo only), as new-api does', async () => {
    provider.faults = { omitIdToken: true };
    const answer = await finishOidc(issueCode('plain', { sub: 'sub-plain', name: 'Plain' }));
    expect(answer.body).toMatchObject({ success: true, data: { display_name: 'Plain' } });
  });

  it('refuses a bad state, a bad code and a bad ID token with clear messages, creating no user', async () => {
    const before = await test.context.users.repository.count();
    const forged = await finishOidc(issueCode('s1', { sub: 'x' }), { state: 'forged' });
    expect(forged).toMatchObject({ status: 200, body: { success: false, message: 'state is empty or not same' } });
    expect((await call('GET', '/api/oauth/oidc?code=s1&state=')).body).toEqual({ success: false, message: 'state is empty or not same' });

    expect((await finishOidc('never-issued')).body).toEqual({ success: false, message: 'OIDC 获取 Token 失败：authorization code is invalid or used' });

    const cases: [FakeOidcProvider['faults'], string][] = [
      [{ foreignKey: true }, 'OIDC ID Token 签名无效'],
      [{ audience: 'someone-else' }, 'OIDC ID Token 的受众（aud）不是本站的 Client ID'],
      [{ expiresIn: -600 }, 'OIDC ID Token 已过期，请重新登录'],
      [{ issuer: 'https://impostor.example.com' }, 'OIDC ID Token 的签发者（iss）与提供方不符'],
      [{ alg: 'HS256' }, 'OIDC ID Token 的签名算法 HS256 不受支持'],
      [{ sub: 'another-sub' }, 'OIDC 用户信息与 ID Token 不属于同一账户'],
    ];
    for (const [index, [faults, message]] of cases.entries()) {
      provider.faults = faults;
      const refused = await finishOidc(issueCode(`f${index}`, { sub: 'sub-fault' }));
      expect(refused.status).toBe(200);
      expect(refused.body).toEqual({ success: false, message });
    }
    expect(await test.context.users.repository.count()).toBe(before);
  });

  it('refuses when switched off, when registration is closed, for banned users, and with a wrong client secret', async () => {
    const { options } = test.context;
    await options.set('oidc.enabled', 'false');
    expect((await finishOidc(issueCode('o1', { sub: 'off' }))).body).toEqual({ success: false, message: '管理员未开启通过 OIDC 登录以及注册' });
    await options.set('oidc.enabled', 'true');

    await options.set('RegisterEnabled', 'false');
    expect((await finishOidc(issueCode('o2', { sub: 'closed' }))).body).toEqual({ success: false, message: '管理员关闭了新用户注册' });
    await options.set('RegisterEnabled', 'true');

    await addUser('banned', { oidc_id: 'sub-banned', status: UserStatus.Disabled });
    expect((await finishOidc(issueCode('o3', { sub: 'sub-banned' }))).body).toMatchObject({ success: false, message: '用户已被封禁' });

    await options.set('oidc.token_endpoint', '');
    expect((await finishOidc(issueCode('o4', { sub: 'x' }))).body.message).toBe('OIDC 登录尚未配置完整（Client ID、Token 端点、用户信息端点），请联系管理员');
    await options.set('oidc.token_endpoint', provider.endpoints.token);

    await options.set('oidc.client_secret', 'wrong-secret');
    const wrong = await finishOidc(issueCode('o5', { sub: 'x' }));
    expect(wrong.body).toEqual({ success: false, message: 'OIDC 获取 Token 失败：client authentication failed' });
    expect(wrong.response.body).not.toContain('wrong-secret');
  });

  it('gives up on a provider that never answers instead of hanging the sign-in', { timeout: 30_000 }, async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      await test.context.options.set('oidc.well_known', '');
      await test.context.options.set('oidc.token_endpoint', `http://127.0.0.1:${(silent.address() as AddressInfo).port}/token`);
      const started = Date.now();
      expect((await finishOidc('any')).body).toEqual({ success: false, message: '无法连接至 OIDC 服务器，请稍后重试！' });
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('answers a clear message when the provider cannot be reached', async () => {
    await test.context.options.set('oidc.well_known', '');
    await test.context.options.set('oidc.token_endpoint', 'http://127.0.0.1:9/token');
    expect(await finishOidc('any')).toMatchObject({ status: 200, body: { success: false, message: '无法连接至 OIDC 服务器，请稍后重试！' } });
  });
});
