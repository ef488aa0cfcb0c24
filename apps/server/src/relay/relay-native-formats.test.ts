import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../config/default-prices.js';
import { startMockAnthropic, type MockAnthropic } from '../providers/anthropic/testing/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../providers/gemini/testing/mock-gemini.js';
import type { MockTurn } from '../providers/testing/mock-turn.js';
import { chatCompletionBody, chatStream, sendJson } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * Claude and Gemini, natively and both ways, through the whole app: the official Anthropic,
 * Google and OpenAI clients call the gateway; Claude (14), Gemini (24) and OpenAI (1) channels
 * point at mock upstreams that speak each protocol over real HTTP. Every call is billed from the
 * upstream's own usage (cache reads and writes included) by new-api's formula, and users, tokens,
 * channels and logs move by the same amount.
 */

const MODEL_RATIO = 2;
const COMPLETION_RATIO = 4;
const CACHE_RATIO = 0.1;
const CREATE_CACHE_RATIO = 1.25;

const CLAUDE_KEY = 'sk-ant-mock-key-0123456789';
const GEMINI_KEY = 'AIza-mock-key-0123456789';

const claudeModel = unique('claude-sonnet');
const geminiModel = unique('gemini-flash');
const openaiModel = unique('gpt-native');

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

describe('native protocols through the relay', () => {
  let env: RelayTestEnv;
  let claude: MockAnthropic;
  let gemini: MockGemini;
  let apiKey: string;
  let ids: { userId: number; tokenId: number; channelIds: number[] };
  let charged = 0;

  beforeAll(async () => {
    env = await startRelayTestEnv();
    claude = await startMockAnthropic({ key: CLAUDE_KEY });
    gemini = await startMockGemini({ key: GEMINI_KEY });
    const group = unique('native');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: 1 }));
    const models = [claudeModel, geminiModel, openaiModel];
    await setOption(env.context, 'ModelRatio', JSON.stringify({ ...DEFAULT_MODEL_RATIO, ...Object.fromEntries(models.map((model) => [model, MODEL_RATIO])) }));
    await setOption(
      env.context,
      'CompletionRatio',
      JSON.stringify({ ...DEFAULT_COMPLETION_RATIO, ...Object.fromEntries(models.map((model) => [model, COMPLETION_RATIO])) }),
    );
    await setOption(env.context, 'CacheRatio', JSON.stringify({ [claudeModel]: CACHE_RATIO, [geminiModel]: CACHE_RATIO }));
    await setOption(env.context, 'CreateCacheRatio', JSON.stringify({ [claudeModel]: CREATE_CACHE_RATIO }));
    const user = await seedUser(env.context, { quota: 10_000_000, group });
    const token = await seedToken(env.context, user.id, { remainQuota: 5_000_000, unlimited: false });
    apiKey = token.apiKey;
    const claudeChannel = await seedChannel(env.context, { type: 14, key: CLAUDE_KEY, baseUrl: claude.url, models: [claudeModel], groups: [group] });
    const geminiChannel = await seedChannel(env.context, { type: 24, key: GEMINI_KEY, baseUrl: gemini.url, models: [geminiModel], groups: [group] });
    const openaiChannel = await seedChannel(env.context, {
      type: 1,
      key: unique('openai-key'),
      baseUrl: env.upstream.url,
      models: [openaiModel],
      groups: [group],
    });
    ids = { userId: user.id, tokenId: token.id, channelIds: [claudeChannel, geminiChannel, openaiChannel] };
  });
  afterEach(() => {
    env.upstream.respond();
    claude.setScript(() => ({ text: 'Hello from Claude.', usage: { input: 12, output: 6 } }));
    gemini.setScript(() => ({ text: 'Hello from Gemini.', usage: { input: 12, output: 6 } }));
  });
  afterAll(async () => {
    await claude?.close();
    await gemini?.close();
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

  const anthropicClient = () => new Anthropic({ apiKey, baseURL: env.gateway, maxRetries: 0 });
  const openaiClient = () => new OpenAI({ apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });
  const googleClient = () => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: env.gateway } });

  describe('the Anthropic client on /v1/messages', () => {
    it('passes a Claude channel the request as sent and bills cache reads and writes', async () => {
      const usage = { input: 120, output: 30, cacheRead: 2000, cacheWrite: 800 };
      claude.setScript(() => ({ text: 'Paris is the capital of France.', usage }));
      const message = await anthropicClient().messages.create({
        model: claudeModel,
        max_tokens: 256,
        system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Capital of France?' }],
      });
      expect(message.content).toEqual([{ type: 'text', text: 'Paris is the capital of France.' }]);
      expect(message.usage).toMatchObject({ input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 2000, cache_creation_input_tokens: 800 });
      const sent = claude.requests.at(-1)!;
      // Nothing needed changing: the upstream got the client's own bytes.
      expect(sent.body).toMatchObject({ model: claudeModel, max_tokens: 256, system: [{ cache_control: { type: 'ephemeral' } }] });
      expect(sent.headers['x-api-key']).toBe(CLAUDE_KEY);
      const log = await expectBilled(expectedQuota(usage));
      expect(Number(log.prompt_tokens)).toBe(120 + 2000 + 800);
      expect(Number(log.completion_tokens)).toBe(30);
      expect(JSON.parse(log.other)).toMatchObject({
        cache_tokens: 2000,
        cache_ratio: CACHE_RATIO,
        cache_creation_tokens: 800,
        cache_creation_ratio: CREATE_CACHE_RATIO,
      });
    });

    it('streams a Claude channel’s events through and bills the stream’s usage', async () => {
      const usage = { input: 40, output: 25, cacheRead: 300 };
      claude.setScript(() => ({ thinking: 'Counting up.', text: 'One, two, three.', usage }));
      const stream = anthropicClient().messages.stream({ model: claudeModel, max_tokens: 512, messages: [{ role: 'user', content: 'Count to three' }] });
      const texts: string[] = [];
      stream.on('text', (text) => texts.push(text));
      const final = await stream.finalMessage();
      expect(texts.join('')).toBe('One, two, three.');
      expect(final.content.map((block) => block.type)).toEqual(['thinking', 'text']);
      expect(final.usage.output_tokens).toBe(25);
      await expectBilled(expectedQuota(usage));
    });

    it('runs a tool round trip on a Claude channel', async () => {
      claude.setScript((body) => {
        const messages = (body as { messages: { content: unknown }[] }).messages;
        const last = JSON.stringify(messages.at(-1)?.content ?? '');
        if (last.includes('tool_result')) return { text: 'It is 18 °C in Lyon.', usage: { input: 60, output: 9 } };
        return { toolCalls: [{ id: 'toolu_01', name: 'get_weather', arguments: { city: 'Lyon' } }], usage: { input: 50, output: 15 } };
      });
      const client = anthropicClient();
      const tools = [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.parameters as Anthropic.Tool.InputSchema }];
      const first = await client.messages.create({ model: claudeModel, max_tokens: 200, tools, messages: [{ role: 'user', content: 'Weather in Lyon?' }] });
      expect(first.stop_reason).toBe('tool_use');
      const call = first.content.find((block) => block.type === 'tool_use')!;
      expect(call).toMatchObject({ name: 'get_weather', input: { city: 'Lyon' } });
      const second = await client.messages.create({
        model: claudeModel,
        max_tokens: 200,
        tools,
        messages: [
          { role: 'user', content: 'Weather in Lyon?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.type === 'tool_use' ? call.id : '', content: '18 °C' }] },
        ],
      });
      expect(second.content).toEqual([{ type: 'text', text: 'It is 18 °C in Lyon.' }]);
      await expectBilled(expectedQuota({ input: 50, output: 15 }) + expectedQuota({ input: 60, output: 9 }));
    });

    it('converts to and from an OpenAI channel, plain and streamed', async () => {
      env.upstream.respond((request, response) => {
        const body = JSON.parse(request.body.toString()) as { stream?: boolean; messages: { role: string; content: unknown }[]; max_tokens?: number };
        expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
        expect(body.max_tokens).toBe(100);
        if (body.stream) {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.end(chatStream(['Bonjour', ' le', ' monde'], true, { prompt_tokens: 21, completion_tokens: 3, total_tokens: 24 }));
        } else sendJson(response, 200, JSON.parse(chatCompletionBody('Bonjour.', { prompt_tokens: 20, completion_tokens: 2, total_tokens: 22 })));
      });
      const client = anthropicClient();
      const message = await client.messages.create({
        model: openaiModel,
        max_tokens: 100,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Say hello in French' }],
      });
      expect(message).toMatchObject({
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'Bonjour.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 20, output_tokens: 2 },
      });
      await expectBilled(expectedQuota({ input: 20, output: 2 }));

      const stream = client.messages.stream({
        model: openaiModel,
        max_tokens: 100,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Say hello in French' }],
      });
      const final = await stream.finalMessage();
      expect(final.content).toEqual([{ type: 'text', text: 'Bonjour le monde' }]);
      expect(final.usage.output_tokens).toBe(3);
      await expectBilled(expectedQuota({ input: 21, output: 3 }));
    });

    it('runs a tool round trip on an OpenAI channel, streamed', async () => {
      env.upstream.respond((request, response) => {
        const body = JSON.parse(request.body.toString()) as {
          messages: { role: string; tool_call_id?: string; content: unknown }[];
          tools?: { function: { name: string } }[];
        };
        expect(body.tools?.[0]?.function.name).toBe('get_weather');
        const answered = body.messages.find((message) => message.role === 'tool');
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        if (answered) {
          expect(answered).toMatchObject({ tool_call_id: 'call_abc', content: '18 °C' });
          response.end(chatStream(['Lyon: ', '18 °C.'], true, { prompt_tokens: 40, completion_tokens: 6, total_tokens: 46 }));
          return;
        }
        const call = (delta: Record<string, unknown>, finish: string | null = null) =>
          `data: ${JSON.stringify({ id: 'chatcmpl-t', object: 'chat.completion.chunk', created: 1, model: openaiModel, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        response.end(
          call({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '' } }] }) +
            call({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }) +
            call({ tool_calls: [{ index: 0, function: { arguments: '"Lyon"}' } }] }) +
            call({}, 'tool_calls') +
            `data: ${JSON.stringify({ id: 'chatcmpl-t', object: 'chat.completion.chunk', created: 1, model: openaiModel, choices: [], usage: { prompt_tokens: 35, completion_tokens: 12, total_tokens: 47 } })}\n\n` +
            'data: [DONE]\n\n',
        );
      });
      const client = anthropicClient();
      const tools = [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.parameters as Anthropic.Tool.InputSchema }];
      const first = await client.messages
        .stream({ model: openaiModel, max_tokens: 100, tools, messages: [{ role: 'user', content: 'Weather in Lyon?' }] })
        .finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      const call = first.content.find((block) => block.type === 'tool_use');
      expect(call).toMatchObject({ type: 'tool_use', id: 'call_abc', name: 'get_weather', input: { city: 'Lyon' } });
      await expectBilled(expectedQuota({ input: 35, output: 12 }));
      const second = await client.messages
        .stream({
          model: openaiModel,
          max_tokens: 100,
          tools,
          messages: [
            { role: 'user', content: 'Weather in Lyon?' },
            { role: 'assistant', content: first.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_abc', content: '18 °C' }] },
          ],
        })
        .finalMessage();
      expect(second.content).toEqual([{ type: 'text', text: 'Lyon: 18 °C.' }]);
      await expectBilled(expectedQuota({ input: 40, output: 6 }));
    });

    it('answers failures in Anthropic’s error shape', async () => {
      const client = anthropicClient();
      await expect(client.messages.create({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
        status: 503,
        error: { type: 'error', error: { type: 'api_error' } },
      });
      claude.setScript(() => ({ status: 529, message: 'Overloaded', type: 'overloaded_error' }));
      await expect(client.messages.create({ model: claudeModel, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
        status: 529,
        error: { type: 'error', error: { message: 'Overloaded' } },
      });
      const bad = await fetch(`${env.gateway}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ model: claudeModel, messages: 'hi' }),
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      await expectBilled(0);
    });

    it('counts tokens without billing', async () => {
      const counted = await anthropicClient().messages.countTokens({
        model: claudeModel,
        messages: [{ role: 'user', content: 'How many tokens is this sentence?' }],
      });
      expect(counted.input_tokens).toBeGreaterThan(5);
      expect(counted.input_tokens).toBeLessThan(20);
      await expectBilled(0);
    });
  });

  describe('the OpenAI client on Claude and Gemini channels', () => {
    for (const target of ['claude', 'gemini'] as const) {
      const model = () => (target === 'claude' ? claudeModel : geminiModel);
      const script = (turn: MockTurn | ((body: unknown) => MockTurn)) => {
        const fn = typeof turn === 'function' ? turn : () => turn;
        if (target === 'claude') claude.setScript(fn);
        else gemini.setScript(fn);
      };
      const lastRequest = () => (target === 'claude' ? claude.requests.at(-1)! : gemini.requests.at(-1)!);

      it(`chats with a ${target} channel, plain and streamed`, async () => {
        const usage = { input: 30, output: 12 };
        script({ text: 'Hi there, friend.', usage });
        const client = openaiClient();
        const completion = await client.chat.completions.create({
          model: model(),
          messages: [
            { role: 'system', content: 'Be kind.' },
            { role: 'user', content: 'Greet me' },
          ],
          max_tokens: 64,
          temperature: 0.5,
          stop: ['END'],
        });
        expect(completion.choices[0]!.message.content).toBe('Hi there, friend.');
        expect(completion.choices[0]!.finish_reason).toBe('stop');
        expect(completion.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 12 });
        const sent = lastRequest().body as Record<string, unknown>;
        if (target === 'claude')
          expect(sent).toMatchObject({ model: claudeModel, system: 'Be kind.', max_tokens: 64, temperature: 0.5, stop_sequences: ['END'] });
        else
          expect(sent).toMatchObject({
            systemInstruction: { parts: [{ text: 'Be kind.' }] },
            generationConfig: { maxOutputTokens: 64, temperature: 0.5, stopSequences: ['END'] },
          });
        await expectBilled(expectedQuota(usage));

        const stream = await client.chat.completions.create({
          model: model(),
          messages: [{ role: 'user', content: 'Greet me' }],
          stream: true,
          stream_options: { include_usage: true },
        });
        let text = '';
        let reported: OpenAI.CompletionUsage | null | undefined;
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? '';
          if (chunk.usage) reported = chunk.usage;
        }
        expect(text).toBe('Hi there, friend.');
        expect(reported).toMatchObject({ prompt_tokens: 30, completion_tokens: 12 });
        await expectBilled(expectedQuota(usage));
      });

      it(`runs a tool round trip on a ${target} channel`, async () => {
        script((body) => {
          const text = JSON.stringify(body);
          if (text.includes('18 °C')) return { text: 'Lyon: 18 °C.', usage: { input: 70, output: 5 } };
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
        messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '18 °C' });
        const second = await client.chat.completions.create({ model: model(), messages, tools });
        expect(second.choices[0]!.message.content).toBe('Lyon: 18 °C.');
        const sent = JSON.stringify(lastRequest().body);
        // The tool result reached the upstream in its own shape.
        expect(sent).toContain(target === 'claude' ? '"tool_result"' : '"functionResponse"');
        await expectBilled(expectedQuota({ input: 55, output: 11 }) + expectedQuota({ input: 70, output: 5 }));
      });
    }
  });

  describe('the Google client on /v1beta', () => {
    it('generates on a Gemini channel, plain and streamed, with the key in the header', async () => {
      const usage = { input: 25, output: 8, cacheRead: 400 };
      gemini.setScript(() => ({ text: 'Blue, mostly.', usage }));
      const client = googleClient();
      const answer = await client.models.generateContent({ model: geminiModel, contents: 'What colour is the sky?' });
      expect(answer.text).toBe('Blue, mostly.');
      expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 425, cachedContentTokenCount: 400 });
      const sent = gemini.requests.at(-1)!;
      expect(sent.path).toBe(`/v1beta/models/${geminiModel}:generateContent`);
      expect(sent.headers['x-goog-api-key']).toBe(GEMINI_KEY);
      await expectBilled(expectedQuota(usage));

      let text = '';
      for await (const chunk of await client.models.generateContentStream({ model: geminiModel, contents: 'What colour is the sky?' }))
        text += chunk.text ?? '';
      expect(text).toBe('Blue, mostly.');
      expect(gemini.requests.at(-1)!.path).toBe(`/v1beta/models/${geminiModel}:streamGenerateContent`);
      await expectBilled(expectedQuota(usage));
    });

    it('converts to and from an OpenAI channel, plain and streamed', async () => {
      env.upstream.respond((request, response) => {
        const body = JSON.parse(request.body.toString()) as { stream?: boolean; model: string };
        expect(body.model).toBe(openaiModel);
        if (body.stream) {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.end(chatStream(['Ciel', ' bleu'], true, { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 }));
        } else sendJson(response, 200, JSON.parse(chatCompletionBody('Ciel bleu.', { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 })));
      });
      const client = googleClient();
      const answer = await client.models.generateContent({
        model: openaiModel,
        contents: 'Sky colour in French?',
        config: { systemInstruction: 'Answer in French.' },
      });
      expect(answer.text).toBe('Ciel bleu.');
      expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 9, candidatesTokenCount: 3 });
      await expectBilled(expectedQuota({ input: 9, output: 3 }));
      let text = '';
      for await (const chunk of await client.models.generateContentStream({ model: openaiModel, contents: 'Sky colour in French?' })) text += chunk.text ?? '';
      expect(text).toBe('Ciel bleu');
      await expectBilled(expectedQuota({ input: 9, output: 2 }));
    });

    it('streams one growing JSON array without alt=sse, as Google does', async () => {
      const usage = { input: 14, output: 5 };
      gemini.setScript(() => ({ text: 'Array of pieces.', usage, pieceLength: 4 }));
      const response = await fetch(`${env.gateway}/v1beta/models/${geminiModel}:streamGenerateContent`, {
        method: 'POST',
        headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'go' }] }] }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      const elements = (await response.json()) as {
        candidates?: { content: { parts: { text?: string }[] } }[];
        usageMetadata?: { promptTokenCount: number };
      }[];
      expect(elements.length).toBeGreaterThan(2);
      const text = elements
        .flatMap((element) => element.candidates ?? [])
        .flatMap((candidate) => candidate.content.parts.map((part) => part.text ?? ''))
        .join('');
      expect(text).toBe('Array of pieces.');
      expect(elements.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 14, candidatesTokenCount: 5 });
      await expectBilled(expectedQuota(usage));
    });

    it('lists the key’s models and answers failures in Google’s error shape', async () => {
      const client = googleClient();
      const listed: string[] = [];
      for await (const model of await client.models.list()) listed.push(model.name ?? '');
      expect(listed).toEqual(expect.arrayContaining([`models/${claudeModel}`, `models/${geminiModel}`, `models/${openaiModel}`]));
      const refused = await fetch(`${env.gateway}/v1beta/models/${geminiModel}:generateContent?key=sk-not-a-key`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"contents":[]}',
      });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
      const counted = await client.models.countTokens({ model: geminiModel, contents: 'How many tokens is this sentence?' });
      expect(counted.totalTokens).toBeGreaterThan(5);
      await expectBilled(0);
    });
  });

  describe('the answer check on converted and native answers', () => {
    const words = async (stop: boolean) => {
      await setOption(env.context, 'SensitiveWords', 'secretword');
      await setOption(env.context, 'CheckSensitiveEnabled', true);
      await setOption(env.context, 'CheckSensitiveOnPromptEnabled', false);
      await setOption(env.context, 'CheckSensitiveOnCompletionEnabled', true);
      await setOption(env.context, 'StopOnSensitiveEnabled', stop);
    };
    afterEach(async () => {
      await setOption(env.context, 'CheckSensitiveEnabled', false);
      await setOption(env.context, 'CheckSensitiveOnCompletionEnabled', false);
      await setOption(env.context, 'StopOnSensitiveEnabled', false);
    });

    it('masks words in a Claude answer to an Anthropic client, whole and streamed, and bills what was generated', async () => {
      await words(false);
      const usage = { input: 10, output: 8 };
      claude.setScript(() => ({ text: 'The code is secretword, keep it.', usage, pieceLength: 5 }));
      const client = anthropicClient();
      const message = await client.messages.create({ model: claudeModel, max_tokens: 50, messages: [{ role: 'user', content: 'code?' }] });
      expect(message.content).toEqual([{ type: 'text', text: 'The code is **###**, keep it.' }]);
      await expectBilled(expectedQuota(usage));
      const stream = client.messages.stream({ model: claudeModel, max_tokens: 50, messages: [{ role: 'user', content: 'code?' }] });
      const final = await stream.finalMessage();
      const text = final.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      expect(text).not.toContain('secretword');
      expect(text).toContain('**###**');
      const log = await expectBilled(expectedQuota(usage));
      expect(log.content).toContain('敏感词：secretword');
    });

    it('ends an OpenAI client’s stream from a Gemini channel at the word with StopOnSensitiveEnabled', async () => {
      await words(true);
      gemini.setScript(() => ({
        text: 'First part. Then secretword and much more text after it that never arrives.',
        usage: { input: 10, output: 30 },
        pieceLength: 6,
      }));
      const stream = await openaiClient().chat.completions.create({ model: geminiModel, messages: [{ role: 'user', content: 'go' }], stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toContain('First part.');
      expect(text).not.toContain('secretword');
      expect(text).not.toContain('never arrives');
      await env.runtime.drain();
      const after = await totals(env.context, ids);
      // Billed for the text generated up to the word (counted: the upstream's usage never came).
      expect(after.logQuotaSum - charged).toBeGreaterThan(0);
      charged = after.logQuotaSum;
      await expectBilled(0);
      await expect(openaiClient().chat.completions.create({ model: geminiModel, messages: [{ role: 'user', content: 'go' }] })).rejects.toMatchObject({
        status: 400,
        error: { code: 'sensitive_words_detected' },
      });
      await expectBilled(expectedQuota({ input: 10, output: 30 }));
    });
  });
});
