import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS } from '../../test-support/dialects.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

let test: TestApp;
let root: Record<string, string>;
beforeEach(async () => {
  test = await startTestApp();
  root = await test.login();
});
afterEach(async () => test.close());

async function registerAndLogin(username: string) {
  await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
  return test.login(username, 'password123');
}

const create = (payload: object, headers = root) => test.app.inject({ method: 'POST', url: '/api/redemption/', headers, payload });

describe('redemption codes', () => {
  it('batch-creates codes, lists, searches, edits while unused, toggles and deletes', async () => {
    const created = (await create({ name: 'promo', quota: 500000, count: 3 })).json();
    expect(created.success).toBe(true);
    expect(created.data).toHaveLength(3);
    for (const key of created.data) expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(created.data).size).toBe(3);

    const defaultName = (await create({ quota: 100000 })).json();
    expect(defaultName.data).toHaveLength(1);

    const list = (await test.app.inject({ method: 'GET', url: '/api/redemption/?p=1&page_size=2', headers: root })).json();
    expect(list.data.total).toBe(4);
    expect(list.data.items).toHaveLength(2);
    expect(list.data.items[0].name).toBe('$0.20');
    expect(list.data).toMatchObject({ page: 1, page_size: 2 });

    const search = (await test.app.inject({ method: 'GET', url: '/api/redemption/search?keyword=pro', headers: root })).json();
    expect(search.data.items.map((item: { name: string }) => item.name)).toEqual(['promo', 'promo', 'promo']);
    const id = search.data.items[0].id;
    const byId = (await test.app.inject({ method: 'GET', url: `/api/redemption/search?keyword=${id}`, headers: root })).json();
    expect(byId.data.items.map((item: { id: number }) => item.id)).toContain(id);

    const edited = (await test.app.inject({ method: 'PUT', url: '/api/redemption/', headers: root, payload: { id, name: 'renamed', quota: 42 } })).json();
    expect(edited.data).toMatchObject({ id, name: 'renamed', quota: 42, status: 1 });

    const disabled = (await test.app.inject({ method: 'PUT', url: '/api/redemption/?status_only=true', headers: root, payload: { id, status: 2 } })).json();
    expect(disabled.data.status).toBe(2);
    const key = disabled.data.key;
    const user = await registerAndLogin('redeemer');
    const refused = (await test.app.inject({ method: 'POST', url: '/api/user/topup', headers: user, payload: { key } })).json();
    expect(refused).toEqual({ success: false, message: '无效的兑换码，或兑换码已被使用' });

    expect((await test.app.inject({ method: 'DELETE', url: `/api/redemption/${id}/`, headers: root })).json().success).toBe(true);
    expect((await test.app.inject({ method: 'GET', url: `/api/redemption/${id}`, headers: root })).json()).toEqual({ success: false, message: '兑换码不存在' });
  });

  it('validates name length, quota and count', async () => {
    const cases: [object, string][] = [
      [{ name: 'x'.repeat(21), quota: 1, count: 1 }, '无效的参数，name: 兑换码名称长度必须在 1 到 20 之间'],
      [{ quota: 1.5, count: 1 }, '无效的参数，quota: 额度必须是整数'],
      [{ quota: 'a lot', count: 1 }, '无效的参数，quota: 额度必须是整数'],
      [{ quota: 0, count: 1 }, '无效的参数，quota: 额度必须大于 0'],
      [{ quota: 10, count: 0 }, '无效的参数，count: 数量必须大于 0'],
      [{ quota: 10, count: 101 }, '无效的参数，count: 一次最多创建 100 个兑换码'],
    ];
    for (const [payload, message] of cases) {
      const response = await create(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(200);
      expect(response.json()).toEqual({ success: false, message });
    }
  });

  it('is for admins only', async () => {
    const user = await registerAndLogin('plainuser');
    for (const response of [await create({ quota: 1 }, user), await test.app.inject({ method: 'GET', url: '/api/redemption/', headers: user })]) {
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ success: false, message: '无权进行此操作，权限不足' });
    }
    expect(await test.context.db.kysely.selectFrom('redemptions').selectAll().execute()).toEqual([]);
  });

  it('redeems once, credits the balance, writes a top-up log and refuses edits afterwards', async () => {
    const [key] = (await create({ name: 'gift', quota: 250000, count: 1 })).json().data;
    const user = await registerAndLogin('lucky');
    const redeemed = (await test.app.inject({ method: 'POST', url: '/api/user/topup', headers: user, payload: { key } })).json();
    expect(redeemed).toEqual({ success: true, message: '兑换成功', data: 250000 });
    const self = (await test.app.inject({ method: 'GET', url: '/api/user/self', headers: user })).json();
    expect(self.data.quota).toBe(250000);
    const again = (await test.app.inject({ method: 'POST', url: '/api/user/topup', headers: user, payload: { key } })).json();
    expect(again.success).toBe(false);

    const logs = await test.context.db.kysely.selectFrom('logs').selectAll().where('type', '=', 1).execute();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ username: 'lucky', quota: 250000, content: '通过兑换码充值 $0.50' });
    expect(JSON.parse(logs[0]!.other)).toEqual({ kind: 'redeem', quota: 250000 });

    const row = (await test.app.inject({ method: 'GET', url: '/api/redemption/search?keyword=gift', headers: root })).json().data.items[0];
    expect(row).toMatchObject({ status: 3, used_user_id: Number(user['new-api-user']) });
    const edit = (await test.app.inject({ method: 'PUT', url: '/api/redemption/', headers: root, payload: { id: row.id, name: 'x', quota: 1 } })).json();
    expect(edit).toEqual({ success: false, message: '兑换码已被使用，无法编辑' });
    const enable = (
      await test.app.inject({ method: 'PUT', url: '/api/redemption/?status_only=true', headers: root, payload: { id: row.id, status: 1 } })
    ).json();
    expect(enable.success).toBe(false);
  });

  it('lets exactly one of 50 concurrent redemptions of one code succeed', async () => {
    const [key] = (await create({ name: 'race', quota: 1000, count: 1 })).json().data;
    const users = await Promise.all(Array.from({ length: 5 }, (_, i) => registerAndLogin(`racer${i}`)));
    const attempts = Array.from({ length: 50 }, (_, i) =>
      test.app.inject({ method: 'POST', url: '/api/user/topup', headers: users[i % 5]!, payload: { key } }),
    );
    const bodies = (await Promise.all(attempts)).map((response) => response.json());
    expect(bodies.filter((body) => body.success)).toHaveLength(1);
    const total = await test.context.db.kysely
      .selectFrom('users')
      .select((eb) => eb.fn.sum<number>('quota').as('quota'))
      .where('username', 'like', 'racer%')
      .executeTakeFirstOrThrow();
    expect(Number(total.quota)).toBe(1000);
    const logs = await test.context.db.kysely.selectFrom('logs').selectAll().where('type', '=', 1).execute();
    expect(logs).toHaveLength(1);
  });

  it('asks for a code when it is empty', async () => {
    const user = await registerAndLogin('empty');
    const response = await test.app.inject({ method: 'POST', url: '/api/user/topup', headers: user, payload: { key: '  ' } });
    expect(response.json()).toEqual({ success: false, message: '请输入兑换码' });
  });
});

describe.each(DIALECTS)('concurrent redemption on %s', (dialect) => {
  it('credits one code once when 50 requests race for it', async () => {
    const fresh = await createFreshDb(dialect);
    await fresh.db.close();
    const node = await startTestApp(dialect === 'sqlite' ? {} : { SQL_DSN: fresh.sqlDsn });
    try {
      const admin = await node.login();
      const [key] = (await node.app.inject({ method: 'POST', url: '/api/redemption/', headers: admin, payload: { quota: 777, count: 1 } })).json().data;
      await node.app.inject({ method: 'POST', url: '/api/user/register', payload: { username: 'racer', password: 'password123' } });
      const user = await node.login('racer', 'password123');
      const results = await Promise.all(
        Array.from({ length: 50 }, () => node.app.inject({ method: 'POST', url: '/api/user/topup', headers: user, payload: { key } })),
      );
      expect(results.filter((response) => response.json().success)).toHaveLength(1);
      expect(results.every((response) => response.statusCode < 500)).toBe(true);
      const row = await node.context.db.kysely.selectFrom('users').select('quota').where('username', '=', 'racer').executeTakeFirstOrThrow();
      expect(row.quota).toBe(777);
    } finally {
      await node.close();
      await fresh.drop().catch(() => undefined);
    }
  });
});
