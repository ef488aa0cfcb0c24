import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

/**
 * The rate-limit fields on the console's API (issue 27): a token's owner sets its limits on
 * /api/token/, an administrator a user's on /api/user/, the group and model figures are options;
 * every answer carries them, and a bad value is refused with {success: false, message}, never
 * dropped silently.
 */

let test: TestApp;
let root: Record<string, string>;
let bob: Record<string, string>;
let bobId: number;

beforeAll(async () => {
  test = await startTestApp();
  root = await test.login();
  const registered = await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username: 'bob', password: 'password123' } });
  expect(registered.json().success).toBe(true);
  bob = await test.login('bob', 'password123');
  bobId = Number((await test.context.db.kysely.selectFrom('users').select('id').where('username', '=', 'bob').executeTakeFirstOrThrow()).id);
});
afterAll(async () => test.close());

type Method = 'GET' | 'POST' | 'PUT';
const call = async (method: Method, url: string, headers: Record<string, string>, payload?: object) => {
  const response = await test.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  expect(response.statusCode).toBe(200);
  return response.json() as { success: boolean; message: string; data: Record<string, unknown> & { items?: Record<string, unknown>[] } };
};

const NO_LIMITS = { rpm_limit: 0, tpm_limit: 0, rpd_limit: 0, concurrency_limit: 0 };

describe('a token’s limits', () => {
  it('are set on create and update, answered everywhere, and reach the relay’s cache', async () => {
    const created = await call('POST', '/api/token/', bob, { name: 'limited', unlimited_quota: true, rpm_limit: 60, concurrency_limit: '3' });
    expect(created.success, created.message).toBe(true);
    expect(created.data).toMatchObject({ rpm_limit: 60, tpm_limit: 0, rpd_limit: 0, concurrency_limit: 3 });
    const id = created.data.id as number;

    // An edit changes the fields it sends and leaves the others; null leaves a field as it is.
    const updated = await call('PUT', '/api/token/', bob, { id, name: 'limited', tpm_limit: 100000, rpd_limit: 5000, rpm_limit: null });
    expect(updated.success, updated.message).toBe(true);
    expect(updated.data).toMatchObject({ rpm_limit: 60, tpm_limit: 100000, rpd_limit: 5000, concurrency_limit: 3 });
    expect((await call('GET', `/api/token/${id}`, bob)).data).toMatchObject({ rpm_limit: 60, tpm_limit: 100000, rpd_limit: 5000, concurrency_limit: 3 });
    const listed = (await call('GET', '/api/token/?p=1&size=10', bob)).data.items!.find((token) => token.id === id);
    expect(listed).toMatchObject({ rpm_limit: 60, tpm_limit: 100000, rpd_limit: 5000, concurrency_limit: 3 });

    const row = await test.context.db.kysely.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const cached = await test.relay.cache.tokens.load(row.key);
    expect(cached?.rateLimits).toEqual({ rpm: 60, tpm: 100000, rpd: 5000, concurrency: 3 });

    // 0 takes a limit off; all four at 0 is no limit at all.
    const cleared = await call('PUT', '/api/token/', bob, { id, ...NO_LIMITS });
    expect(cleared.data).toMatchObject(NO_LIMITS);
    expect((await test.relay.cache.tokens.load(row.key))?.rateLimits).toBeUndefined();

    // A token made without them has none.
    expect((await call('POST', '/api/token/', bob, { name: 'plain', unlimited_quota: true })).data).toMatchObject(NO_LIMITS);
  });

  it('refuses a bad figure with its message, and changes nothing', async () => {
    const created = await call('POST', '/api/token/', bob, { name: 'checked', unlimited_quota: true, rpm_limit: 10 });
    const id = created.data.id as number;
    const bad: [object, RegExp][] = [
      [{ rpm_limit: -1 }, /每分钟请求数限制不能为负数/],
      [{ tpm_limit: 1.5 }, /每分钟 Token 数限制必须是整数/],
      [{ rpd_limit: 'many' }, /每日请求数限制必须是整数/],
      [{ concurrency_limit: 2_147_483_648 }, /并发请求数限制不能大于 2147483647/],
      [{ rpm_limit: true }, /每分钟请求数限制必须是整数/],
    ];
    for (const [fields, message] of bad) {
      const onCreate = await call('POST', '/api/token/', bob, { name: 'refused', unlimited_quota: true, ...fields });
      expect(onCreate.success, JSON.stringify(fields)).toBe(false);
      expect(onCreate.message).toMatch(message);
      const onUpdate = await call('PUT', '/api/token/', bob, { id, ...fields });
      expect(onUpdate.success).toBe(false);
      expect(onUpdate.message).toMatch(message);
    }
    expect((await call('GET', `/api/token/${id}`, bob)).data).toMatchObject({ rpm_limit: 10, tpm_limit: 0, rpd_limit: 0, concurrency_limit: 0 });
    const names = await test.context.db.kysely.selectFrom('tokens').select('name').where('name', '=', 'refused').execute();
    expect(names).toHaveLength(0);
  });
});

describe('a user’s limits', () => {
  it('are set by an administrator, answered on the user, and reach the relay’s cache', async () => {
    expect((await call('GET', `/api/user/${bobId}`, root)).data).toMatchObject(NO_LIMITS);
    const saved = await call('PUT', '/api/user/', root, { id: bobId, rpm_limit: 120, tpm_limit: 50000, rpd_limit: 0, concurrency_limit: 8 });
    expect(saved.success, saved.message).toBe(true);
    expect((await call('GET', `/api/user/${bobId}`, root)).data).toMatchObject({ rpm_limit: 120, tpm_limit: 50000, rpd_limit: 0, concurrency_limit: 8 });
    const listed = (await call('GET', '/api/user/?p=1&page_size=50', root)).data.items!.find((user) => user.id === bobId);
    expect(listed).toMatchObject({ rpm_limit: 120, concurrency_limit: 8 });
    // The user sees their own limits.
    expect((await call('GET', '/api/user/self', bob)).data).toMatchObject({ rpm_limit: 120, concurrency_limit: 8 });
    expect((await test.relay.cache.users.load(bobId))?.rateLimits).toEqual({ rpm: 120, tpm: 50000, rpd: 0, concurrency: 8 });

    // The console sends the whole user back: fields it leaves out stay as they are.
    expect((await call('PUT', '/api/user/', root, { id: bobId, remark: 'limited' })).success).toBe(true);
    expect((await call('GET', `/api/user/${bobId}`, root)).data).toMatchObject({ rpm_limit: 120, concurrency_limit: 8, remark: 'limited' });
  });

  it('refuses a bad figure with its message', async () => {
    for (const [fields, message] of [
      [{ rpm_limit: -5 }, /每分钟请求数限制不能为负数/],
      [{ concurrency_limit: 'x' }, /并发请求数限制必须是整数/],
    ] as [object, RegExp][]) {
      const answer = await call('PUT', '/api/user/', root, { id: bobId, ...fields });
      expect(answer.success).toBe(false);
      expect(answer.message).toMatch(message);
    }
  });
});

describe('the group and model figures', () => {
  const put = (key: string, value: string) => call('PUT', '/api/option/', root, { key, value });

  it('are options checked when written', async () => {
    expect((await put('GroupRateLimits', '{"default": {"rpm": 60, "concurrency": 4}, "vip": {"tpm": 200000}}')).success).toBe(true);
    expect((await put('ModelRateLimits', '{"gpt-4o": {"rpd": 1000}}')).success).toBe(true);
    const options = new Map(
      ((await call('GET', '/api/option/', root)).data as unknown as { key: string; value: string }[]).map((entry) => [entry.key, entry.value]),
    );
    expect(JSON.parse(options.get('GroupRateLimits')!)).toEqual({ default: { rpm: 60, concurrency: 4 }, vip: { tpm: 200000 } });
    expect(JSON.parse(options.get('ModelRateLimits')!)).toEqual({ 'gpt-4o': { rpd: 1000 } });
    for (const [value, message] of [
      ['{"vip": {"rpm": -1}}', /分组速率限制 中 vip\.rpm 不合法/],
      ['{"vip": {"rps": 5}}', /分组速率限制 中 vip 不合法/],
      ['{"vip": {"rpm": "60"}}', /分组速率限制 中 vip\.rpm 不合法/],
      ['{"vip": 60}', /分组速率限制 中 vip 不合法/],
      ['{"vip": ', /分组速率限制不是合法的 JSON 字符串/],
    ] as [string, RegExp][]) {
      const answer = await put('GroupRateLimits', value);
      expect(answer.success, value).toBe(false);
      expect(answer.message).toMatch(message);
    }
    expect((await put('ModelRateLimits', '{"gpt-4o": {"concurrency": 1.5}}')).message).toMatch(/模型速率限制 中 gpt-4o\.concurrency 不合法/);
    expect(test.context.options.json('GroupRateLimits')).toEqual({ default: { rpm: 60, concurrency: 4 }, vip: { tpm: 200000 } });
    await put('GroupRateLimits', '{}');
    await put('ModelRateLimits', '{}');
  });
});
