import { createHash } from 'node:crypto';
import { Role } from '@modelgate/contract';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { createFreshDb, DIALECTS } from '../../test-support/dialects.js';
import { sessionCookieOf, startTestApp, type TestApp } from '../../test-support/test-app.js';

interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}
type Headers = Record<string, string>;

interface SessionView {
  id: number;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ip: string;
  user_agent: string;
  current: boolean;
}

const PASSWORD = 'password123';

let test: TestApp;
beforeEach(async () => {
  test = await startTestApp();
  return () => test.close();
});

async function call<T = unknown>(
  request: InjectOptions,
  app: TestApp = test,
): Promise<{ status: number; body: Envelope<T>; response: LightMyRequestResponse }> {
  const response = await app.app.inject(request);
  return { status: response.statusCode, body: response.json() as Envelope<T>, response };
}

async function addUser(username: string, role: number = Role.Common, extra: Record<string, unknown> = {}): Promise<number> {
  return test.context.users.repository.insert({ username, password: await hashPassword(PASSWORD), display_name: username, role, ...extra });
}

/** Whether these session headers still sign the user in. */
const signedIn = async (headers: Headers, app: TestApp = test) => (await call({ method: 'GET', url: '/api/user/self', headers }, app)).status === 200;

const sessionRows = (userId: number) => test.context.db.kysely.selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();

describe('sessions end', () => {
  it('at logout, for that browser only, on every node sharing the database', async () => {
    await addUser('lou');
    const first = await test.login('lou', PASSWORD);
    const second = await test.login('lou', PASSWORD);
    const node = await startTestApp({ NODE_TYPE: 'slave', SQLITE_PATH: `${test.dir}/modelgate.db` });
    try {
      expect(await signedIn(first, node)).toBe(true);
      const logout = await call({ method: 'GET', url: '/api/user/logout', headers: first });
      expect(logout.body).toMatchObject({ success: true, message: '已退出登录' });
      expect(logout.response.cookies.find((cookie) => cookie.name === 'session')?.value).toBe('');
      // The cookie kept by someone who copied it before the logout no longer works, here or on the other node.
      expect(await signedIn(first)).toBe(false);
      expect(await signedIn(first, node)).toBe(false);
      expect(await signedIn(second)).toBe(true);
    } finally {
      await node.close();
    }
  });

  it('at a password change: every older session of the user, while the browser that changed it gets a fresh one', async () => {
    const id = await addUser('pam');
    const other = await addUser('otto');
    const laptop = await test.login('pam', PASSWORD);
    const phone = await test.login('pam', PASSWORD);
    const bystander = await test.login('otto', PASSWORD);

    const change = await call({ method: 'PUT', url: '/api/user/self', headers: laptop, payload: { original_password: PASSWORD, password: 'new-password-1' } });
    expect(change.body).toMatchObject({ success: true, message: '密码修改成功！' });
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(false);
    const renewed = { cookie: sessionCookieOf(change.response), 'new-api-user': String(id) };
    expect(await signedIn(renewed)).toBe(true);
    expect(await sessionRows(id)).toHaveLength(1);
    expect(await signedIn(bystander)).toBe(true);
    expect(await sessionRows(other)).toHaveLength(1);
  });

  it('at a password reset by an admin', async () => {
    const id = await addUser('ria');
    const session = await test.login('ria', PASSWORD);
    const admin = await test.login();
    const reset = await call({ method: 'PUT', url: '/api/user/', headers: admin, payload: { id, password: 'reset-by-admin' } });
    expect(reset.body.success).toBe(true);
    expect(await signedIn(session)).toBe(false);
    expect(await signedIn(admin)).toBe(true);
    await expect(test.login('ria', 'reset-by-admin')).resolves.toHaveProperty('cookie');
  });

  it('at a password reset through the mailed link', async () => {
    await addUser('mia', Role.Common, { email: 'mia@example.com' });
    const session = await test.login('mia', PASSWORD);
    await test.context.verification.issue({
      purpose: 'password_reset',
      key: 'mia@example.com',
      code: 'reset-token-1',
      ttlSeconds: 60,
      cooldownSeconds: 0,
    });
    const reset = await call<string>({ method: 'POST', url: '/api/user/reset', payload: { email: 'mia@example.com', token: 'reset-token-1' } });
    expect(reset.body).toMatchObject({ success: true, message: '密码已重置' });
    expect(await signedIn(session)).toBe(false);
    await expect(test.login('mia', reset.body.data!)).resolves.toHaveProperty('cookie');
  });

  it('at a ban, and stay ended when the user is enabled again', async () => {
    const id = await addUser('ben');
    const session = await test.login('ben', PASSWORD);
    const admin = await test.login();
    expect((await call({ method: 'POST', url: '/api/user/manage', headers: admin, payload: { id, action: 'disable' } })).body.success).toBe(true);
    expect(await signedIn(session)).toBe(false);
    expect((await call({ method: 'POST', url: '/api/user/manage', headers: admin, payload: { id, action: 'enable' } })).body.success).toBe(true);
    expect(await signedIn(session)).toBe(false);
    expect(await sessionRows(id)).toEqual([]);
    await expect(test.login('ben', PASSWORD)).resolves.toHaveProperty('cookie');
  });

  it('at a deletion by an admin or by the user', async () => {
    const deleted = await addUser('dan');
    const leaver = await addUser('lea');
    const danSession = await test.login('dan', PASSWORD);
    const leaSession = await test.login('lea', PASSWORD);
    const leaOther = await test.login('lea', PASSWORD);
    const admin = await test.login();
    expect((await call({ method: 'POST', url: '/api/user/manage', headers: admin, payload: { id: deleted, action: 'delete' } })).body.success).toBe(true);
    expect(await signedIn(danSession)).toBe(false);
    expect(await sessionRows(deleted)).toEqual([]);
    expect((await call({ method: 'DELETE', url: '/api/user/self', headers: leaSession })).body.success).toBe(true);
    expect(await signedIn(leaOther)).toBe(false);
    expect(await sessionRows(leaver)).toEqual([]);
  });

  it('when expired, and expired rows are dropped at the next sign-in', async () => {
    const id = await addUser('eli');
    const session = await test.login('eli', PASSWORD);
    await test.context.db.kysely
      .updateTable('sessions')
      .set({ expires_at: Math.floor(Date.now() / 1000) - 1 })
      .where('user_id', '=', id)
      .execute();
    expect(await signedIn(session)).toBe(false);
    expect(await sessionRows(id)).toHaveLength(1);
    await test.login();
    expect(await sessionRows(id)).toEqual([]);
  });
});

describe('the signed-in user’s session list', () => {
  let alice: number;
  let aliceLaptop: Headers;
  let alicePhone: Headers;
  beforeEach(async () => {
    alice = await addUser('alice');
    const signIn = async (userAgent: string, remoteAddress: string) => {
      const response = await test.app.inject({
        method: 'POST',
        url: '/api/user/login',
        headers: { 'user-agent': userAgent },
        remoteAddress,
        payload: { username: 'alice', password: PASSWORD },
      });
      return { cookie: sessionCookieOf(response), 'new-api-user': String(alice) };
    };
    aliceLaptop = await signIn('Laptop Browser/1.0', '10.1.1.1');
    alicePhone = await signIn('Phone Browser/2.0', '10.2.2.2');
  });

  const list = (headers: Headers) => call<SessionView[]>({ method: 'GET', url: '/api/user/self/sessions', headers });
  const revoke = (headers: Headers, id: number | string) => call({ method: 'DELETE', url: `/api/user/self/sessions/${id}`, headers });

  it('lists the user’s sessions with where and when, marks the current one, and never shows the secret', async () => {
    const answer = await list(aliceLaptop);
    expect(answer.body.success).toBe(true);
    const sessions = answer.body.data!;
    expect(sessions).toHaveLength(2);
    const now = Math.floor(Date.now() / 1000);
    const laptop = sessions.find((session) => session.user_agent === 'Laptop Browser/1.0')!;
    const phone = sessions.find((session) => session.user_agent === 'Phone Browser/2.0')!;
    expect(laptop).toMatchObject({ ip: '10.1.1.1', current: true });
    expect(phone).toMatchObject({ ip: '10.2.2.2', current: false });
    expect(laptop.created_at).toBeGreaterThanOrEqual(now - 5);
    expect(laptop.last_seen_at).toBeGreaterThanOrEqual(laptop.created_at);
    expect(laptop.expires_at).toBe(laptop.created_at + 30 * 24 * 3600);
    expect(Object.keys(laptop).sort()).toEqual(['created_at', 'current', 'expires_at', 'id', 'ip', 'last_seen_at', 'user_agent']);

    // The database holds only the SHA-256 of the cookie's secret.
    const secret = decodeURIComponent(aliceLaptop.cookie!.slice('session='.length)).replace(/\.[^.]+$/, '');
    const rows = await sessionRows(alice);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows.map((row) => row.token_hash)).toContain(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(answer.body)).not.toContain(rows[0]!.token_hash);
  });

  it('revokes one of the user’s own sessions, the current one too', async () => {
    const phone = (await list(aliceLaptop)).body.data!.find((session) => !session.current)!;
    expect((await revoke(aliceLaptop, phone.id)).body).toMatchObject({ success: true, message: '会话已注销' });
    expect(await signedIn(alicePhone)).toBe(false);
    expect(await signedIn(aliceLaptop)).toBe(true);
    expect((await list(aliceLaptop)).body.data!.map((session) => session.id)).not.toContain(phone.id);

    const current = (await list(aliceLaptop)).body.data![0]!;
    const own = await revoke(aliceLaptop, current.id);
    expect(own.body.success).toBe(true);
    expect(own.response.cookies.find((cookie) => cookie.name === 'session')?.value).toBe('');
    expect(await signedIn(aliceLaptop)).toBe(false);
  });

  it('does not let another user revoke (or see) them', async () => {
    await addUser('mallory');
    const mallory = await test.login('mallory', PASSWORD);
    const ids = (await list(aliceLaptop)).body.data!.map((session) => session.id);
    const malloryList = (await list(mallory)).body.data!;
    expect(malloryList).toHaveLength(1);
    expect(ids).not.toContain(malloryList[0]!.id);
    for (const id of ids) {
      expect((await revoke(mallory, id)).body).toMatchObject({ success: false, message: '会话不存在或已失效' });
    }
    expect(await signedIn(aliceLaptop)).toBe(true);
    expect(await signedIn(alicePhone)).toBe(true);
    // Even an admin goes through the manage actions, not this route.
    const admin = await test.login();
    expect((await revoke(admin, ids[0]!)).body.success).toBe(false);
    expect(await signedIn(alicePhone)).toBe(true);
  });

  it('answers bad ids with a message, and needs a signed-in caller', async () => {
    for (const id of ['abc', '0', '-1', '1e400', '99999999999999999999']) {
      const answer = await revoke(aliceLaptop, id);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body.success).toBe(false);
      expect(answer.body.message).toBeTruthy();
    }
    expect((await call({ method: 'GET', url: '/api/user/self/sessions' })).status).toBe(401);
  });
});

describe.each(DIALECTS)('sessions and usernames on %s', (dialect) => {
  it('signs in, lists, revokes at logout and password change, and refuses look-alike names', async () => {
    const fresh = await createFreshDb(dialect);
    await fresh.db.close();
    const node = await startTestApp(dialect === 'sqlite' ? {} : { SQL_DSN: fresh.sqlDsn });
    try {
      const register = (username: string) => call({ method: 'POST', url: '/api/user/register', payload: { username, password: PASSWORD } }, node);
      expect((await register('Zoë')).body.success).toBe(true);
      expect((await register('zoe')).body.success).toBe(dialect !== 'mysql');
      expect((await register('ZOË')).body.message).toBe('用户名已存在，或已注销');
      expect((await register('r\u043eot')).body.message).toBe('用户名已存在，或已注销');
      expect((await register('r\u200boot')).body.message).toBe('用户名包含不允许的字符');

      const first = await node.login('Zoë', PASSWORD);
      const second = await node.login('Zoë', PASSWORD);
      const listed = await call<SessionView[]>({ method: 'GET', url: '/api/user/self/sessions', headers: second }, node);
      expect(listed.body.data!.map((session) => session.current).sort()).toEqual([false, true]);
      await call({ method: 'GET', url: '/api/user/logout', headers: first }, node);
      expect(await signedIn(first, node)).toBe(false);
      expect(await signedIn(second, node)).toBe(true);
      const change = await call(
        { method: 'PUT', url: '/api/user/self', headers: second, payload: { original_password: PASSWORD, password: 'new-password-1' } },
        node,
      );
      expect(change.body.success).toBe(true);
      expect(await signedIn(second, node)).toBe(false);
      expect(await signedIn({ cookie: sessionCookieOf(change.response), 'new-api-user': second['new-api-user']! }, node)).toBe(true);
    } finally {
      await node.close();
      await fresh.drop().catch(() => undefined);
    }
  });
});
