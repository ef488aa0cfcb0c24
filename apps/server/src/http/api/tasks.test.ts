import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSuno, type MockSuno } from '../../providers/suno/testing/mock-suno.js';
import { SUNO_PRICES, pollTasks, sunoCall } from '../../providers/suno/testing/suno-test-kit.js';
import { seedChannel, seedToken, setOption, startRelayTestEnv, unique, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

/** GET /api/task/ (admins) and /api/task/self (everyone signed in), and enable_task in /api/status. */
let env: RelayTestEnv;
let mock: MockSuno;

interface Page {
  success: boolean;
  message: string;
  data: { items: Record<string, unknown>[]; total: number; page: number; page_size: number };
}

async function get(url: string, headers: Record<string, string>): Promise<Page> {
  return (await env.test.app.inject({ method: 'GET', url, headers })).json() as Page;
}

/** A registered user (group `default`) with a balance, a key and a session. */
async function signUp() {
  const username = unique('tk').replace(/-/g, '').slice(-12);
  await env.test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
  const session = await env.test.login(username, 'password123');
  const id = Number(session['new-api-user']);
  await env.context.db.kysely.updateTable('users').set({ quota: 1_000_000_000 }).where('id', '=', id).execute();
  env.context.changes.emit('user', id);
  const token = await seedToken(env.context, id);
  return { username, session, id, token };
}

const statusTask = async () =>
  ((await env.test.app.inject({ method: 'GET', url: '/api/status' })).json() as { data: { enable_task: boolean } }).data.enable_task;

beforeAll(async () => {
  env = await startRelayTestEnv();
  mock = await startMockSuno();
  await setOption(env.context, 'ModelPrice', JSON.stringify({ ...env.context.options.json('ModelPrice'), ...SUNO_PRICES }));
});
afterAll(async () => {
  await env?.close();
  await mock?.close();
});

describe('enable_task in /api/status', () => {
  it('is on by default, as in new-api', async () => {
    expect(await statusTask()).toBe(true);
  });

  it('is true when the admin turned tasks on or an enabled Suno channel exists', async () => {
    await setOption(env.context, 'TaskEnabled', false);
    expect(await statusTask()).toBe(false);
    const disabled = await seedChannel(env.context, { type: 36, key: mock.key, baseUrl: mock.url, models: ['suno_music'], groups: ['nobody'], status: 2 });
    expect(await statusTask()).toBe(false);
    await setOption(env.context, 'TaskEnabled', true);
    expect(await statusTask()).toBe(true);
    await setOption(env.context, 'TaskEnabled', false);
    await env.context.db.kysely.updateTable('channels').set({ status: 1 }).where('id', '=', disabled).execute();
    expect(await statusTask()).toBe(true);
  });
});

describe('the task lists', () => {
  let alice: Awaited<ReturnType<typeof signUp>>;
  let bob: Awaited<ReturnType<typeof signUp>>;
  let root: Record<string, string>;
  let channels: number[];
  const aliceTasks: string[] = [];
  let bobTask = '';

  beforeAll(async () => {
    channels = [
      await seedChannel(env.context, { type: 36, key: mock.key, baseUrl: mock.url, models: ['suno_music', 'suno_lyrics'], groups: ['default'], priority: 10 }),
      await seedChannel(env.context, { type: 36, key: mock.key, baseUrl: mock.url, models: ['suno_lyrics'], groups: ['default'], priority: 5 }),
    ];
    alice = await signUp();
    bob = await signUp();
    root = await env.test.login();
    for (const prompt of ['one', 'two', 'three']) {
      const answer = await sunoCall(env.gateway, alice.token.apiKey, 'POST', '/suno/submit/lyrics', { prompt });
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      aliceTasks.push(answer.json.data as string);
    }
    bobTask = (await sunoCall(env.gateway, bob.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'b' })).json.data as string;
    // One of Alice's on the second channel, to filter by.
    await env.context.db.kysely.updateTable('tasks').set({ channel_id: channels[1]! }).where('task_id', '=', aliceTasks[0]!).execute();
    mock.finishAll();
    await pollTasks(env);
  });

  it('shows a user their own tasks only, newest first, paged, and refuses them the admin list', async () => {
    const own = await get('/api/task/self?p=1&page_size=2', alice.session);
    expect(own.success).toBe(true);
    expect([own.data.total, own.data.page, own.data.page_size]).toEqual([3, 1, 2]);
    expect(own.data.items.map((task) => task.task_id)).toEqual([aliceTasks[2], aliceTasks[1]]);
    expect(own.data.items[0]).toMatchObject({
      platform: 'suno',
      action: 'LYRICS',
      status: 'SUCCESS',
      progress: '100%',
      user_id: alice.id,
      data: { title: 'Quiet Morning' },
    });
    expect(own.data.items[0]).not.toHaveProperty('username');
    const second = await get('/api/task/self?p=2&page_size=2', alice.session);
    expect(second.data.items.map((task) => task.task_id)).toEqual([aliceTasks[0]]);
    const foreign = await get(`/api/task/self?task_id=${bobTask}`, alice.session);
    expect(foreign.data).toMatchObject({ items: [], total: 0 });
    // The channel filter is the admins'; a user's own list ignores it.
    expect((await get(`/api/task/self?channel_id=${channels[1]}`, alice.session)).data.total).toBe(3);
    const refused = await env.test.app.inject({ method: 'GET', url: '/api/task/', headers: alice.session });
    expect([refused.statusCode, refused.json()]).toEqual([200, { success: false, message: '无权进行此操作，权限不足' }]);
    const anonymous = await env.test.app.inject({ method: 'GET', url: '/api/task/self' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('shows an admin every task with its username, filtered by channel, task id and time', async () => {
    const all = await get('/api/task/?page_size=100', root);
    const ids = all.data.items.map((task) => task.task_id);
    expect(ids).toEqual(expect.arrayContaining([...aliceTasks, bobTask]));
    expect(all.data.items.find((task) => task.task_id === bobTask)).toMatchObject({
      username: bob.username,
      action: 'MUSIC',
      quota: 100_000,
      channel_id: channels[0],
    });
    const byChannel = await get(`/api/task/?channel_id=${channels[1]}`, root);
    expect(byChannel.data.items.map((task) => task.task_id)).toEqual([aliceTasks[0]]);
    const byId = await get(`/api/task/?task_id=${aliceTasks[1]}`, root);
    expect(byId.data.items.map((task) => task.user_id)).toEqual([alice.id]);
    const submitted = Number(byId.data.items[0]!.submit_time);
    expect((await get(`/api/task/?task_id=${aliceTasks[1]}&start_timestamp=${submitted + 1}`, root)).data.total).toBe(0);
    expect((await get(`/api/task/?task_id=${aliceTasks[1]}&end_timestamp=${submitted - 1}`, root)).data.total).toBe(0);
    expect((await get(`/api/task/?task_id=${aliceTasks[1]}&start_timestamp=${submitted}&end_timestamp=${submitted}`, root)).data.total).toBe(1);
    // Junk filters are no filters, as new-api reads them.
    expect((await get('/api/task/?p=abc&channel_id=x&start_timestamp=soon', root)).success).toBe(true);
  });
});
