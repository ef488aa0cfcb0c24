import { LogType } from '@modelgate/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

/**
 * Issue 13, token keys: lists and single tokens carry masked keys only; the full key comes from
 * GET/POST /api/token/{id}/key, to its owner, or to the super administrator with a management
 * log line that names the token and its owner but never the key.
 */

let test: TestApp;
let root: Record<string, string>;
let alice: Record<string, string>;
let bob: Record<string, string>;
let admin: Record<string, string>;
beforeEach(async () => {
  test = await startTestApp();
  root = await test.login();
  alice = await signUp('alice');
  bob = await signUp('bob');
  admin = await signUp('carol');
  const promoted = await call(root, 'POST', '/api/user/manage', { id: Number(admin['new-api-user']), action: 'promote' });
  expect(promoted.body.success, promoted.body.message).toBe(true);
});
let fresh: FreshDb | undefined;
afterEach(async () => {
  await test.close();
  await fresh?.drop();
  fresh = undefined;
});

async function signUp(username: string) {
  const response = await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
  expect(response.json().success).toBe(true);
  return test.login(username, 'password123');
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
async function call(headers: Record<string, string> | undefined, method: Method, url: string, payload?: unknown) {
  const response = await test.app.inject({ method, url, ...(headers ? { headers } : {}), ...(payload !== undefined ? { payload: payload as object } : {}) });
  return { status: response.statusCode, text: response.body, body: response.json(), headers: response.headers };
}

/** Creates a token through the API and reads its real key from the database. */
async function tokenOf(headers: Record<string, string>, name: string) {
  const created = await call(headers, 'POST', '/api/token/', { name, remain_quota: 500000, expired_time: -1 });
  expect(created.body.success, created.body.message).toBe(true);
  const id = created.body.data.id as number;
  const row = await test.context.db.kysely.selectFrom('tokens').select('key').where('id', '=', id).executeTakeFirstOrThrow();
  return { id, key: row.key, createdText: created.text, created: created.body.data as { key: string } };
}

/** new-api's rule (README): a refused /api call is HTTP 200 with success:false and the message. */
function expectRefused(answer: { status: number; body: unknown }, message: string, context = '') {
  expect(answer.status, context).toBe(200);
  expect(answer.body, context).toEqual({ success: false, message });
}

const manageLogs = () =>
  test.context.db.kysely.selectFrom('logs').selectAll().where('type', '=', LogType.Manage).where('content', 'like', '%令牌%').orderBy('id').execute();

describe('masked keys', () => {
  it('every list, search, show, create and update answer carries the masked key only', async () => {
    const token = await tokenOf(alice, 'main');
    const masked = `${token.key.slice(0, 4)}**********${token.key.slice(-4)}`;
    expect(token.key).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(token.created.key).toBe(masked);
    expect(token.createdText).not.toContain(token.key);

    const batch = await call(alice, 'POST', '/api/token/', { name: 'many', count: 3, remain_quota: 1 });
    expect(batch.body.data).toHaveLength(3);
    const batchKeys = await test.context.db.kysely.selectFrom('tokens').select('key').where('name', 'like', 'many%').execute();
    expect(batchKeys).toHaveLength(3);
    for (const { key } of batchKeys) expect(batch.text).not.toContain(key);

    const answers = [
      await call(alice, 'GET', '/api/token/?p=1&size=10'),
      await call(alice, 'GET', '/api/token/search?keyword=main'),
      // Searching by the full key still finds the token, and still answers it masked.
      await call(alice, 'GET', `/api/token/search?token=sk-${token.key}`),
      await call(alice, 'GET', `/api/token/${token.id}`),
      await call(alice, 'PUT', '/api/token/', { id: token.id, name: 'renamed', remain_quota: 10, expired_time: -1 }),
      await call(alice, 'PUT', '/api/token/?status_only=true', { id: token.id, status: 2 }),
    ];
    for (const answer of answers) {
      expect(answer.body.success, answer.text).toBe(true);
      expect(answer.text).not.toContain(token.key);
      expect(answer.text).toContain(masked);
    }
    expect(answers[2]!.body.data.items.map((item: { id: number }) => item.id)).toEqual([token.id]);
    for (const { key } of batchKeys) expect(answers[0]!.text).not.toContain(key);
  });
});

describe('GET and POST /api/token/{id}/key', () => {
  it('answer the owner its full key, uncached, without a log line', async () => {
    const token = await tokenOf(alice, 'main');
    for (const method of ['GET', 'POST'] as const) {
      const answer = await call(alice, method, `/api/token/${token.id}/key`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ success: true, message: '', data: { key: token.key } });
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    // The key answered is the one the relay takes.
    expect((await test.context.db.kysely.selectFrom('tokens').select('id').where('key', '=', token.key).executeTakeFirst())?.id).toBe(token.id);
    expect(await manageLogs()).toEqual([]);
  });

  it('answer the super administrator another user’s key and write a management log that names token and owner, never the key', async () => {
    const token = await tokenOf(alice, 'alice-prod');
    const answer = await call(root, 'POST', `/api/token/${token.id}/key`);
    expect(answer.body).toEqual({ success: true, message: '', data: { key: token.key } });

    const logs = await manageLogs();
    expect(logs).toHaveLength(1);
    const [log] = logs;
    expect(log).toMatchObject({ user_id: 1, username: 'root', type: LogType.Manage });
    expect(log!.content).toContain('alice');
    expect(log!.content).toContain(`ID ${alice['new-api-user']}`);
    expect(log!.content).toContain('alice-prod');
    expect(log!.content).toContain(`ID ${token.id}`);
    expect(JSON.parse(log!.other)).toEqual({
      kind: 'token_key_view',
      admin_info: { admin_id: 1, admin_username: 'root' },
      op: {
        action: 'token.admin_key_view',
        params: { target_user_id: Number(alice['new-api-user']), target_username: 'alice', token_id: token.id, token_name: 'alice-prod' },
      },
    });
    // Neither the row nor the log pages hold the key, whole or in part.
    const secretPart = token.key.slice(4, -4);
    expect(JSON.stringify(log)).not.toContain(secretPart);
    const adminLogs = await call(root, 'GET', `/api/log/?p=1&page_size=50&type=${LogType.Manage}`);
    expect(adminLogs.body.data.items.map((item: { content: string }) => item.content)).toContain(log!.content);
    expect(adminLogs.text).not.toContain(secretPart);

    // Root reading its own token's key is not an audit event.
    const own = await tokenOf(root, 'root-own');
    expect((await call(root, 'GET', `/api/token/${own.id}/key`)).body.data.key).toBe(own.key);
    expect(await manageLogs()).toHaveLength(1);
  });

  it('refuse an administrator (role 10) and another user as if the token did not exist, and log nothing', async () => {
    const token = await tokenOf(alice, 'main');
    for (const headers of [admin, bob]) {
      for (const method of ['GET', 'POST'] as const) {
        const answer = await call(headers, method, `/api/token/${token.id}/key`);
        expectRefused(answer, '令牌不存在');
        expect(answer.text).not.toContain(token.key);
      }
      // Neither may they see the masked token.
      expectRefused(await call(headers, 'GET', `/api/token/${token.id}`), '令牌不存在');
    }
    expect(await manageLogs()).toEqual([]);
  });

  it('give clear messages for an unknown id, a malformed id and a caller without a session', async () => {
    expectRefused(await call(alice, 'GET', '/api/token/987654/key'), '令牌不存在');
    expectRefused(await call(root, 'POST', '/api/token/987654/key'), '令牌不存在');
    expectRefused(await call(alice, 'GET', '/api/token/abc/key'), '无效的令牌 ID');
    const token = await tokenOf(alice, 'main');
    const anonymous = await call(undefined, 'POST', `/api/token/${token.id}/key`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.success).toBe(false);
    expect(anonymous.text).not.toContain(token.key);
  });

  it('stop a deleted token’s key from being read', async () => {
    const token = await tokenOf(alice, 'main');
    expect((await call(alice, 'DELETE', `/api/token/${token.id}/`)).body.success).toBe(true);
    expectRefused(await call(alice, 'POST', `/api/token/${token.id}/key`), '令牌不存在');
    expectRefused(await call(root, 'POST', `/api/token/${token.id}/key`), '令牌不存在');
  });
});

describe('POST /api/token/batch/keys', () => {
  it('answers the keys of the caller’s own tokens by id and leaves others’ out', async () => {
    const first = await tokenOf(alice, 'first');
    const second = await tokenOf(alice, 'second');
    const bobs = await tokenOf(bob, 'bobs');
    const answer = await call(alice, 'POST', '/api/token/batch/keys', { ids: [first.id, second.id, bobs.id, first.id, 424242] });
    expect(answer.body).toEqual({ success: true, message: '', data: { keys: { [first.id]: first.key, [second.id]: second.key } } });
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.text).not.toContain(bobs.key);
    // Root gets no one else's keys in bulk either (new-api reads only its own there), and no log.
    expect((await call(root, 'POST', '/api/token/batch/keys', { ids: [first.id] })).body.data).toEqual({ keys: {} });
    expect(await manageLogs()).toEqual([]);
  });

  it('refuses a missing, empty, oversized or malformed id list with a message', async () => {
    const cases: [unknown, string][] = [
      [{}, '无效的参数，ids: 请选择至少一个令牌'],
      [{ ids: [] }, '无效的参数，ids: 请选择至少一个令牌'],
      [{ ids: 'all' }, '无效的参数，ids: 请选择至少一个令牌'],
      [{ ids: [1, 'two'] }, '无效的参数，ids.1: 令牌 ID 必须是正整数'],
      [{ ids: [0] }, '无效的参数，ids.0: 令牌 ID 必须是正整数'],
      [{ ids: [1.5] }, '无效的参数，ids.0: 令牌 ID 必须是正整数'],
      [{ ids: Array.from({ length: 101 }, (_, index) => index + 1) }, '无效的参数，ids: 一次最多读取 100 个令牌的密钥'],
      [[1, 2], '无效的参数，请求体应为 {"ids": [令牌 ID, ...]}'],
    ];
    for (const [payload, message] of cases) {
      expectRefused(await call(alice, 'POST', '/api/token/batch/keys', payload), message, JSON.stringify(payload));
    }
  });
});

describe('key reads are rate limited per user', () => {
  it('allows CRITICAL_RATE_LIMIT reads per 20 minutes, then answers 429, without touching another user’s budget', async () => {
    await test.close();
    // Four: the two sign-ups and sign-ins below spend the IP's critical budget, a bucket of its own.
    test = await startTestApp({ CRITICAL_RATE_LIMIT: '4' });
    const mia = await signUp('mia');
    const nina = await signUp('nina');
    const token = await tokenOf(mia, 'main');
    for (let read = 1; read <= 4; read += 1) expect((await call(mia, 'POST', `/api/token/${token.id}/key`)).body.data.key).toBe(token.key);
    const limited = await call(mia, 'POST', `/api/token/${token.id}/key`);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, message: '请求过于频繁，请稍后再试' });
    expect(limited.text).not.toContain(token.key);
    expect((await call(mia, 'POST', '/api/token/batch/keys', { ids: [token.id] })).status).toBe(429);
    // Another user (same IP) still reads its own key.
    const other = await tokenOf(nina, 'main');
    expect((await call(nina, 'GET', `/api/token/${other.id}/key`)).body.data.key).toBe(other.key);
  });
});

describe.each(['postgres', 'mysql'] as const)('on %s', (dialect) => {
  it('masks, reads, batches and logs the same way', async () => {
    await test.close();
    fresh = await createFreshDb(dialect, { migrate: false });
    test = await startTestApp({ SQL_DSN: fresh.sqlDsn });
    root = await test.login();
    alice = await signUp('alice');
    const first = await tokenOf(alice, 'first');
    const second = await tokenOf(alice, 'second');
    const listed = await call(alice, 'GET', '/api/token/?p=1&size=10');
    expect(listed.body.data.items.map((item: { key: string }) => item.key).sort()).toEqual(
      [first, second].map(({ key }) => `${key.slice(0, 4)}**********${key.slice(-4)}`).sort(),
    );
    expect((await call(alice, 'POST', '/api/token/batch/keys', { ids: [first.id, second.id] })).body.data.keys).toEqual({
      [first.id]: first.key,
      [second.id]: second.key,
    });
    expect((await call(root, 'GET', `/api/token/${second.id}/key`)).body.data.key).toBe(second.key);
    const logs = await manageLogs();
    expect(logs.map((log) => [Number(log.user_id), log.content.includes('second'), log.content.includes(second.key)])).toEqual([[1, true, false]]);
  });
});
