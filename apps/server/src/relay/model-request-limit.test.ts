import { Redis } from 'ioredis';
import { Pool, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashPassword } from '../domain/users/password.js';
import { createFreshDb, type FreshDb } from '../test-support/dialects.js';
import { startTestApp, type TestApp } from '../test-support/test-app.js';
import { ModelRequestLimits } from './model-request-limit.js';
import { sendJson } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * new-api's ModelRequestRateLimit* options (issue 13): per-user limits on the relay, failed calls
 * counted by Count, only successful ones by SuccessCount, 429 with new-api's message; in memory on
 * one node, shared through Redis by every node.
 */

const REDIS_URL = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15';

const COUNT_MESSAGE = (minutes: number, count: number) => `您已达到总请求数限制：${minutes}分钟内最多请求${count}次，包括失败次数，请检查您的请求是否正确`;
const SUCCESS_MESSAGE = (minutes: number, count: number) => `您已达到请求数限制：${minutes}分钟内最多请求${count}次`;

async function chat(gateway: string, apiKey: string, model = 'gpt-4o-mini') {
  const response = await request(`${gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, text, json: () => JSON.parse(text) as { error?: { message: string; type: string } } };
}

/** The options a test sets, put back to their defaults afterwards. */
async function setLimits(env: RelayTestEnv, values: { enabled: boolean; minutes?: number; count?: number; success?: number }) {
  await setOption(env.context, 'ModelRequestRateLimitEnabled', values.enabled);
  await setOption(env.context, 'ModelRequestRateLimitDurationMinutes', values.minutes ?? 1);
  await setOption(env.context, 'ModelRequestRateLimitCount', values.count ?? 0);
  await setOption(env.context, 'ModelRequestRateLimitSuccessCount', values.success ?? 1000);
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

  it('limits the requests of a user, failed ones included, per window; other users keep theirs', async () => {
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
    expect((await chat(env.gateway, first.token.apiKey)).status).toBe(200);
    expect((await chat(env.gateway, first.token.apiKey)).status).toBe(500);
    expect((await chat(env.gateway, first.token.apiKey)).status).toBe(200);
    const refused = await chat(env.gateway, first.token.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.json().error).toMatchObject({ message: COUNT_MESSAGE(3, 3), type: 'new_api_error' });
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

describe('the sliding window', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await test.close();
  });

  it('frees a slot once a whole earlier request has aged out, and forgets idle users', async () => {
    const { options } = test.context;
    await options.set('ModelRequestRateLimitEnabled', true);
    await options.set('ModelRequestRateLimitDurationMinutes', 1);
    await options.set('ModelRequestRateLimitCount', 4);
    await options.set('ModelRequestRateLimitSuccessCount', 0);
    const limits = new ModelRequestLimits(options, undefined);
    const clock = vi.spyOn(Date, 'now');
    const start = 1_000 * 60_000; // the start of a window
    clock.mockReturnValue(start + 59_000);
    for (let index = 0; index < 4; index += 1) limits.admit(7);
    expect(() => limits.admit(7)).toThrow(COUNT_MESSAGE(1, 4));
    // Just past the window's end the sliding window still holds all four (rounded up).
    clock.mockReturnValue(start + 60_500);
    expect(() => limits.admit(7)).toThrow(COUNT_MESSAGE(1, 4));
    // A quarter into the next window, three quarters of the old window are still covered: 3 of 4.
    clock.mockReturnValue(start + 60_000 + 15_001);
    limits.admit(7);
    expect(() => limits.admit(7)).toThrow(COUNT_MESSAGE(1, 4));
    // Two windows later nothing is left, and the user's counters were dropped.
    clock.mockReturnValue(start + 180_000);
    limits.admit(8);
    expect((limits as unknown as { memory: Map<number, unknown> }).memory.has(7)).toBe(false);
    for (let index = 0; index < 3; index += 1) limits.admit(7);
    await options.set('ModelRequestRateLimitEnabled', false);
  });
});

describe('an unreachable Redis', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(async () => test.close());

  it('refuses the call with 500 rate_limit_check_failed (as new-api) and reports the error; nothing is asked while the limits are off', async () => {
    const { options } = test.context;
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const errors: unknown[] = [];
    const limits = new ModelRequestLimits(options, dead, (error) => errors.push(error));
    expect(limits.admit(1)).toBeUndefined();
    await options.set('ModelRequestRateLimitEnabled', true);
    await options.set('ModelRequestRateLimitCount', 5);
    try {
      await expect(limits.admit(1)).rejects.toMatchObject({ status: 500, code: 'rate_limit:check_failed' });
      expect(errors).toHaveLength(1);
    } finally {
      await options.set('ModelRequestRateLimitEnabled', false);
      await options.set('ModelRequestRateLimitCount', 0);
      dead.disconnect();
    }
  });
});

describe('model request limits shared through Redis by two nodes (PostgreSQL)', () => {
  let fresh: FreshDb;
  let nodes: RelayTestEnv[] = [];
  let pools: Pool[] = [];
  // A window length of its own: the Redis keys of earlier runs (named by it) cannot be met.
  const minutes = 1000 + Math.floor(Math.random() * 100_000);

  beforeAll(async () => {
    fresh = await createFreshDb('postgres');
    const env = { SQL_DSN: fresh.sqlDsn, REDIS_CONN_STRING: REDIS_URL };
    nodes = [await startRelayTestEnv(env), await startRelayTestEnv(env)];
    pools = nodes.map((node) => new Pool(node.gateway));
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    const redis = nodes[0]?.context.redis;
    if (redis) {
      const keys = await redis.keys(`modelgate:mrl:*:${minutes * 60_000}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    for (const node of nodes) await node.close();
    await fresh?.drop();
  });

  async function setEverywhere(values: { enabled: boolean; count: number; success: number }) {
    await setLimits(nodes[0]!, { ...values, minutes });
    for (const node of nodes.slice(1)) await node.context.options.refresh();
  }

  async function sharedCaller() {
    const { context, upstream } = nodes[0]!;
    const user = await seedUser(context);
    const token = await seedToken(context, user.id);
    await seedChannel(context, { key: unique('key'), baseUrl: upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
    for (const node of nodes.slice(1)) {
      node.context.changes.emit('channels');
      await node.runtime.cache.channels.current();
    }
    return { user, token };
  }

  it('one user gets Count requests in all across both nodes, also when they arrive at once', async () => {
    await setEverywhere({ enabled: true, count: 10, success: 0 });
    const { token } = await sharedCaller();
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        const response = await pools[index % 2]!.request({
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        });
        const text = await response.body.text();
        if (response.statusCode === 429) expect(JSON.parse(text).error.message).toBe(COUNT_MESSAGE(minutes, 10));
        return response.statusCode;
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  });

  it('successes on one node count against SuccessCount on the other', async () => {
    await setEverywhere({ enabled: true, count: 0, success: 3 });
    const { token } = await sharedCaller();
    expect((await chat(nodes[0]!.gateway, token.apiKey)).status).toBe(200);
    expect((await chat(nodes[0]!.gateway, token.apiKey)).status).toBe(200);
    expect((await chat(nodes[1]!.gateway, token.apiKey)).status).toBe(200);
    // The success is recorded as the answer goes out; give the last INCR its round trip.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await chat(nodes[1]!.gateway, token.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.json().error?.message).toBe(SUCCESS_MESSAGE(minutes, 3));
    expect((await chat(nodes[0]!.gateway, token.apiKey)).status).toBe(429);
    await setEverywhere({ enabled: false, count: 0, success: 1000 });
    expect((await chat(nodes[0]!.gateway, token.apiKey)).status).toBe(200);
  });
});
