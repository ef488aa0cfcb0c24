import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../config/default-prices.js';
import { startMockAnthropic, type MockAnthropic } from '../providers/anthropic/testing/mock-anthropic.js';
import { startMockBedrock, type MockBedrock } from '../providers/aws-bedrock/testing/mock-bedrock.js';
import { startMockVertex, type MockVertex } from '../providers/vertex/testing/mock-vertex.js';
import { createFreshDb, type FreshDb } from '../test-support/dialects.js';
import { chatCompletionBody, chatStream, sendJson } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * CacheRatio (new-api's cache billing) through the whole app: prompt tokens the upstream reports
 * as served from its cache (`prompt_tokens_details.cached_tokens` in chat,
 * `input_tokens_details.cached_tokens` in the Responses API) are billed at model ratio × cache
 * ratio, the rest of the prompt at the model ratio; the log's `other` carries cache_tokens and
 * cache_ratio; users, tokens, channels and logs move by the same amount. Claude's reads and writes
 * (cache_read_input_tokens, cache_creation_input_tokens at CreateCacheRatio) likewise, from
 * Anthropic, Bedrock and Vertex channels, to Anthropic and OpenAI chat clients, whole and streamed.
 */

const GROUP_RATIO = 1.5;
const MODEL_RATIO = 2;
const COMPLETION_RATIO = 3;
const CACHE_RATIO = 0.25;

async function configure(relay: RelayTestEnv, group: string, cached: string, uncached: string): Promise<void> {
  await setOption(relay.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: GROUP_RATIO }));
  await setOption(relay.context, 'ModelRatio', JSON.stringify({ ...DEFAULT_MODEL_RATIO, [cached]: MODEL_RATIO, [uncached]: MODEL_RATIO }));
  await setOption(relay.context, 'CompletionRatio', JSON.stringify({ ...DEFAULT_COMPLETION_RATIO, [cached]: COMPLETION_RATIO, [uncached]: COMPLETION_RATIO }));
  // `uncached` has no cache ratio: new-api's fallback 1, cached tokens cost what others do.
  await setOption(relay.context, 'CacheRatio', JSON.stringify({ [cached]: CACHE_RATIO }));
}

async function post(relay: RelayTestEnv, path: string, apiKey: string, body: Record<string, unknown>) {
  const response = await request(`${relay.gateway}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

/** A user, a limited token and a channel in a group of their own (ratio 1.5), so only that channel serves them. */
async function payer(relay: RelayTestEnv, prefix: string, models: string[]) {
  const group = unique(prefix);
  const ratios = relay.context.options.json<Record<string, number>>('GroupRatio');
  await setOption(relay.context, 'GroupRatio', JSON.stringify({ ...ratios, [group]: GROUP_RATIO }));
  const user = await seedUser(relay.context, { quota: 1_000_000, group });
  const token = await seedToken(relay.context, user.id, { remainQuota: 500_000, unlimited: false });
  const channelId = await seedChannel(relay.context, { key: unique('key'), baseUrl: relay.upstream.url, models, groups: [group] });
  return { user, token, channelId, ids: { userId: user.id, tokenId: token.id, channelIds: [channelId] } };
}

/** Every balance and counter moved by exactly what the logs record, and the logs' sum is `expected`. */
async function expectCharged(relay: RelayTestEnv, ids: { userId: number; tokenId: number; channelIds: number[] }, expected: number) {
  await relay.runtime.drain();
  const after = await totals(relay.context, ids);
  expect(after.logQuotaSum).toBe(expected);
  expect([1_000_000 - after.userQuota, after.userUsed, 500_000 - after.tokenRemain, after.tokenUsed, after.channelUsed.get(ids.channelIds[0]!)]).toEqual(
    Array(5).fill(expected),
  );
  return after.logs.map((log) => ({
    quota: Number(log.quota),
    prompt: Number(log.prompt_tokens),
    completion: Number(log.completion_tokens),
    other: JSON.parse(log.other),
  }));
}

const chatUsage = (prompt: number, cached: number | undefined, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 } }),
});

describe('cache ratio billing (SQLite)', () => {
  let env: RelayTestEnv;
  const group = unique('cache');
  const cachedModel = unique('cache-model');
  const plainModel = unique('plain-model');
  beforeAll(async () => {
    env = await startRelayTestEnv();
    await configure(env, group, cachedModel, plainModel);
  });
  afterEach(() => env.upstream.respond());
  afterAll(async () => {
    await env.close();
  });

  it('chat, whole answer: cached prompt tokens at model ratio × cache ratio, the rest at the model ratio', async () => {
    const { ids, token } = await payer(env, group, [cachedModel]);
    env.upstream.respond((_request, response) => sendJson(response, 200, chatCompletionBody('ok', chatUsage(1000, 800, 100))));
    const answer = await post(env, '/v1/chat/completions', token.apiKey, { model: cachedModel, messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).toBe(200);
    // (1000 − 800 + 800 × 0.25 + 100 × 3) × 2 × 1.5 = 700 × 3 = 2100 (3900 without the cache).
    const logs = await expectCharged(env, ids, 2100);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ quota: 2100, prompt: 1000, completion: 100 });
    expect(logs[0]!.other).toMatchObject({
      cache_tokens: 800,
      cache_ratio: CACHE_RATIO,
      model_ratio: MODEL_RATIO,
      completion_ratio: COMPLETION_RATIO,
      group_ratio: GROUP_RATIO,
    });
  });

  it('chat, stream: the final usage chunk’s cached tokens are billed the same way', async () => {
    const { ids, token } = await payer(env, group, [cachedModel]);
    env.upstream.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(chatStream(['Hello', ' there'], true, chatUsage(1200, 1024, 50)));
    });
    const answer = await post(env, '/v1/chat/completions', token.apiKey, { model: cachedModel, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('data: [DONE]');
    // (1200 − 1024 + 1024 × 0.25 + 50 × 3) × 3 = (176 + 256 + 150) × 3 = 1746.
    const logs = await expectCharged(env, ids, 1746);
    expect(logs[0]).toMatchObject({ quota: 1746, prompt: 1200, completion: 50 });
    expect(logs[0]!.other).toMatchObject({ cache_tokens: 1024, cache_ratio: CACHE_RATIO });
  });

  it('responses API, whole and stream: input_tokens_details.cached_tokens', async () => {
    const { ids, token } = await payer(env, group, [cachedModel]);
    const usage = { input_tokens: 1000, output_tokens: 60, total_tokens: 1060, input_tokens_details: { cached_tokens: 600 } };
    env.upstream.respond((request, response) => {
      if (request.json?.stream === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(
          'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hi"}\n\n' +
            `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { usage } })}\n\n`,
        );
        return;
      }
      sendJson(response, 200, { id: 'resp-mock', object: 'response', output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hi' }] }], usage });
    });
    expect((await post(env, '/v1/responses', token.apiKey, { model: cachedModel, input: 'hi' })).status).toBe(200);
    expect((await post(env, '/v1/responses', token.apiKey, { model: cachedModel, input: 'hi', stream: true })).status).toBe(200);
    // Each: (1000 − 600 + 600 × 0.25 + 60 × 3) × 3 = (400 + 150 + 180) × 3 = 2190.
    const logs = await expectCharged(env, ids, 2 * 2190);
    expect(logs.map((log) => [log.quota, log.other.cache_tokens, log.other.cache_ratio])).toEqual([
      [2190, 600, CACHE_RATIO],
      [2190, 600, CACHE_RATIO],
    ]);
  });

  it('no cached tokens, or a model without a cache ratio: the charge is unchanged', async () => {
    const { ids, token } = await payer(env, group, [cachedModel, plainModel]);
    const answers = [chatUsage(1000, undefined, 100), chatUsage(1000, 0, 100), chatUsage(1000, 800, 100)];
    let next = 0;
    env.upstream.respond((_request, response) => sendJson(response, 200, chatCompletionBody('ok', answers[next++])));
    expect((await post(env, '/v1/chat/completions', token.apiKey, { model: cachedModel, messages: [{ role: 'user', content: 'a' }] })).status).toBe(200);
    expect((await post(env, '/v1/chat/completions', token.apiKey, { model: cachedModel, messages: [{ role: 'user', content: 'b' }] })).status).toBe(200);
    // 800 cached tokens of a model with no cache ratio: fallback 1, the full price.
    expect((await post(env, '/v1/chat/completions', token.apiKey, { model: plainModel, messages: [{ role: 'user', content: 'c' }] })).status).toBe(200);
    // (1000 + 100 × 3) × 2 × 1.5 = 3900 each.
    const logs = await expectCharged(env, ids, 3 * 3900);
    expect(logs.map((log) => [log.quota, log.other.cache_tokens, log.other.cache_ratio])).toEqual([
      [3900, 0, CACHE_RATIO],
      [3900, 0, CACHE_RATIO],
      [3900, 800, 1],
    ]);
  });

  it('the default table: gpt-4o-mini’s cached tokens cost half (new-api’s 0.5)', async () => {
    await setOption(env.context, 'CacheRatio', JSON.stringify({ 'gpt-4o-mini': 0.5 }));
    try {
      const { ids, token } = await payer(env, group, ['gpt-4o-mini']);
      env.upstream.respond((_request, response) => sendJson(response, 200, chatCompletionBody('ok', chatUsage(10_000, 8_000, 1_000))));
      expect((await post(env, '/v1/chat/completions', token.apiKey, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
      // round((2000 + 8000 × 0.5 + 1000 × 4) × 0.075 × 1.5) = round(1125) = 1125.
      const logs = await expectCharged(env, ids, 1125);
      expect(logs[0]!.other).toMatchObject({ cache_tokens: 8000, cache_ratio: 0.5 });
    } finally {
      await setOption(env.context, 'CacheRatio', JSON.stringify({ [cachedModel]: CACHE_RATIO }));
    }
  });
  it('a cache ratio above 1 costs more than the reservation held: topped up, and every total still equals the logs', async () => {
    await setOption(env.context, 'CacheRatio', JSON.stringify({ [cachedModel]: CACHE_RATIO, [plainModel]: 2 }));
    try {
      const { ids, token } = await payer(env, group, [plainModel]);
      env.upstream.respond((_request, response) => sendJson(response, 200, chatCompletionBody('ok', chatUsage(1000, 800, 100))));
      const answer = await post(env, '/v1/chat/completions', token.apiKey, { model: plainModel, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.status).toBe(200);
      // (1000 − 800 + 800 × 2 + 100 × 3) × 2 × 1.5 = 2100 × 3 = 6300.
      const logs = await expectCharged(env, ids, 6300);
      expect(logs[0]!.other).toMatchObject({ cache_tokens: 800, cache_ratio: 2 });
      expect(logs[0]!.other.admin_info).not.toHaveProperty('unpaid_quota');
    } finally {
      await setOption(env.context, 'CacheRatio', JSON.stringify({ [cachedModel]: CACHE_RATIO }));
    }
  });
});

describe('cache ratio billing on postgres', () => {
  let fresh: FreshDb;
  let node: RelayTestEnv;
  const group = unique('cache-pg');
  const cachedModel = unique('cache-model');
  beforeAll(async () => {
    fresh = await createFreshDb('postgres');
    node = await startRelayTestEnv({ SQL_DSN: fresh.sqlDsn });
    await configure(node, group, cachedModel, unique('plain-model'));
  });
  afterAll(async () => {
    await node.close();
    await fresh.drop();
  });

  it('bills cached tokens at the cache ratio, stream and not, and every total agrees', async () => {
    const { ids, token } = await payer(node, group, [cachedModel]);
    node.upstream.respond((request, response) => {
      if (request.json?.stream === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(chatStream(['Hi'], true, chatUsage(1200, 1024, 50)));
        return;
      }
      sendJson(response, 200, chatCompletionBody('ok', chatUsage(1000, 800, 100)));
    });
    expect((await post(node, '/v1/chat/completions', token.apiKey, { model: cachedModel, messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    expect(
      (await post(node, '/v1/chat/completions', token.apiKey, { model: cachedModel, stream: true, messages: [{ role: 'user', content: 'hi' }] })).status,
    ).toBe(200);
    const logs = await expectCharged(node, ids, 2100 + 1746);
    expect(logs.map((log) => [log.quota, log.other.cache_tokens, log.other.cache_ratio])).toEqual([
      [2100, 800, CACHE_RATIO],
      [1746, 1024, CACHE_RATIO],
    ]);
  });
});

describe('cache reads and writes from Claude upstreams (SQLite)', () => {
  const CLAUDE_KEY = 'sk-ant-cache-key-0123456789';
  const AWS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1' };
  const CREATE_CACHE_RATIO = 1.25;
  const claudeModel = unique('cache-claude');
  const bedrockModel = unique('cache-bedrock');
  const vertexModel = unique('cache-vertex');
  // 120 plain input tokens, 2000 read from the cache, 800 written to it, 30 out.
  const usage = { input: 120, output: 30, cacheRead: 2000, cacheWrite: 800 };
  // (120 + 2000 × 0.25 + 800 × 1.25 + 30 × 3) × 2 × 1.5 = (120 + 500 + 1000 + 90) × 3 = 5130.
  const CHARGE = 5130;
  let env: RelayTestEnv;
  let claude: MockAnthropic;
  let bedrock: MockBedrock;
  let vertex: MockVertex;
  const group = unique('cache-claude');

  beforeAll(async () => {
    env = await startRelayTestEnv();
    const turn = () => ({ text: 'From the cache.', usage });
    claude = await startMockAnthropic({ key: CLAUDE_KEY, script: turn });
    bedrock = await startMockBedrock({ ...AWS, script: turn });
    vertex = await startMockVertex({ projectId: 'cache-project', script: turn });
    const models = [claudeModel, bedrockModel, vertexModel];
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: GROUP_RATIO }));
    await setOption(env.context, 'ModelRatio', JSON.stringify({ ...DEFAULT_MODEL_RATIO, ...Object.fromEntries(models.map((model) => [model, MODEL_RATIO])) }));
    await setOption(
      env.context,
      'CompletionRatio',
      JSON.stringify({ ...DEFAULT_COMPLETION_RATIO, ...Object.fromEntries(models.map((model) => [model, COMPLETION_RATIO])) }),
    );
    await setOption(env.context, 'CacheRatio', JSON.stringify(Object.fromEntries(models.map((model) => [model, CACHE_RATIO]))));
    await setOption(env.context, 'CreateCacheRatio', JSON.stringify(Object.fromEntries(models.map((model) => [model, CREATE_CACHE_RATIO]))));
  });
  afterAll(async () => {
    await claude?.close();
    await bedrock?.close();
    await vertex?.close();
    await env?.close();
  });

  /** A payer of its own, and the channel for `model` in its group. */
  async function claudePayer(model: string) {
    const payerGroup = unique(group);
    const ratios = env.context.options.json<Record<string, number>>('GroupRatio');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ ...ratios, [payerGroup]: GROUP_RATIO }));
    const user = await seedUser(env.context, { quota: 1_000_000, group: payerGroup });
    const token = await seedToken(env.context, user.id, { remainQuota: 500_000, unlimited: false });
    const channel =
      model === claudeModel
        ? { type: 14, key: CLAUDE_KEY, baseUrl: claude.url }
        : model === bedrockModel
          ? { type: 33, key: `${AWS.accessKeyId}|${AWS.secretAccessKey}|${AWS.region}`, baseUrl: bedrock.url }
          : { type: 41, key: vertex.serviceAccountKey, baseUrl: vertex.url, other: 'us-east5' };
    const channelId = await seedChannel(env.context, {
      ...channel,
      models: [model],
      modelMapping: model === claudeModel ? undefined : { [model]: 'claude-sonnet-4-5-20250929' },
      groups: [payerGroup],
    });
    return { apiKey: token.apiKey, ids: { userId: user.id, tokenId: token.id, channelIds: [channelId] } };
  }

  /** Each call billed (120 + 2000 read + 800 written) prompt tokens, the reads and writes at their ratios. */
  async function expectCacheBilled(ids: { userId: number; tokenId: number; channelIds: number[] }, calls: number) {
    const logs = await expectCharged(env, ids, calls * CHARGE);
    expect(logs).toHaveLength(calls);
    for (const log of logs) {
      expect(log).toMatchObject({ quota: CHARGE, prompt: 120 + 2000 + 800, completion: 30 });
      expect(log.other).toMatchObject({ cache_tokens: 2000, cache_ratio: CACHE_RATIO, cache_creation_tokens: 800, cache_creation_ratio: CREATE_CACHE_RATIO });
    }
  }

  for (const model of [claudeModel, bedrockModel, vertexModel]) {
    const kind = model === claudeModel ? 'Anthropic' : model === bedrockModel ? 'Bedrock' : 'Vertex';
    it(`an Anthropic client on a ${kind} channel, whole and streamed, with cache_control`, async () => {
      const { apiKey, ids } = await claudePayer(model);
      const client = new Anthropic({ apiKey, baseURL: env.gateway, maxRetries: 0 });
      const params = {
        model,
        max_tokens: 256,
        system: [{ type: 'text' as const, text: 'A long, stable system prompt.', cache_control: { type: 'ephemeral' as const } }],
        messages: [{ role: 'user' as const, content: 'Go on.' }],
      };
      const whole = await client.messages.create(params);
      expect(whole.usage).toMatchObject({ input_tokens: 120, cache_read_input_tokens: 2000, cache_creation_input_tokens: 800, output_tokens: 30 });
      const streamed = await client.messages.stream(params).finalMessage();
      expect(streamed.usage).toMatchObject({ input_tokens: 120, cache_read_input_tokens: 2000, cache_creation_input_tokens: 800, output_tokens: 30 });
      await expectCacheBilled(ids, 2);
    });
  }

  it('bills the one-hour share of the cache writes at CreateCacheRatio × 6/3.75 (new-api), and logs the split', async () => {
    const { apiKey, ids } = await claudePayer(claudeModel);
    // 800 written, 300 of them for an hour: (120 + 2000 × 0.25 + 500 × 1.25 + 300 × 2 + 30 × 3) × 3 = 5805.
    claude.setScript(() => ({ text: 'Kept an hour.', usage: { ...usage, cacheWrite1h: 300 } }));
    try {
      const client = new Anthropic({ apiKey, baseURL: env.gateway, maxRetries: 0 });
      const params = {
        model: claudeModel,
        max_tokens: 256,
        system: [{ type: 'text' as const, text: 'A long, stable system prompt.', cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } }],
        messages: [{ role: 'user' as const, content: 'Go on.' }],
      };
      await client.messages.create(params);
      await client.messages.stream(params).finalMessage();
      const logs = await expectCharged(env, ids, 2 * 5805);
      for (const log of logs) {
        expect(log.other).toMatchObject({
          cache_creation_tokens: 800,
          cache_creation_tokens_5m: 500,
          cache_creation_ratio_5m: CREATE_CACHE_RATIO,
          cache_creation_tokens_1h: 300,
          cache_creation_ratio_1h: 2,
        });
      }
    } finally {
      claude.setScript(() => ({ text: 'From the cache.', usage }));
    }
  });

  for (const model of [claudeModel, bedrockModel]) {
    const kind = model === claudeModel ? 'Anthropic' : 'Bedrock';
    it(`an OpenAI chat client on a ${kind} channel, whole and streamed: the reads and writes come back in its usage and are billed`, async () => {
      const { apiKey, ids } = await claudePayer(model);
      const client = new OpenAI({ apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });
      const messages = [{ role: 'user' as const, content: 'Go on.' }];
      const whole = await client.chat.completions.create({ model, messages });
      expect(whole.usage).toMatchObject({ prompt_tokens: 2920, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 2000 } });
      let reported: OpenAI.CompletionUsage | undefined;
      for await (const chunk of await client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } })) {
        if (chunk.usage) reported = chunk.usage;
      }
      expect(reported).toMatchObject({ prompt_tokens: 2920, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 2000 } });
      await expectCacheBilled(ids, 2);
    });
  }
});
