import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFreshDb, type FreshDb } from '../test-support/dialects.js';
import { openAILikeHandler, sendJson, type MockUpstream } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * Channel affinity over the whole relay (issue 26, point 3): the calls of one agent session, on a
 * model served by four equal channels, all land on one channel (and one key); a failure there
 * moves the session, which then stays where it moved; calls without a session key still spread;
 * two nodes sharing one Redis route a session alike.
 */

const REDIS_URL = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15';
const MODEL = 'gpt-4o-mini';

interface Channel {
  id: number;
  key: string;
}

/** A user and token of a group of their own, served by `count` equal channels on `env`'s upstream. */
async function fourChannels(env: RelayTestEnv, count = 4) {
  const user = await seedUser(env.context);
  const token = await seedToken(env.context, user.id);
  const channels: Channel[] = [];
  for (let index = 0; index < count; index += 1) {
    const key = unique('aff-key');
    channels.push({ id: await seedChannel(env.context, { key, baseUrl: env.upstream.url, models: [MODEL], groups: [user.group] }), key });
  }
  return { user, token, channels };
}

/** The keys (so the channels) that served the upstream requests made since `from`. */
const keysSince = (upstream: MockUpstream, from: number) => upstream.requests.slice(from).map((recorded) => recorded.key);

async function post(gateway: string, path: string, apiKey: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await request(`${gateway}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, text };
}

const chat = (gateway: string, apiKey: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post(gateway, '/v1/chat/completions', apiKey, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], ...extra }, headers);

/** The upstream answers 500 for the listed keys, normally otherwise. */
function failingFor(upstream: MockUpstream, keys: readonly string[]): void {
  upstream.respond((recorded, response) => {
    if (keys.includes(recorded.key)) sendJson(response, 500, { error: { message: 'upstream is down', type: 'server_error' } });
    else openAILikeHandler(recorded, response);
  });
}

describe('channel affinity on one node (in memory)', () => {
  let env: RelayTestEnv;

  beforeAll(async () => {
    env = await startRelayTestEnv();
  });
  afterEach(async () => {
    env.upstream.respond();
    await setOption(env.context, 'RetryTimes', 0);
  });
  afterAll(async () => {
    await env.close();
  });

  it('50 calls of one prompt_cache_key land on one channel; calls without a key, and other sessions, still spread', async () => {
    const { token } = await fourChannels(env);
    const session = randomUUID();
    const from = env.upstream.requests.length;
    for (let call = 0; call < 50; call += 1) expect((await chat(env.gateway, token.apiKey, { prompt_cache_key: session })).status).toBe(200);
    const keys = keysSince(env.upstream, from);
    expect(keys).toHaveLength(50);
    expect(new Set(keys).size).toBe(1);

    // Without a session key the draw is as before: 40 calls all on one of four channels would be a 4 × 4^-40 chance.
    const unkeyed = env.upstream.requests.length;
    for (let call = 0; call < 40; call += 1) expect((await chat(env.gateway, token.apiKey)).status).toBe(200);
    expect(new Set(keysSince(env.upstream, unkeyed)).size).toBeGreaterThan(1);

    // Each new session draws anew: 20 sessions do not all share one channel; each keeps its own.
    const sessions = Array.from({ length: 20 }, () => randomUUID());
    const firstOf = new Map<string, string>();
    for (const other of sessions) {
      const before = env.upstream.requests.length;
      await chat(env.gateway, token.apiKey, { prompt_cache_key: other });
      firstOf.set(other, env.upstream.requests[before]!.key);
    }
    expect(new Set(firstOf.values()).size).toBeGreaterThan(1);
    for (const other of sessions) {
      const before = env.upstream.requests.length;
      await chat(env.gateway, token.apiKey, { prompt_cache_key: other, stream: true });
      expect(env.upstream.requests[before]!.key).toBe(firstOf.get(other));
    }
  });

  it('keeps a Claude Code session (metadata.user_id, or its session header) on one channel on /v1/messages', async () => {
    const { token } = await fourChannels(env);
    const userId = `user_${'ab12'.repeat(16)}_account__session_${randomUUID()}`;
    const message = (headers: Record<string, string> = {}, metadata: Record<string, unknown> = { user_id: userId }) =>
      post(env.gateway, '/v1/messages', token.apiKey, { model: MODEL, max_tokens: 64, metadata, messages: [{ role: 'user', content: 'hi' }] }, headers);
    const from = env.upstream.requests.length;
    for (let call = 0; call < 30; call += 1) expect((await message()).status).toBe(200);
    expect(new Set(keysSince(env.upstream, from)).size).toBe(1);

    const header = env.upstream.requests.length;
    const sessionHeader = { 'x-claude-code-session-id': randomUUID() };
    for (let call = 0; call < 20; call += 1) expect((await message(sessionHeader, {})).status).toBe(200);
    expect(new Set(keysSince(env.upstream, header)).size).toBe(1);
  });

  it('keeps a Codex session (its session_id header) on one channel on /v1/responses', async () => {
    const { token } = await fourChannels(env);
    const headers = { session_id: randomUUID(), originator: 'codex_cli_rs' };
    const from = env.upstream.requests.length;
    for (let call = 0; call < 30; call += 1) {
      const answer = await post(env.gateway, '/v1/responses', token.apiKey, { model: MODEL, input: 'hi', stream: call % 2 === 0 }, headers);
      expect(answer.status).toBe(200);
    }
    const served = env.upstream.requests.slice(from);
    expect(served.every((recorded) => recorded.url.endsWith('/responses'))).toBe(true);
    expect(new Set(served.map((recorded) => recorded.key)).size).toBe(1);
  });

  it('keeps a session on one key of a multi-key channel, while keyless calls use them all', async () => {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    const keys = Array.from({ length: 4 }, () => unique('multi-key'));
    await seedChannel(env.context, { key: keys.join('\n'), baseUrl: env.upstream.url, models: [MODEL], groups: [user.group] });
    const from = env.upstream.requests.length;
    const session = randomUUID();
    for (let call = 0; call < 30; call += 1) expect((await chat(env.gateway, token.apiKey, { prompt_cache_key: session })).status).toBe(200);
    expect(new Set(keysSince(env.upstream, from)).size).toBe(1);
    const unkeyed = env.upstream.requests.length;
    for (let call = 0; call < 40; call += 1) await chat(env.gateway, token.apiKey);
    expect(new Set(keysSince(env.upstream, unkeyed)).size).toBeGreaterThan(1);
  });

  it('moves a session whose channel fails to the channel that answers, and keeps it there; retries never repeat a channel', async () => {
    const { token, channels } = await fourChannels(env);
    await setOption(env.context, 'RetryTimes', 3);
    const session = randomUUID();
    await chat(env.gateway, token.apiKey, { prompt_cache_key: session });
    const pinned = env.upstream.requests.at(-1)!.key;

    failingFor(env.upstream, [pinned]);
    const from = env.upstream.requests.length;
    expect((await chat(env.gateway, token.apiKey, { prompt_cache_key: session })).status).toBe(200);
    const attempts = keysSince(env.upstream, from);
    expect(attempts[0]).toBe(pinned);
    expect(attempts).toHaveLength(2);
    const moved = attempts[1]!;
    expect(moved).not.toBe(pinned);

    // The first channel is healthy again: the session stays where it moved.
    env.upstream.respond();
    const after = env.upstream.requests.length;
    for (let call = 0; call < 20; call += 1) expect((await chat(env.gateway, token.apiKey, { prompt_cache_key: session })).status).toBe(200);
    expect(new Set(keysSince(env.upstream, after))).toEqual(new Set([moved]));

    // Every channel failing: each one is tried once, and the client gets the error.
    failingFor(
      env.upstream,
      channels.map((channel) => channel.key),
    );
    const failing = env.upstream.requests.length;
    expect((await chat(env.gateway, token.apiKey, { prompt_cache_key: session })).status).toBe(500);
    const tried = keysSince(env.upstream, failing);
    expect(tried[0]).toBe(moved);
    expect(new Set(tried).size).toBe(4);
    expect(tried).toHaveLength(4);
  });

  it('without retries, a failed pin is dropped: the session settles on a channel that answers', async () => {
    const { token } = await fourChannels(env);
    const session = randomUUID();
    await chat(env.gateway, token.apiKey, { prompt_cache_key: session });
    const pinned = env.upstream.requests.at(-1)!.key;
    failingFor(env.upstream, [pinned]);
    expect((await chat(env.gateway, token.apiKey, { prompt_cache_key: session })).status).toBe(500);
    // The next calls draw anew (the failed channel may come up again, a quarter of the time each).
    let status = 500;
    for (let call = 0; call < 60 && status !== 200; call += 1) status = (await chat(env.gateway, token.apiKey, { prompt_cache_key: session })).status;
    expect(status).toBe(200);
    const settled = env.upstream.requests.at(-1)!.key;
    expect(settled).not.toBe(pinned);
    const after = env.upstream.requests.length;
    for (let call = 0; call < 10; call += 1) expect((await chat(env.gateway, token.apiKey, { prompt_cache_key: session })).status).toBe(200);
    expect(new Set(keysSince(env.upstream, after))).toEqual(new Set([settled]));
  });

  it('does not let one user steer another: a shared session key is pinned per user', async () => {
    const { user, token } = await fourChannels(env);
    const session = randomUUID();
    await chat(env.gateway, token.apiKey, { prompt_cache_key: session });
    const first = env.upstream.requests.at(-1)!.key;
    // A second user in the same group, with the same session key: their own pins, drawn anew.
    const firstKeys: string[] = [];
    for (let index = 0; index < 12; index += 1) {
      const other = await seedUser(env.context, { group: user.group });
      const otherToken = await seedToken(env.context, other.id);
      await chat(env.gateway, otherToken.apiKey, { prompt_cache_key: session });
      firstKeys.push(env.upstream.requests.at(-1)!.key);
    }
    // Twelve users all drawn onto the first user's channel would be a 4^-12 chance.
    expect(firstKeys.some((key) => key !== first)).toBe(true);
  });

  it('switched off, a session key changes nothing', async () => {
    const { token } = await fourChannels(env);
    await setOption(env.context, 'ChannelAffinityEnabled', false);
    try {
      const session = randomUUID();
      const from = env.upstream.requests.length;
      for (let call = 0; call < 40; call += 1) await chat(env.gateway, token.apiKey, { prompt_cache_key: session });
      expect(new Set(keysSince(env.upstream, from)).size).toBeGreaterThan(1);
    } finally {
      await setOption(env.context, 'ChannelAffinityEnabled', true);
    }
  });
});

describe('channel affinity shared through Redis by two nodes (PostgreSQL)', () => {
  let fresh: FreshDb;
  let nodes: RelayTestEnv[] = [];
  const written: string[] = [];

  beforeAll(async () => {
    fresh = await createFreshDb('postgres');
    const env = { SQL_DSN: fresh.sqlDsn, REDIS_CONN_STRING: REDIS_URL };
    nodes = [await startRelayTestEnv(env), await startRelayTestEnv({ ...env, NODE_TYPE: 'slave' })];
  });
  afterAll(async () => {
    const redis = nodes[0]?.context.redis;
    if (redis) for (const session of written) for (const key of await redis.keys(`modelgate:affinity:*:${session}`)) await redis.del(key);
    for (const node of nodes) await node.close();
    await fresh?.drop();
  });

  /** Four channels seeded through the first node, known to both. */
  async function sharedChannels() {
    const seeded = await fourChannels(nodes[0]!);
    for (const node of nodes.slice(1)) {
      node.context.changes.emit('channels');
      await node.runtime.cache.channels.current();
    }
    return seeded;
  }

  /** A call on node `index`, once the other node's pins are in Redis (they are sent as the answer goes out). */
  async function callOn(index: number, apiKey: string, session: string) {
    for (const node of nodes) await node.runtime.affinity.settled();
    return chat(nodes[index]!.gateway, apiKey, { prompt_cache_key: session });
  }

  it('two nodes agree on the channel of one session, and a failure seen by one moves it for both', async () => {
    const { token } = await sharedChannels();
    const upstream = nodes[0]!.upstream;
    const session = randomUUID();
    written.push(session);
    const from = upstream.requests.length;
    for (let call = 0; call < 40; call += 1) expect((await callOn(call % 2, token.apiKey, session)).status).toBe(200);
    const keys = keysSince(upstream, from);
    expect(keys).toHaveLength(40);
    expect(new Set(keys).size).toBe(1);
    const pinned = keys[0]!;

    // The second node meets the failure (with retries on both nodes) and moves the session; the first follows.
    await setOption(nodes[0]!.context, 'RetryTimes', 3);
    for (const node of nodes.slice(1)) await node.context.options.refresh();
    try {
      failingFor(upstream, [pinned]);
      const failing = upstream.requests.length;
      expect((await callOn(1, token.apiKey, session)).status).toBe(200);
      const attempts = keysSince(upstream, failing);
      expect(attempts[0]).toBe(pinned);
      const moved = attempts.at(-1)!;
      expect(moved).not.toBe(pinned);
      upstream.respond();
      const after = upstream.requests.length;
      for (let call = 0; call < 20; call += 1) expect((await callOn(call % 2, token.apiKey, session)).status).toBe(200);
      expect(new Set(keysSince(upstream, after))).toEqual(new Set([moved]));
    } finally {
      upstream.respond();
      await setOption(nodes[0]!.context, 'RetryTimes', 0);
      for (const node of nodes.slice(1)) await node.context.options.refresh();
    }
  });

  it('holds pins in Redis, not in either node’s memory, with the TTL', async () => {
    const { token, user, channels } = await sharedChannels();
    const session = randomUUID();
    written.push(session);
    expect((await callOn(0, token.apiKey, session)).status).toBe(200);
    await nodes[0]!.runtime.affinity.settled();
    const redis = nodes[0]!.context.redis!;
    const key = `modelgate:affinity:${user.id}:${user.group}:${MODEL}:${session}`;
    const servedBy = channels.find((channel) => channel.key === nodes[0]!.upstream.requests.at(-1)!.key)!;
    expect(await redis.get(key)).toBe(`${servedBy.id}:0`);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
    expect(nodes.map((node) => node.runtime.affinity.size)).toEqual([0, 0]);
  });
});
