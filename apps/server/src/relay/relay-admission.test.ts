import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshDb, type FreshDb } from '../test-support/dialects.js';
import { chatCompletionBody, chatStream, sendJson } from './testing/mock-upstream.js';
import { priceModel, seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * Admission under concurrency: a payer is served exactly the calls its balance pays for, each in
 * full, however many arrive at once and on however many nodes (issue 10, points 1 and 2).
 */

/** The tokens gpt-tokenizer counts for the one-message prompt the tests send. */
const PROMPT = 3 + countTokens('hi') + 3;
const COMPLETION = 20;
/** A model priced at ratio 1 and completion ratio 2: a call costs PROMPT + 2 × COMPLETION. */
const COST = PROMPT + 2 * COMPLETION;

interface Node {
  env: RelayTestEnv;
  pool: Pool;
}

/** The upstream answers every call after a few milliseconds with exactly PROMPT and COMPLETION tokens. */
function answerKnownUsage(env: RelayTestEnv): void {
  env.upstream.respond(async (request, response) => {
    await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 10));
    const usage = { prompt_tokens: PROMPT, completion_tokens: COMPLETION, total_tokens: PROMPT + COMPLETION };
    if (request.json?.stream) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(chatStream(['o', 'k'], true, usage));
    } else {
      sendJson(response, 200, chatCompletionBody('ok', usage));
    }
  });
}

async function call(node: Node, apiKey: string, model: string, extra: Record<string, unknown>): Promise<number> {
  const response = await node.pool.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200 && response.statusCode !== 403) throw new Error(`unexpected ${response.statusCode}: ${text}`);
  if (response.statusCode === 200 && extra.stream) expect(text).toContain('data: [DONE]');
  return response.statusCode;
}

/** `count` calls at once, spread over the nodes in turn; how many were served. */
async function burst(nodes: Node[], apiKey: string, model: string, count: number, extra: Record<string, unknown>): Promise<number> {
  const statuses = await Promise.all(Array.from({ length: count }, (_, index) => call(nodes[index % nodes.length]!, apiKey, model, extra)));
  return statuses.filter((status) => status === 200).length;
}

function admissionSuite(dialect: 'sqlite' | 'postgres' | 'mysql') {
  let fresh: FreshDb | undefined;
  let nodes: Node[] = [];
  let model = '';

  beforeAll(async () => {
    // PostgreSQL and MariaDB: two nodes on one database, each with its own leases. SQLite: one
    // node (two in one process would wait on each other's write lock with the event loop blocked).
    // A call the balance cannot cover waits only while calls in flight hold part of it, so a long
    // QUOTA_WAIT_SECONDS delays no refusal here; it keeps a loaded machine from refusing a payable
    // call: without max_tokens the 100 paid calls run one after another (each capped at what the
    // balance has left), and on a slow run the last ones waited past the default 10 s (90 served).
    fresh = dialect === 'sqlite' ? undefined : await createFreshDb(dialect);
    const settings = { BATCH_UPDATE_INTERVAL: '1', QUOTA_WAIT_SECONDS: '120' };
    const envs = [await startRelayTestEnv({ ...settings, ...(fresh ? { SQL_DSN: fresh.sqlDsn } : {}) })];
    if (fresh) envs.push(await startRelayTestEnv({ ...settings, SQL_DSN: fresh.sqlDsn }));
    nodes = envs.map((env) => ({ env, pool: new Pool(env.gateway, { connections: 300 / envs.length }) }));
    for (const { env } of nodes) answerKnownUsage(env);
    await priceNewModel('priced-model');
  });

  /** A model of its own, priced on every node, with no answers in its history yet. */
  async function priceNewModel(prefix: string): Promise<void> {
    model = unique(prefix);
    const { context } = nodes[0]!.env;
    await priceModel(context, model, 1, 2);
    for (const node of nodes.slice(1)) await node.env.context.options.refresh();
  }
  afterAll(async () => {
    for (const { env, pool } of nodes) {
      await pool.close();
      await env.close();
    }
    await fresh?.drop();
  });

  /** A payer every node serves: the user and token rows, and a channel to the first node's upstream. */
  async function payer(quota: { user: number; token?: number }) {
    const { context, upstream } = nodes[0]!.env;
    const user = await seedUser(context, { quota: quota.user });
    const token = await seedToken(context, user.id, quota.token === undefined ? {} : { remainQuota: quota.token, unlimited: false });
    const channels = [await seedChannel(context, { key: unique('key'), baseUrl: upstream.url, models: [model], groups: [user.group] })];
    // The other nodes read the same rows; their channel indexes are rebuilt from them.
    for (const node of nodes.slice(1)) {
      node.env.context.changes.emit('channels');
      await node.env.runtime.cache.channels.current();
    }
    return { user, token, ids: { userId: user.id, tokenId: token.id, channelIds: channels } };
  }

  async function books(ids: { userId: number; tokenId: number; channelIds: number[] }) {
    for (const { env } of nodes) await env.runtime.drain();
    const after = await totals(nodes[0]!.env.context, ids);
    const unpaid = after.logs.filter((log) => JSON.parse(log.other).admin_info?.unpaid_quota > 0).length;
    return { ...after, unpaid };
  }

  it.each([
    ['non-stream', {}],
    ['stream', { stream: true }],
  ])('serves a user exactly the %s calls the balance pays for, each in full, 300 at once', async (_kind, extra) => {
    const { token, ids } = await payer({ user: 100 * COST });
    const served = await burst(nodes, token.apiKey, model, 300, { ...extra, max_tokens: COMPLETION });
    const after = await books(ids);
    expect(served).toBe(100);
    expect([after.logs.length, after.unpaid, after.logQuotaSum, after.userUsed, after.userQuota]).toEqual([100, 0, 100 * COST, 100 * COST, 0]);
    expect(after.logs.every((log) => Number(log.quota) === COST)).toBe(true);
  });

  it('serves a limited token exactly what it holds when its user is rich', async () => {
    const { token, ids } = await payer({ user: 1_000_000_000, token: 100 * COST });
    const served = await burst(nodes, token.apiKey, model, 300, { max_tokens: COMPLETION });
    const after = await books(ids);
    expect(served).toBe(100);
    expect([after.unpaid, after.logQuotaSum, after.tokenUsed, after.tokenRemain, 1_000_000_000 - after.userQuota]).toEqual([
      0,
      100 * COST,
      100 * COST,
      0,
      100 * COST,
    ]);
  });

  it('serves every call the balance pays for when the calls set no max_tokens, capping the output of those it cannot pay for in full', async () => {
    // A call without max_tokens may answer up to the model's maximum output (16,384 tokens here,
    // ModelMaxOutputTokens' default): far more than this balance, so each call is capped at what
    // the balance has left (x-modelgate-output-capped) and the others wait for it to settle.
    // With MinCappedOutputTokens at the answers' length the very last unit is spent.
    await priceNewModel('fresh-model');
    const { context } = nodes[0]!.env;
    await setOption(context, 'MinCappedOutputTokens', COMPLETION);
    for (const node of nodes.slice(1)) await node.env.context.options.refresh();
    try {
      const { token, ids } = await payer({ user: 100 * COST });
      const served = await burst(nodes, token.apiKey, model, 300, {});
      const after = await books(ids);
      expect(served).toBe(100);
      expect([after.logs.length, after.unpaid, after.logQuotaSum, after.userQuota]).toEqual([100, 0, 100 * COST, 0]);
      // Every call went upstream with the limit the balance paid for, the last one exactly its answer.
      const limits = nodes.flatMap(({ env }) =>
        env.upstream.requests
          .filter((request) => request.json?.model === model)
          .map((request) => Number(request.json?.max_completion_tokens ?? request.json?.max_tokens)),
      );
      expect(limits).toHaveLength(100);
      expect(Math.min(...limits)).toBe(COMPLETION);
      expect(after.logs.every((log) => JSON.parse(log.other).output_cap > 0)).toBe(true);
    } finally {
      await setOption(context, 'MinCappedOutputTokens', 128);
      for (const node of nodes.slice(1)) await node.env.context.options.refresh();
    }
  });
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)('admission on %s', (dialect) => admissionSuite(dialect));
