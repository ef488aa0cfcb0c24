import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

let test: TestApp;
let alice: Record<string, string>;
let tokenEvents: string[];
beforeEach(async () => {
  test = await startTestApp();
  alice = await registerAndLogin('alice');
  tokenEvents = [];
  test.context.changes.on('token', (key) => tokenEvents.push(key));
});
afterEach(async () => test.close());

async function registerAndLogin(username: string) {
  const response = await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
  expect(response.json().success).toBe(true);
  return test.login(username, 'password123');
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = async (method: Method, url: string, payload?: object, headers = alice) => {
  const response = await test.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json() };
};

async function create(payload: object = {}, headers = alice) {
  const { body } = await call('POST', '/api/token/', { name: 'my token', remain_quota: 500000, expired_time: -1, ...payload }, headers);
  expect(body.success, body.message).toBe(true);
  // Answers carry the masked key (token-keys.test.ts); the real one is read from the database.
  const row = await stored(body.data.id);
  return { ...body.data, key: row!.key, masked: body.data.key } as { id: number; key: string; masked: string; status: number; name: string };
}

const stored = (id: number) => test.context.db.kysely.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

describe('creating tokens', () => {
  it('makes a 48-character CSPRNG key, answers it masked, and tells the caches', async () => {
    const token = await create({
      unlimited_quota: true,
      model_limits_enabled: true,
      model_limits: 'gpt-4o, o3,gpt-4o',
      allow_ips: '10.0.0.1\r\n\n192.168.0.0/16, ::1\n2001:db8::/32',
      group: 'vip',
    });
    expect(token.key).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(token.masked).toBe(`${token.key.slice(0, 4)}**********${token.key.slice(-4)}`);
    expect(token).toMatchObject({
      name: 'my token',
      status: 1,
      remain_quota: 500000,
      used_quota: 0,
      unlimited_quota: true,
      expired_time: -1,
      model_limits_enabled: true,
      model_limits: 'gpt-4o,o3',
      allow_ips: '10.0.0.1\n192.168.0.0/16\n::1\n2001:db8::/32',
      group: 'vip',
    });
    expect(tokenEvents).toEqual([token.key]);
    const row = await stored(token.id);
    expect(row).toMatchObject({ key: token.key, unlimited_quota: 1, model_limits_enabled: 1 });

    const listed = (await call('GET', '/api/token/?p=1&size=10')).body;
    expect(listed.data.items[0].key).toBe(token.masked);
  });

  it('keys are unique across many tokens', async () => {
    const created = await call('POST', '/api/token/', { name: 'bulk', count: 40, remain_quota: 1 });
    expect(created.body.data).toHaveLength(40);
    const rows = await test.context.db.kysely.selectFrom('tokens').select('key').where('name', 'like', 'bulk%').execute();
    const keys = rows.map((row) => row.key);
    expect(keys).toHaveLength(40);
    expect(new Set(keys).size).toBe(40);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9]{48}$/);
    const names = created.body.data.map((token: { name: string }) => token.name);
    expect(names[0]).toBe('bulk');
    for (const name of names.slice(1)) expect(name).toMatch(/^bulk-[A-Za-z0-9]{6}$/);
    // Different characters appear across keys: not a constant or a short alphabet.
    expect(new Set(keys.join('')).size).toBeGreaterThan(50);
  });

  it('refuses bad input with readable messages and stores nothing', async () => {
    const cases: [object, string][] = [
      [{ name: '' }, '令牌名称不能为空'],
      [{ name: undefined }, '令牌名称不能为空'],
      [{ name: 'x'.repeat(51) }, '令牌名称过长'],
      [{ remain_quota: -1 }, '无效的参数，remain_quota: 额度不能为负数'],
      [{ remain_quota: 1.5 }, '无效的参数，remain_quota: 额度必须是整数'],
      [{ remain_quota: 'lots' }, '无效的参数，remain_quota: 额度必须是整数'],
      [{ expired_time: Math.floor(Date.now() / 1000) - 10 }, '过期时间必须是 -1（永不过期）或未来的时间'],
      [{ expired_time: 0 }, '过期时间必须是 -1（永不过期）或未来的时间'],
      [{ expired_time: Date.now() + 3_600_000 }, '过期时间应为以秒为单位的 Unix 时间戳'],
      [{ expired_time: '2030-01-01' }, '无效的参数，expired_time: 过期时间必须是整数'],
      [{ allow_ips: '10.0.0.1\nnot-an-ip' }, 'IP 白名单第 2 行不是合法的 IP 地址或 CIDR 网段：not-an-ip'],
      [{ allow_ips: '10.0.0.1\n\n1.1.1.1, 1.2.3' }, 'IP 白名单第 3 行不是合法的 IP 地址或 CIDR 网段：1.2.3'],
      [{ allow_ips: '10.0.0.0/33' }, 'IP 白名单第 1 行不是合法的 IP 地址或 CIDR 网段：10.0.0.0/33'],
      [{ allow_ips: '256.1.1.1' }, 'IP 白名单第 1 行不是合法的 IP 地址或 CIDR 网段：256.1.1.1'],
      [{ allow_ips: '::1/129' }, 'IP 白名单第 1 行不是合法的 IP 地址或 CIDR 网段：::1/129'],
      [{ group: 'svip' }, '无权使用分组：svip'],
      [{ count: 0 }, '令牌数量必须是 1 到 100 之间的整数'],
      [{ count: 101 }, '令牌数量必须是 1 到 100 之间的整数'],
      [{ unlimited_quota: 'yes' }, '无效的参数，unlimited_quota: 无限额度必须是布尔值'],
    ];
    for (const [payload, message] of cases) {
      const response = await call('POST', '/api/token/', { name: 'ok', remain_quota: 1, expired_time: -1, ...payload });
      expect(response.body, message).toEqual({ success: false, message });
      expect(response.status).toBe(200);
    }
    expect(await test.context.db.kysely.selectFrom('tokens').selectAll().execute()).toEqual([]);
    expect(tokenEvents).toEqual([]);
  });

  it('accepts a 50-character name, a future expiry and the user’s own group', async () => {
    const name = '令'.repeat(50);
    const expiry = inAnHour();
    expect(await create({ name, expired_time: expiry })).toMatchObject({ name, expired_time: expiry });
    await test.context.db.kysely.updateTable('users').set({ group: 'svip' }).where('username', '=', 'alice').execute();
    expect(await create({ group: 'svip' })).toMatchObject({ group: 'svip' });
    expect(await create({ group: '' })).toMatchObject({ group: '' });
  });
});

describe('reading tokens', () => {
  it('pages with size or page_size, newest first, and searches by name and key', async () => {
    const first = await create({ name: 'alpha one' });
    await create({ name: 'beta' });
    const third = await create({ name: 'Alpha two' });
    const page = (await call('GET', '/api/token/?p=1&size=2')).body.data;
    expect(page).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect(page.items.map((token: { name: string }) => token.name)).toEqual(['Alpha two', 'beta']);
    expect((await call('GET', '/api/token/?p=2&page_size=2')).body.data.items.map((token: { id: number }) => token.id)).toEqual([first.id]);
    expect((await call('GET', '/api/token/?p=0&size=2')).body.data.items).toEqual(page.items);

    const names = async (query: string) => (await call('GET', `/api/token/search?${query}`)).body.data.items.map((token: { name: string }) => token.name);
    expect(await names('keyword=alpha')).toEqual(['Alpha two', 'alpha one']);
    expect(await names(`token=sk-${third.key.slice(5, 20)}`)).toEqual(['Alpha two']);
    expect(await names(`keyword=beta&token=${first.key}`)).toEqual([]);
    expect(await names('keyword=%25')).toEqual([]);

    expect((await call('GET', `/api/token/${first.id}`)).body.data).toMatchObject({ id: first.id, key: first.masked, name: 'alpha one' });
    expect(await call('GET', '/api/token/999999')).toMatchObject({ status: 200, body: { success: false, message: '令牌不存在' } });
    expect(await call('GET', '/api/token/nope')).toMatchObject({ status: 200, body: { success: false, message: '无效的令牌 ID' } });
  });

  it('requires a session', async () => {
    expect((await call('GET', '/api/token/', undefined, {})).status).toBe(401);
    expect((await call('POST', '/api/token/', { name: 'x' }, {})).status).toBe(401);
  });
});

describe('another user’s tokens', () => {
  it('are invisible and untouchable', async () => {
    const token = await create({ name: 'private' });
    const bob = await registerAndLogin('bob');
    const root = await test.login();
    for (const headers of [bob, root]) {
      expect((await call('GET', '/api/token/', undefined, headers)).body.data).toMatchObject({ items: [], total: 0 });
      expect((await call('GET', `/api/token/search?token=${token.key}`, undefined, headers)).body.data.items).toEqual([]);
      const attempts: [Method, string, object?][] = [
        ['GET', `/api/token/${token.id}`],
        ['PUT', '/api/token/', { id: token.id, name: 'stolen', remain_quota: 1 }],
        ['PUT', '/api/token/?status_only=true', { id: token.id, status: 2 }],
        ['DELETE', `/api/token/${token.id}/`],
      ];
      for (const [method, url, payload] of attempts) {
        expect(await call(method, url, payload, headers), `${method} ${url}`).toMatchObject({ status: 200, body: { success: false, message: '令牌不存在' } });
      }
    }
    expect(await stored(token.id)).toMatchObject({ name: 'private', status: 1, remain_quota: 500000 });
    expect(tokenEvents).toEqual([token.key]);
  });
});

describe('editing tokens', () => {
  it('updates the fields sent and validates them as on create', async () => {
    const token = await create();
    const expiry = inAnHour();
    const edited = await call('PUT', '/api/token/', {
      id: token.id,
      name: 'renamed',
      remain_quota: 42,
      expired_time: expiry,
      unlimited_quota: false,
      allow_ips: '1.2.3.4',
      group: 'vip',
      model_limits_enabled: true,
      model_limits: ['o3'],
    });
    expect(edited.body.data).toMatchObject({
      id: token.id,
      key: token.masked,
      name: 'renamed',
      remain_quota: 42,
      expired_time: expiry,
      allow_ips: '1.2.3.4',
      group: 'vip',
      model_limits_enabled: true,
      model_limits: 'o3',
      status: 1,
    });
    expect(tokenEvents.at(-1)).toBe(token.key);

    const refusals: [object, string][] = [
      [{ name: 'y'.repeat(51) }, '令牌名称过长'],
      [{ remain_quota: -5 }, '无效的参数，remain_quota: 额度不能为负数'],
      [{ expired_time: 1000 }, '过期时间必须是 -1（永不过期）或未来的时间'],
      [{ allow_ips: 'example.com' }, 'IP 白名单第 1 行不是合法的 IP 地址或 CIDR 网段：example.com'],
      [{ group: 'svip' }, '无权使用分组：svip'],
    ];
    for (const [payload, message] of refusals) {
      expect((await call('PUT', '/api/token/', { id: token.id, ...payload })).body).toEqual({ success: false, message });
    }
    expect((await call('PUT', '/api/token/', { name: 'no id' })).body).toEqual({ success: false, message: '令牌 ID 不能为空' });

    // The edit form echoes the whole token back, read-only fields and nulls included.
    const echoed = (await call('GET', `/api/token/${token.id}`)).body.data;
    const saved = await call('PUT', '/api/token/', {
      ...echoed,
      name: 'echoed',
      used_quota: 123456,
      user_id: 999,
      key: 'forged',
      status: 2,
      remain_quota: null,
    });
    expect(saved.body.data).toMatchObject({ name: 'echoed', used_quota: 0, user_id: echoed.user_id, key: token.masked, status: 1, remain_quota: 42 });
    // The echoed masked key (or a forged one) never replaces the real key.
    expect(await stored(token.id)).toMatchObject({ name: 'echoed', remain_quota: 42, used_quota: 0, key: token.key });
  });

  it('keeps a past expiry the edit did not touch, and an edit that cures an expired or exhausted token turns it back on', async () => {
    const token = await create({ remain_quota: 10 });
    const past = Math.floor(Date.now() / 1000) - 100;
    await test.context.db.kysely.updateTable('tokens').set({ expired_time: past, status: 3 }).where('id', '=', token.id).execute();
    const renamed = await call('PUT', '/api/token/', { id: token.id, name: 'still expired', expired_time: past });
    expect(renamed.body.data).toMatchObject({ name: 'still expired', status: 3, expired_time: past });
    const cured = await call('PUT', '/api/token/', { id: token.id, expired_time: -1 });
    expect(cured.body.data.status).toBe(1);

    await test.context.db.kysely.updateTable('tokens').set({ remain_quota: 0, status: 4 }).where('id', '=', token.id).execute();
    expect((await call('PUT', '/api/token/', { id: token.id, name: 'empty' })).body.data.status).toBe(4);
    expect((await call('PUT', '/api/token/', { id: token.id, unlimited_quota: true })).body.data.status).toBe(1);
  });
});

describe('switching tokens on and off', () => {
  const setStatus = (id: number, status: unknown) => call('PUT', '/api/token/?status_only=true', { id, status });

  it('disables and enables, touching nothing else', async () => {
    const token = await create({ remain_quota: 77 });
    // A relay charge landing between the read and the write must not be undone by the toggle.
    await test.context.db.kysely.updateTable('tokens').set({ remain_quota: 70, used_quota: 7 }).where('id', '=', token.id).execute();
    expect((await setStatus(token.id, 2)).body.data).toMatchObject({ status: 2, remain_quota: 70, used_quota: 7 });
    expect((await setStatus(token.id, 1)).body.data).toMatchObject({ status: 1, remain_quota: 70, used_quota: 7 });
    expect(tokenEvents.filter((key) => key === token.key)).toHaveLength(3);
    expect((await setStatus(token.id, 3)).body).toEqual({ success: false, message: '令牌状态只能是 1（启用）或 2（禁用）' });
    expect((await setStatus(token.id, undefined)).body).toEqual({ success: false, message: '令牌状态只能是 1（启用）或 2（禁用）' });
  });

  it('refuses to enable an expired or used-up token with new-api’s messages', async () => {
    const expired = await create();
    await test.context.db.kysely
      .updateTable('tokens')
      .set({ expired_time: Math.floor(Date.now() / 1000) - 1, status: 3 })
      .where('id', '=', expired.id)
      .execute();
    expect(await setStatus(expired.id, 1)).toMatchObject({
      status: 200,
      body: { success: false, message: '令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期' },
    });
    expect((await stored(expired.id))?.status).toBe(3);

    const exhausted = await create({ remain_quota: 0 });
    await setStatus(exhausted.id, 2);
    expect(await setStatus(exhausted.id, 1)).toMatchObject({
      status: 200,
      body: { success: false, message: '令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度' },
    });
    expect((await stored(exhausted.id))?.status).toBe(2);

    const unlimited = await create({ remain_quota: 0, unlimited_quota: true });
    await setStatus(unlimited.id, 2);
    expect((await setStatus(unlimited.id, 1)).body.data.status).toBe(1);
  });
});

describe('deleting tokens', () => {
  it('deletes for good and tells the caches the key', async () => {
    const token = await create();
    const other = await create({ name: 'other' });
    expect((await call('DELETE', `/api/token/${token.id}/`)).body).toEqual({ success: true, message: '删除成功' });
    expect(await stored(token.id)).toBeUndefined();
    expect(tokenEvents.at(-1)).toBe(token.key);
    expect(await call('DELETE', `/api/token/${token.id}`)).toMatchObject({ status: 200, body: { success: false, message: '令牌不存在' } });
    expect(await stored(other.id)).toBeDefined();
  });
});
