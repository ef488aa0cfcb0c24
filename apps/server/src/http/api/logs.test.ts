import { LogType, MAX_PAGE_SIZE } from '@modelgate/contract';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertLogRow } from '../../domain/logs/log-buffer.js';
import { chatCompletionBody, sendJson } from '../../relay/testing/mock-upstream.js';
import { seedChannel, seedToken, startRelayTestEnv, unique, type RelayTestEnv, type SeededToken } from '../../relay/testing/relay-fixtures.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';

type Session = Record<string, string>;
interface Envelope<T = any> {
  success: boolean;
  message: string;
  data: T;
}
interface Page {
  items: any[];
  total: number;
  page: number;
  page_size: number;
}

async function api<T = any>(env: RelayTestEnv, url: string, session: Session = {}, method: 'GET' | 'DELETE' = 'GET') {
  const response = await env.test.app.inject({ method, url, headers: session });
  return { status: response.statusCode, body: response.json() as Envelope<T> };
}

/** A registered user (group `default`) with a balance, its session and id. */
async function signUp(env: RelayTestEnv) {
  const username = unique('lg').replace(/-/g, '').slice(-12);
  await env.test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
  const session = await env.test.login(username, 'password123');
  const id = Number(session['new-api-user']);
  await env.context.db.kysely.updateTable('users').set({ quota: 1_000_000_000 }).where('id', '=', id).execute();
  env.context.changes.emit('user', id);
  return { username, session, id };
}

/** One relay chat call on `key` for `model`, the upstream reporting the given usage. */
async function chat(env: RelayTestEnv, token: SeededToken, model: string, prompt: number, completion: number) {
  env.upstream.respond((_request, response) =>
    sendJson(response, 200, chatCompletionBody('ok', { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion })),
  );
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const answer = await response.body.text();
  expect(response.statusCode, answer).toBe(200);
}

const newChannel = async (env: RelayTestEnv, models: string[]) =>
  seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models, groups: ['default'] });

const sum = (rows: any[], pick: (row: any) => number) => rows.reduce((total, row) => total + pick(row), 0);

describe.each(['sqlite', 'postgres', 'mysql'] as const)('logs of relay calls on %s', (dialect) => {
  let fresh: FreshDb | undefined;
  let env: RelayTestEnv;
  beforeAll(async () => {
    if (dialect !== 'sqlite') fresh = await createFreshDb(dialect);
    env = await startRelayTestEnv(fresh ? { SQL_DSN: fresh.sqlDsn } : {});
  });
  afterAll(async () => {
    await env.close();
    await fresh?.drop();
  });

  it('lists every call newest first, and the stat sums them (quota, rpm, tpm)', async () => {
    const admin = await env.test.login();
    const user = await signUp(env);
    const model = 'gpt-4o-mini';
    await newChannel(env, [model]);
    const token = await seedToken(env.context, user.id, { name: 'main' });
    const usages = [
      [100, 10],
      [200, 20],
      [300, 30],
      [400, 40],
      [500, 50],
    ] as const;
    for (const [prompt, completion] of usages) await chat(env, token, model, prompt, completion);
    await env.runtime.drain();

    const own = await api<Page>(env, '/api/log/self/?type=2&page_size=20', user.session);
    expect(own.body.success).toBe(true);
    const rows = own.body.data.items;
    expect(own.body.data.total).toBe(5);
    expect(rows.map((row) => [row.prompt_tokens, row.completion_tokens])).toEqual([...usages].reverse());
    expect(rows.map((row) => row.id)).toEqual([...rows.map((row) => row.id)].sort((a, b) => b - a));
    for (const row of rows) {
      expect(row).toMatchObject({ type: LogType.Consume, username: user.username, token_name: 'main', model_name: model, is_stream: false });
      expect(row.quota).toBeGreaterThan(0);
    }

    // A time range and a later page list the same rows in the same order.
    const ranged = await api<Page>(env, `/api/log/self?start_timestamp=1&end_timestamp=${Math.floor(Date.now() / 1000) + 60}&page_size=20`, user.session);
    expect(ranged.body.data.items.map((row) => row.id)).toEqual(rows.map((row) => row.id));
    const second = await api<Page>(env, '/api/log/self?p=2&page_size=2', user.session);
    expect(second.body.data).toMatchObject({ page: 2, page_size: 2, total: 5 });
    expect(second.body.data.items.map((row) => row.id)).toEqual(rows.slice(2, 4).map((row) => row.id));

    const stat = await api(env, '/api/log/self/stat', user.session);
    expect(stat.body).toEqual({
      success: true,
      message: '',
      data: { quota: sum(rows, (row) => row.quota), rpm: 5, tpm: sum(rows, (row) => row.prompt_tokens + row.completion_tokens) },
    });
    const adminStat = await api(env, `/api/log/stat?username=${user.username}`, admin);
    expect(adminStat.body.data).toEqual(stat.body.data);
    const adminPage = await api<Page>(env, `/api/log/?username=${user.username}&p=1&page_size=20`, admin);
    expect(adminPage.body.data.items.map((row) => row.id)).toEqual(rows.map((row) => row.id));
    const search = await api(env, `/api/log/search?keyword=${encodeURIComponent('模型倍率')}`, admin);
    expect(search.body.data.map((row: any) => row.id)).toEqual(rows.map((row) => row.id));
  });
});

describe('log filters, permissions and the other log routes', () => {
  let env: RelayTestEnv;
  let admin: Session;
  let alice: Awaited<ReturnType<typeof signUp>>;
  let bob: Awaited<ReturnType<typeof signUp>>;
  let aliceMain: SeededToken;
  let bobToken: SeededToken;
  // Models with a default ratio, each served by its own channel.
  const modelA = 'gpt-4o-mini';
  const modelB = 'gpt-3.5-turbo';
  let channelA = 0;
  let channelB = 0;

  beforeAll(async () => {
    env = await startRelayTestEnv();
    admin = await env.test.login();
    alice = await signUp(env);
    bob = await signUp(env);
    channelA = await newChannel(env, [modelA]);
    channelB = await newChannel(env, [modelB]);
    aliceMain = await seedToken(env.context, alice.id, { name: 'main' });
    const aliceSide = await seedToken(env.context, alice.id, { name: 'side' });
    bobToken = await seedToken(env.context, bob.id, { name: 'main' });
    await chat(env, aliceMain, modelA, 10, 1);
    await chat(env, aliceMain, modelA, 20, 2);
    await chat(env, aliceSide, modelB, 30, 3);
    await chat(env, bobToken, modelA, 40, 4);
    await env.runtime.drain();
    // A system line of alice's, and an old consume line for the time filters.
    await insertLogRow(env.context.db.kysely, {
      user_id: alice.id,
      created_at: Math.floor(Date.now() / 1000),
      type: LogType.System,
      username: alice.username,
      content: 'system note',
    });
    await insertLogRow(env.context.db.kysely, {
      user_id: alice.id,
      created_at: 1_000_000,
      type: LogType.Consume,
      username: alice.username,
      token_name: 'main',
      model_name: modelA,
      quota: 7,
      group: 'default',
    });
  });
  afterAll(async () => {
    await env.close();
  });

  const ownPage = async (session: Session, query: string) => (await api<Page>(env, `/api/log/self?page_size=100&${query}`, session)).body.data;
  const prompts = (page: Page) => page.items.map((row) => row.prompt_tokens);

  it("filters a user's own rows by type, token, model, time and group", async () => {
    expect(prompts(await ownPage(alice.session, ''))).toEqual([0, 0, 30, 20, 10]);
    expect(prompts(await ownPage(alice.session, 'type=4'))).toEqual([0]);
    expect((await ownPage(alice.session, 'type=1')).total).toBe(0);
    expect(prompts(await ownPage(alice.session, 'type=2&token_name=main'))).toEqual([0, 20, 10]);
    expect(prompts(await ownPage(alice.session, `model_name=${modelB}`))).toEqual([30]);
    // new-api's model filter is a LIKE: a % pattern lists every model it matches.
    expect(prompts(await ownPage(alice.session, `type=2&model_name=${encodeURIComponent(`gpt-4o%`)}`))).toEqual([0, 20, 10]);
    expect((await ownPage(alice.session, 'type=2&end_timestamp=2000000')).items.map((row) => row.quota)).toEqual([7]);
    expect(prompts(await ownPage(alice.session, 'type=2&start_timestamp=2000000'))).toEqual([30, 20, 10]);
    expect((await ownPage(alice.session, 'group=default&type=2')).total).toBe(4);
    expect((await ownPage(alice.session, 'group=vip')).total).toBe(0);
  });

  it('sums quota over every consume row the filters select, rpm and tpm over the last minute only', async () => {
    const consumed = await ownPage(alice.session, 'type=2');
    expect(consumed.items.map((row) => row.quota)).toContain(7);
    // new-api ignores the type parameter here: only consumption has a cost.
    const stat = await api(env, '/api/log/self/stat?type=4', alice.session);
    expect(stat.body.data).toEqual({ quota: sum(consumed.items, (row) => row.quota), rpm: 3, tpm: 66 });
    const oldOnly = await api(env, '/api/log/self/stat?end_timestamp=2000000', alice.session);
    expect(oldOnly.body.data).toEqual({ quota: 7, rpm: 3, tpm: 66 });
  });

  it('filters every row by username and channel for an admin, and sums the filtered stat', async () => {
    const page = async (query: string) => (await api<Page>(env, `/api/log/?page_size=100&type=2&${query}`, admin)).body.data;
    expect(prompts(await page(`channel=${channelA}`))).toEqual([40, 20, 10]);
    expect(prompts(await page(`channel=${channelB}`))).toEqual([30]);
    expect(prompts(await page(`username=${bob.username}`))).toEqual([40]);
    expect(prompts(await page(`username=${alice.username}&channel=${channelA}`))).toEqual([20, 10]);
    const byChannel = await page(`channel=${channelA}`);
    const stat = await api(env, `/api/log/stat?channel=${channelA}`, admin);
    expect(stat.body.data).toEqual({ quota: sum(byChannel.items, (row) => row.quota), rpm: 3, tpm: 77 });
  });

  it("never shows a user another user's rows, and hides admin_info from its own", async () => {
    const asBob = await ownPage(bob.session, `username=${alice.username}&channel=${channelB}`);
    expect(prompts(asBob)).toEqual([40]);
    expect(asBob.items.every((row) => row.username === bob.username)).toBe(true);
    expect(JSON.parse(asBob.items[0].other)).not.toHaveProperty('admin_info');
    const bobStat = await api(env, `/api/log/self/stat?username=${alice.username}`, bob.session);
    expect(bobStat.body.data).toMatchObject({ quota: asBob.items[0].quota, rpm: 1, tpm: 44 });
    const bobSearch = await api(env, '/api/log/self/search?keyword=2', bob.session);
    expect(bobSearch.body.data.map((row: any) => row.username)).toEqual([bob.username]);

    const adminView = await api<Page>(env, `/api/log/?username=${bob.username}`, admin);
    expect(JSON.parse(adminView.body.data.items[0].other).admin_info.use_channel).toEqual([String(channelA)]);
  });

  it('refuses the admin routes to a user (200, success:false) and every route without a session (401)', async () => {
    const adminRoutes: ['GET' | 'DELETE', string][] = [
      ['GET', '/api/log/'],
      ['GET', '/api/log/stat'],
      ['GET', '/api/log/search?keyword=2'],
      ['DELETE', '/api/log/?target_timestamp=9999999999'],
    ];
    for (const [method, url] of adminRoutes) {
      const asUser = await api(env, url, alice.session, method);
      expect(asUser.status, url).toBe(200);
      expect(asUser.body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
    }
    for (const url of ['/api/log/', '/api/log/self', '/api/log/self/stat', '/api/log/self/search?keyword=2']) {
      expect((await api(env, url)).status, url).toBe(401);
    }
    expect((await api<Page>(env, '/api/log/?page_size=100', admin)).body.data.total).toBeGreaterThanOrEqual(6);
  });

  it('searches like new-api: a type or the start of the content', async () => {
    const bySystem = await api(env, '/api/log/search?keyword=system', admin);
    expect(bySystem.body.data.map((row: any) => row.content)).toEqual(['system note']);
    const byType = await api(env, '/api/log/search?keyword=4', admin);
    expect(byType.body.data.map((row: any) => row.type)).toEqual([LogType.System]);
    expect((await api(env, '/api/log/self/search?keyword=system', alice.session)).body.data).toEqual([]);
  });

  it("looks up a key's own logs without a session, and refuses an unknown key", async () => {
    const found = await api(env, `/api/log/token?key=${aliceMain.apiKey}`);
    expect(found.body.success).toBe(true);
    expect(found.body.data.map((row: any) => row.prompt_tokens)).toEqual([20, 10]);
    expect(found.body.data.every((row: any) => !JSON.parse(row.other).admin_info)).toBe(true);
    for (const url of ['/api/log/token?key=sk-nosuchkey', '/api/log/token']) {
      const refused = await api(env, url);
      expect(refused.status, url).toBe(200);
      expect(refused.body, url).toEqual({ success: false, message: '无效的令牌' });
    }
  });

  it('answers odd paging and filter values without an error', async () => {
    const odd = [
      'p=abc&page_size=abc',
      'p=-3&page_size=100000000',
      'p=1e308',
      'start_timestamp=-5&end_timestamp=-1',
      'end_timestamp=1e308',
      'type=abc&channel=99999999999999999999',
      'model_name=%25%25&token_name=%27%3B--',
    ];
    for (const query of odd) {
      for (const url of [`/api/log/?${query}`, `/api/log/stat?${query}`, `/api/log/self?${query}`]) {
        const response = await api<any>(env, url, url.includes('self') ? alice.session : admin);
        expect(response.status, url).toBe(200);
        expect(response.body.success, url).toBe(true);
      }
    }
    const huge = await api<Page>(env, '/api/log/?page_size=100000000', admin);
    expect(huge.body.data.page_size).toBe(MAX_PAGE_SIZE);
    expect((await api<Page>(env, '/api/log/?p=1e308', admin)).body.data.items).toEqual([]);
    const negative = await api<Page>(env, '/api/log/self?start_timestamp=-5&end_timestamp=-1', alice.session);
    expect(negative.body.data.total).toBe(0);
  });

  it('deletes the rows older than the target and answers how many went', async () => {
    const removed = await api(env, '/api/log/?target_timestamp=2000000', admin, 'DELETE');
    expect(removed.body).toEqual({ success: true, message: '', data: 1 });
    expect((await ownPage(alice.session, 'end_timestamp=2000000')).total).toBe(0);
    expect((await api(env, '/api/log/?target_timestamp=2000000', admin, 'DELETE')).body.data).toBe(0);
    const missing = await api(env, '/api/log/', admin, 'DELETE');
    expect(missing.status).toBe(200);
    expect(missing.body).toEqual({ success: false, message: 'target timestamp is required' });
  });
});
