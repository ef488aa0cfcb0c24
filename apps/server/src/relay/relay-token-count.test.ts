import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../config/default-prices.js';
import { mockAnthropicTokenCount, startMockAnthropic, type MockAnthropic } from '../providers/anthropic/testing/mock-anthropic.js';
import { startMockBedrock, type MockBedrock } from '../providers/aws-bedrock/testing/mock-bedrock.js';
import { mockGeminiTokenCount, startMockGemini, type MockGemini } from '../providers/gemini/testing/mock-gemini.js';
import type { MockRequestRecord } from '../providers/testing/mock-turn.js';
import { startMockVertex, type MockVertex } from '../providers/vertex/testing/mock-vertex.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';
import { TOKEN_COUNT_HEADER } from './token-count.js';

/**
 * /v1/messages/count_tokens and Gemini's :countTokens through the whole app: the official Anthropic
 * and Google clients ask the gateway; the routed channel's upstream counts when it has a counter
 * (Anthropic's count_tokens, Gemini's countTokens, Vertex's count-tokens:rawPredict and
 * countTokens, Bedrock's CountTokens), converted to its format when the client spoke another,
 * and the relay's tokenizer counts otherwise (OpenAI-wire channels, a failed upstream count).
 * The x-modelgate-token-count header says which; nothing is billed.
 */

const CLAUDE_KEY = 'sk-ant-count-key-0123456789';
const GEMINI_KEY = 'AIza-count-key-0123456789';
const AWS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1' };
const CLAUDE_UPSTREAM = 'claude-sonnet-4-5-20250929';

const claudeModel = unique('count-claude');
const geminiModel = unique('count-gemini');
const vertexClaudeModel = unique('count-vertex-claude');
const vertexGeminiModel = unique('count-vertex-gemini');
const bedrockModel = unique('count-bedrock');
const openaiModel = unique('count-gpt');
const brokenModel = unique('count-broken');
const breakerModel = unique('count-breaker');

const SYSTEM = 'You answer in one word.';
const QUESTION = 'How many tokens does this question take?';
const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

const countRequests = (requests: MockRequestRecord[], pattern: RegExp) => requests.filter((request) => pattern.test(request.path));

describe('token counting through the relay', () => {
  let env: RelayTestEnv;
  let claude: MockAnthropic;
  let gemini: MockGemini;
  let vertex: MockVertex;
  let bedrock: MockBedrock;
  let apiKey: string;
  let group: string;
  let ids: { userId: number; tokenId: number; channelIds: number[] };

  beforeAll(async () => {
    env = await startRelayTestEnv();
    claude = await startMockAnthropic({ key: CLAUDE_KEY });
    gemini = await startMockGemini({ key: GEMINI_KEY });
    vertex = await startMockVertex({ projectId: 'count-project' });
    bedrock = await startMockBedrock(AWS);
    group = unique('count');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: 1 }));
    const models = [claudeModel, geminiModel, vertexClaudeModel, vertexGeminiModel, bedrockModel, openaiModel, brokenModel, breakerModel];
    await setOption(env.context, 'ModelRatio', JSON.stringify({ ...DEFAULT_MODEL_RATIO, ...Object.fromEntries(models.map((model) => [model, 2])) }));
    await setOption(env.context, 'CompletionRatio', JSON.stringify({ ...DEFAULT_COMPLETION_RATIO, ...Object.fromEntries(models.map((model) => [model, 4])) }));
    const user = await seedUser(env.context, { quota: 1_000_000, group });
    const token = await seedToken(env.context, user.id, { remainQuota: 500_000, unlimited: false });
    apiKey = token.apiKey;
    const channelIds = [
      await seedChannel(env.context, {
        type: 14,
        key: CLAUDE_KEY,
        baseUrl: claude.url,
        models: [claudeModel],
        modelMapping: { [claudeModel]: 'claude-sonnet-4-20250514' },
        groups: [group],
      }),
      await seedChannel(env.context, {
        type: 24,
        key: GEMINI_KEY,
        baseUrl: gemini.url,
        models: [geminiModel],
        modelMapping: { [geminiModel]: 'gemini-2.5-flash' },
        groups: [group],
      }),
      await seedChannel(env.context, {
        type: 41,
        key: vertex.serviceAccountKey,
        baseUrl: vertex.url,
        other: 'us-east5',
        models: [vertexClaudeModel, vertexGeminiModel],
        modelMapping: { [vertexClaudeModel]: CLAUDE_UPSTREAM, [vertexGeminiModel]: 'gemini-2.5-pro' },
        groups: [group],
      }),
      await seedChannel(env.context, {
        type: 33,
        key: `${AWS.accessKeyId}|${AWS.secretAccessKey}|${AWS.region}`,
        baseUrl: bedrock.url,
        models: [bedrockModel],
        modelMapping: { [bedrockModel]: CLAUDE_UPSTREAM },
        groups: [group],
      }),
      await seedChannel(env.context, { type: 1, key: unique('openai-key'), baseUrl: env.upstream.url, models: [openaiModel], groups: [group] }),
      // A Claude channel whose key the upstream refuses: its counts fail.
      await seedChannel(env.context, { type: 14, key: 'sk-ant-refused', baseUrl: claude.url, models: [brokenModel], groups: [group], autoBan: false }),
      await seedChannel(env.context, { type: 14, key: CLAUDE_KEY, baseUrl: claude.url, models: [breakerModel], groups: [group] }),
    ];
    ids = { userId: user.id, tokenId: token.id, channelIds };
  });
  afterEach(() => {
    claude.setCountScript(undefined);
    gemini.setCountScript(undefined);
    vertex.setCountScript(undefined);
    bedrock.setCountScript(undefined);
  });
  afterAll(async () => {
    await claude?.close();
    await gemini?.close();
    await vertex?.close();
    await bedrock?.close();
    await env?.close();
  });

  const anthropicClient = (key = apiKey) => new Anthropic({ apiKey: key, baseURL: env.gateway, maxRetries: 0 });
  const googleClient = () => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: env.gateway } });

  /** Counts with the Anthropic client; the header as answered. */
  async function countAnthropic(params: Anthropic.MessageCountTokensParams, headers: Record<string, string> = {}) {
    const { data, response } = await anthropicClient().messages.countTokens(params, { headers }).withResponse();
    return { tokens: data.input_tokens, by: response.headers.get(TOKEN_COUNT_HEADER), body: data };
  }

  /** Gemini's countTokens over HTTP, for its header. */
  async function countGemini(model: string, body: Record<string, unknown>) {
    const response = await fetch(`${env.gateway}/v1beta/models/${model}:countTokens`, {
      method: 'POST',
      headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, by: response.headers.get(TOKEN_COUNT_HEADER), body: (await response.json()) as Record<string, unknown> };
  }

  /** Nothing was billed or logged by any of it. */
  async function expectNothingBilled() {
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs).toHaveLength(0);
    expect([after.userQuota, after.userUsed, after.tokenRemain, after.tokenUsed]).toEqual([1_000_000, 0, 500_000, 0]);
  }

  describe('the Anthropic client on /v1/messages/count_tokens', () => {
    it('asks a Claude channel’s count_tokens with the channel key and the client’s version and beta headers', async () => {
      const before = claude.requests.length;
      const params: Anthropic.MessageCountTokensParams = {
        model: claudeModel,
        system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: QUESTION }],
        tools: [WEATHER_TOOL],
        thinking: { type: 'enabled', budget_tokens: 2048 },
      };
      const counted = await countAnthropic(params, { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'token-efficient-tools-2025-02-19' });
      const sent = claude.requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.path).toBe('/v1/messages/count_tokens');
      expect(sent[0]!.headers['x-api-key']).toBe(CLAUDE_KEY);
      expect(sent[0]!.headers['anthropic-version']).toBe('2023-06-01');
      expect(sent[0]!.headers['anthropic-beta']).toBe('token-efficient-tools-2025-02-19');
      // The channel's model mapping applies; the prompt's fields reach it as sent.
      const expected = { ...params, model: 'claude-sonnet-4-20250514' };
      expect(sent[0]!.body).toEqual(expected);
      expect(counted).toEqual({ tokens: mockAnthropicTokenCount(expected), by: 'upstream', body: { input_tokens: mockAnthropicTokenCount(expected) } });
      await expectNothingBilled();
    });

    it('converts the prompt for a Gemini channel’s countTokens', async () => {
      const before = gemini.requests.length;
      const counted = await countAnthropic({ model: geminiModel, system: SYSTEM, messages: [{ role: 'user', content: QUESTION }] });
      const sent = gemini.requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
      expect(sent[0]!.headers['x-goog-api-key']).toBe(GEMINI_KEY);
      const body = sent[0]!.body as Record<string, unknown>;
      expect(body).toEqual({
        generateContentRequest: {
          model: 'models/gemini-2.5-flash',
          contents: [{ role: 'user', parts: [{ text: QUESTION }] }],
          systemInstruction: { parts: [{ text: SYSTEM }] },
        },
      });
      expect(counted).toMatchObject({ tokens: mockGeminiTokenCount(body), by: 'upstream' });
    });

    it('asks Vertex’s count-tokens:rawPredict for Claude on Vertex, the model named in the body', async () => {
      const before = vertex.requests.length;
      const counted = await countAnthropic({ model: vertexClaudeModel, messages: [{ role: 'user', content: QUESTION }], tools: [WEATHER_TOOL] });
      const sent = vertex.requests.slice(before).filter((request) => request.path !== '/token');
      expect(sent).toHaveLength(1);
      expect(sent[0]!.path).toBe('/v1/projects/count-project/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict');
      expect(sent[0]!.headers.authorization).toMatch(/^Bearer ya29\.mock-/);
      const body = sent[0]!.body as Record<string, unknown>;
      expect(body).toEqual({
        anthropic_version: 'vertex-2023-10-16',
        model: 'claude-sonnet-4-5@20250929',
        messages: [{ role: 'user', content: QUESTION }],
        tools: [WEATHER_TOOL],
      });
      expect(counted).toMatchObject({ tokens: mockAnthropicTokenCount(body), by: 'upstream' });
    });

    it('asks Bedrock’s CountTokens with the foundation-model id and the InvokeModel body', async () => {
      const before = bedrock.requests.length;
      const counted = await countAnthropic({ model: bedrockModel, system: SYSTEM, messages: [{ role: 'user', content: QUESTION }] });
      const sent = bedrock.requests.slice(before);
      expect(sent).toHaveLength(1);
      // The chat calls of this region go to the us. profile; counting takes only the bare id.
      expect(sent[0]!.path).toBe(`/model/${encodeURIComponent('anthropic.claude-sonnet-4-5-20250929-v1:0')}/count-tokens`);
      expect(sent[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\//);
      const encoded = (sent[0]!.body as { input: { invokeModel: { body: string } } }).input.invokeModel.body;
      const invoke = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Record<string, unknown>;
      expect(invoke).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', system: SYSTEM, messages: [{ role: 'user', content: QUESTION }] });
      expect(invoke).not.toHaveProperty('model');
      expect(counted).toMatchObject({ tokens: mockAnthropicTokenCount(invoke), by: 'upstream' });
    });

    it('counts locally for an OpenAI channel, which has no count endpoint', async () => {
      const before = env.upstream.requests.length;
      const counted = await countAnthropic({ model: openaiModel, system: SYSTEM, messages: [{ role: 'user', content: QUESTION }] });
      expect(counted.by).toBe('local');
      expect(counted.tokens).toBeGreaterThan(10);
      expect(counted.tokens).toBeLessThan(30);
      expect(env.upstream.requests.length).toBe(before);
      await expectNothingBilled();
    });

    it('falls back to the local count when the upstream’s count fails, for every kind', async () => {
      const failure = { status: 529, message: 'Overloaded', type: 'overloaded_error' };
      claude.setCountScript(() => failure);
      gemini.setCountScript(() => ({ status: 503, message: 'The model is overloaded.' }));
      vertex.setCountScript(() => ({ status: 429, message: 'Quota exceeded.' }));
      bedrock.setCountScript(() => ({ status: 429, message: 'Too many requests.', type: 'ThrottlingException' }));
      const prompt = { system: SYSTEM, messages: [{ role: 'user' as const, content: QUESTION }] };
      const local = await countAnthropic({ model: openaiModel, ...prompt });
      for (const [model, mock] of [
        [claudeModel, claude],
        [geminiModel, gemini],
        [vertexClaudeModel, vertex],
        [vertexGeminiModel, vertex],
        [bedrockModel, bedrock],
      ] as const) {
        const before = mock.requests.length;
        const counted = await countAnthropic({ model, ...prompt });
        // The upstream was asked, refused, and the relay counted as it does for OpenAI channels.
        expect(mock.requests.slice(before).filter((request) => request.path !== '/token').length, model).toBe(1);
        expect(counted, model).toEqual({ tokens: local.tokens, by: 'local', body: { input_tokens: local.tokens } });
      }
      // A key the upstream refuses (401) is a failure like another.
      const refused = await countAnthropic({ model: brokenModel, ...prompt });
      expect(refused).toMatchObject({ tokens: local.tokens, by: 'local' });
      await expectNothingBilled();
    });

    it('refuses a malformed request in Anthropic’s error shape, without asking the upstream', async () => {
      const before = claude.requests.length;
      const response = await fetch(`${env.gateway}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: claudeModel, messages: 'not a list' }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(claude.requests.length).toBe(before);
    });

    it('refuses a bad key with 401 in Anthropic’s error shape', async () => {
      const before = claude.requests.length;
      await expect(
        anthropicClient('sk-not-a-real-key').messages.countTokens({ model: claudeModel, messages: [{ role: 'user', content: QUESTION }] }),
      ).rejects.toMatchObject({ status: 401, error: { type: 'error', error: { type: 'authentication_error' } } });
      expect(claude.requests.length).toBe(before);
    });

    it('refuses a model the key may not use', async () => {
      const user = await seedUser(env.context, { group });
      const limited = await seedToken(env.context, user.id, { modelLimits: [openaiModel] });
      await expect(
        anthropicClient(limited.apiKey).messages.countTokens({ model: claudeModel, messages: [{ role: 'user', content: QUESTION }] }),
      ).rejects.toMatchObject({ status: 403 });
    });

    it('skips a channel whose circuit breaker is open and counts locally', async () => {
      await setOption(env.context, 'ChannelBreakerFailureThreshold', 1);
      try {
        claude.setScript(() => ({ status: 529, message: 'Overloaded', type: 'overloaded_error' }));
        // One failed call opens the breaker of the only channel serving the model.
        await expect(
          anthropicClient().messages.create({ model: breakerModel, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
        ).rejects.toMatchObject({ status: 529 });
        const before = claude.requests.length;
        const counted = await countAnthropic({ model: breakerModel, messages: [{ role: 'user', content: QUESTION }] });
        expect(counted.by).toBe('local');
        expect(claude.requests.length).toBe(before);
      } finally {
        claude.setScript(() => ({ text: 'Hello from Claude.', usage: { input: 12, output: 6 } }));
        await setOption(env.context, 'ChannelBreakerFailureThreshold', 5);
      }
    });
  });

  describe('the Google client on :countTokens', () => {
    it('asks a Gemini channel with the request as sent, plain contents or a whole generateContentRequest', async () => {
      const before = gemini.requests.length;
      const counted = await googleClient().models.countTokens({ model: geminiModel, contents: QUESTION });
      expect(counted.totalTokens).toBe(mockGeminiTokenCount({ contents: [{ parts: [{ text: QUESTION }], role: 'user' }] }));
      const wrapped = await countGemini(geminiModel, {
        generateContentRequest: {
          model: `models/${geminiModel}`,
          contents: [{ role: 'user', parts: [{ text: QUESTION }] }],
          systemInstruction: { parts: [{ text: SYSTEM }] },
          generationConfig: { temperature: 0.2 },
        },
      });
      const sent = gemini.requests.slice(before);
      expect(sent.map((request) => request.path)).toEqual(Array(2).fill('/v1beta/models/gemini-2.5-flash:countTokens'));
      // The upstream model named inside, the prompt's fields kept.
      expect(sent[1]!.body).toEqual({
        generateContentRequest: {
          model: 'models/gemini-2.5-flash',
          contents: [{ role: 'user', parts: [{ text: QUESTION }] }],
          systemInstruction: { parts: [{ text: SYSTEM }] },
        },
      });
      expect(wrapped).toEqual({ status: 200, by: 'upstream', body: { totalTokens: mockGeminiTokenCount(sent[1]!.body as Record<string, unknown>) } });
      await expectNothingBilled();
    });

    it('converts the prompt for a Claude channel’s count_tokens', async () => {
      const before = claude.requests.length;
      const counted = await countGemini(claudeModel, { contents: [{ role: 'user', parts: [{ text: QUESTION }] }] });
      const sent = claude.requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.path).toBe('/v1/messages/count_tokens');
      expect(sent[0]!.body).toEqual({ model: 'claude-sonnet-4-20250514', messages: [{ role: 'user', content: QUESTION }] });
      expect(counted).toEqual({ status: 200, by: 'upstream', body: { totalTokens: mockAnthropicTokenCount(sent[0]!.body as Record<string, unknown>) } });
    });

    it('asks Vertex’s countTokens for Gemini on Vertex', async () => {
      const before = vertex.requests.length;
      const counted = await countGemini(vertexGeminiModel, { contents: [{ role: 'user', parts: [{ text: QUESTION }] }] });
      const sent = countRequests(vertex.requests.slice(before), /:countTokens$/);
      expect(sent.map((request) => request.path)).toEqual([
        '/v1/projects/count-project/locations/us-east5/publishers/google/models/gemini-2.5-pro:countTokens',
      ]);
      expect(sent[0]!.body).toEqual({ contents: [{ role: 'user', parts: [{ text: QUESTION }] }] });
      expect(counted).toEqual({ status: 200, by: 'upstream', body: { totalTokens: mockGeminiTokenCount(sent[0]!.body as Record<string, unknown>) } });
    });

    it('counts locally for an OpenAI channel and when the upstream fails', async () => {
      const local = await countGemini(openaiModel, { contents: [{ role: 'user', parts: [{ text: QUESTION }] }] });
      expect(local.by).toBe('local');
      gemini.setCountScript(() => ({ status: 500, message: 'Internal error encountered.' }));
      const before = gemini.requests.length;
      const fallback = await countGemini(geminiModel, { contents: [{ role: 'user', parts: [{ text: QUESTION }] }] });
      expect(gemini.requests.length).toBe(before + 1);
      expect(fallback).toEqual({ status: 200, by: 'local', body: local.body });
      await expectNothingBilled();
    });

    it('answers a bad key and a malformed request in Google’s error shape', async () => {
      const refused = await fetch(`${env.gateway}/v1beta/models/${geminiModel}:countTokens?key=sk-not-a-key`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: QUESTION }] }] }),
      });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
      const malformed = await countGemini(geminiModel, { contents: 'not a list' });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    });
  });
});
