import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../test-support/test-app.js';
import { startTestApp } from '../../test-support/test-app.js';
import { MidjourneyRepository } from '../../domain/tasks/midjourney-repository.js';
import { setOption } from '../../relay/testing/relay-fixtures.js';

/** GET /api/mj/ (administrators: every task, channel filter) and /api/mj/self (one's own). */
let test: TestApp;
let aliceId = 0;
let bobId = 0;

async function user(name: string, role = 1): Promise<number> {
  const response = await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username: name, password: 'password123' } });
  expect(response.json()).toMatchObject({ success: true });
  const row = await test.context.db.kysely.selectFrom('users').select('id').where('username', '=', name).executeTakeFirstOrThrow();
  if (role !== 1) await test.context.db.kysely.updateTable('users').set({ role }).where('id', '=', row.id).execute();
  return Number(row.id);
}

beforeAll(async () => {
  test = await startTestApp();
  aliceId = await user('mjalice');
  bobId = await user('mjbob');
  const tasks = new MidjourneyRepository(test.context.db);
  const base = { tokenId: 0, code: 1, description: '提交成功', status: 'SUCCESS', progress: '100%', failReason: '', quota: 50_000 };
  await tasks.insert({
    ...base,
    userId: aliceId,
    action: 'IMAGINE',
    mjId: 'a-1',
    prompt: 'cat',
    submitTime: 1_700_000_000_000,
    channelId: 7,
    imageUrl: 'https://cdn.example/a1.png',
  });
  await tasks.insert({ ...base, userId: aliceId, action: 'UPSCALE', mjId: 'a-2', prompt: 'cat', submitTime: 1_700_000_100_000, channelId: 8 });
  await tasks.insert({ ...base, userId: bobId, action: 'IMAGINE', mjId: 'b-1', prompt: 'dog', submitTime: 1_700_000_200_000, channelId: 7 });
});
afterAll(() => test.close());

const get = async (url: string, headers: Record<string, string>) => {
  const response = await test.app.inject({ method: 'GET', url, headers });
  return {
    status: response.statusCode,
    body: response.json() as {
      success: boolean;
      message?: string;
      data: { items: Array<Record<string, unknown>>; total: number; page: number; page_size: number };
    },
  };
};

describe('/api/mj', () => {
  it('lists every task for administrators, newest first, with channel, id and time filters', async () => {
    const root = await test.login();
    const all = await get('/api/mj/?p=1&page_size=10', root);
    expect(all.body.success).toBe(true);
    expect(all.body.data).toMatchObject({ total: 3, page: 1, page_size: 10 });
    expect(all.body.data.items.map((item) => item.mj_id)).toEqual(['b-1', 'a-2', 'a-1']);
    expect(all.body.data.items[2]).toMatchObject({
      user_id: aliceId,
      action: 'IMAGINE',
      channel_id: 7,
      quota: 50_000,
      image_url: 'https://cdn.example/a1.png',
      status: 'SUCCESS',
      progress: '100%',
    });

    expect((await get('/api/mj/?channel_id=7', root)).body.data.items.map((item) => item.mj_id)).toEqual(['b-1', 'a-1']);
    expect((await get('/api/mj/?mj_id=a-2', root)).body.data.total).toBe(1);
    const range = await get('/api/mj/?start_timestamp=1700000050000&end_timestamp=1700000150000', root);
    expect(range.body.data.items.map((item) => item.mj_id)).toEqual(['a-2']);
    expect((await get('/api/mj/?p=2&page_size=2', root)).body.data.items.map((item) => item.mj_id)).toEqual(['a-1']);
  });

  it('shows a user only their own tasks, ignores channel_id there and refuses them the admin list', async () => {
    const alice = await test.login('mjalice', 'password123');
    const own = await get('/api/mj/self?channel_id=8', alice);
    expect(own.body.success).toBe(true);
    expect(own.body.data.items.map((item) => item.mj_id)).toEqual(['a-2', 'a-1']);
    expect(own.body.data.items.every((item) => item.user_id === aliceId && item.channel_id === 0)).toBe(true);
    expect((await get('/api/mj/self/?mj_id=b-1', alice)).body.data.total).toBe(0);

    const refused = await get('/api/mj/', alice);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toContain('权限不足');

    const anonymous = await test.app.inject({ method: 'GET', url: '/api/mj/self' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('answers image addresses through the gateway with MjForwardUrlEnabled', async () => {
    await setOption(test.context, 'MjForwardUrlEnabled', true);
    await setOption(test.context, 'ServerAddress', 'https://gw.example.com/');
    try {
      const alice = await test.login('mjalice', 'password123');
      const own = await get('/api/mj/self?mj_id=a-1', alice);
      expect(own.body.data.items[0]!.image_url).toMatch(/^https:\/\/gw\.example\.com\/mj\/image\/a-1\?sig=[\w-]{32}$/);
    } finally {
      await setOption(test.context, 'MjForwardUrlEnabled', false);
    }
  });
});
