import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../config/default-prices.js';
import { startMockBedrock, type MockBedrock } from '../providers/aws-bedrock/testing/mock-bedrock.js';
import { startMockCohere, type MockCohere } from '../providers/cohere/testing/mock-cohere.js';
import type { MockRequestRecord, MockTurn } from '../providers/testing/mock-turn.js';
import { startMockVertex, type MockVertex } from '../providers/vertex/testing/mock-vertex.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * The cloud providers through the whole app: the official OpenAI, Anthropic and Google clients
 * call the gateway; AWS Claude (33), Vertex AI (41, a Gemini and a Claude model) and Cohere (34)
 * channels point at mock upstreams that check what the real services check (SigV4, the service
 * account's JWT and its access token, Cohere's bearer key) over real HTTP. Every call is billed
 * from the upstream's own usage (cache reads and writes where the provider reports them) by
 * new-api's formula, and users, tokens, channels and logs move by the same amount.
 */

const MODEL_RATIO = 2;
const COMPLETION_RATIO = 4;
const CACHE_RATIO = 0.1;
const CREATE_CACHE_RATIO = 1.25;

const AWS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1' };
const COHERE_KEY = 'co-mock-key-0123456789';
const VERTEX_REGION = 'us-east5';

// Client-facing names (unique per run, priced below) mapped to the ids the clouds know.
const bedrockModel = unique('aws-claude');
const vertexGeminiModel = unique('vertex-gemini');
const vertexClaudeModel = unique('vertex-claude');
const cohereModel = unique('cohere-command');
const rerankModel = unique('cohere-rerank');
const CLAUDE_UPSTREAM = 'claude-sonnet-4-5-20250929';

/** new-api's formula for one call at group ratio 1. */
const expectedQuota = (usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number }) =>
  Math.round(
    MODEL_RATIO * (usage.input + (usage.cacheRead ?? 0) * CACHE_RATIO + (usage.cacheWrite ?? 0) * CREATE_CACHE_RATIO + usage.output * COMPLETION_RATIO),
  );

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

type Target = 'bedrock' | 'vertex-gemini' | 'vertex-claude' | 'cohere';

describe('cloud providers through the relay', () => {
  let env: RelayTestEnv;
  let bedrock: MockBedrock;
  let vertex: MockVertex;
  let cohere: MockCohere;
  let apiKey: string;
  let ids: { userId: number; tokenId: number; channelIds: number[] };
  let charged = 0;

  beforeAll(async () => {
    env = await startRelayTestEnv();
    bedrock = await startMockBedrock(AWS);
    vertex = await startMockVertex({ projectId: 'relay-project' });
    cohere = await startMockCohere({ key: COHERE_KEY });
    const group = unique('cloud');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: 1 }));
    const models = [bedrockModel, vertexGeminiModel, vertexClaudeModel, cohereModel, rerankModel];
    await setOption(env.context, 'ModelRatio', JSON.stringify({ ...DEFAULT_MODEL_RATIO, ...Object.fromEntries(models.map((model) => [model, MODEL_RATIO])) }));
    await setOption(
      env.context,
      'CompletionRatio',
      JSON.stringify({ ...DEFAULT_COMPLETION_RATIO, ...Object.fromEntries(models.map((model) => [model, COMPLETION_RATIO])) }),
    );
    await setOption(env.context, 'CacheRatio', JSON.stringify(Object.fromEntries(models.map((model) => [model, CACHE_RATIO]))));
    await setOption(env.context, 'CreateCacheRatio', JSON.stringify({ [bedrockModel]: CREATE_CACHE_RATIO, [vertexClaudeModel]: CREATE_CACHE_RATIO }));
    const user = await seedUser(env.context, { quota: 10_000_000, group });
    const token = await seedToken(env.context, user.id, { remainQuota: 5_000_000, unlimited: false });
    apiKey = token.apiKey;
    const bedrockChannel = await seedChannel(env.context, {
      type: 33,
      key: `${AWS.accessKeyId}|${AWS.secretAccessKey}|${AWS.region}`,
      baseUrl: bedrock.url,
      models: [bedrockModel],
      modelMapping: { [bedrockModel]: CLAUDE_UPSTREAM },
      groups: [group],
    });
    const vertexChannel = await seedChannel(env.context, {
      type: 41,
      key: vertex.serviceAccountKey,
      baseUrl: vertex.url,
      other: VERTEX_REGION,
      models: [vertexGeminiModel, vertexClaudeModel],
      modelMapping: { [vertexGeminiModel]: 'gemini-2.5-flash', [vertexClaudeModel]: CLAUDE_UPSTREAM },
      groups: [group],
    });
    const cohereChannel = await seedChannel(env.context, {
      type: 34,
      key: COHERE_KEY,
      baseUrl: cohere.url,
      models: [cohereModel, rerankModel],
      modelMapping: { [cohereModel]: 'command-a-03-2025', [rerankModel]: 'rerank-v3.5' },
      groups: [group],
    });
    ids = { userId: user.id, tokenId: token.id, channelIds: [bedrockChannel, vertexChannel, cohereChannel] };
  });
  // Each test is checked against what the logs held when it began, so one failure does not fail the tests after it.
  beforeEach(async () => {
    await env.runtime.drain();
    charged = (await totals(env.context, ids)).logQuotaSum;
  });
  afterEach(() => {
    for (const mock of [bedrock, vertex, cohere]) mock.setScript(() => ({ text: 'Hello.', usage: { input: 12, output: 6 } }));
  });
  afterAll(async () => {
    await bedrock?.close();
    await vertex?.close();
    await cohere?.close();
    await env?.close();
  });

  /** The books agree: every balance moved by the sum of the logs, which grew by `added`. */
  async function expectBilled(added: number) {
    charged += added;
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logQuotaSum).toBe(charged);
    expect([10_000_000 - after.userQuota, after.userUsed, 5_000_000 - after.tokenRemain, after.tokenUsed]).toEqual(Array(4).fill(charged));
    const channelSum = ids.channelIds.reduce((sum, id) => sum + (after.channelUsed.get(id) ?? 0), 0);
    expect(channelSum).toBe(charged);
    return after.logs.at(-1)!;
  }

  const openaiClient = () => new OpenAI({ apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });
  const anthropicClient = () => new Anthropic({ apiKey, baseURL: env.gateway, maxRetries: 0 });
  const googleClient = () => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: env.gateway } });

  const TARGETS: Record<Target, { model: () => string; mock: () => MockBedrock | MockVertex | MockCohere; writesCache: boolean }> = {
    bedrock: { model: () => bedrockModel, mock: () => bedrock, writesCache: true },
    'vertex-gemini': { model: () => vertexGeminiModel, mock: () => vertex, writesCache: false },
    'vertex-claude': { model: () => vertexClaudeModel, mock: () => vertex, writesCache: true },
    cohere: { model: () => cohereModel, mock: () => cohere, writesCache: false },
  };
  const lastRequest = (target: Target): MockRequestRecord => TARGETS[target].mock().requests.at(-1)!;
  const script = (target: Target, turn: MockTurn | ((body: unknown) => MockTurn)) =>
    TARGETS[target].mock().setScript(typeof turn === 'function' ? turn : () => turn);

  /** Where each upstream was called, and with what credentials. */
  function expectUpstreamCall(target: Target, stream: boolean) {
    const sent = lastRequest(target);
    const location = `/v1/projects/relay-project/locations/${VERTEX_REGION}/publishers`;
    switch (target) {
      case 'bedrock':
        // us-east-1 calls Claude Sonnet 4.5 through its us. cross-region profile; the mock re-verified the SigV4 signature.
        expect(decodeURIComponent(sent.path)).toBe(`/model/us.anthropic.${CLAUDE_UPSTREAM}-v1:0/${stream ? 'invoke-with-response-stream' : 'invoke'}`);
        expect(sent.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS.accessKeyId}/\\d{8}/${AWS.region}/bedrock/aws4_request`));
        expect(sent.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31' });
        expect(sent.body).not.toHaveProperty('model');
        return;
      case 'vertex-claude':
        expect(sent.path).toBe(`${location}/anthropic/models/claude-sonnet-4-5@20250929:${stream ? 'streamRawPredict?alt=sse' : 'rawPredict'}`);
        expect(sent.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16' });
        expect(sent.body).not.toHaveProperty('model');
        expect(vertex.tokenRequests.at(-1)!.issued).toBe((sent.headers.authorization as string).replace(/^Bearer /, ''));
        return;
      case 'vertex-gemini':
        expect(sent.path).toBe(`${location}/google/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`);
        expect(sent.headers.authorization).toMatch(/^Bearer ya29\.mock-/);
        return;
      case 'cohere':
        expect(sent.path).toBe('/v2/chat');
        expect(sent.headers.authorization).toBe(`Bearer ${COHERE_KEY}`);
        expect(sent.body).toMatchObject({ model: 'command-a-03-2025', stream });
        return;
      default: {
        const unexpected: never = target;
        throw new Error(`unknown target ${String(unexpected)}`);
      }
    }
  }

  /** The tool result as each upstream's own format carries it back. */
  function expectToolResult(target: Target, body: unknown) {
    const record = body as { messages?: { role: string; content: unknown }[]; contents?: { role: string; parts: Record<string, unknown>[] }[] };
    switch (target) {
      case 'bedrock':
      case 'vertex-claude': {
        const last = record.messages!.at(-1)!;
        expect(last.role).toBe('user');
        expect(JSON.stringify(last.content)).toContain('18 °C');
        expect(last.content).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'call_weather_1' })]);
        return;
      }
      case 'vertex-gemini': {
        const parts = record.contents!.flatMap((content) => content.parts);
        const response = parts.find((part) => part.functionResponse)?.functionResponse as Record<string, unknown> | undefined;
        expect(response).toMatchObject({ name: 'get_weather' });
        expect(JSON.stringify(response!.response)).toContain('18 °C');
        expect(response).not.toHaveProperty('id');
        return;
      }
      case 'cohere':
        expect(record.messages!.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_weather_1' });
        expect(JSON.stringify(record.messages!.at(-1)!.content)).toContain('18 °C');
        return;
      default: {
        const unexpected: never = target;
        throw new Error(`unknown target ${String(unexpected)}`);
      }
    }
  }

  describe('the OpenAI client', () => {
    for (const target of Object.keys(TARGETS) as Target[]) {
      const { model, writesCache } = TARGETS[target];

      it(`chats with ${target}, plain and streamed with include_usage, billed from its usage`, async () => {
        const usage = { input: 30, output: 12, cacheRead: 400, ...(writesCache ? { cacheWrite: 200 } : {}) };
        const prompt = usage.input + usage.cacheRead + (usage.cacheWrite ?? 0);
        script(target, { text: 'Hi there, friend.', usage });
        const client = openaiClient();
        const messages: OpenAI.ChatCompletionMessageParam[] = [
          { role: 'system', content: 'Be kind.' },
          { role: 'user', content: 'Greet me' },
        ];
        const completion = await client.chat.completions.create({ model: model(), messages, max_tokens: 64 });
        expect(completion.choices[0]!.message.content).toBe('Hi there, friend.');
        expect(completion.choices[0]!.finish_reason).toBe('stop');
        expect(completion.usage).toMatchObject({
          prompt_tokens: prompt,
          completion_tokens: 12,
          total_tokens: prompt + 12,
          prompt_tokens_details: { cached_tokens: 400 },
        });
        expectUpstreamCall(target, false);
        let log = await expectBilled(expectedQuota(usage));
        expect([Number(log.prompt_tokens), Number(log.completion_tokens), log.model_name]).toEqual([prompt, 12, model()]);
        expect(JSON.parse(log.other)).toMatchObject({
          cache_tokens: 400,
          cache_ratio: CACHE_RATIO,
          ...(writesCache ? { cache_creation_tokens: 200, cache_creation_ratio: CREATE_CACHE_RATIO } : {}),
        });

        const stream = await client.chat.completions.create({
          model: model(),
          messages,
          max_tokens: 64,
          stream: true,
          stream_options: { include_usage: true },
        });
        let text = '';
        let reported: OpenAI.CompletionUsage | null | undefined;
        let finish: string | null | undefined;
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? '';
          finish = chunk.choices[0]?.finish_reason ?? finish;
          if (chunk.usage) reported = chunk.usage;
        }
        expect(text).toBe('Hi there, friend.');
        expect(finish).toBe('stop');
        expect(reported).toMatchObject({ prompt_tokens: prompt, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 400 } });
        expectUpstreamCall(target, true);
        log = await expectBilled(expectedQuota(usage));
        expect([Number(log.prompt_tokens), Number(log.completion_tokens)]).toEqual([prompt, 12]);
      });

      it(`runs a tool round trip on ${target}`, async () => {
        script(target, (body) => {
          if (JSON.stringify(body).includes('18 °C')) return { text: 'Lyon: 18 °C.', usage: { input: 70, output: 5 } };
          return { toolCalls: [{ id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Lyon' } }], usage: { input: 55, output: 11 } };
        });
        const client = openaiClient();
        const tools = [{ type: 'function' as const, function: WEATHER_TOOL }];
        const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Lyon?' }];
        const first = await client.chat.completions.create({ model: model(), messages, tools, tool_choice: 'auto' });
        expect(first.choices[0]!.finish_reason).toBe('tool_calls');
        const call = first.choices[0]!.message.tool_calls![0]!;
        expect(call.type === 'function' && call.function.name).toBe('get_weather');
        expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Lyon' });
        // The tool declaration reached the upstream in its own shape.
        const declared = JSON.stringify(lastRequest(target).body);
        expect(declared).toContain(target === 'vertex-gemini' ? '"functionDeclarations"' : target === 'cohere' ? '"type":"function"' : '"input_schema"');
        messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '18 °C' });
        const second = await client.chat.completions.create({ model: model(), messages, tools });
        expect(second.choices[0]!.message.content).toBe('Lyon: 18 °C.');
        expectToolResult(target, lastRequest(target).body);
        // The call streamed: the client assembles it from the pieces the relay re-encoded.
        const streamed = await client.chat.completions
          .stream({ model: model(), messages: messages.slice(0, 1), tools, stream_options: { include_usage: true } })
          .finalChatCompletion();
        expect(streamed.choices[0]!.message.tool_calls).toMatchObject([
          { id: 'call_weather_1', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } },
        ]);
        expect(streamed.usage).toMatchObject({ prompt_tokens: 55, completion_tokens: 11 });
        await expectBilled(2 * expectedQuota({ input: 55, output: 11 }) + expectedQuota({ input: 70, output: 5 }));
      });
    }
  });

  describe('the OpenAI client on the Responses API (Codex)', () => {
    for (const target of Object.keys(TARGETS) as Target[]) {
      const { model } = TARGETS[target];

      it(`answers /v1/responses on ${target}, whole and streamed, through a tool call and its output`, async () => {
        script(target, (body) => {
          if (JSON.stringify(body).includes('18 °C')) return { text: 'Lyon: 18 °C.', usage: { input: 70, output: 5 } };
          return { toolCalls: [{ id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Lyon' } }], usage: { input: 55, output: 11 } };
        });
        const client = openaiClient();
        const tools = [{ type: 'function' as const, strict: false, ...WEATHER_TOOL }];
        const first = await client.responses.create({ model: model(), instructions: 'Use tools.', input: 'Weather in Lyon?', tools, store: false });
        expect(first.output).toMatchObject([{ type: 'function_call', call_id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Lyon"}' }]);
        expectUpstreamCall(target, false);

        const events: OpenAI.Responses.ResponseStreamEvent[] = [];
        const stream = await client.responses.create({
          model: model(),
          instructions: 'Use tools.',
          input: [
            { role: 'user', content: 'Weather in Lyon?' },
            { type: 'function_call', call_id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Lyon"}' },
            { type: 'function_call_output', call_id: 'call_weather_1', output: '18 °C' },
          ],
          tools,
          store: false,
          stream: true,
        });
        for await (const event of stream) events.push(event);
        expectUpstreamCall(target, true);
        expectToolResult(target, lastRequest(target).body);
        const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
        expect(completed.type).toBe('response.completed');
        expect(completed.response.output_text).toBe('Lyon: 18 °C.');
        expect(completed.response.usage).toMatchObject({ input_tokens: 70, output_tokens: 5 });
        await expectBilled(expectedQuota({ input: 55, output: 11 }) + expectedQuota({ input: 70, output: 5 }));
      });
    }
  });

  describe('the Anthropic client on /v1/messages', () => {
    for (const target of ['bedrock', 'vertex-claude'] as const) {
      const { model } = TARGETS[target];

      it(`sends Claude on ${target} the client's request, plain and streamed, billing cache reads and writes`, async () => {
        const usage = { input: 120, output: 30, cacheRead: 2000, cacheWrite: 800 };
        script(target, { text: 'Paris is the capital of France.', usage });
        const client = anthropicClient();
        const request = {
          model: model(),
          max_tokens: 256,
          system: [{ type: 'text' as const, text: 'You are terse.', cache_control: { type: 'ephemeral' as const } }],
          messages: [{ role: 'user' as const, content: 'Capital of France?' }],
        };
        const message = await client.messages.create(request);
        expect(message.content).toEqual([{ type: 'text', text: 'Paris is the capital of France.' }]);
        expect(message.stop_reason).toBe('end_turn');
        expect(message.usage).toMatchObject({ input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 2000, cache_creation_input_tokens: 800 });
        expectUpstreamCall(target, false);
        // The client's fields reach Claude as sent (cache_control included).
        expect(lastRequest(target).body).toMatchObject({
          max_tokens: 256,
          system: [{ text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
          messages: request.messages,
        });
        let log = await expectBilled(expectedQuota(usage));
        expect([Number(log.prompt_tokens), Number(log.completion_tokens)]).toEqual([120 + 2000 + 800, 30]);
        expect(JSON.parse(log.other)).toMatchObject({ cache_tokens: 2000, cache_creation_tokens: 800, cache_creation_ratio: CREATE_CACHE_RATIO });

        script(target, { thinking: 'Counting up.', text: 'One, two, three.', usage });
        // Whatever the upstream's framing (Bedrock's is AWS's binary event stream), an Anthropic client gets Anthropic's SSE.
        const raw = await fetch(`${env.gateway}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify({ ...request, stream: true, messages: [{ role: 'user', content: 'Count to three' }] }),
        });
        const events = (await raw.text()).split('\n\n').filter((event) => event.trim() !== '');
        expect(raw.headers.get('content-type')).toMatch(/^text\/event-stream/);
        expect(events[0], `the first event an Anthropic client got from ${target} (bytes: ${JSON.stringify(events[0]?.slice(0, 40))})`).toMatch(
          /^event: message_start\ndata: \{/,
        );
        expect(events.at(-1)).toMatch(/^event: message_stop\ndata: /);
        await expectBilled(expectedQuota(usage));
        const stream = client.messages.stream({ ...request, messages: [{ role: 'user', content: 'Count to three' }] });
        const texts: string[] = [];
        stream.on('text', (text) => texts.push(text));
        const final = await stream.finalMessage();
        expect(texts.join('')).toBe('One, two, three.');
        expect(final.content.map((block) => block.type)).toEqual(['thinking', 'text']);
        expect(final.usage).toMatchObject({ output_tokens: 30, cache_read_input_tokens: 2000 });
        expectUpstreamCall(target, true);
        log = await expectBilled(expectedQuota(usage));
        expect(Number(log.prompt_tokens)).toBe(120 + 2000 + 800);
      });
    }
  });

  describe('the Google client on /v1beta', () => {
    it('generates with Gemini on Vertex, plain and streamed, billing cache reads', async () => {
      const usage = { input: 25, output: 8, cacheRead: 400 };
      script('vertex-gemini', { text: 'Blue, mostly.', usage });
      const client = googleClient();
      const request = { model: vertexGeminiModel, contents: 'What colour is the sky?', config: { systemInstruction: 'Answer briefly.', temperature: 0.2 } };
      const answer = await client.models.generateContent(request);
      expect(answer.text).toBe('Blue, mostly.');
      expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 425, cachedContentTokenCount: 400, candidatesTokenCount: 8 });
      expectUpstreamCall('vertex-gemini', false);
      expect(lastRequest('vertex-gemini').body).toMatchObject({
        contents: [{ role: 'user', parts: [{ text: 'What colour is the sky?' }] }],
        systemInstruction: { parts: [{ text: 'Answer briefly.' }] },
        generationConfig: { temperature: 0.2 },
      });
      let log = await expectBilled(expectedQuota(usage));
      expect([Number(log.prompt_tokens), Number(log.completion_tokens)]).toEqual([425, 8]);

      let text = '';
      let reported: { promptTokenCount?: number; candidatesTokenCount?: number } | undefined;
      for await (const chunk of await client.models.generateContentStream(request)) {
        text += chunk.text ?? '';
        reported = chunk.usageMetadata ?? reported;
      }
      expect(text).toBe('Blue, mostly.');
      expect(reported).toMatchObject({ promptTokenCount: 425, candidatesTokenCount: 8 });
      expectUpstreamCall('vertex-gemini', true);
      // One access token, bought with the service account's signed JWT, served every Vertex call of this file.
      expect(vertex.tokenRequests.map((request) => request.claims)).toEqual([expect.objectContaining({ iss: vertex.clientEmail, aud: vertex.tokenUri })]);
      log = await expectBilled(expectedQuota(usage));
      expect([Number(log.prompt_tokens), Number(log.completion_tokens)]).toEqual([425, 8]);
    });
  });

  describe('Cohere rerank on /v1/rerank', () => {
    it('passes the request to /v2/rerank with the channel’s model and bills the counted query and documents', async () => {
      const documents = [
        'Carson City is the capital city of the American state of Nevada.',
        'Washington, D.C. is the capital of the United States.',
        'Capital punishment has existed in the United States.',
      ];
      const query = 'What is the capital of the United States?';
      const response = await fetch(`${env.gateway}/v1/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: rerankModel, query, documents, top_n: 2, return_documents: true }),
      });
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { results: { index: number; relevance_score: number; document?: { text: string } }[] };
      expect(answer.results).toHaveLength(2);
      expect(answer.results[0]).toMatchObject({ index: 1, document: { text: documents[1] } });
      const sent = lastRequest('cohere');
      expect(sent.path).toBe('/v2/rerank');
      expect(sent.headers.authorization).toBe(`Bearer ${COHERE_KEY}`);
      expect(sent.body).toEqual({ model: 'rerank-v3.5', query, documents, top_n: 2, return_documents: true });
      // Cohere reports search units, not tokens: as new-api does, the relay bills its own count of the query and documents.
      const counted = countTokens(query) + documents.reduce((sum, document) => sum + countTokens(document), 0);
      const log = await expectBilled(Math.round(MODEL_RATIO * counted));
      expect([Number(log.prompt_tokens), Number(log.completion_tokens), log.model_name]).toEqual([counted, 0, rerankModel]);
    });
  });
});
