import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

let test: TestApp;
let root: Record<string, string>;
let channelEvents: number;
beforeEach(async () => {
  test = await startTestApp();
  root = await test.login();
  channelEvents = 0;
  test.context.changes.on('channels', () => {
    channelEvents += 1;
  });
});
afterEach(async () => test.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = async (method: Method, url: string, payload?: object, headers = root) => {
  const response = await test.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json(), raw: response.body };
};

const SECRET = 'sk-upstreamSECRET0123456789';
const channel = (overrides: object = {}) => ({
  type: 1,
  name: 'openai-main',
  key: SECRET,
  groups: ['default', 'vip'],
  models: 'gpt-4o,gpt-4o-mini',
  ...overrides,
});

async function create(overrides: object = {}): Promise<number> {
  const { body } = await call('POST', '/api/channel/', channel(overrides));
  expect(body.success, body.message).toBe(true);
  return body.data.id;
}

async function abilities(channelId?: number) {
  let query = test.context.db.kysely.selectFrom('abilities').selectAll().orderBy('channel_id').orderBy('group').orderBy('model');
  if (channelId !== undefined) query = query.where('channel_id', '=', channelId);
  return (await query.execute()).map((row) => ({
    ...row,
    channel_id: Number(row.channel_id),
    enabled: Number(row.enabled),
    priority: Number(row.priority),
    weight: Number(row.weight),
  }));
}

/** The stored key, opened: the column holds it sealed (lib/secret-box.ts). */
const storedKey = async (id: number) => {
  const { key } = await test.context.db.kysely.selectFrom('channels').select('key').where('id', '=', id).executeTakeFirstOrThrow();
  expect(key).toMatch(/^enc:v1:/);
  return test.context.db.secrets.open(key);
};

async function registerAndLogin(username: string) {
  await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
  return test.login(username, 'password123');
}

describe('channel permissions', () => {
  it('answers a normal user 200 with success:false (权限不足) and 401 without a session on every channel route', async () => {
    const id = await create();
    const user = await registerAndLogin('plainuser');
    const routes: [Method, string, object?][] = [
      ['GET', '/api/channel/'],
      ['GET', '/api/channel/search?keyword=x'],
      ['GET', `/api/channel/${id}`],
      ['GET', '/api/channel/models'],
      ['POST', '/api/channel/', channel()],
      ['PUT', '/api/channel/', { id, status: 2 }],
      ['DELETE', `/api/channel/${id}/`],
      ['DELETE', '/api/channel/disabled'],
      ['POST', '/api/channel/batch', { ids: [id] }],
      ['POST', '/api/channel/batch/tag', { ids: [id], tag: 't' }],
      ['POST', '/api/channel/fix'],
      ['POST', `/api/channel/copy/${id}`],
      ['PUT', '/api/channel/tag', { tag: 't', priority: 1 }],
      ['POST', '/api/channel/tag/enabled', { tag: 't' }],
      ['GET', `/api/channel/update_balance/${id}/`],
      ['GET', '/api/channel/update_balance'],
      ['GET', `/api/channel/fetch_models/${id}`],
      ['GET', '/api/group/'],
    ];
    for (const [method, url, payload] of routes) {
      const asUser = await call(method, url, payload, user);
      expect(asUser.status, `${method} ${url}`).toBe(200);
      expect(asUser.body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
      const anonymous = await call(method, url, payload, {});
      expect(anonymous.status, `${method} ${url} anonymous`).toBe(401);
      expect(anonymous.body).toEqual({ success: false, message: '无权进行此操作，未登录且未提供 access token' });
    }
    // Nothing changed behind the refusals.
    expect((await call('GET', `/api/channel/${id}`)).body.data.status).toBe(1);
  });
});

describe('creating channels', () => {
  it('creates from the channel body, never returns the key, and writes group × model abilities', async () => {
    const { body, raw } = await call('POST', '/api/channel/', channel({ priority: 5, weight: 3, tag: 'main' }));
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({
      name: 'openai-main',
      type: 1,
      status: 1,
      group: 'default,vip',
      models: 'gpt-4o,gpt-4o-mini',
      key: '',
      priority: 5,
      weight: 3,
      tag: 'main',
      auto_ban: 1,
    });
    expect(raw).not.toContain(SECRET);
    expect(await storedKey(body.data.id)).toBe(SECRET);
    expect(await abilities()).toEqual([
      { group: 'default', model: 'gpt-4o', channel_id: body.data.id, enabled: 1, priority: 5, weight: 3, tag: 'main' },
      { group: 'default', model: 'gpt-4o-mini', channel_id: body.data.id, enabled: 1, priority: 5, weight: 3, tag: 'main' },
      { group: 'vip', model: 'gpt-4o', channel_id: body.data.id, enabled: 1, priority: 5, weight: 3, tag: 'main' },
      { group: 'vip', model: 'gpt-4o-mini', channel_id: body.data.id, enabled: 1, priority: 5, weight: 3, tag: 'main' },
    ]);
    expect(channelEvents).toBe(1);
  });

  it('accepts the comma-list `group`, trims and de-duplicates lists, and stores a disabled channel with disabled abilities', async () => {
    const { body } = await call('POST', '/api/channel/', {
      mode: 'single',
      channel: channel({ groups: undefined, group: ' default , default,svip ', models: ['m1', ' m1', 'm2 '], status: 2 }),
    });
    expect(body.data).toMatchObject({ group: 'default,svip', models: 'm1,m2', status: 2 });
    const rows = await abilities(body.data.id);
    expect(rows.map((row) => `${row.group}/${row.model}/${row.enabled}`)).toEqual(['default/m1/0', 'default/m2/0', 'svip/m1/0', 'svip/m2/0']);
  });

  it('batch mode makes one channel per key line; multi_to_single keeps every key in one channel', async () => {
    const batch = await call('POST', '/api/channel/', { mode: 'batch', channel: channel({ key: 'key-one\n\n key-two \nkey-three\nkey-one' }) });
    expect(batch.body.success).toBe(true);
    expect(batch.body.data).toHaveLength(3);
    const ids: number[] = batch.body.data.map((item: { id: number }) => item.id);
    expect(await Promise.all(ids.map(storedKey))).toEqual(['key-one', 'key-two', 'key-three']);
    expect(batch.raw).not.toContain('key-two');
    expect((await abilities()).length).toBe(12);

    const named = await call('POST', '/api/channel/', {
      mode: 'batch',
      batch_add_set_key_prefix_2_name: true,
      channel: channel({ name: 'pool', key: 'abcdefghijk\nzyxwvutsrqp' }),
    });
    expect(named.body.data.map((item: { name: string }) => item.name)).toEqual(['pool abcdefgh', 'pool zyxwvuts']);

    const multi = await call('POST', '/api/channel/', { mode: 'multi_to_single', channel: channel({ key: ' a-key \nb-key\n' }) });
    expect(multi.body.data.key).toBe('');
    expect(await storedKey(multi.body.data.id)).toBe('a-key\nb-key');

    const unknownMode = await call('POST', '/api/channel/', { mode: 'weird', channel: channel() });
    expect(unknownMode).toMatchObject({ status: 200, body: { success: false, message: '不支持的添加模式' } });
  });

  it('refuses missing or malformed fields with a readable message and stores nothing', async () => {
    const cases: [object, string][] = [
      [channel({ type: undefined }), '请选择渠道类型'],
      [channel({ type: 999 }), '未知的渠道类型：999'],
      [channel({ type: 'openai' }), '无效的参数，type: 渠道类型必须是整数'],
      [channel({ name: '  ' }), '渠道名称不能为空'],
      [channel({ groups: [], group: '' }), '请至少选择一个分组'],
      [channel({ models: ' , ' }), '请至少选择一个模型'],
      [channel({ key: '' }), '渠道密钥不能为空'],
      [channel({ model_mapping: '{"gpt-4o": ' }), '模型重定向必须是合法的 JSON 对象，且每个值都是模型名称字符串'],
      [channel({ model_mapping: '{"gpt-4o": 5}' }), '模型重定向必须是合法的 JSON 对象，且每个值都是模型名称字符串'],
      [channel({ model_mapping: '["gpt-4o"]' }), '模型重定向必须是合法的 JSON 对象，且每个值都是模型名称字符串'],
      [channel({ status_code_mapping: '{"429": "abc"}' }), '状态码复写必须是合法的 JSON 对象，形如 {"400": "500"}，"429" 映射无效'],
      [channel({ setting: 'not json' }), '渠道额外设置必须是合法的 JSON 对象'],
      [channel({ priority: -1000 }), '优先级不能小于 -999'],
      [channel({ priority: 1.5 }), '无效的参数，priority: 优先级必须是整数'],
      [channel({ base_url: 'ftp://example.com' }), 'Base URL 必须以 http:// 或 https:// 开头'],
      [channel({ models: `${'m'.repeat(256)}` }), `模型名称过长：${'m'.repeat(256)}`],
    ];
    for (const [payload, message] of cases) {
      const { status, body } = await call('POST', '/api/channel/', payload);
      expect(body, message).toEqual({ success: false, message });
      expect(status).toBe(200);
    }
    expect(await test.context.db.kysely.selectFrom('channels').selectAll().execute()).toEqual([]);
    expect(await abilities()).toEqual([]);
    expect(channelEvents).toBe(0);
  });

  it('accepts a valid mapping, a status code mapping and clamps a negative weight to 0', async () => {
    const { body } = await call(
      'POST',
      '/api/channel/',
      channel({ model_mapping: '{"gpt-3.5-turbo": "gpt-3.5-turbo-0125"}', status_code_mapping: '{"429": "500"}', weight: -7 }),
    );
    expect(body.data).toMatchObject({ model_mapping: '{"gpt-3.5-turbo": "gpt-3.5-turbo-0125"}', status_code_mapping: '{"429": "500"}', weight: 0 });
  });

  it('copies a channel with its key under a new name', async () => {
    const id = await create();
    const copied = await call('POST', `/api/channel/copy/${id}?suffix=-copy`);
    expect(copied.body.data).toMatchObject({ name: 'openai-main-copy', key: '', models: 'gpt-4o,gpt-4o-mini' });
    expect(await storedKey(copied.body.data.id)).toBe(SECRET);
    expect((await abilities(copied.body.data.id)).length).toBe(4);
  });

  it('copies under "_复制" by default and starts used quota and balance over unless reset_balance=false (new-api)', async () => {
    const id = await create({ name: 'spent' });
    await test.context.db.kysely
      .updateTable('channels')
      .set({ used_quota: 5000, balance: 12.5, test_time: 99, response_time: 321 })
      .where('id', '=', id)
      .execute();
    const usage = async (copyId: number) =>
      test.context.db.kysely
        .selectFrom('channels')
        .select(['name', 'used_quota', 'balance', 'test_time', 'response_time'])
        .where('id', '=', copyId)
        .executeTakeFirstOrThrow();

    const reset = await call('POST', `/api/channel/copy/${id}`);
    expect(reset.body.success).toBe(true);
    expect(await usage(reset.body.data.id)).toMatchObject({ name: 'spent_复制', balance: 0, test_time: 0, response_time: 0 });
    expect(Number((await usage(reset.body.data.id)).used_quota)).toBe(0);

    const kept = await call('POST', `/api/channel/copy/${id}?suffix=-b&reset_balance=false`);
    const keptRow = await usage(kept.body.data.id);
    expect({ ...keptRow, used_quota: Number(keptRow.used_quota) }).toMatchObject({ name: 'spent-b', used_quota: 5000, balance: 12.5, test_time: 0 });
    expect(await storedKey(kept.body.data.id)).toBe(SECRET);

    // An unparsable flag keeps the default, as Go's ParseBool failure does in new-api.
    const odd = await call('POST', `/api/channel/copy/${id}?reset_balance=maybe`);
    expect((await usage(odd.body.data.id)).balance).toBe(0);
    expect((await call('POST', '/api/channel/copy/999999')).body.success).toBe(false);
  });
});

describe('reading channels', () => {
  it('pages, sorts by priority then id (or by id), filters, and never sends keys', async () => {
    const low = await create({ name: 'low', priority: 0, key: 'key-low-SECRET' });
    const high = await create({ name: 'high', priority: 10, groups: ['vip_1'], models: 'claude-3', key: 'key-high-SECRET', type: 14 });
    const mid = await create({ name: 'mid', priority: 5, base_url: 'https://proxy.example.com', key: 'key-mid-SECRET' });

    const names = (body: { data: { items: { name: string }[] } }) => body.data.items.map((item) => item.name);
    const first = await call('GET', '/api/channel/?p=1&page_size=2');
    expect(first.body.data).toMatchObject({ total: 3, page: 1, page_size: 2, type_counts: { 1: 2, 14: 1 } });
    expect(names(first.body)).toEqual(['high', 'mid']);
    expect((await call('GET', '/api/channel/?p=0&page_size=2')).body.data.items).toEqual(first.body.data.items);
    expect(names((await call('GET', '/api/channel/?p=2&page_size=2')).body)).toEqual(['low']);
    expect(names((await call('GET', '/api/channel/?id_sort=true')).body)).toEqual(['mid', 'high', 'low']);

    const listed = await call('GET', '/api/channel/?page_size=100');
    expect(listed.raw).not.toMatch(/SECRET/);
    expect(listed.body.data.items.every((item: { key: string }) => item.key === '')).toBe(true);

    const search = async (query: string) => names((await call('GET', `/api/channel/search?${query}`)).body).sort();
    expect(await search(`keyword=${mid}`)).toEqual(['mid']);
    expect(await search('keyword=LO')).toEqual(['low']);
    expect(await search('keyword=key-high-SECRET')).toEqual(['high']);
    expect(await search('keyword=key-high')).toEqual([]);
    expect(await search('keyword=proxy.example')).toEqual(['mid']);
    expect(await search('model=claude')).toEqual(['high']);
    expect(await search('group=vip_1')).toEqual(['high']);
    expect(await search('group=vip')).toEqual(['low', 'mid']);
    expect(await search('group=vip%')).toEqual([]);
    expect(await search('keyword=%25')).toEqual([]);
    expect(await search('status=enabled&type=14')).toEqual(['high']);

    const one = await call('GET', `/api/channel/${low}`);
    expect(one.body.data).toMatchObject({ id: low, name: 'low', key: '' });
    expect(one.raw).not.toContain('SECRET');
    expect(await call('GET', '/api/channel/99999')).toMatchObject({ status: 200, body: { success: false, message: '渠道不存在，请刷新后重试' } });
    expect(await call('GET', '/api/channel/abc')).toMatchObject({ status: 200, body: { success: false, message: '无效的渠道 ID' } });
    expect(high).toBeGreaterThan(low);
  });

  it('tag mode pages over tags and untagged channels, keeping a tag’s channels together', async () => {
    await create({ name: 'a1', tag: 'alpha', priority: 1 });
    await create({ name: 'solo', priority: 3 });
    await create({ name: 'b1', tag: 'beta', priority: 0 });
    await create({ name: 'a2', tag: 'alpha', priority: 4 });
    await create({ name: 'b2', tag: 'beta', priority: 2 });

    const page1 = await call('GET', '/api/channel/?tag_mode=true&p=1&page_size=2');
    expect(page1.body.data.total).toBe(3);
    expect(page1.body.data.items.map((item: { name: string }) => item.name)).toEqual(['a2', 'a1', 'solo']);
    const page2 = await call('GET', '/api/channel/?tag_mode=true&p=2&page_size=2');
    expect(page2.body.data.items.map((item: { name: string }) => item.name)).toEqual(['b2', 'b1']);
    const byId = await call('GET', '/api/channel/search?tag_mode=true&id_sort=true&page_size=10');
    expect(byId.body.data.items.map((item: { name: string }) => item.name)).toEqual(['b2', 'b1', 'a2', 'a1', 'solo']);
  });
});

describe('updating and deleting channels', () => {
  it('a full update rewrites abilities and keeps the key when the form sends it empty', async () => {
    const id = await create();
    const before = channelEvents;
    const { body } = await call('PUT', '/api/channel/', { ...channel(), id, key: '', groups: ['svip'], models: 'o3', used_quota: 999, balance: 12 });
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({ id, group: 'svip', models: 'o3', key: '', used_quota: 0, balance: 0 });
    expect(await storedKey(id)).toBe(SECRET);
    expect((await abilities()).map((row) => `${row.group}/${row.model}`)).toEqual(['svip/o3']);
    expect(channelEvents).toBe(before + 1);

    // new-api's form sends null for untouched optional fields: they stay as stored.
    const echoed = await call('PUT', '/api/channel/', {
      id,
      name: 'renamed',
      model_mapping: null,
      tag: null,
      priority: null,
      weight: null,
      test_model: null,
      type: null,
    });
    expect(echoed.body.data).toMatchObject({ name: 'renamed', group: 'svip', models: 'o3', type: 1, priority: 0 });

    await call('PUT', '/api/channel/', { id, key: 'new-key' });
    expect(await storedKey(id)).toBe('new-key');
  });

  it('status, priority and weight edits reach the abilities; bad values are refused', async () => {
    const id = await create();
    await call('PUT', '/api/channel/', { id, status: 2 });
    expect((await abilities(id)).every((row) => row.enabled === 0)).toBe(true);
    await call('PUT', '/api/channel/', { id, status: 1 });
    expect((await abilities(id)).every((row) => row.enabled === 1)).toBe(true);

    expect((await call('PUT', '/api/channel/', { id, priority: -999 })).body.data.priority).toBe(-999);
    expect((await call('PUT', '/api/channel/', { id, priority: '7' })).body.data.priority).toBe(7);
    expect((await call('PUT', '/api/channel/', { id, weight: -3 })).body.data.weight).toBe(0);
    expect((await call('PUT', '/api/channel/', { id, weight: 9 })).body.data.weight).toBe(9);
    expect((await abilities(id)).every((row) => row.priority === 7 && row.weight === 9)).toBe(true);

    const refusals: [object, string][] = [
      [{ id, priority: -1000 }, '优先级不能小于 -999'],
      [{ id, status: 7 }, '渠道状态只能是 1（启用）、2（手动禁用）或 3（自动禁用）'],
      [{ id, models: '' }, '请至少选择一个模型'],
      [{ id, name: '' }, '渠道名称不能为空'],
      [{ id, model_mapping: '{' }, '模型重定向必须是合法的 JSON 对象，且每个值都是模型名称字符串'],
      [{ status: 1 }, '渠道 ID 不能为空'],
      [{ id: 424242, status: 1 }, '渠道不存在，请刷新后重试'],
    ];
    for (const [payload, message] of refusals) {
      expect(await call('PUT', '/api/channel/', payload)).toMatchObject({ status: 200, body: { success: false, message } });
    }
    expect((await call('GET', `/api/channel/${id}`)).body.data).toMatchObject({ priority: 7, weight: 9, status: 1, models: 'gpt-4o,gpt-4o-mini' });
  });

  it('deletes one channel with its abilities, and batches of channels', async () => {
    const first = await create();
    const second = await create();
    const third = await create();
    expect((await call('DELETE', `/api/channel/${first}/`)).body).toEqual({ success: true, message: '删除成功' });
    expect(await abilities(first)).toEqual([]);
    expect(await call('DELETE', `/api/channel/${first}/`)).toMatchObject({ status: 200, body: { success: false, message: '渠道不存在，请刷新后重试' } });

    expect((await call('POST', '/api/channel/batch', { ids: [second, third, 999] })).body).toEqual({ success: true, message: '', data: 2 });
    expect(await abilities()).toEqual([]);
    expect((await call('GET', '/api/channel/')).body.data.total).toBe(0);
    expect((await call('POST', '/api/channel/batch', { ids: [] })).body).toEqual({ success: false, message: '无效的参数，ids: 请先选择渠道' });
  });

  it('deletes every disabled channel and reports the count', async () => {
    const keep = await create();
    const manual = await create({ status: 2 });
    const auto = await create();
    await test.context.db.kysely.updateTable('channels').set({ status: 3 }).where('id', '=', auto).execute();
    expect((await call('DELETE', '/api/channel/disabled')).body).toEqual({ success: true, message: '', data: 2 });
    const left = (await call('GET', '/api/channel/')).body.data.items.map((item: { id: number }) => item.id);
    expect(left).toEqual([keep]);
    expect((await abilities()).every((row) => row.channel_id === keep)).toBe(true);
    expect(manual).not.toBe(keep);
  });

  it('fix rebuilds the abilities table from the channels', async () => {
    const enabled = await create({ models: 'a,b', groups: ['default'] });
    const disabled = await create({ models: 'c', groups: ['vip'], status: 2 });
    const { kysely } = test.context.db;
    await kysely.deleteFrom('abilities').where('channel_id', '=', enabled).execute();
    await kysely.insertInto('abilities').values({ group: 'ghost', model: 'x', channel_id: 777, enabled: 1 }).execute();
    await kysely.updateTable('abilities').set({ enabled: 1 }).where('channel_id', '=', disabled).execute();

    const before = channelEvents;
    expect((await call('POST', '/api/channel/fix')).body).toEqual({ success: true, message: '', data: { success: 2, fails: 0 } });
    expect((await abilities()).map((row) => `${row.channel_id}:${row.group}/${row.model}/${row.enabled}`)).toEqual([
      `${enabled}:default/a/1`,
      `${enabled}:default/b/1`,
      `${disabled}:vip/c/0`,
    ]);
    expect(channelEvents).toBe(before + 1);
  });
});
