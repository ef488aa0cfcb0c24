import { RedemptionStatus } from '@modelgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertLogRow } from '../../domain/logs/log-buffer.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

/*
 * The calls of new-api's newest console (QuantumNous/new-api web/src: its hooks and helpers), made
 * as it makes them: the same paths (trailing slashes included), query names and bodies, each
 * answer read for the fields that console reads. docs/new-api-console-compat.md lists them all.
 */

let test: TestApp;
let root: Record<string, string>;
let user: Record<string, string>;
let userId = 0;
let tagged = 0;
const now = Math.floor(Date.now() / 1000);

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
async function call(method: Method, url: string, headers: Record<string, string> | undefined, payload?: object) {
  const response = await test.app.inject({ method, url, ...(headers ? { headers } : {}), ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json() as { success: boolean; message: string; data: any } };
}
const ok = async (method: Method, url: string, headers: Record<string, string> | undefined, payload?: object) => {
  const { status, body } = await call(method, url, headers, payload);
  expect(status, `${method} ${url}`).toBe(200);
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data;
};

async function newToken(name: string): Promise<number> {
  return (await ok('POST', '/api/token/', user, { name, remain_quota: 1000, expired_time: -1 })).id;
}

beforeAll(async () => {
  test = await startTestApp();
  root = await test.login();
  await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username: 'console', password: 'password123' } });
  user = await test.login('console', 'password123');
  userId = Number(user['new-api-user']);
  const channel = (body: object) => ok('POST', '/api/channel/', root, { type: 1, key: 'sk-upstream-0123456789', group: 'default', ...body });
  await channel({ name: 'tagged-a', models: 'gpt-4o', tag: 'team' });
  await channel({ name: 'tagged-b', models: 'gpt-4o,gpt-4o-mini,o3', tag: 'team' });
  await channel({ name: 'plain', models: 'gpt-4o' });
  tagged = (await test.context.db.kysely.selectFrom('channels').select('id').where('name', '=', 'tagged-b').executeTakeFirstOrThrow()).id;
  await insertLogRow(test.context.db.kysely, {
    user_id: userId,
    created_at: now,
    type: 2,
    username: 'console',
    token_name: 't',
    model_name: 'gpt-4o',
    quota: 30,
    token_id: 0,
    group: 'default',
  });
  await test.context.db.kysely
    .insertInto('top_ups')
    .values([
      { user_id: userId, amount: 10, money: 73, trade_no: 'MG1700000000AAAA', payment_method: 'alipay', create_time: now - 60, status: 'success' },
      { user_id: userId, amount: 20, money: 146, trade_no: 'MG1700000001BBBB', payment_method: 'wxpay', create_time: now, status: 'pending' },
      {
        user_id: Number(root['new-api-user']),
        amount: 5,
        money: 36.5,
        trade_no: 'MG1700000002CCCC',
        payment_method: 'alipay',
        create_time: now,
        status: 'pending',
      },
    ])
    .execute();
});
afterAll(async () => test.close());

describe('the list pages read items, total, page and page_size under the names that console sends', () => {
  it.each([
    ['channels', '/api/channel/?p=1&page_size=2&id_sort=false&tag_mode=false&type=1&status=1', 2, 3],
    ['channels by tag', '/api/channel/?p=1&page_size=10&id_sort=true&tag_mode=true', 3, 2],
    ['channel search', '/api/channel/search?keyword=tagged&group=&model=&id_sort=false&tag_mode=false&p=1&page_size=10&type=1', 2, 2],
    ['users (p=0 on the first load)', '/api/user/?p=0&page_size=10', 2, 2],
    ['user search by group', '/api/user/search?keyword=&group=default&p=1&page_size=10', 2, 2],
    ['redemptions', '/api/redemption/?p=1&page_size=10', 0, 0],
    [
      'logs',
      `/api/log/?p=1&page_size=10&type=0&username=&token_name=&model_name=&start_timestamp=${now - 3600}&end_timestamp=${now + 3600}&channel=&group=default&request_id=`,
      1,
      1,
    ],
    [
      'own logs',
      `/api/log/self?p=1&page_size=10&type=2&token_name=&model_name=gpt-4o&start_timestamp=${now - 3600}&end_timestamp=${now + 3600}&group=&request_id=`,
      1,
      1,
    ],
    ['tasks', `/api/task/?p=1&page_size=10&start_timestamp=${now - 86_400}&end_timestamp=${now + 3600}&media_type=all`, 0, 0],
    [
      'drawings (milliseconds, trailing slash)',
      `/api/mj/?p=1&page_size=10&channel_id=&mj_id=&start_timestamp=${now * 1000 - 3_600_000}&end_timestamp=${now * 1000}`,
      0,
      0,
    ],
    ['all top-ups', '/api/user/topup?p=1&page_size=2', 2, 3],
  ])('%s', async (_page, url, rows, total) => {
    const data = await ok('GET', url, url.startsWith('/api/log/self') ? user : root);
    expect(data.items).toHaveLength(rows);
    expect(data.total).toBe(total);
    expect(data.page).toBe(1);
    expect(data.page_size).toBeGreaterThan(0);
  });

  it("channels answer type_counts; tag mode groups a tag's channels under one row", async () => {
    const data = await ok('GET', '/api/channel/?p=1&page_size=10&id_sort=false&tag_mode=true', root);
    expect(data.type_counts).toEqual({ 1: 3 });
    expect(data.items.filter((row: { tag: string }) => row.tag === 'team')).toHaveLength(2);
  });

  it('tokens page with size= and answer the page the console asked for', async () => {
    for (const name of ['one', 'two', 'three']) await newToken(name);
    const page = await ok('GET', '/api/token/?p=2&size=2', user);
    expect(page).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(page.items).toHaveLength(1);
    const found = await ok('GET', '/api/token/search?keyword=tw&token=&p=1&size=10', user);
    expect(found.items.map((token: { name: string }) => token.name)).toEqual(['two']);
  });

  it("a user's own top-ups, newest first, searched by trade number", async () => {
    const own = await ok('GET', '/api/user/topup/self?p=1&page_size=10', user);
    expect(own.items.map((row: { trade_no: string }) => row.trade_no)).toEqual(['MG1700000001BBBB', 'MG1700000000AAAA']);
    expect(own.items[0]).toMatchObject({ user_id: userId, amount: 20, money: 146, payment_method: 'wxpay', status: 'pending' });
    const found = await ok('GET', '/api/user/topup/self?p=1&page_size=10&keyword=AAAA', user);
    expect(found.items.map((row: { trade_no: string }) => row.trade_no)).toEqual(['MG1700000000AAAA']);
    // `%` is a character to find, not a wildcard.
    expect((await ok('GET', '/api/user/topup/self?keyword=%25', user)).total).toBe(0);
    expect((await call('GET', '/api/user/topup', user)).body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
  });
});

describe('the row actions that console sends', () => {
  it('tokens: switched off with ?status_only=true, deleted by id with a trailing slash, several at once by {ids}', async () => {
    const a = await newToken('batch-a');
    const b = await newToken('batch-b');
    const c = await newToken('batch-c');
    expect((await ok('PUT', '/api/token/?status_only=true', user, { id: a, status: 2 })).status).toBe(2);
    await ok('DELETE', `/api/token/${c}/`, user);
    // Another user's token in the list is passed over, as new-api does.
    const rootToken = (await ok('POST', '/api/token/', root, { name: 'roots', remain_quota: 1, expired_time: -1 })).id;
    const { body } = await call('POST', '/api/token/batch', user, { ids: [a, b, rootToken] });
    expect(body).toMatchObject({ success: true, data: 2 });
    const left = await ok('GET', '/api/token/?p=1&size=100', user);
    expect(left.items.map((token: { name: string }) => token.name)).not.toEqual(expect.arrayContaining(['batch-a']));
    expect((await ok('GET', `/api/token/${rootToken}`, root)).name).toBe('roots');
  });

  it.each([
    [{}, '请选择至少一个令牌'],
    [{ ids: [] }, '请选择至少一个令牌'],
    [{ ids: ['x'] }, '令牌 ID 必须是正整数'],
    [{ ids: Array.from({ length: 101 }, (_, index) => index + 1) }, '一次最多删除 100 个令牌'],
  ])('a bad token batch %j is refused: %s', async (payload, message) => {
    const { status, body } = await call('POST', '/api/token/batch', user, payload);
    expect(status).toBe(200);
    expect(body.success).toBe(false);
    expect(body.message).toContain(message);
  });

  it('redemption codes: 清除失效兑换码 deletes used, disabled and expired codes and keeps the rest', async () => {
    const create = (name: string, expired_time = 0) => ok('POST', '/api/redemption/', root, { name, quota: 100, count: 1, expired_time });
    for (const name of ['valid', 'used', 'disabled']) await create(name);
    await create('future', now + 86_400);
    await create('expired', now + 2);
    const db = test.context.db.kysely;
    await db.updateTable('redemptions').set({ status: RedemptionStatus.Used }).where('name', '=', 'used').execute();
    await db
      .updateTable('redemptions')
      .set({ expired_time: now - 10 })
      .where('name', '=', 'expired')
      .execute();
    const disabled = (await db.selectFrom('redemptions').select('id').where('name', '=', 'disabled').executeTakeFirstOrThrow()).id;
    expect((await ok('PUT', '/api/redemption/?status_only=true', root, { id: disabled, status: RedemptionStatus.Disabled })).status).toBe(2);

    expect(await ok('DELETE', '/api/redemption/invalid', root)).toBe(3);
    const left = await ok('GET', '/api/redemption/?p=1&page_size=10', root);
    expect(left.items.map((code: { name: string }) => code.name).sort()).toEqual(['future', 'valid']);
    const audit = await ok('GET', '/api/audit/?p=1&page_size=1', root);
    expect(audit.items[0]).toMatchObject({ action: 'redemption.delete', summary: '清除失效兑换码 3 个' });
    expect((await call('DELETE', '/api/redemption/invalid', user)).body.message).toBe('无权进行此操作，权限不足');
  });

  it("channels: a tag's longest model list starts the tag editor; deleting by id takes a trailing slash", async () => {
    expect(await ok('GET', '/api/channel/tag/models?tag=team', root)).toBe('gpt-4o,gpt-4o-mini,o3');
    expect(await ok('GET', '/api/channel/tag/models?tag=nobody', root)).toBe('');
    expect((await call('GET', '/api/channel/tag/models', root)).body).toMatchObject({ success: false, message: expect.stringContaining('标签不能为空') });
    await ok('PUT', '/api/channel/', root, { id: tagged, status: 2 });
    expect((await ok('GET', `/api/channel/${tagged}`, root)).status).toBe(2);
    await ok('DELETE', `/api/channel/${tagged}/`, root);
    expect(await ok('GET', '/api/channel/tag/models?tag=team', root)).toBe('gpt-4o');
  });
});

describe('what the dashboard, wallet and settings read', () => {
  it('/api/status turns the dashboard panels modelgate has no data for off, and the uptime list is empty', async () => {
    const status = await ok('GET', '/api/status', undefined);
    expect(status).toMatchObject({ api_info_enabled: false, announcements_enabled: false, faq_enabled: false, uptime_kuma_enabled: false });
    // The legal pages are not set up, the header keeps its defaults, the sidebar leaves out what modelgate has not.
    expect(status).toMatchObject({ user_agreement_enabled: false, privacy_policy_enabled: false, HeaderNavModules: '' });
    expect(status).toMatchObject({ discord_oauth: false, custom_oauth_providers: [] });
    expect(JSON.parse(status.SidebarModulesAdmin)).toEqual({ admin: { models: false, deployment: false, subscription: false } });
    expect(await ok('GET', '/api/uptime/status', undefined)).toEqual([]);
  });

  it('the log statistics read quota, rpm and tpm with the filters of the log page', async () => {
    const range = `start_timestamp=${now - 3600}&end_timestamp=${now + 3600}`;
    const all = await ok('GET', `/api/log/stat?type=0&username=&token_name=&model_name=&${range}&channel=&group=default`, root);
    expect(all).toMatchObject({ quota: 30, rpm: expect.any(Number), tpm: expect.any(Number) });
    expect((await ok('GET', `/api/log/self/stat?type=0&token_name=&model_name=&${range}&group=`, user)).quota).toBe(30);
    expect((await ok('GET', `/api/log/stat?type=0&${range}&group=vip`, root)).quota).toBe(0);
  });

  it('usage data answers with and without the trailing slash, default_time passed', async () => {
    const range = `start_timestamp=${now - 86_400}&end_timestamp=${now + 3600}&default_time=hour`;
    expect(await ok('GET', `/api/data/?username=&${range}`, root)).toEqual([]);
    expect(await ok('GET', `/api/data/self/?${range}`, user)).toEqual([]);
  });

  it('补单: an administrator credits a pending order once, with its top-up log line', async () => {
    const before = (await ok('GET', '/api/user/self', user)).quota;
    expect((await call('POST', '/api/user/topup/complete', root, { trade_no: 'MG1700000001BBBB' })).body).toEqual({ success: true, message: '补单成功' });
    expect((await ok('GET', '/api/user/self', user)).quota).toBe(before + 20 * 500_000);
    const [order] = (await ok('GET', '/api/user/topup/self?keyword=BBBB', user)).items;
    expect(order.status).toBe('success');
    expect(order.complete_time).toBeGreaterThan(0);
    const logs = await ok('GET', '/api/log/self?p=1&page_size=10&type=1', user);
    expect(logs.items[0]).toMatchObject({ quota: 20 * 500_000, content: expect.stringContaining('管理员补单成功') });
    for (const [payload, message] of [
      [{ trade_no: 'MG1700000001BBBB' }, '订单状态不是待支付，无法补单'],
      [{ trade_no: 'nothing' }, '充值订单不存在'],
      [{}, '参数错误：请提供订单号 trade_no'],
    ] as const) {
      const { body } = await call('POST', '/api/user/topup/complete', root, payload);
      expect(body.success).toBe(false);
      expect(body.message).toContain(message);
    }
    expect((await ok('GET', '/api/user/self', user)).quota).toBe(before + 20 * 500_000);
    expect((await call('POST', '/api/user/topup/complete', user, { trade_no: 'MG1700000002CCCC' })).body.message).toBe('无权进行此操作，权限不足');
  });

  it('the top-up page: Epay methods only when Epay is set up', async () => {
    expect(await ok('GET', '/api/user/topup/info', user)).toEqual({
      enable_online_topup: false,
      enable_stripe_topup: false,
      enable_creem_topup: false,
      creem_products: '[]',
      pay_methods: [],
      min_topup: 1,
      stripe_min_topup: 0,
      amount_options: [],
      discount: {},
    });
    await test.context.options.set('PayAddress', 'https://pay.example.com');
    await test.context.options.set('EpayId', '1001');
    await test.context.options.set('EpayKey', 'epay-secret');
    await test.context.options.set('MinTopUp', '5');
    const info = await ok('GET', '/api/user/topup/info', user);
    expect(info).toMatchObject({ enable_online_topup: true, min_topup: 5 });
    expect(info.pay_methods.map((method: { type: string }) => method.type)).toEqual(['alipay', 'wxpay']);
  });

  it('the groups a token may use answer signed in or not', async () => {
    await test.context.options.set('UserUsableGroups', JSON.stringify({ default: '默认分组', vip: 'vip分组' }));
    expect(Object.keys(await ok('GET', '/api/user/groups', undefined))).toEqual(['default', 'vip']);
    expect(Object.keys(await ok('GET', '/api/user/self/groups', user))).toEqual(['default', 'vip']);
  });

  it('subscription plans are refused plainly (HTTP 200, success:false), never a 404 the console would pop up', async () => {
    for (const [method, url, headers] of [
      ['GET', '/api/subscription/plans', user],
      ['GET', '/api/subscription/self', user],
      ['GET', '/api/subscription/admin/plans', root],
      ['POST', '/api/subscription/admin/users/batch_active_subscriptions', root],
    ] as const) {
      const { status, body } = await call(method, url, headers, method === 'POST' ? { user_ids: [userId] } : undefined);
      expect(status, url).toBe(200);
      expect(body, url).toEqual({ success: false, message: '本站未提供订阅套餐' });
    }
  });

  it("the user editor unbinds one sign-in method; the account page's custom OAuth bindings are an empty list", async () => {
    const db = test.context.db.kysely;
    await db.updateTable('users').set({ github_id: '4242', email: 'bound@example.com' }).where('id', '=', userId).execute();
    expect((await call('DELETE', `/api/user/${userId}/bindings/github`, root)).body).toEqual({ success: true, message: 'success' });
    const edited = await ok('GET', `/api/user/${userId}`, root);
    expect(edited).toMatchObject({ github_id: '', email: 'bound@example.com' });
    const logs = await ok('GET', `/api/log/?p=1&page_size=10&type=3&username=console`, root);
    expect(logs.items[0].content).toBe('管理员清除了用户 console 的 github 绑定');
    const refused = await call('DELETE', `/api/user/${userId}/bindings/discord`, root);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toContain('不支持的绑定类型');
    expect((await call('DELETE', `/api/user/${userId}/bindings/email`, user)).body.message).toBe('无权进行此操作，权限不足');

    expect(await ok('GET', '/api/user/oauth/bindings', user)).toEqual([]);
    expect(await ok('GET', `/api/user/${userId}/oauth/bindings`, root)).toEqual([]);
    expect((await call('GET', '/api/user/99999/oauth/bindings', root)).body).toEqual({ success: false, message: '用户不存在' });
  });

  it('a user is deleted by id as through the manage action, the super administrator never', async () => {
    await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username: 'leaving', password: 'password123' } });
    const leaving = Number((await test.login('leaving', 'password123'))['new-api-user']);
    expect((await call('DELETE', `/api/user/${leaving}`, root)).body).toEqual({ success: true, message: '' });
    expect((await ok('GET', `/api/user/${leaving}`, root)).DeletedAt).not.toBeNull();
    expect((await call('DELETE', `/api/user/${Number(root['new-api-user'])}`, root)).body.message).toBe('无法删除超级管理员用户');
    expect((await call('DELETE', `/api/user/${userId}`, user)).body.message).toBe('无权进行此操作，权限不足');
  });

  it('prefill groups (the channel editor reads them) are refused plainly too', async () => {
    for (const [method, url] of [
      ['GET', '/api/prefill_group?type=model'],
      ['POST', '/api/prefill_group/'],
      ['PUT', '/api/prefill_group/'],
      ['DELETE', '/api/prefill_group/1'],
    ] as const) {
      const { status, body } = await call(method, url, root, method === 'GET' || method === 'DELETE' ? undefined : { name: 'x', type: 'model', items: [] });
      expect(status, url).toBe(200);
      expect(body, url).toEqual({ success: false, message: '本站未提供预填分组' });
    }
  });

  it('the settings tabs of features modelgate has not: no custom OAuth provider to list, the others refused plainly', async () => {
    expect(await ok('GET', '/api/custom-oauth-provider/', root)).toEqual([]);
    for (const [method, url, message] of [
      ['POST', '/api/custom-oauth-provider/', '本站不支持自定义 OAuth 提供商'],
      ['POST', '/api/custom-oauth-provider/discovery', '本站不支持自定义 OAuth 提供商'],
      ['GET', '/api/ratio_sync/channels', '本站不支持上游倍率同步'],
      ['GET', '/api/performance/stats', '本站不提供性能监控'],
      ['GET', '/api/option/channel_affinity_cache', '本站不支持渠道亲和性缓存'],
    ] as const) {
      const { status, body } = await call(method, url, root, method === 'POST' ? { name: 'x' } : undefined);
      expect(status, url).toBe(200);
      expect(body, url).toEqual({ success: false, message });
    }
    expect((await call('GET', '/api/custom-oauth-provider/', user)).body.message).toBe('无权进行此操作，权限不足');
  });

  it('the email binding form is POSTed as JSON, as the GET query was', async () => {
    const { body } = await call('POST', '/api/oauth/email/bind', user, { email: 'console@example.com', code: '000000' });
    expect(body).toEqual({ success: false, message: '验证码错误或已过期' });
    const empty = await call('POST', '/api/oauth/email/bind', user, { email: 'console@example.com' });
    expect(empty.body).toEqual({ success: false, message: '请输入邮箱验证码！' });
    const wechat = await call('POST', '/api/oauth/wechat/bind', user, { code: '123456' });
    expect(wechat.body.success).toBe(false);
    expect(wechat.body.message).toBe('管理员未开启通过微信登录以及注册');
  });
});
