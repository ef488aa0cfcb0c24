import { Role } from '@modelgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { insertLogRow } from '../../domain/logs/log-buffer.js';
import { writeQuotaData } from '../../domain/usage/quota-data-export.js';
import { MidjourneyRepository } from '../../domain/tasks/midjourney-repository.js';
import { hashPassword } from '../../domain/users/password.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { routesOf } from '../../test-support/route-walk.js';
import { ROUTE_DOCS } from './route-docs.js';

/*
 * The answer schemas of @modelgate/contract (which the console's types and this description are
 * inferred from) parse what the routes really answer: every documented GET route with a `data`
 * schema is walked with rows to list, and each answer is parsed with its route's strict schema,
 * so a field answered and not in the contract, or in the contract and not answered, fails here.
 * The envelope carries nothing beside success, message and data but the fields a route documents.
 */

/** Documented GET routes with data that this walk does not call, and why. */
const NOT_WALKED: Record<string, string> = {
  'GET /api/channel/update_balance': 'asks each upstream for its balance',
  'GET /api/channel/update_balance/:id': 'asks the upstream for its balance',
  'GET /api/channel/fetch_models/:id': 'asks the upstream for its models',
  'GET /api/oauth/github': 'a third-party sign-in (oauth.test.ts)',
  'GET /api/oauth/linuxdo': 'a third-party sign-in (oauth.test.ts)',
  'GET /api/oauth/oidc': 'a third-party sign-in (oidc.test.ts)',
  'GET /api/oauth/wechat': 'a third-party sign-in (oauth.test.ts)',
  'GET /api/oauth/telegram/login': 'a third-party sign-in (oauth.test.ts)',
  'GET /api/user/oauth/bindings': 'always an empty list: modelgate has no administrator-defined OAuth provider',
  'GET /api/user/:id/oauth/bindings': 'always an empty list: modelgate has no administrator-defined OAuth provider',
  'GET /api/custom-oauth-provider/': 'always an empty list: modelgate has no custom OAuth provider',
  'GET /api/uptime/status': 'always an empty list: modelgate keeps no Uptime Kuma monitor (new-api-console-compat.test.ts)',
};

const ENVELOPE_FIELDS = new Set(['success', 'message', 'data']);

let test: TestApp;
let root: Record<string, string>;
const ids: Record<string, number> = {};
let tokenKey = '';
const parsed: string[] = [];

/** Calls a documented route and parses its answer with the route's schemas; answers the data. */
async function answer(route: string, url: string, payload?: object): Promise<unknown> {
  const doc = ROUTE_DOCS[route];
  if (doc?.data === undefined) throw new Error(`${route} documents no data`);
  const [method] = route.split(' ') as ['GET' | 'POST' | 'PUT'];
  const response = await test.app.inject({ method, url, headers: root, ...(payload ? { payload } : {}) });
  const body = response.json() as Record<string, unknown>;
  expect(body.success, `${route}: ${response.body.slice(0, 200)}`).toBe(true);
  const data = doc.data.safeParse(body.data);
  expect(data.error, `${route}: ${z.prettifyError(data.error ?? new z.ZodError([]))}`).toBeUndefined();
  const besideFields = Object.fromEntries(Object.entries(body).filter(([name]) => !ENVELOPE_FIELDS.has(name)));
  const beside = (doc.beside ?? z.object({})).strict().safeParse(besideFields);
  expect(beside.error, `${route}: fields beside the envelope`).toBeUndefined();
  parsed.push(route);
  return body.data;
}

beforeAll(async () => {
  test = await startTestApp();
  root = await test.login();
  const rootId = Number(root['new-api-user']);
  const db = test.context.db.kysely;
  ids.user = await test.context.users.repository.insert({
    username: 'listed',
    password: await hashPassword('password123'),
    display_name: 'listed',
    role: Role.Common,
  });

  // The rows each list shows, made through the routes where one exists (their answers parsed too).
  const channel = (await answer('POST /api/channel/', '/api/channel/', {
    type: 1,
    name: 'described',
    key: 'sk-described',
    base_url: 'http://127.0.0.1:9',
    group: 'default',
    models: 'gpt-4o,gpt-4o-mini',
  })) as { id: number };
  ids.channel = channel.id;
  const token = (await answer('POST /api/token/', '/api/token/', { name: 'described', remain_quota: 1000, expired_time: -1 })) as { id: number };
  ids.token = token.id;
  tokenKey = ((await answer('POST /api/token/:id/key', `/api/token/${token.id}/key`)) as { key: string }).key;
  const [code] = (await answer('POST /api/redemption/', '/api/redemption/', { name: 'described', quota: 500, count: 1 })) as string[];
  await answer('POST /api/user/topup', '/api/user/topup', { key: code });
  ids.redemption = Number((await db.selectFrom('redemptions').select('id').executeTakeFirstOrThrow()).id);

  const now = Math.floor(Date.now() / 1000);
  await db.updateTable('channels').set({ tag: 'described' }).where('id', '=', ids.channel).execute();
  await db
    .insertInto('top_ups')
    .values({ user_id: rootId, amount: 10, money: 73, trade_no: 'MGdescribed', payment_method: 'alipay', create_time: now, status: 'pending' })
    .execute();
  await insertLogRow(db, {
    user_id: rootId,
    created_at: now,
    type: 2,
    username: 'root',
    token_name: 'described',
    model_name: 'gpt-4o',
    quota: 30,
    token_id: token.id,
  });
  await writeQuotaData(test.context.db, [
    { userId: rootId, username: 'root', modelName: 'gpt-4o', createdAt: now - (now % 3600), tokenUsed: 0, count: 1, quota: 30 },
  ]);
  await db
    .insertInto('tasks')
    .values({
      created_at: now,
      updated_at: now,
      task_id: 'described',
      platform: 'suno',
      user_id: rootId,
      submit_time: now,
      data: '[{"id":"clip"}]',
      properties: '',
    })
    .execute();
  await new MidjourneyRepository(test.context.db).insert({
    tokenId: 0,
    code: 1,
    description: '提交成功',
    status: 'SUCCESS',
    progress: '100%',
    failReason: '',
    quota: 50,
    userId: rootId,
    action: 'IMAGINE',
    mjId: 'described',
    prompt: 'cat',
    submitTime: now * 1000,
    channelId: ids.channel,
    imageUrl: 'https://cdn.example/cat.png',
  });
});

afterAll(async () => {
  await test?.close();
});

describe("the contract's answer schemas", () => {
  it('parse the answer of every documented GET route, rows included', async () => {
    const registered = new Set(routesOf(test.app).map((route) => `${route.method} ${route.path}`));
    const now = Math.floor(Date.now() / 1000);
    const query = `p=1&page_size=10&key=sk-${tokenKey}`;
    // The usage data needs a time range (30 days at most for one's own); a user's log search, a log type.
    const range = `&start_timestamp=${now - 86_400}&end_timestamp=${now + 3600}`;
    const extra = (path: string) =>
      path.startsWith('/api/data/') ? range : path.startsWith('/api/log/') ? '&keyword=2' : path === '/api/channel/tag/models' ? '&tag=described' : '';
    const walked: string[] = [];
    const empty: string[] = [];
    for (const [route, doc] of Object.entries(ROUTE_DOCS)) {
      if (!route.startsWith('GET ') || doc.data === undefined || NOT_WALKED[route] !== undefined || !registered.has(route)) continue;
      const path = route.slice(4);
      const resource = path.split('/')[2]!;
      const url = path.replace(/:id\b/, () => String(ids[resource] ?? 0));
      const data = await answer(route, `${url}?${query}${extra(path)}`);
      walked.push(route);
      const rows = Array.isArray(data) ? data : (data as { items?: unknown } | undefined)?.items;
      if (Array.isArray(rows) && rows.length === 0) empty.push(route);
    }
    expect(empty, 'lists with no row to check').toEqual([]);
    expect(walked.length).toBeGreaterThan(35);
    for (const route of [
      'GET /api/channel/',
      'GET /api/log/',
      'GET /api/task/',
      'GET /api/mj/',
      'GET /api/redemption/',
      'GET /api/pricing',
      'GET /api/status',
    ]) {
      expect(walked).toContain(route);
    }
    const stale = Object.keys(NOT_WALKED).filter((route) => ROUTE_DOCS[route]?.data === undefined);
    expect(stale, 'NOT_WALKED names a route without documented data').toEqual([]);
  });

  it('parse the answers that change things, as the console makes them', async () => {
    await answer('PUT /api/token/', '/api/token/', { id: ids.token, name: 'renamed', remain_quota: 5, expired_time: -1 });
    await answer('PUT /api/channel/', '/api/channel/', { id: ids.channel, priority: 3 });
    await answer('POST /api/channel/copy/:id', `/api/channel/copy/${ids.channel}`);
    await answer('POST /api/redemption/', '/api/redemption/', { name: 'unused', quota: 500, count: 1 });
    const unused = await test.context.db.kysely.selectFrom('redemptions').select('id').where('name', '=', 'unused').executeTakeFirstOrThrow();
    await answer('PUT /api/redemption/', '/api/redemption/?status_only=true', { id: Number(unused.id), status: 2 });
    await answer('PUT /api/redemption/', '/api/redemption/', { id: Number(unused.id), name: 'renamed', quota: 700 });
    await answer('POST /api/user/manage', '/api/user/manage', { id: ids.user, action: 'disable' });
    await answer('POST /api/user/', '/api/user/', { username: 'created', password: 'password123' });
    await answer('POST /api/token/batch/keys', '/api/token/batch/keys', { ids: [ids.token] });
    await answer('POST /api/channel/fix', '/api/channel/fix');
    // The seeded calls of beforeAll went through here as well.
    expect(parsed).toEqual(expect.arrayContaining(['POST /api/channel/', 'POST /api/token/', 'POST /api/redemption/', 'POST /api/user/topup']));
  });

  it('refuse an answer with a field they do not describe, or without one they do', async () => {
    const doc = ROUTE_DOCS['GET /api/token/:id']!;
    const response = await test.app.inject({ method: 'GET', url: `/api/token/${ids.token}`, headers: root });
    const { data } = response.json() as { data: Record<string, unknown> };
    expect(doc.data!.safeParse(data).success).toBe(true);
    expect(doc.data!.safeParse({ ...data, renamed_field: 1 }).success).toBe(false);
    const { name: _name, ...withoutName } = data;
    expect(doc.data!.safeParse(withoutName).success).toBe(false);
  });
});
