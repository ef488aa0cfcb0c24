import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

const get = async (url: string, headers: Record<string, string>) => {
  const response = await test.app.inject({ method: 'GET', url, headers });
  return { status: response.statusCode, body: response.json() };
};

describe('groups', () => {
  it('lists the GroupRatio group names for administrators only', async () => {
    expect((await get('/api/group/', root)).body).toEqual({ success: true, message: '', data: ['default', 'vip', 'svip'] });
    await test.context.options.set('GroupRatio', '{"default":1,"pro":0.8}');
    expect((await get('/api/group/', root)).body.data).toEqual(['default', 'pro']);
    const user = await registerAndLogin('carol');
    expect(await get('/api/group/', user)).toMatchObject({ status: 200, body: { success: false, message: '无权进行此操作，权限不足' } });
    expect(await get('/api/group/', {})).toMatchObject({ status: 401, body: { success: false, message: '无权进行此操作，未登录且未提供 access token' } });
  });

  it('gives a user the selectable groups with description and ratio, plus the user’s own group', async () => {
    const user = await registerAndLogin('dave');
    expect((await get('/api/user/self/groups', user)).body).toEqual({
      success: true,
      message: '',
      data: { default: { desc: '默认分组', ratio: 1 }, vip: { desc: 'vip分组', ratio: 1 } },
    });

    await test.context.options.set('GroupRatio', '{"default":1,"vip":0.5,"svip":2}');
    await test.context.options.set('UserUsableGroups', '{"default":"普通","vip":"会员","cheap":"没有倍率的分组"}');
    await test.context.db.kysely.updateTable('users').set({ group: 'svip' }).where('username', '=', 'dave').execute();
    expect((await get('/api/user/self/groups', user)).body.data).toEqual({
      default: { desc: '普通', ratio: 1 },
      vip: { desc: '会员', ratio: 0.5 },
      cheap: { desc: '没有倍率的分组', ratio: 1 },
      svip: { desc: '用户分组', ratio: 2 },
    });
    // The same list decides which groups a token may name.
    const created = await test.app.inject({ method: 'POST', url: '/api/token/', headers: user, payload: { name: 't', group: 'cheap' } });
    expect(created.json()).toMatchObject({ success: true, data: { group: 'cheap' } });
    expect((await get('/api/user/self/groups', {})).status).toBe(401);
  });
});
