import { Role } from '@modelgate/contract';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { generate } from 'otplib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { createFreshDb, DIALECTS } from '../../test-support/dialects.js';
import { sessionCookieOf, startTestApp, type TestApp } from '../../test-support/test-app.js';

interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  code?: string;
  data?: T;
}
type Headers = Record<string, string>;
interface Setup {
  secret: string;
  qr_code_data: string;
  backup_codes: string[];
}

const PASSWORD = 'password123';
const WRONG_CODE = '验证码或备用码错误，请重试';

let test: TestApp;
afterEach(() => {
  vi.useRealTimers();
});

/** Moves Date (the server's clock and the codes the test computes) on by `seconds`. */
function advance(seconds: number): void {
  vi.useFakeTimers({ now: Date.now() + seconds * 1000, toFake: ['Date'] });
}

/** The authenticator's code for the current time (as a phone would show it). */
const totp = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) });

async function call<T = unknown>(request: InjectOptions, app: TestApp = test): Promise<{ body: Envelope<T>; response: LightMyRequestResponse }> {
  const response = await app.app.inject(request);
  // new-api's rule: refusals are 200 with success:false; a lock is a rate limit (429).
  expect([200, 429], response.body).toContain(response.statusCode);
  return { body: response.json() as Envelope<T>, response };
}

async function addUser(app: TestApp, username: string, role: number = Role.Common): Promise<number> {
  return app.context.users.repository.insert({ username, password: await hashPassword(PASSWORD), display_name: username, role });
}

/** Signs in with the password and answers what the first step said, with the pending sign-in's cookie. */
async function passwordStep(app: TestApp, username: string, password = PASSWORD) {
  const { body, response } = await call<{ require_2fa?: boolean; flow_token?: string; id?: number }>(
    { method: 'POST', url: '/api/user/login', payload: { username, password } },
    app,
  );
  const pending = response.cookies.find((cookie) => cookie.name === 'two_fa_login');
  return { body, response, pendingCookie: pending ? `two_fa_login=${pending.value}` : '' };
}

/** Completes a 2FA sign-in; answers the session headers, or the refusal. */
async function codeStep(app: TestApp, pendingCookie: string, code: string, flowToken?: string) {
  const { body, response } = await call<{ id: number }>(
    {
      method: 'POST',
      url: '/api/user/login/2fa',
      headers: pendingCookie ? { cookie: pendingCookie } : {},
      payload: flowToken ? { code, flow_token: flowToken } : { code },
    },
    app,
  );
  if (!body.success) return { body, headers: undefined };
  return { body, headers: { cookie: sessionCookieOf(response), 'new-api-user': String(body.data?.id) } as Headers };
}

/** Sets up and turns on 2FA for the signed-in user (password re-verification first); answers the setup. */
async function enrol(app: TestApp, headers: Headers, password = PASSWORD): Promise<Setup> {
  expect((await call({ method: 'POST', url: '/api/verify', headers, payload: { method: 'password', password } }, app)).body.success).toBe(true);
  const setup = await call<Setup>({ method: 'POST', url: '/api/user/2fa/setup', headers }, app);
  expect(setup.body.success, setup.body.message).toBe(true);
  const secret = setup.body.data?.secret as string;
  const enabled = await call({ method: 'POST', url: '/api/user/2fa/enable', headers, payload: { code: await totp(secret) } }, app);
  expect(enabled.body).toMatchObject({ success: true, message: '两步验证启用成功' });
  return setup.body.data as Setup;
}

describe.each(DIALECTS)('two-factor sign-in on %s', (dialect) => {
  it('enrols with a code from the answered secret; sign-in then needs a code, each accepted once', async () => {
    const fresh = await createFreshDb(dialect);
    await fresh.db.close();
    const app = await startTestApp(dialect === 'sqlite' ? {} : { SQL_DSN: fresh.sqlDsn });
    try {
      await addUser(app, 'alice');
      const alice = await app.login('alice', PASSWORD);

      // Setting up needs a fresh verification: the password, as alice has no factor yet.
      const unverified = await call({ method: 'POST', url: '/api/user/2fa/setup', headers: alice }, app);
      expect(unverified.body).toMatchObject({ success: false, code: 'VERIFICATION_REQUIRED' });
      await call({ method: 'POST', url: '/api/verify', headers: alice, payload: { method: 'password', password: PASSWORD } }, app);
      const setup = (await call<Setup>({ method: 'POST', url: '/api/user/2fa/setup', headers: alice }, app)).body.data as Setup;
      expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(setup.qr_code_data).toMatch(/^otpauth:\/\/totp\/.*alice\?/);
      expect(new URL(setup.qr_code_data).searchParams.get('secret')).toBe(setup.secret);
      expect(setup.backup_codes).toHaveLength(10);
      expect(new Set(setup.backup_codes).size).toBe(10);
      expect((await call({ method: 'GET', url: '/api/user/2fa/status', headers: alice }, app)).body.data).toEqual({ enabled: false, locked: false });

      const wrong = await call({ method: 'POST', url: '/api/user/2fa/enable', headers: alice, payload: { code: '000000' } }, app);
      expect(wrong.body).toMatchObject({ success: false, message: WRONG_CODE });
      const firstCode = await totp(setup.secret);
      expect((await call({ method: 'POST', url: '/api/user/2fa/enable', headers: alice, payload: { code: firstCode } }, app)).body.success).toBe(true);
      expect((await call({ method: 'GET', url: '/api/user/2fa/status', headers: alice }, app)).body.data).toEqual({
        enabled: true,
        locked: false,
        backup_codes_remaining: 10,
      });
      // No secret leaves the server again, and none is shown in the database as a backup code.
      const stored = await app.context.db.kysely.selectFrom('two_fa_backup_codes').select('code_hash').execute();
      expect(stored.map((row) => row.code_hash)).not.toContain(setup.backup_codes[0]);

      // The password alone no longer signs in: new-api's answer, and no session.
      const first = await passwordStep(app, 'alice');
      expect(first.body).toMatchObject({ success: true, message: '请输入两步验证码', data: { require_2fa: true } });
      expect(first.response.cookies.some((cookie) => cookie.name === 'session')).toBe(false);
      expect(first.pendingCookie).not.toBe('');

      // The code that enabled 2FA was used: within its step it is refused (replay).
      const replay = await codeStep(app, first.pendingCookie, firstCode);
      expect(replay.body).toMatchObject({ success: false, message: '验证码已被使用，请等待下一个验证码' });
      expect((await codeStep(app, first.pendingCookie, '123abc')).body).toMatchObject({ success: false, message: WRONG_CODE });
      advance(30);
      const nextCode = await totp(setup.secret);
      const signedIn = await codeStep(app, first.pendingCookie, nextCode);
      expect(signedIn.body).toMatchObject({ success: true, message: '登录成功！' });
      expect((await call<{ username: string }>({ method: 'GET', url: '/api/user/self', headers: signedIn.headers }, app)).body.data?.username).toBe('alice');
      // The pending sign-in completed once; the same code is refused next time too.
      expect((await codeStep(app, first.pendingCookie, nextCode)).body.message).toBe('会话已过期，请重新登录');
      const again = await passwordStep(app, 'alice');
      expect((await codeStep(app, again.pendingCookie, nextCode)).body.message).toBe('验证码已被使用，请等待下一个验证码');

      // A backup code signs in once, from the flow_token without the cookie as well.
      const backup = setup.backup_codes[0] as string;
      expect((await codeStep(app, again.pendingCookie, backup.toLowerCase().replace('-', ''))).body.success).toBe(true);
      const third = await passwordStep(app, 'alice');
      expect((await codeStep(app, third.pendingCookie, backup)).body).toMatchObject({ success: false, message: WRONG_CODE });
      expect((await codeStep(app, '', setup.backup_codes[1] as string, third.body.data?.flow_token)).body.success).toBe(true);
      expect((await call({ method: 'GET', url: '/api/user/2fa/status', headers: alice }, app)).body.data).toMatchObject({ backup_codes_remaining: 8 });

      // A pending sign-in lasts 5 minutes.
      const late = await passwordStep(app, 'alice');
      advance(301);
      expect((await codeStep(app, late.pendingCookie, await totp(setup.secret))).body.message).toBe('会话已过期，请重新登录');
      // A wrong password never reaches the code step.
      expect((await passwordStep(app, 'alice', 'wrong-password')).body).toMatchObject({ success: false, message: '用户名或密码错误' });
    } finally {
      await app.close();
      await fresh.drop();
    }
  });
});

describe('two-factor accounts', () => {
  beforeEach(async () => {
    test = await startTestApp();
    return () => test.close();
  });

  it('locks the code checks of an account after repeated wrong codes, the right code included', async () => {
    await addUser(test, 'bob');
    const bob = await test.login('bob', PASSWORD);
    const setup = await enrol(test, bob);
    advance(30);
    const pending = await passwordStep(test, 'bob');
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await codeStep(test, pending.pendingCookie, String(100000 + attempt))).body.message).toBe(WRONG_CODE);
    }
    const locked = await codeStep(test, pending.pendingCookie, await totp(setup.secret));
    expect(locked.body.success).toBe(false);
    expect(locked.body.message).toMatch(/失败次数过多/);
    const session = await codeStep(test, pending.pendingCookie, setup.backup_codes[0] as string);
    expect(session.body.message).toMatch(/失败次数过多/);
    // The lock holds for re-verification and disabling too: they share the account's code limit.
    const code = await totp(setup.secret);
    expect((await call({ method: 'POST', url: '/api/verify', headers: bob, payload: { method: '2fa', code } })).body.message).toMatch(/失败次数过多/);
    expect((await call({ method: 'POST', url: '/api/user/2fa/disable', headers: bob, payload: { code } })).body.message).toMatch(/失败次数过多/);
    expect((await call({ method: 'GET', url: '/api/user/2fa/status', headers: bob })).body.data).toMatchObject({ enabled: true, locked: true });
  });

  it('re-verifies with a code instead of the password, and a password change then needs it', async () => {
    await addUser(test, 'carol');
    const setup = await enrol(test, await test.login('carol', PASSWORD));
    advance(30);
    const signIn = await passwordStep(test, 'carol');
    const carol = (await codeStep(test, signIn.pendingCookie, await totp(setup.secret))).headers as Headers;

    const status = await call<{ methods: string[]; verified: boolean }>({ method: 'GET', url: '/api/verify/status', headers: carol });
    expect(status.body.data).toMatchObject({ methods: ['2fa'], verified: false });
    const byPassword = await call({ method: 'POST', url: '/api/verify', headers: carol, payload: { method: 'password', password: PASSWORD } });
    expect(byPassword.body).toMatchObject({ success: false, message: '你已启用两步验证或通行密钥，请使用它们验证' });

    const change = { method: 'PUT' as const, url: '/api/user/self', headers: carol, payload: { original_password: PASSWORD, password: 'new-password-1' } };
    const refused = await call(change);
    expect(refused.body).toMatchObject({ success: false, code: 'VERIFICATION_REQUIRED' });
    const wrong = await call({ method: 'POST', url: '/api/verify', headers: carol, payload: { method: '2fa', code: '000000' } });
    expect(wrong.body).toMatchObject({ success: false, message: WRONG_CODE });
    advance(30);
    const verified = await call({ method: 'POST', url: '/api/verify', headers: carol, payload: { method: '2fa', code: await totp(setup.secret) } });
    expect(verified.body).toMatchObject({ success: true, data: { verified: true, method: '2fa' } });
    const changed = await call(change);
    expect(changed.body).toMatchObject({ success: true, message: '密码修改成功！' });
    expect((await passwordStep(test, 'carol', 'new-password-1')).body.data?.require_2fa).toBe(true);
  });

  it('turns off with a backup code; regenerated backup codes replace the old ones', async () => {
    await addUser(test, 'dave');
    const dave = await test.login('dave', PASSWORD);
    const setup = await enrol(test, dave);
    advance(30);

    const regenerated = await call<{ backup_codes: string[] }>({
      method: 'POST',
      url: '/api/user/2fa/backup_codes',
      headers: dave,
      payload: { code: await totp(setup.secret) },
    });
    expect(regenerated.body).toMatchObject({ success: true, message: '备用码重新生成成功' });
    const fresh = regenerated.body.data?.backup_codes as string[];
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(setup.backup_codes[0]);
    // A backup code cannot regenerate (new-api asks for the authenticator's code).
    expect((await call({ method: 'POST', url: '/api/user/2fa/backup_codes', headers: dave, payload: { code: fresh[0] } })).body).toMatchObject({
      success: false,
      message: '验证码必须是6位数字',
    });

    const old = await call({ method: 'POST', url: '/api/user/2fa/disable', headers: dave, payload: { code: setup.backup_codes[0] } });
    expect(old.body).toMatchObject({ success: false, message: WRONG_CODE });
    const missing = await call({ method: 'POST', url: '/api/user/2fa/disable', headers: dave, payload: {} });
    expect(missing.body.success).toBe(false);
    expect(missing.body.message).toContain('验证码不能为空');
    const off = await call({ method: 'POST', url: '/api/user/2fa/disable', headers: dave, payload: { code: fresh[0] } });
    expect(off.body).toMatchObject({ success: true, message: '两步验证已禁用' });
    expect((await call({ method: 'GET', url: '/api/user/2fa/status', headers: dave })).body.data).toEqual({ enabled: false, locked: false });
    expect((await passwordStep(test, 'dave')).body).toMatchObject({ success: true, message: '登录成功！' });
    expect((await call({ method: 'POST', url: '/api/user/2fa/disable', headers: dave, payload: { code: fresh[1] } })).body.message).toBe('用户未启用2FA');
  });

  it('lets an administrator see who has 2FA and turn it off for users below them, never for root', async () => {
    const root = await test.login();
    await addUser(test, 'erin');
    await addUser(test, 'frank', Role.Admin);
    const erin = await test.login('erin', PASSWORD);
    const frank = await test.login('frank', PASSWORD);
    const erinId = Number(erin['new-api-user']);
    await enrol(test, erin);
    await enrol(test, root, '123456');

    const stats = await call({ method: 'GET', url: '/api/user/2fa/stats', headers: frank });
    expect(stats.body).toMatchObject({ success: true, data: { total_users: 3, enabled_users: 2, enabled_rate: '66.7%' } });
    expect((await call({ method: 'GET', url: '/api/user/2fa/stats', headers: erin })).body.success).toBe(false);
    const list = await call<{ items: { username: string; two_fa_enabled: boolean }[] }>({ method: 'GET', url: '/api/user/', headers: frank });
    const flags = Object.fromEntries((list.body.data?.items ?? []).map((user) => [user.username, user.two_fa_enabled]));
    expect(flags).toEqual({ root: true, erin: true, frank: false });

    const onRoot = await call({ method: 'DELETE', url: `/api/user/${root['new-api-user']}/2fa`, headers: frank });
    expect(onRoot.body).toMatchObject({ success: false, message: '无权操作同级或更高级用户的2FA设置' });
    expect((await call({ method: 'DELETE', url: `/api/user/${erinId}/2fa`, headers: erin })).body.success).toBe(false);

    const off = await call({ method: 'DELETE', url: `/api/user/${erinId}/2fa`, headers: frank });
    expect(off.body).toMatchObject({ success: true, message: '用户2FA已被强制禁用' });
    // Erin's sessions ended; she signs in with the password alone now.
    expect((await test.app.inject({ method: 'GET', url: '/api/user/self', headers: erin })).statusCode).toBe(401);
    expect((await passwordStep(test, 'erin')).body).toMatchObject({ success: true, message: '登录成功！' });
    expect((await call({ method: 'DELETE', url: `/api/user/${erinId}/2fa`, headers: frank })).body.message).toBe('用户未启用2FA');
    expect((await call({ method: 'DELETE', url: '/api/user/99999/2fa', headers: frank })).body.success).toBe(false);
    const stillRoot = await call({ method: 'GET', url: '/api/user/2fa/stats', headers: frank });
    expect(stillRoot.body.data).toMatchObject({ enabled_users: 1 });
  });
});
