import { Redis } from 'ioredis';
import { Pool, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { sendJson } from '../testing/mock-upstream.js';
import { eventually, relayCall, seedLimitedPayer } from '../testing/rate-limit-kit.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from '../testing/relay-fixtures.js';
import type { RelayCaller } from '../relay-caller.js';
import { RateLimiter } from './rate-limiter.js';

/**
 * new-api's ModelRequestRateLimit* options (issue 13), folded into the rate limits (issue 27):
 * per-user limits on the relay, failed calls counted by Count, only successful ones by
 * SuccessCount, ModelRequestRateLimitGroup replacing both for a group, 429 with new-api's
 * message and Retry-After; in memory on one node, shared through Redis by every node.
 */

const REDIS_URL = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15';

const COUNT_MESSAGE = (minutes: number, count: number) => `您已达到总请求数限制：${minutes}分钟内最多请求${count}次，包括失败次数，请检查您的请求是否正确`;
const SUCCESS_MESSAGE = (minutes: number, count: number) => `您已达到请求数限制：${minutes}分钟内最多请求${count}次`;

const chat = (gateway: string, apiKey: string) => relayCall(gateway, apiKey);

/** The options a test sets, put back to their defaults afterwards. */
async function setLimits(
  env: RelayTestEnv,
  values: { enabled: boolean; minutes?: number; count?: number; success?: number; groups?: Record<string, [number, number]> },
) {
  await setOption(env.context, 'ModelRequestRateLimitEnabled', values.enabled);
  await setOption(env.context, 'ModelRequestRateLimitDurationMinutes', values.minutes ?? 1);
  await setOption(env.context, 'ModelRequestRateLimitCount', values.count ?? 0);
  await setOption(env.context, 'ModelRequestRateLimitSuccessCount', values.success ?? 1000);
  await setOption(env.context, 'ModelRequestRateLimitGroup', JSON.stringify(values.groups ?? {}));
}

describe('model request limits on one node (SQLite, in memory)', () => {
  let env: RelayTestEnv;

  beforeAll(async () => {
    env = await startRelayTestEnv();
  });
  afterEach(async () => {
    env.upstream.respond();
    await setLimits(env, { enabled: false });
  });
  afterAll(async () => {
    await env.close();
  });

  async function caller() {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
    return { user, token };
  }

  it('limits the requests of a user, failed ones included, per window; the 429 says when to retry; other users keep theirs', async () => {
    await setLimits(env, { enabled: true, minutes: 3, count: 3, success: 0 });
    const first = await caller();
    const other = await caller();
    // One upstream failure among the three: it counts all the same.
    let calls = 0;
    env.upstream.respond((_request, response) => {
      calls += 1;
      if (calls === 2) sendJson(response, 500, { error: { message: 'boom', type: 'server_error' } });
      else
        sendJson(response, 200, {
          id: 'x',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' } }],
          usage: { prompt_tokens: 1, completion_tokens: 1 },
        });
    });
    const admitted = await chat(env.gateway, first.token.apiKey);
    expect(admitted.status).toBe(200);
    // The limit headers come with refusals only (writing them on every call cost more than the limiter).
    expect(admitted.headers['x-ratelimit-limit-requests']).toBeUndefined();
    expect((await chat(env.gateway, first.token.apiKey)).status).toBe(500);
    expect((await chat(env.gateway, first.token.apiKey)).status).toBe(200);
    const refused = await chat(env.gateway, first.token.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.json().error).toMatchObject({ message: COUNT_MESSAGE(3, 3), type: 'new_api_error' });
    // The three sit in the current window: a slot frees once the sliding window has left the first behind.
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(6 * 60);
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(calls).toBe(3);
    // A second key of the same user shares the user's limit; another user is not touched.
    const secondKey = await seedToken(env.context, first.user.id);
    expect((await chat(env.gateway, secondKey.apiKey)).status).toBe(429);
    expect((await chat(env.gateway, other.token.apiKey)).status).toBe(200);
  });

  it('counts only successful requests against SuccessCount, and checks it before each request', async () => {
    await setLimits(env, { enabled: true, minutes: 2, count: 0, success: 2 });
    const { token } = await caller();
    env.upstream.respond((_request, response) => sendJson(response, 400, { error: { message: 'bad request', type: 'invalid_request_error' } }));
    for (let index = 0; index < 4; index += 1) expect((await chat(env.gateway, token.apiKey)).status).toBe(400);
    env.upstream.respond();
    expect((await chat(env.gateway, token.apiKey)).status).toBe(200);
    expect((await chat(env.gateway, token.apiKey)).status).toBe(200);
    const refused = await chat(env.gateway, token.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.json().error?.message).toBe(SUCCESS_MESSAGE(2, 2));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('does nothing while switched off, and 0 means no limit', async () => {
    const { token } = await caller();
    await setLimits(env, { enabled: false, count: 1, success: 1 });
    for (let index = 0; index < 3; index += 1) expect((await chat(env.gateway, token.apiKey)).status).toBe(200);
    await setLimits(env, { enabled: true, count: 0, success: 0 });
    for (let index = 0; index < 3; index += 1) expect((await chat(env.gateway, token.apiKey)).status).toBe(200);
    // Switched on again with a limit: the calls before did not count while it was off.
    await setLimits(env, { enabled: true, count: 2, success: 0 });
    expect((await chat(env.gateway, token.apiKey)).status).toBe(200);
    expect((await chat(env.gateway, token.apiKey)).status).toBe(200);
    expect((await chat(env.gateway, token.apiKey)).status).toBe(429);
  });

  it('takes a group’s pair from ModelRequestRateLimitGroup (the token’s group, else the user’s), as new-api does', async () => {
    const limited = await caller();
    const free = await caller();
    await setLimits(env, { enabled: true, count: 1, success: 0, groups: { [limited.user.group]: [2, 1000], [free.user.group]: [0, 1000] } });
    expect((await chat(env.gateway, limited.token.apiKey)).status).toBe(200);
    expect((await chat(env.gateway, limited.token.apiKey)).status).toBe(200);
    const refused = await chat(env.gateway, limited.token.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.json().error.message).toBe(COUNT_MESSAGE(1, 2));
    // [0, 1000]: no count limit for this group, though the global Count is 1.
    for (let index = 0; index < 3; index += 1) expect((await chat(env.gateway, free.token.apiKey)).status).toBe(200);
    // A user of no listed group keeps the global Count.
    const plain = await caller();
    expect((await chat(env.gateway, plain.token.apiKey)).status).toBe(200);
    expect((await chat(env.gateway, plain.token.apiKey)).status).toBe(429);
  });

  it('accepts ModelRequestRateLimitGroup through the option API and refuses what new-api refuses', async () => {
    const headers = await env.test.login();
    const put = async (value: string) =>
      (await env.test.app.inject({ method: 'PUT', url: '/api/option/', headers, payload: { key: 'ModelRequestRateLimitGroup', value } })).json() as {
        success: boolean;
        message: string;
      };
    expect(await put('{"default": [200, 100], "vip": [0, 1000]}')).toMatchObject({ success: true });
    expect(env.context.options.json('ModelRequestRateLimitGroup')).toEqual({ default: [200, 100], vip: [0, 1000] });
    for (const bad of ['{"vip": [10, 0]}', '{"vip": [-1, 5]}', '{"vip": [1.5, 5]}', '{"vip": [1]}', '{"vip": "many"}', '[1, 2]', 'not json']) {
      const answer = await put(bad);
      expect(answer.success, bad).toBe(false);
      expect(answer.message).toMatch(/分组模型请求速率限制|ModelRequestRateLimitGroup/);
    }
    expect(env.context.options.json('ModelRequestRateLimitGroup')).toEqual({ default: [200, 100], vip: [0, 1000] });
  });

  it('leaves the console playground (a session, no API key) unlimited, as new-api does', async () => {
    await setLimits(env, { enabled: true, count: 1, success: 1 });
    const { user, token } = await caller();
    await env.context.db.kysely
      .updateTable('users')
      .set({ password: await hashPassword('playground-pass') })
      .where('id', '=', user.id)
      .execute();
    const headers = await env.test.login(user.username, 'playground-pass');
    expect((await chat(env.gateway, token.apiKey)).status).toBe(200);
    expect((await chat(env.gateway, token.apiKey)).status).toBe(429);
    for (let index = 0; index < 2; index += 1) {
      const response = await request(`${env.gateway}/pg/chat/completions`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: false }),
      });
      await response.body.dump();
      expect(response.statusCode).toBe(200);
    }
  });

  it('refuses a limited call before the upstream is called or anything is billed', async () => {
    await setLimits(env, { enabled: true, count: 1, success: 0 });
    const { token, user } = await caller();
    expect((await chat(env.gateway, token.apiKey)).status).toBe(200);
    const before = env.upstream.requests.length;
    const refused = await chat(env.gateway, token.apiKey);
    expect(refused.status).toBe(429);
    expect(env.upstream.requests.length).toBe(before);
    await env.runtime.flush();
    const logs = await env.context.db.kysely.selectFrom('logs').select('id').where('user_id', '=', user.id).where('type', '=', 2).execute();
    expect(logs).toHaveLength(1);
  });
});

describe('an unreachable Redis', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(async () => test.close());

  it('lets calls through unchecked and logs the failure at most once a minute; nothing is asked while no limit applies', async () => {
    const { options } = test.context;
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const warnings: unknown[] = [];
    const limits = new RateLimiter(options, dead, { warn: (object: unknown) => warnings.push(object) } as never);
    const reply = { raw: { setHeader: () => undefined } } as never;
    const caller = { user: { id: 1, rateLimits: undefined }, token: { id: 1, rateLimits: undefined }, group: 'default' } as unknown as RelayCaller;
    expect(limits.admit(caller, 'gpt-4o-mini', false, reply)).toBeUndefined();
    expect(warnings).toHaveLength(0);
    await options.set('ModelRequestRateLimitEnabled', true);
    await options.set('ModelRequestRateLimitCount', 5);
    try {
      for (let index = 0; index < 10; index += 1) await expect(limits.admit(caller, 'gpt-4o-mini', false, reply)).resolves.toBeUndefined();
      expect(warnings).toHaveLength(1);
    } finally {
      await options.set('ModelRequestRateLimitEnabled', false);
      await options.set('ModelRequestRateLimitCount', 0);
      limits.close();
      dead.disconnect();
    }
  });
});

describe('model request limits shared through Redis by two nodes (PostgreSQL)', () => {
  let fresh: FreshDb;
  let nodes: RelayTestEnv[] = [];
  let pools: Pool[] = [];
  const minutes = 5;

  beforeAll(async () => {
    fresh = await createFreshDb('postgres');
    const env = { SQL_DSN: fresh.sqlDsn, REDIS_CONN_STRING: REDIS_URL };
    nodes = [await startRelayTestEnv(env), await startRelayTestEnv(env)];
    pools = nodes.map((node) => new Pool(node.gateway));
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    for (const node of nodes) await node.close();
    await fresh?.drop();
  });

  async function setEverywhere(values: { enabled: boolean; count: number; success: number }) {
    await setLimits(nodes[0]!, { ...values, minutes });
    for (const node of nodes.slice(1)) await node.context.options.refresh();
  }

  /** A user whose id no earlier run used: the Redis counters outlive the test database. */
  async function sharedCaller() {
    const payer = await seedLimitedPayer(nodes[0]!, { freshId: true });
    for (const node of nodes.slice(1)) {
      node.context.changes.emit('channels');
      await node.runtime.cache.channels.current();
    }
    return payer;
  }

  it('one user gets Count requests in all across both nodes, also when they arrive at once', async () => {
    await setEverywhere({ enabled: true, count: 10, success: 0 });
    const { token } = await sharedCaller();
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        const response = await relayCall(nodes[index % 2]!.gateway, token.apiKey, { dispatcher: pools[index % 2]! });
        if (response.status === 429) {
          expect(response.json().error.message).toBe(COUNT_MESSAGE(minutes, 10));
          expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        }
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  });

  it('successes on one node count against SuccessCount on the other', async () => {
    await setEverywhere({ enabled: true, count: 0, success: 3 });
    const { token, userId } = await sharedCaller();
    expect((await chat(nodes[0]!.gateway, token.apiKey)).status).toBe(200);
    expect((await chat(nodes[0]!.gateway, token.apiKey)).status).toBe(200);
    expect((await chat(nodes[1]!.gateway, token.apiKey)).status).toBe(200);
    // The success is recorded as the answer goes out: wait until the third is in Redis.
    const redis = nodes[0]!.context.redis!;
    await eventually(async () => Number((await redis.hget(`modelgate:rl:{${userId}}`, `n:s${minutes * 60_000}`))?.split(':')[1] ?? 0) >= 3);
    const refused = await chat(nodes[1]!.gateway, token.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.json().error?.message).toBe(SUCCESS_MESSAGE(minutes, 3));
    expect((await chat(nodes[0]!.gateway, token.apiKey)).status).toBe(429);
    await setEverywhere({ enabled: false, count: 0, success: 1000 });
    expect((await chat(nodes[0]!.gateway, token.apiKey)).status).toBe(200);
  });
});
