import { Pool } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { eventually, HoldingUpstream, relayCall, seedLimitedPayer, type CallAnswer, type LimitedPayer } from '../testing/rate-limit-kit.js';
import { setOption, startRelayTestEnv, type RelayTestEnv } from '../testing/relay-fixtures.js';
import type { RateFigures } from '../../domain/relay-cache/rate-figures.js';

/**
 * Rate limits on two nodes sharing PostgreSQL and Redis (issue 27): the counters live in Redis,
 * checked and counted by one script per call, so both nodes together admit exactly each figure,
 * also when the calls arrive at once, and a concurrency gate holds exactly N calls in flight
 * across them.
 */

const REDIS_URL = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15';

describe('rate limits on two nodes (PostgreSQL, Redis)', () => {
  let fresh: FreshDb;
  let nodes: RelayTestEnv[] = [];
  let pools: Pool[] = [];

  beforeAll(async () => {
    fresh = await createFreshDb('postgres');
    const env = { SQL_DSN: fresh.sqlDsn, REDIS_CONN_STRING: REDIS_URL };
    nodes = [await startRelayTestEnv(env), await startRelayTestEnv(env)];
    pools = nodes.map((node) => new Pool(node.gateway, { connections: 100 }));
  });
  afterEach(async () => {
    nodes[0]!.upstream.respond();
    await setOption(nodes[0]!.context, 'GroupRateLimits', '{}');
    await nodes[1]!.context.options.refresh();
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    for (const node of nodes) await node.close();
    await fresh?.drop();
  });

  /** A payer both nodes know, served by node 0's mock upstream, with a user id no earlier run had (Redis keeps counters). */
  async function sharedPayer(limits: { token?: Partial<RateFigures>; user?: Partial<RateFigures> }): Promise<LimitedPayer> {
    const payer = await seedLimitedPayer(nodes[0]!, { ...limits, freshId: true });
    const other = nodes[1]!;
    other.context.changes.emit('channels');
    other.context.changes.emit('token', payer.token.key);
    other.context.changes.emit('user', payer.userId);
    await other.runtime.cache.channels.current();
    return payer;
  }

  /** `count` calls at once, alternating between the nodes. */
  function burst(payer: LimitedPayer, count: number): Promise<CallAnswer[]> {
    return Promise.all(
      Array.from({ length: count }, (_, index) => relayCall(nodes[index % 2]!.gateway, payer.token.apiKey, { dispatcher: pools[index % 2]! })),
    );
  }

  const statuses = (answers: CallAnswer[]) => ({
    admitted: answers.filter((answer) => answer.status === 200).length,
    refused: answers.filter((answer) => answer.status === 429).length,
  });

  it('RPM: 30 calls at once over both nodes, exactly N admitted', async () => {
    const payer = await sharedPayer({ token: { rpm: 10 } });
    const answers = await burst(payer, 30);
    expect(statuses(answers)).toEqual({ admitted: 10, refused: 20 });
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.headers['x-ratelimit-limit-requests']).toBe('10');
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // One more on either node is refused as well.
    for (const node of nodes) expect((await relayCall(node.gateway, payer.token.apiKey)).status).toBe(429);
  });

  it('RPD: calls on either node count against one daily figure', async () => {
    const payer = await sharedPayer({ user: { rpd: 5 } });
    const answers: number[] = [];
    for (let index = 0; index < 8; index += 1) answers.push((await relayCall(nodes[index % 2]!.gateway, payer.token.apiKey)).status);
    expect(answers).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });

  it('TPM: tokens a call settled on one node refuse the next call on the other', async () => {
    // Two calls of 18 tokens reach the figure.
    const payer = await sharedPayer({ token: { tpm: 36 } });
    expect((await relayCall(nodes[0]!.gateway, payer.token.apiKey)).status).toBe(200);
    expect((await relayCall(nodes[1]!.gateway, payer.token.apiKey)).status).toBe(200);
    // Tokens are written as a call ends, without holding its answer: wait until both are in Redis (the hash field holds bucket:current:previous).
    const redis = nodes[0]!.context.redis!;
    await eventually(async () => Number((await redis.hget(`modelgate:rl:{${payer.userId}}`, `t${payer.token.id}:k60000`))?.split(':')[1] ?? 0) >= 36);
    for (const node of nodes) {
      const refused = await relayCall(node.gateway, payer.token.apiKey);
      expect(refused.status).toBe(429);
      expect(refused.json().error.type).toBe('tokens');
      expect(refused.headers['x-ratelimit-remaining-tokens']).toBe('0');
    }
  });

  it('concurrency: of 100 parallel calls over both nodes exactly N are in flight at the upstream; the slots come back', async () => {
    const limit = 4;
    const payer = await sharedPayer({ token: { concurrency: limit } });
    const upstream = new HoldingUpstream();
    nodes[0]!.upstream.respond(upstream.handler);
    let refusedCount = 0;
    const calls = Array.from({ length: 100 }, (_, index) =>
      relayCall(nodes[index % 2]!.gateway, payer.token.apiKey, { dispatcher: pools[index % 2]! }).then((answer) => {
        if (answer.status === 429) refusedCount += 1;
        return answer;
      }),
    );
    await upstream.holdingAtLeast(limit);
    await eventually(() => refusedCount === 100 - limit);
    expect(upstream.holdingNow).toBe(limit);
    expect(upstream.maxInFlight).toBe(limit);
    upstream.releaseAll();
    expect(statuses(await Promise.all(calls))).toEqual({ admitted: limit, refused: 100 - limit });
    expect(upstream.arrived).toBe(limit);
    expect(upstream.maxInFlight).toBe(limit);

    // Every slot was given back (a ZREM per call as its answer ended): N at once pass again.
    const redis = nodes[0]!.context.redis!;
    await eventually(async () => (await redis.zcard(`modelgate:rl:{${payer.userId}}:t${payer.token.id}:c`)) === 0);
    expect(statuses(await burst(payer, limit))).toEqual({ admitted: limit, refused: 0 });
  });

  it('a group’s figures and a user’s figures apply across both nodes; the tightest refuses', async () => {
    const payer = await sharedPayer({ user: { rpm: 6 } });
    await setOption(nodes[0]!.context, 'GroupRateLimits', JSON.stringify({ [payer.group]: { rpm: 4 } }));
    await nodes[1]!.context.options.refresh();
    const answers = await burst(payer, 10);
    expect(statuses(answers)).toEqual({ admitted: 4, refused: 6 });
    expect(answers.find((answer) => answer.status === 429)!.json().error.message).toContain(`该用户在分组 ${payer.group} 中的请求过于频繁`);
  });
});
