import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshDb, type FreshDb } from '../test-support/dialects.js';
import { limitHonouringChat, type LimitedAnswer, type RecordedRequest } from './testing/mock-upstream.js';
import { priceModel, seedChannel, seedToken, seedUser, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * Every served call is paid in full without max_tokens too (issue 24): a call holds its cost at
 * the model's maximum output, and a balance that cannot pay for that gets the call capped at the
 * output it does pay for. Upstreams here honour the limit they are sent, as the real APIs do.
 */

/** The tokens gpt-tokenizer counts for the one-message prompt the tests send. */
const PROMPT = 3 + countTokens('hi') + 3;
/** Priced at ratio 1, completion ratio 2: a call costs prompt + 2 × completion. */
const costOf = (prompt: number, completion: number) => prompt + 2 * completion;

interface Node {
  env: RelayTestEnv;
  pool: Pool;
}

interface Served {
  status: number;
  capHeader: string | undefined;
}

function paidInFullSuite(dialect: 'sqlite' | 'postgres' | 'mysql') {
  let fresh: FreshDb | undefined;
  let nodes: Node[] = [];

  beforeAll(async () => {
    // PostgreSQL and MariaDB: two nodes on one database. SQLite: one node.
    fresh = dialect === 'sqlite' ? undefined : await createFreshDb(dialect);
    const envs = [await startRelayTestEnv({ BATCH_UPDATE_INTERVAL: '1', ...(fresh ? { SQL_DSN: fresh.sqlDsn } : {}) })];
    if (fresh) envs.push(await startRelayTestEnv({ BATCH_UPDATE_INTERVAL: '1', SQL_DSN: fresh.sqlDsn }));
    nodes = envs.map((env) => ({ env, pool: new Pool(env.gateway, { connections: 150 }) }));
  });
  afterAll(async () => {
    for (const { env, pool } of nodes) {
      await pool.close();
      await env.close();
    }
    await fresh?.drop();
  });

  /** A model of its own (no history on any node), priced on every node, and a payer with a channel to it. */
  async function setUp(balance: { user: number; token?: number }, answer: (request: RecordedRequest) => LimitedAnswer) {
    const { context, upstream } = nodes[0]!.env;
    const model = unique('paid-model');
    await priceModel(context, model, 1, 2);
    upstream.respond(limitHonouringChat(answer));
    const user = await seedUser(context, { quota: balance.user });
    const token = await seedToken(context, user.id, balance.token === undefined ? {} : { remainQuota: balance.token, unlimited: false });
    const channelId = await seedChannel(context, { key: unique('key'), baseUrl: upstream.url, models: [model], groups: [user.group] });
    for (const node of nodes.slice(1)) {
      await node.env.context.options.refresh();
      node.env.context.changes.emit('channels');
      await node.env.runtime.cache.channels.current();
    }
    return { model, token, ids: { userId: user.id, tokenId: token.id, channelIds: [channelId] } };
  }

  async function burst(apiKey: string, model: string, count: number, extra: Record<string, unknown> = {}): Promise<Served[]> {
    return Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const response = await nodes[index % nodes.length]!.pool.request({
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
        });
        const text = await response.body.text();
        if (response.statusCode !== 200 && response.statusCode !== 403) throw new Error(`unexpected ${response.statusCode}: ${text}`);
        if (response.statusCode === 200 && extra.stream) expect(text).toContain('data: [DONE]');
        const capHeader = response.headers['x-modelgate-output-capped'];
        return { status: response.statusCode, capHeader: typeof capHeader === 'string' ? capHeader : undefined };
      }),
    );
  }

  /** The books after every node flushed, and what each served call was charged against what it cost. */
  async function books(ids: { userId: number; tokenId: number; channelIds: number[] }) {
    for (const { env } of nodes) await env.runtime.drain();
    const after = await totals(nodes[0]!.env.context, ids);
    const others = after.logs.map((log) => JSON.parse(log.other));
    const shortPaid = after.logs.filter((log) => Number(log.quota) !== costOf(Number(log.prompt_tokens), Number(log.completion_tokens))).length;
    return {
      ...after,
      shortPaid,
      unpaid: others.filter((other) => other.admin_info?.unpaid_quota > 0).length,
      overrun: others.filter((other) => other.admin_info?.overrun_quota > 0).length,
      capped: others.filter((other) => other.output_cap > 0).length,
    };
  }

  function expectNoAlarm() {
    for (const { env } of nodes) {
      expect(env.runtime.metrics.unpaidQuota).toBe(0);
      expect(env.runtime.metrics.overrunQuota.size).toBe(0);
    }
  }

  it.each([
    ['non-stream', {}],
    ['stream', { stream: true }],
  ])('a token whose balance covers 10.5 calls serves 10 calls and one capped at the rest, of 40 sent at once without max_tokens (%s)', async (_kind, extra) => {
    const cost = costOf(PROMPT, 500);
    const balance = Math.floor(10.5 * cost);
    const { model, token, ids } = await setUp({ user: 1_000_000_000, token: balance }, () => ({ promptTokens: PROMPT, completionTokens: 500 }));
    const served = await burst(token.apiKey, model, 40, extra);
    const after = await books(ids);
    const ok = served.filter((call) => call.status === 200);
    // The 11th call: what is left pays for (balance − 10 × cost − prompt) / 2 output tokens.
    const lastCap = Math.floor((balance - 10 * cost - PROMPT) / 2);
    expect(ok.length).toBe(11);
    expect([after.shortPaid, after.unpaid, after.overrun]).toEqual([0, 0, 0]);
    expect(after.logs.filter((log) => Number(log.completion_tokens) === 500)).toHaveLength(10);
    expect(after.logs.filter((log) => Number(log.completion_tokens) === lastCap)).toHaveLength(1);
    expect(after.logQuotaSum).toBe(10 * cost + costOf(PROMPT, lastCap));
    expect([after.tokenUsed, balance - after.tokenRemain]).toEqual([after.logQuotaSum, after.logQuotaSum]);
    expect(after.tokenRemain).toBeGreaterThanOrEqual(0);
    expect(after.tokenRemain).toBeLessThan(costOf(PROMPT, 128));
    expect(ok.some((call) => call.capHeader === String(lastCap))).toBe(true);
    expectNoAlarm();
  });

  it('a user balance that covers 80 calls pays in full for every call served of 200 sent at once over every node', async () => {
    const cost = costOf(PROMPT, 500);
    const balance = 80 * cost;
    const { model, token, ids } = await setUp({ user: balance }, () => ({ promptTokens: PROMPT, completionTokens: 500 }));
    const served = await burst(token.apiKey, model, 200);
    const after = await books(ids);
    const ok = served.filter((call) => call.status === 200).length;
    const whole = after.logs.filter((log) => Number(log.completion_tokens) === 500).length;
    console.info(
      `[paid-in-full ${dialect}] 200 calls on a balance of 80: ${ok} served (${whole} whole answers, ${ok - whole} cut at the cap), ${after.logQuotaSum} of ${balance} charged, ${200 - ok} refused`,
    );
    expect([after.shortPaid, after.unpaid, after.overrun]).toEqual([0, 0, 0]);
    expect(after.logs).toHaveLength(ok);
    expect(whole).toBeLessThanOrEqual(80);
    expect(ok).toBeGreaterThanOrEqual(80);
    expect([after.userUsed, balance - after.userQuota]).toEqual([after.logQuotaSum, after.logQuotaSum]);
    expect(after.userQuota).toBeGreaterThanOrEqual(0);
    expect(after.userQuota).toBeLessThan(costOf(PROMPT, 128));
    expectNoAlarm();
  });

  it('an upstream that counts 10 times the prompt we count: 300 calls at once on a small balance, nothing unpaid', async () => {
    const cost = costOf(10 * PROMPT, 100);
    const balance = 30 * cost;
    const { model, token, ids } = await setUp({ user: balance }, () => ({ promptTokens: 10 * PROMPT, completionTokens: 100 }));
    const served = await burst(token.apiKey, model, 300);
    const after = await books(ids);
    const ok = served.filter((call) => call.status === 200).length;
    const whole = after.logs.filter((log) => Number(log.completion_tokens) === 100).length;
    console.info(
      `[paid-in-full ${dialect}] 10x prompt, 300 calls on a balance of 30: ${ok} served (${whole} whole), ${after.logQuotaSum} of ${balance} charged, ${300 - ok} refused`,
    );
    expect([after.shortPaid, after.unpaid, after.overrun]).toEqual([0, 0, 0]);
    expect(whole).toBeLessThanOrEqual(30);
    expect(ok).toBeGreaterThanOrEqual(29);
    expect(balance - after.userQuota).toBe(after.logQuotaSum);
    expect(after.userQuota).toBeGreaterThanOrEqual(0);
    expectNoAlarm();
  });

  it('answers 50 times longer than every earlier one: 300 calls at once on a small balance, nothing unpaid', async () => {
    let long = false;
    const { model, ids } = await setUp({ user: 1_000_000_000 }, () => ({ promptTokens: PROMPT, completionTokens: long ? 2_000 : 40 }));
    // 32 short answers first, on a rich token of the same user (the old estimate learned from them).
    const rich = await seedToken(nodes[0]!.env.context, ids.userId);
    expect((await burst(rich.apiKey, model, 32)).every((call) => call.status === 200)).toBe(true);
    for (const { env } of nodes) await env.runtime.drain();
    const cost = costOf(PROMPT, 2_000);
    const balance = Math.floor(19.5 * cost);
    const limited = await seedToken(nodes[0]!.env.context, ids.userId, { remainQuota: balance, unlimited: false });
    long = true;
    const served = await burst(limited.apiKey, model, 300);
    const after = await books({ ...ids, tokenId: limited.id });
    const ok = served.filter((call) => call.status === 200).length;
    const longLogs = after.logs.filter((log) => Number(log.token_id) === limited.id);
    const whole = longLogs.filter((log) => Number(log.completion_tokens) === 2_000).length;
    const charged = longLogs.reduce((sum, log) => sum + Number(log.quota), 0);
    console.info(
      `[paid-in-full ${dialect}] 50x longer answers, 300 calls on a balance of 19.5: ${ok} served (${whole} whole), ${charged} of ${balance} charged, ${300 - ok} refused`,
    );
    expect([after.shortPaid, after.unpaid, after.overrun]).toEqual([0, 0, 0]);
    expect(whole).toBeLessThanOrEqual(19);
    expect(ok).toBeGreaterThanOrEqual(19);
    expect([after.tokenUsed, balance - after.tokenRemain]).toEqual([charged, charged]);
    expect(after.tokenRemain).toBeGreaterThanOrEqual(0);
    expectNoAlarm();
  });
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)('paid in full on %s', (dialect) => paidInFullSuite(dialect));
