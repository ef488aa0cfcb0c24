import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

/** A stand-in for the providers' account APIs: a real HTTP server that checks the key. */
let upstream: Server;
let upstreamUrl: string;
const seen: { path: string; authorization?: string; apiKey?: string }[] = [];
const GOOD_KEY = 'sk-goodUpstreamKey123456';

function answer(request: IncomingMessage): [number, unknown] {
  const url = new URL(request.url ?? '/', 'http://upstream');
  const bearer = request.headers.authorization === `Bearer ${GOOD_KEY}`;
  if (url.pathname === '/v1beta/models') {
    return request.headers['x-goog-api-key'] === GOOD_KEY
      ? [200, { models: [{ name: 'models/gemini-2.5-pro' }, { name: 'models/gemini-2.5-flash' }] }]
      : [403, { error: { message: 'bad key' } }];
  }
  if (!bearer) return [401, { error: { message: `Incorrect API key provided: ${request.headers.authorization?.slice(7)}` } }];
  switch (url.pathname) {
    case '/v1/dashboard/billing/subscription':
      return [200, { object: 'billing_subscription', has_payment_method: true, hard_limit_usd: 100 }];
    case '/v1/dashboard/billing/usage':
      return [200, { object: 'list', total_usage: 2550, start_date: url.searchParams.get('start_date'), end_date: url.searchParams.get('end_date') }];
    case '/user/balance':
      return [200, { is_available: true, balance_infos: [{ currency: 'CNY', total_balance: '110.50', granted_balance: '0.00', topped_up_balance: '110.50' }] }];
    case '/v1/user/info':
      return [200, { code: 20000, message: 'OK', status: true, data: { totalBalance: '8.25', balance: '8.25' } }];
    case '/api/v1/credits':
      return [200, { data: { total_credits: 20, total_usage: 5.5 } }];
    case '/v1/models':
      return [
        200,
        {
          object: 'list',
          data: [
            { id: 'gpt-4o', object: 'model' },
            { id: 'o3', object: 'model' },
          ],
        },
      ];
    default:
      return [404, { error: { message: 'no such path' } }];
  }
}

beforeAll(async () => {
  upstream = createServer((request, response) => {
    seen.push({ path: request.url ?? '', authorization: request.headers.authorization, apiKey: request.headers['x-goog-api-key'] as string | undefined });
    const [status, body] = answer(request);
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((resolve) => upstream.close(() => resolve())));

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
  seen.length = 0;
});
afterEach(async () => test.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = async (method: Method, url: string, payload?: object) => {
  const response = await test.app.inject({ method, url, headers: root, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json(), raw: response.body };
};

async function create(overrides: object = {}): Promise<number> {
  const { body } = await call('POST', '/api/channel/', { type: 1, name: 'c', key: GOOD_KEY, group: 'default', models: 'gpt-4o', ...overrides });
  expect(body.success, body.message).toBe(true);
  return body.data.id;
}

const abilityRows = async () =>
  (await test.context.db.kysely.selectFrom('abilities').selectAll().orderBy('channel_id').orderBy('group').orderBy('model').execute()).map(
    (row) => `${row.channel_id}:${row.group}/${row.model}/e${row.enabled}/p${row.priority}/w${row.weight}/${row.tag}`,
  );

describe('tags', () => {
  it('sets a tag on selected channels, enables and disables by tag, edits by tag', async () => {
    const one = await create({ name: 'one' });
    const two = await create({ name: 'two' });
    const other = await create({ name: 'other', tag: 'keep' });

    expect((await call('POST', '/api/channel/batch/tag', { ids: [one, two], tag: 'team' })).body).toEqual({ success: true, message: '', data: 2 });
    expect((await call('POST', '/api/channel/batch/tag', { ids: [one], tag: ' ' })).body).toEqual({ success: false, message: '无效的参数，tag: 标签不能为空' });
    expect((await call('POST', '/api/channel/batch/tag', { ids: [], tag: 'x' })).body).toEqual({ success: false, message: '无效的参数，ids: 请先选择渠道' });

    expect((await call('POST', '/api/channel/tag/disabled', { tag: 'team' })).body).toEqual({ success: true, message: '', data: 2 });
    const statuses = async () =>
      (await call('GET', '/api/channel/?id_sort=true')).body.data.items.map((item: { name: string; status: number }) => `${item.name}:${item.status}`);
    expect(await statuses()).toEqual(['other:1', 'two:2', 'one:2']);
    expect(await abilityRows()).toEqual([
      `${one}:default/gpt-4o/e0/p0/w0/team`,
      `${two}:default/gpt-4o/e0/p0/w0/team`,
      `${other}:default/gpt-4o/e1/p0/w0/keep`,
    ]);
    await call('POST', '/api/channel/tag/enabled', { tag: 'team' });
    expect(await statuses()).toEqual(['other:1', 'two:1', 'one:1']);
    expect((await call('POST', '/api/channel/tag/enabled', { tag: 'nobody' })).body).toEqual({ success: false, message: '没有渠道使用标签“nobody”' });
    expect((await call('POST', '/api/channel/tag/enabled', {})).body.success).toBe(false);

    const edit = await call('PUT', '/api/channel/tag', {
      tag: 'team',
      new_tag: 'squad',
      priority: 3,
      weight: 4,
      models: 'o3,o4-mini',
      groups: 'vip',
      model_mapping: '{"o4":"o4-mini"}',
    });
    expect(edit.body).toEqual({ success: true, message: '更新成功', data: 2 });
    expect(await abilityRows()).toEqual([
      `${one}:vip/o3/e1/p3/w4/squad`,
      `${one}:vip/o4-mini/e1/p3/w4/squad`,
      `${two}:vip/o3/e1/p3/w4/squad`,
      `${two}:vip/o4-mini/e1/p3/w4/squad`,
      `${other}:default/gpt-4o/e1/p0/w0/keep`,
    ]);
    expect((await call('GET', `/api/channel/${one}`)).body.data).toMatchObject({
      tag: 'squad',
      priority: 3,
      weight: 4,
      models: 'o3,o4-mini',
      group: 'vip',
      model_mapping: '{"o4":"o4-mini"}',
    });

    const refusals: [object, string][] = [
      [{ tag: 'squad' }, '没有需要修改的内容'],
      [{ tag: 'squad', models: '', groups: '' }, '没有需要修改的内容'],
      [{ tag: 'squad', weight: -1 }, '无效的参数，weight: 权重必须是非负整数'],
      [{ tag: 'squad', priority: 1.5 }, '无效的参数，priority: 优先级必须是整数'],
      [{ tag: 'squad', model_mapping: '{oops' }, '模型重定向必须是合法的 JSON 对象，且每个值都是模型名称字符串'],
      [{ tag: '', priority: 1 }, '无效的参数，tag: 标签不能为空'],
      [{ tag: 'ghost', priority: 1 }, '没有渠道使用标签“ghost”'],
    ];
    for (const [payload, message] of refusals) expect((await call('PUT', '/api/channel/tag', payload)).body).toEqual({ success: false, message });
    expect(channelEvents).toBe(7);
  });
});

describe('balances', () => {
  it('reads the balance from each provider kind and stores it', async () => {
    const openai = await create({ type: 1, base_url: upstreamUrl });
    const custom = await create({ type: 8, base_url: upstreamUrl });
    const deepseek = await create({ type: 43, base_url: upstreamUrl });
    const silicon = await create({ type: 40, base_url: upstreamUrl });
    const openrouter = await create({ type: 20, base_url: `${upstreamUrl}/api` });
    const expected: [number, number][] = [
      [openai, 74.5],
      [custom, 74.5],
      [deepseek, 110.5],
      [silicon, 8.25],
      [openrouter, 14.5],
    ];
    for (const [id, balance] of expected) {
      const { body } = await call('GET', `/api/channel/update_balance/${id}/`);
      expect(body).toEqual({ success: true, message: '', data: balance, balance });
      const stored = await call('GET', `/api/channel/${id}`);
      expect(stored.body.data.balance).toBe(balance);
      expect(stored.body.data.balance_updated_time).toBeGreaterThan(Date.now() / 1000 - 60);
    }
    const usage = seen.find((request) => request.path.startsWith('/v1/dashboard/billing/usage'))!;
    const month = new Date().toISOString().slice(0, 7);
    expect(usage.path).toContain(`start_date=${month}-01`);
    expect(seen.every((request) => request.authorization === `Bearer ${GOOD_KEY}`)).toBe(true);
  });

  it('says which types have no balance API, and reports upstream failures without the key', async () => {
    const claude = await create({ type: 14 });
    expect(await call('GET', `/api/channel/update_balance/${claude}/`)).toMatchObject({
      status: 200,
      body: { success: false, message: '该渠道类型不支持查询余额' },
    });
    const wrongKey = 'sk-wrongKeyThatMustNotLeak99';
    const broken = await create({ type: 1, base_url: upstreamUrl, key: wrongKey });
    const failed = await call('GET', `/api/channel/update_balance/${broken}/`);
    // new-api's convention: a provider's failure is HTTP 200 with success false, not a gateway 5xx.
    expect(failed.status).toBe(200);
    expect(failed.body.success).toBe(false);
    expect(failed.body.message).toMatch(/^查询余额失败：上游返回状态码 401/);
    expect(failed.raw).not.toContain('wrongKeyThatMustNotLeak');
    expect(await call('GET', '/api/channel/update_balance/98765/')).toMatchObject({
      status: 200,
      body: { success: false, message: '渠道不存在，请刷新后重试' },
    });
  });

  it('refreshes every enabled channel that has a balance API', async () => {
    const good = await create({ type: 43, base_url: upstreamUrl });
    await create({ type: 20, base_url: upstreamUrl });
    await create({ type: 1, base_url: upstreamUrl, key: 'sk-bad-key-000000' });
    await create({ type: 14 });
    const disabled = await create({ type: 43, base_url: upstreamUrl, status: 2 });
    const { body } = await call('GET', '/api/channel/update_balance');
    expect(body).toEqual({ success: true, message: '', data: { updated: 2, failed: 1, unsupported: 1 } });
    expect((await call('GET', `/api/channel/${good}`)).body.data.balance).toBe(110.5);
    expect((await call('GET', `/api/channel/${disabled}`)).body.data.balance).toBe(0);
  });
});

describe('models', () => {
  it('lists a channel’s upstream models and those of a channel being filled in', async () => {
    const id = await create({ type: 1, base_url: upstreamUrl });
    expect((await call('GET', `/api/channel/fetch_models/${id}`)).body).toEqual({ success: true, message: '', data: ['gpt-4o', 'o3'] });
    expect((await call('POST', '/api/channel/fetch_models', { base_url: `${upstreamUrl}/v1`, type: 1, key: GOOD_KEY })).body.data).toEqual(['gpt-4o', 'o3']);
    expect((await call('POST', '/api/channel/fetch_models', { base_url: upstreamUrl, type: 24, key: GOOD_KEY })).body.data).toEqual([
      'gemini-2.5-pro',
      'gemini-2.5-flash',
    ]);
    const refused = await call('POST', '/api/channel/fetch_models', { base_url: upstreamUrl, type: 1, key: 'sk-nope-nope-nope-nope' });
    expect(refused.status).toBe(200);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toMatch(/^获取模型列表失败：/);
    expect(refused.raw).not.toContain('nope-nope-nope');
    expect((await call('POST', '/api/channel/fetch_models', { type: 8, key: 'k' })).body).toEqual({ success: false, message: '请先填写渠道的 Base URL' });
    expect((await call('POST', '/api/channel/fetch_models', { base_url: upstreamUrl, type: 1 })).body.success).toBe(false);
    expect(await call('GET', '/api/channel/fetch_models/4242')).toMatchObject({ status: 200, body: { success: false, message: '渠道不存在，请刷新后重试' } });
  });

  it('lists every known model with the channel types that serve it', async () => {
    await create({ type: 8, models: 'my-private-model,gpt-4o' });
    const { body } = await call('GET', '/api/channel/models');
    const byId = new Map(body.data.map((model: { id: string }) => [model.id, model]));
    expect(byId.get('gpt-4o')).toMatchObject({ id: 'gpt-4o', object: 'model', owned_by: 'OpenAI' });
    expect((byId.get('gpt-4o') as { channel_types: number[] }).channel_types).toEqual(expect.arrayContaining([1, 3, 8]));
    expect(byId.get('claude-sonnet-4-20250514')).toMatchObject({ owned_by: 'Anthropic Claude' });
    expect(byId.get('my-private-model')).toMatchObject({ channel_types: [8] });
    expect(byId.get('deepseek-chat')).toMatchObject({ owned_by: 'DeepSeek' });
  });
});
