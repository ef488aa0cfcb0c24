import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { Pool, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consumeLogRow } from '../domain/logs/consume-log.js';
import { LOG_BACKLOG_ROWS } from '../domain/logs/log-buffer.js';
import { createFreshDb, type FreshDb } from '../test-support/dialects.js';
import { chatChunk, chatCompletionBody, sendJson } from './testing/mock-upstream.js';
import { priceModel, seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

let env: RelayTestEnv;
const GROUP_RATIO = 1.5;
let ratioGroup = '';

beforeAll(async () => {
  env = await startRelayTestEnv();
  ratioGroup = unique('ratio');
  await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [ratioGroup]: GROUP_RATIO }));
  await setOption(env.context, 'ModelPrice', JSON.stringify({ 'dall-e-3': 0.04, 'fixed-model': 0.002 }));
});
afterEach(() => env.upstream.respond());
afterAll(async () => {
  await env.close();
});

async function post(path: string, apiKey: string, body: Record<string, unknown>) {
  const response = await request(`${env.gateway}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, text };
}

const chatBody = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra });
const answerWithUsage = (prompt: number, completion: number) =>
  env.upstream.respond((_request, response) =>
    sendJson(response, 200, chatCompletionBody('ok', { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion })),
  );

/** A model of its own, priced per token, that no answer has taught a prompt margin yet. */
async function priceFreshModel(ratio: number, completionRatio: number): Promise<string> {
  const model = unique('fresh-model');
  await priceModel(env.context, model, ratio, completionRatio);
  return model;
}

async function payer(options: { quota?: number; tokenQuota?: number; group?: string; models?: string[] } = {}) {
  const user = await seedUser(env.context, { quota: options.quota ?? 1_000_000_000, group: options.group });
  const token = await seedToken(env.context, user.id, options.tokenQuota === undefined ? {} : { remainQuota: options.tokenQuota, unlimited: false });
  const channelId = await seedChannel(env.context, {
    key: unique('key'),
    baseUrl: env.upstream.url,
    models: options.models ?? ['gpt-4o-mini'],
    groups: [user.group],
  });
  return { user, token, channelId, ids: { userId: user.id, tokenId: token.id, channelIds: [channelId] } };
}

/**
 * `count` chat calls at once on one key (half of them with max_tokens), against an upstream that
 * answers each after 5–25 ms with 100 prompt and 100 completion tokens; their statuses.
 */
async function concurrentChats(relay: RelayTestEnv, apiKey: string, count: number): Promise<number[]> {
  relay.upstream.respond(async (_request, response) => {
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    sendJson(response, 200, chatCompletionBody('ok', { prompt_tokens: 100, completion_tokens: 100, total_tokens: 200 }));
  });
  const pool = new Pool(relay.gateway, { connections: count });
  try {
    return await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const response = await pool.request({
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(chatBody(index % 2 === 0 ? { max_tokens: 200 } : {})),
        });
        await response.body.text();
        return response.statusCode;
      }),
    );
  } finally {
    await pool.close();
  }
}

describe('quota arithmetic', () => {
  it('charges round(group × model ratio × (prompt + completion × completion ratio)) everywhere at once', async () => {
    // A group of its own with ratio 1.5 (the GroupRatio option keys it).
    const user = await seedUser(env.context, { quota: 1_000_000_000, group: ratioGroup });
    const token = await seedToken(env.context, user.id, { remainQuota: 500_000_000, unlimited: false });
    const channelId = await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [ratioGroup] });
    answerWithUsage(1234, 567);
    expect((await post('/v1/chat/completions', token.apiKey, chatBody())).status).toBe(200);
    // The call's bound left the balance with the call (into this process's lease, which gives back
    // what the call did not cost at the flush); the log and used_quota follow with the flush.
    const expected = Math.round(GROUP_RATIO * 0.075 * (1234 + 567 * 4));
    const before = await totals(env.context, { userId: user.id, tokenId: token.id });
    expect(1_000_000_000 - before.userQuota).toBeGreaterThanOrEqual(expected);
    expect([before.userUsed, before.logs.length]).toEqual([0, 0]);
    await env.runtime.drain();

    const after = await totals(env.context, { userId: user.id, tokenId: token.id, channelIds: [channelId] });
    expect(after.logs).toHaveLength(1);
    expect(Number(after.logs[0]!.quota)).toBe(expected);
    expect(1_000_000_000 - after.userQuota).toBe(expected);
    expect(after.userUsed).toBe(expected);
    expect(after.requestCount).toBe(1);
    expect(500_000_000 - after.tokenRemain).toBe(expected);
    expect(after.tokenUsed).toBe(expected);
    expect(after.channelUsed.get(channelId)).toBe(expected);
    const other = JSON.parse(after.logs[0]!.other);
    expect(other).toMatchObject({ model_ratio: 0.075, completion_ratio: 4, group_ratio: GROUP_RATIO, model_price: -1, is_model_mapped: false });
    expect(other.admin_info.use_channel).toEqual([String(channelId)]);
    expect(typeof other.frt).toBe('number');
    expect(after.logs[0]).toMatchObject({
      type: 2,
      group: ratioGroup,
      username: user.username,
      token_name: 'test token',
      content: expect.stringContaining('模型倍率 0.075'),
    });
  });

  it('reserves the prompt as the upstream counts it and max_tokens at the real price of the model, then refunds the difference', async () => {
    // This upstream has counted 1234 prompt tokens for the two-word prompt (above, and once more
    // here): the reservation holds (1234 + 10000 × completion ratio 4) × 0.075 ≈ 3093.
    answerWithUsage(1234, 567);
    expect((await post('/v1/chat/completions', (await payer()).token.apiKey, chatBody())).status).toBe(200);
    const { token, ids } = await payer({ quota: 50_000 });
    let heldDuringCall = 0;
    env.upstream.respond(async (_request, response) => {
      heldDuringCall = 50_000 - (await totals(env.context, ids)).userQuota;
      sendJson(response, 200, chatCompletionBody('ok', { prompt_tokens: 1234, completion_tokens: 567, total_tokens: 1801 }));
    });
    expect((await post('/v1/chat/completions', token.apiKey, chatBody({ max_tokens: 10_000 }))).status).toBe(200);
    expect(heldDuringCall).toBe(Math.round((1234 + 10_000 * 4) * 0.075));
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    const expected = Math.round(0.075 * (1234 + 567 * 4));
    expect(50_000 - after.userQuota).toBe(expected);
    expect(Number(after.logs[0]!.quota)).toBe(expected);
  });

  it('charges a fixed price per call (× images for image generation)', async () => {
    const { token, ids } = await payer({ group: ratioGroup, models: ['dall-e-3', 'fixed-model'] });
    expect((await post('/v1/images/generations', token.apiKey, { model: 'dall-e-3', prompt: 'a cat', n: 2 })).status).toBe(200);
    answerWithUsage(50, 50);
    expect((await post('/v1/chat/completions', token.apiKey, chatBody({ model: 'fixed-model' }))).status).toBe(200);
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs.map((log) => Number(log.quota))).toEqual([Math.round(0.04 * 500_000 * GROUP_RATIO * 2), Math.round(0.002 * 500_000 * GROUP_RATIO)]);
    expect(JSON.parse(after.logs[0]!.other)).toMatchObject({ model_price: 0.04, group_ratio: GROUP_RATIO });
    expect(after.userUsed).toBe(after.logQuotaSum);
  });

  it('counts tokens with gpt-tokenizer when the upstream reports no usage', async () => {
    const { token, ids } = await payer();
    const content = 'The answer, counted by the gateway itself.';
    env.upstream.respond((_request, response) => sendJson(response, 200, chatCompletionBody(content, null)));
    expect((await post('/v1/chat/completions', token.apiKey, chatBody())).status).toBe(200);

    // A stream from a vendor that takes no stream_options (Mistral) and reports no usage.
    const mistralUser = await seedUser(env.context);
    const mistralToken = await seedToken(env.context, mistralUser.id);
    await seedChannel(env.context, {
      type: 42,
      key: unique('mistral'),
      baseUrl: env.upstream.url,
      models: ['mistral-small-latest'],
      groups: [mistralUser.group],
    });
    env.upstream.respond((recorded, response) => {
      expect(recorded.json!.stream_options).toBeUndefined();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(chatChunk({ content: 'Streamed ' }) + chatChunk({ content: 'words.' }) + 'data: [DONE]\n\n');
    });
    expect((await post('/v1/chat/completions', mistralToken.apiKey, chatBody({ model: 'mistral-small-latest', stream: true }))).status).toBe(200);
    await env.runtime.drain();

    const prompt = 3 + countTokens('hi') + 3;
    const [log] = (await totals(env.context, ids)).logs;
    expect(log).toMatchObject({ prompt_tokens: prompt, completion_tokens: countTokens(content) });
    expect(Number(log!.quota)).toBe(Math.round(0.075 * (prompt + countTokens(content) * 4)));
    const [streamLog] = (await totals(env.context, { userId: mistralUser.id, tokenId: mistralToken.id })).logs;
    expect(streamLog).toMatchObject({ prompt_tokens: prompt, completion_tokens: countTokens('Streamed words.'), is_stream: 1 });
  });

  it('writes no consume log with LogConsumeEnabled off, and still charges', async () => {
    const { token, ids } = await payer();
    await setOption(env.context, 'LogConsumeEnabled', false);
    try {
      answerWithUsage(10, 10);
      expect((await post('/v1/chat/completions', token.apiKey, chatBody())).status).toBe(200);
      await env.runtime.drain();
    } finally {
      await setOption(env.context, 'LogConsumeEnabled', true);
    }
    const after = await totals(env.context, ids);
    expect(after.logs).toHaveLength(0);
    expect(after.userUsed).toBe(Math.round(0.075 * (10 + 40)));
  });
});

describe('batch size', () => {
  it('writes a full log buffer at once instead of waiting for the interval', async () => {
    const hourly = await startRelayTestEnv({ BATCH_UPDATE_INTERVAL: '3600' });
    try {
      const user = await seedUser(hourly.context, { quota: 1_000 });
      const token = await seedToken(hourly.context, user.id);
      const ids = { userId: user.id, tokenId: token.id };
      const log = (index: number) =>
        consumeLogRow({
          createdAt: 1_700_000_000,
          userId: user.id,
          username: user.username,
          tokenId: token.id,
          tokenName: 't',
          model: 'gpt-4o-mini',
          upstreamModel: 'gpt-4o-mini',
          channelId: 1,
          channelName: 'c',
          group: 'default',
          quota: index,
          promptTokens: 1,
          completionTokens: 1,
          useTimeSeconds: 0,
          isStream: false,
          pricing: { modelRatio: 1, completionRatio: 1, groupRatio: 1, modelPrice: -1 },
          firstResponseMs: 1,
          triedChannelIds: [1],
          unpaidQuota: 0,
        });
      for (let index = 0; index < LOG_BACKLOG_ROWS - 1; index += 1) hourly.runtime.ledger.logs.push(log(index));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await totals(hourly.context, ids)).logs).toHaveLength(0);
      hourly.runtime.ledger.logs.push(log(LOG_BACKLOG_ROWS - 1));
      await expect.poll(async () => (await totals(hourly.context, ids)).logs.length, { timeout: 5000 }).toBe(LOG_BACKLOG_ROWS);
    } finally {
      await hourly.close();
    }
  });
});

describe('balances that do not cover the call', () => {
  it('refuses with insufficient_user_quota and moves nothing', async () => {
    // Too little for the prompt and MinCappedOutputTokens (128) of output: no capped call either.
    const { token, ids } = await payer({ quota: 10 });
    const calls = env.upstream.requests.length;
    const answer = await post('/v1/chat/completions', token.apiKey, chatBody({ max_tokens: 10_000 }));
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text).error.code).toBe('insufficient_user_quota');
    expect(env.upstream.requests.length).toBe(calls);
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect([after.userQuota, after.userUsed, after.requestCount, after.logs.length]).toEqual([10, 0, 0, 0]);
  });

  it('refuses with the token quota error when the token cannot cover it', async () => {
    const { token, ids } = await payer({ tokenQuota: 10 });
    const answer = await post('/v1/chat/completions', token.apiKey, chatBody({ max_tokens: 10_000 }));
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text).error.code).toBe('insufficient_token_quota');
    const after = await totals(env.context, ids);
    expect([after.tokenRemain, after.userQuota]).toEqual([10, 1_000_000_000]);
  });

  it('gives the whole pre-consumption back when the call fails', async () => {
    const { token, ids } = await payer({ quota: 50_000 });
    env.upstream.respond((_request, response) => sendJson(response, 500, { error: { message: 'upstream broke' } }));
    expect((await post('/v1/chat/completions', token.apiKey, chatBody({ max_tokens: 10_000 }))).status).toBe(500);
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect([after.userQuota, after.userUsed, after.requestCount, after.logs.length]).toEqual([50_000, 0, 0, 0]);
  });

  it('charges an upstream that answers past its limit up to what the call held, and flags the channel with the excess', async () => {
    // A model no answer has taught a prompt margin yet: the call holds (prompt + max_tokens 500 ×
    // completion ratio 4) × 0.075, all the balance has; the upstream then counts more prompt and
    // answers longer than it was asked to.
    const model = await priceFreshModel(0.075, 4);
    const prompt = 3 + countTokens('hi') + 3;
    const held = Math.round((prompt + 500 * 4) * 0.075);
    const { token, ids, channelId } = await payer({ quota: held, models: [model] });
    answerWithUsage(1000, 1000);
    expect((await post('/v1/chat/completions', token.apiKey, chatBody({ model, max_tokens: 500 }))).status).toBe(200);
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    const cost = Math.round(0.075 * (1000 + 1000 * 4));
    expect([after.userQuota, after.userUsed, Number(after.logs[0]!.quota)]).toEqual([0, held, held]);
    const adminInfo = JSON.parse(after.logs[0]!.other).admin_info;
    expect(adminInfo.overrun_quota).toBe(cost - held);
    expect(adminInfo.unpaid_quota).toBeUndefined();
    await expect
      .poll(async () => {
        const channel = await env.context.db.kysely.selectFrom('channels').select('other_info').where('id', '=', channelId).executeTakeFirstOrThrow();
        return JSON.parse(channel.other_info || '{}').overrun_quota;
      })
      .toBe(cost - held);
    expect(env.runtime.metrics.overrunQuota.get(channelId)).toBe(cost - held);
    expect(env.runtime.metrics.unpaidQuota).toBe(0);
  });

  it('keeps logs, user, token and channel totals equal under 200 concurrent calls on a balance that covers some', async () => {
    const cost = Math.round(0.075 * (100 + 100 * 4));
    const initialQuota = cost * 60;
    const { token, ids, channelId } = await payer({ quota: initialQuota, tokenQuota: 10_000_000 });
    const statuses = await concurrentChats(env, token.apiKey, 200);
    const succeeded = statuses.filter((status) => status === 200).length;
    expect(succeeded).toBeGreaterThan(0);
    expect(succeeded).toBeLessThan(200);
    expect(statuses.every((status) => status === 200 || status === 403)).toBe(true);
    await env.runtime.drain();
    const after = await totals(env.context, { ...ids, channelIds: [channelId] });
    expect(after.userQuota).toBeGreaterThanOrEqual(0);
    expect(after.tokenRemain).toBeGreaterThanOrEqual(0);
    expect(after.logs).toHaveLength(succeeded);
    expect(after.requestCount).toBe(succeeded);
    expect(after.userUsed).toBe(after.logQuotaSum);
    expect(initialQuota - after.userQuota).toBe(after.logQuotaSum);
    expect(after.tokenUsed).toBe(after.logQuotaSum);
    expect(10_000_000 - after.tokenRemain).toBe(after.logQuotaSum);
    expect(after.channelUsed.get(channelId)).toBe(after.logQuotaSum);
  });
});

describe.each(['postgres', 'mysql'] as const)('the money path on %s', (dialect) => {
  let fresh: FreshDb;
  let node: RelayTestEnv;
  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
    node = await startRelayTestEnv({ SQL_DSN: fresh.sqlDsn });
  });
  afterAll(async () => {
    await node.close();
    await fresh.drop();
  });

  it('keeps every total equal under 100 concurrent calls on a balance that covers some', async () => {
    const cost = Math.round(0.075 * (100 + 100 * 4));
    const initialQuota = cost * 30;
    const user = await seedUser(node.context, { quota: initialQuota });
    const token = await seedToken(node.context, user.id, { remainQuota: 10_000_000, unlimited: false });
    const channelId = await seedChannel(node.context, { key: unique('key'), baseUrl: node.upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
    const statuses = await concurrentChats(node, token.apiKey, 100);
    const succeeded = statuses.filter((status) => status === 200).length;
    expect(succeeded).toBeGreaterThan(0);
    expect(succeeded).toBeLessThan(100);
    await node.runtime.drain();
    const after = await totals(node.context, { userId: user.id, tokenId: token.id, channelIds: [channelId] });
    expect(after.userQuota).toBeGreaterThanOrEqual(0);
    expect([after.logs.length, after.requestCount]).toEqual([succeeded, succeeded]);
    expect(initialQuota - after.userQuota).toBe(after.logQuotaSum);
    expect([after.userUsed, after.tokenUsed, 10_000_000 - after.tokenRemain, after.channelUsed.get(channelId)]).toEqual(Array(4).fill(after.logQuotaSum));
  });
});
