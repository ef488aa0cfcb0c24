import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../config/default-prices.js';
import { startMockAnthropic, type MockAnthropic } from '../providers/anthropic/testing/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../providers/gemini/testing/mock-gemini.js';
import { chatChunk, chatCompletionBody, sendJson, usageChunk } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * OpenAI's Responses API on every channel type, through the whole app with the official `openai`
 * client: a Claude (14), a Gemini (24) and a chat-only OpenAI-compatible (DeepSeek, 43) channel get
 * the call converted to their own format and the answer converted back, whole and streamed, with
 * tool calls; an OpenAI channel (1) gets it as sent. Every call is billed from the upstream's usage
 * and the books agree.
 */

const MODEL_RATIO = 2;
const COMPLETION_RATIO = 4;
const CACHE_RATIO = 0.1;
const CREATE_CACHE_RATIO = 1.25;
const CLAUDE_KEY = 'sk-ant-mock-key-responses';
const GEMINI_KEY = 'AIza-mock-key-responses';

const claudeModel = unique('claude-resp');
const geminiModel = unique('gemini-resp');
const chatOnlyModel = unique('deepseek-resp');
const openaiModel = unique('gpt-resp');
const switchedModel = unique('gpt-switched');
const policyModel = unique('gpt-codex-only');

const expectedQuota = (usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number }) =>
  Math.round(
    MODEL_RATIO * (usage.input + (usage.cacheRead ?? 0) * CACHE_RATIO + (usage.cacheWrite ?? 0) * CREATE_CACHE_RATIO + usage.output * COMPLETION_RATIO),
  );

const READ_FILE_TOOL = {
  type: 'function' as const,
  name: 'read_file',
  description: 'Reads a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  strict: true,
};

describe('the Responses API on every channel type', () => {
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
    const group = unique('responses');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: 1 }));
    const models = [claudeModel, geminiModel, chatOnlyModel, openaiModel, switchedModel, policyModel];
    await setOption(env.context, 'ModelRatio', JSON.stringify({ ...DEFAULT_MODEL_RATIO, ...Object.fromEntries(models.map((model) => [model, MODEL_RATIO])) }));
    await setOption(
      env.context,
      'CompletionRatio',
      JSON.stringify({ ...DEFAULT_COMPLETION_RATIO, ...Object.fromEntries(models.map((model) => [model, COMPLETION_RATIO])) }),
    );
    await setOption(env.context, 'CacheRatio', JSON.stringify({ [claudeModel]: CACHE_RATIO, [chatOnlyModel]: CACHE_RATIO }));
    await setOption(env.context, 'CreateCacheRatio', JSON.stringify({ [claudeModel]: CREATE_CACHE_RATIO }));
    const user = await seedUser(env.context, { quota: 10_000_000, group });
    const token = await seedToken(env.context, user.id, { remainQuota: 5_000_000, unlimited: false });
    apiKey = token.apiKey;
    const channelIds = [
      await seedChannel(env.context, { type: 14, key: CLAUDE_KEY, baseUrl: claude.url, models: [claudeModel], groups: [group] }),
      await seedChannel(env.context, { type: 24, key: GEMINI_KEY, baseUrl: gemini.url, models: [geminiModel], groups: [group] }),
      await seedChannel(env.context, { type: 43, key: unique('deepseek-key'), baseUrl: env.upstream.url, models: [chatOnlyModel], groups: [group] }),
      await seedChannel(env.context, { type: 1, key: unique('openai-key'), baseUrl: env.upstream.url, models: [openaiModel], groups: [group] }),
      // An OpenAI channel whose server has only chat completions, said in its setting.
      await seedChannel(env.context, {
        type: 1,
        key: unique('vllm-key'),
        baseUrl: env.upstream.url,
        models: [switchedModel],
        groups: [group],
        setting: JSON.stringify({ responses_api: 'chat' }),
      }),
    ];
    // A model its upstream serves only through the Responses API: new-api's ChatCompletions→Responses policy names the channel.
    const policyChannel = await seedChannel(env.context, {
      type: 1,
      key: unique('codex-key'),
      baseUrl: env.upstream.url,
      models: [policyModel],
      groups: [group],
    });
    channelIds.push(policyChannel);
    await setOption(
      env.context,
      'global.chat_completions_to_responses_policy',
      JSON.stringify({ enabled: true, all_channels: false, channel_ids: [policyChannel], channel_types: [], model_patterns: ['^gpt-codex-only'] }),
    );
    ids = { userId: user.id, tokenId: token.id, channelIds };
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

  const client = () => new OpenAI({ apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });

  async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    return events;
  }

  describe('on a Claude channel', () => {
    it('answers a whole call converted from and back to Anthropic messages, cache reads and writes billed', async () => {
      const usage = { input: 100, output: 20, cacheRead: 1000, cacheWrite: 400 };
      claude.setScript(() => ({ text: 'Paris.', usage }));
      const response = await client().responses.create({
        model: claudeModel,
        instructions: 'Be terse.',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'Capital of France?' }] }],
        max_output_tokens: 300,
        store: false,
      });
      expect(response.object).toBe('response');
      expect(response.status).toBe('completed');
      expect(response.output_text).toBe('Paris.');
      expect(response.usage).toMatchObject({ input_tokens: 1500, output_tokens: 20, input_tokens_details: { cached_tokens: 1000 } });
      const sent = claude.requests.at(-1)!;
      expect(sent.path).toBe('/v1/messages');
      expect(sent.body).toMatchObject({
        model: claudeModel,
        max_tokens: 300,
        system: 'Be terse.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] }],
      });
      const log = await expectBilled(expectedQuota(usage));
      expect(Number(log.channel_id)).toBe(ids.channelIds[0]);
      expect([Number(log.prompt_tokens), Number(log.completion_tokens)]).toEqual([1500, 20]);
    });

    it('streams every event a Responses client reads, ending with response.completed and its usage', async () => {
      const usage = { input: 30, output: 9 };
      claude.setScript(() => ({ text: 'Streaming from Claude.', thinking: 'Let me think.', usage }));
      const events = await collect(await client().responses.create({ model: claudeModel, input: 'Say something', stream: true }));
      const types = events.map((event) => event.type);
      expect(types[0]).toBe('response.created');
      expect(types).toContain('response.in_progress');
      expect(types).toContain('response.output_item.added');
      expect(types).toContain('response.reasoning_summary_text.delta');
      expect(types).toContain('response.output_text.delta');
      expect(types).toContain('response.output_text.done');
      expect(types).toContain('response.output_item.done');
      expect(types.at(-1)).toBe('response.completed');
      const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
      expect(text).toBe('Streaming from Claude.');
      const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
      expect(completed.response.usage).toMatchObject({ input_tokens: 30, output_tokens: 9 });
      expect(completed.response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
      const sequence = events.map((event) => event.sequence_number);
      expect(sequence).toEqual(sequence.map((_, index) => index));
      expect(claude.requests.at(-1)!.body).toMatchObject({ stream: true });
      await expectBilled(expectedQuota(usage));
    });

    it("carries a Codex tool loop: function_call and function_call_output items become Claude's tool_use and tool_result", async () => {
      const usage = { input: 50, output: 12 };
      claude.setScript(() => ({ toolCalls: [{ id: 'toolu_next', name: 'read_file', arguments: { path: 'b.txt' } }], usage }));
      const events = await collect(
        await client().responses.create({
          model: claudeModel,
          instructions: 'You are a coding agent.',
          tools: [READ_FILE_TOOL],
          parallel_tool_calls: false,
          input: [
            { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read a.txt then b.txt' }] },
            { type: 'function_call', call_id: 'toolu_first', name: 'read_file', arguments: '{"path":"a.txt"}' },
            { type: 'function_call_output', call_id: 'toolu_first', output: 'contents of a' },
          ],
          stream: true,
        }),
      );
      const sent = claude.requests.at(-1)!.body as { messages: unknown[]; tools: unknown[] };
      expect(sent.tools).toEqual([{ name: 'read_file', description: 'Reads a file', input_schema: READ_FILE_TOOL.parameters }]);
      expect(sent.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Read a.txt then b.txt' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_first', name: 'read_file', input: { path: 'a.txt' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_first', content: 'contents of a' }] },
      ]);
      const done = events.find((event) => event.type === 'response.output_item.done');
      expect(done).toMatchObject({ item: { type: 'function_call', call_id: 'toolu_next', name: 'read_file', arguments: '{"path":"b.txt"}' } });
      const argumentDeltas = events.flatMap((event) => (event.type === 'response.function_call_arguments.delta' ? [event.delta] : [])).join('');
      expect(JSON.parse(argumentDeltas)).toEqual({ path: 'b.txt' });
      await expectBilled(expectedQuota(usage));
    });

    it('continues a kept conversation with previous_response_id, whole and streamed, through a tool call', async () => {
      claude.setScript(() => ({ text: 'Paris.', usage: { input: 10, output: 2 } }));
      const first = await client().responses.create({ model: claudeModel, instructions: 'Be terse.', input: 'Capital of France?' });
      expect(first.id).toMatch(/^resp_[0-9a-f]{48}$/);
      claude.setScript(() => ({ toolCalls: [{ id: 'toolu_lookup', name: 'read_file', arguments: { path: 'rome.txt' } }], usage: { input: 20, output: 5 } }));
      const events = await collect(
        await client().responses.create({
          model: claudeModel,
          previous_response_id: first.id,
          input: 'And of Italy? Read rome.txt.',
          tools: [READ_FILE_TOOL],
          stream: true,
        }),
      );
      const second = (events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>).response;
      expect(second.id).not.toBe(first.id);
      expect(claude.requests.at(-1)!.body).toMatchObject({
        messages: [
          { role: 'user', content: 'Capital of France?' },
          { role: 'assistant', content: 'Paris.' },
          { role: 'user', content: 'And of Italy? Read rome.txt.' },
        ],
      });
      // Instructions are not carried over from a previous response, as at OpenAI.
      expect((claude.requests.at(-1)!.body as { system?: unknown }).system).toBeUndefined();

      claude.setScript(() => ({ text: 'Rome.', usage: { input: 30, output: 2 } }));
      const third = await client().responses.create({
        model: claudeModel,
        previous_response_id: second.id,
        input: [{ type: 'function_call_output', call_id: 'toolu_lookup', output: 'Rome is the capital.' }],
        tools: [READ_FILE_TOOL],
      });
      expect(third.output_text).toBe('Rome.');
      const messages = (claude.requests.at(-1)!.body as { messages: unknown[] }).messages;
      expect(messages.slice(3)).toEqual([
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_lookup', name: 'read_file', input: { path: 'rome.txt' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_lookup', content: 'Rome is the capital.' }] },
      ]);
      await expectBilled(expectedQuota({ input: 10, output: 2 }) + expectedQuota({ input: 20, output: 5 }) + expectedQuota({ input: 30, output: 2 }));
    });

    it("keeps no turn asked not to be stored, and continues no other user's", async () => {
      claude.setScript(() => ({ text: 'Not kept.', usage: { input: 4, output: 2 } }));
      const unstored = await client().responses.create({ model: claudeModel, input: 'hi', store: false });
      const refused = await client()
        .responses.create({ model: claudeModel, input: 'more', previous_response_id: unstored.id })
        .catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect((refused as Error).message).toContain('not found');

      const stored = await client().responses.create({ model: claudeModel, input: 'hi' });
      const other = await seedUser(env.context, { quota: 1_000_000, group: (await totals(env.context, ids)).logs[0]!.group as string });
      const otherKey = (await seedToken(env.context, other.id)).apiKey;
      const stranger = new OpenAI({ apiKey: otherKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });
      const foreign = await stranger.responses
        .create({ model: claudeModel, input: 'more', previous_response_id: stored.id })
        .catch((caught: unknown) => caught);
      expect(foreign).toBeInstanceOf(OpenAI.BadRequestError);
      expect((foreign as Error).message).toContain('not found');
      await expectBilled(2 * expectedQuota({ input: 4, output: 2 }));
    });

    it('refuses previous_response_id in the Responses error shape rather than ignoring it, and bills nothing', async () => {
      const before = claude.requests.length;
      const error = await client()
        .responses.create({ model: claudeModel, input: 'and then?', previous_response_id: 'resp_unknown' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("Previous response with id 'resp_unknown' not found");
      expect(claude.requests.length).toBe(before);
      await expectBilled(0);
    });
  });

  describe('on a Gemini channel', () => {
    it('streams a function call as a function_call item with its arguments', async () => {
      const usage = { input: 40, output: 10 };
      gemini.setScript(() => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }], usage }));
      const events = await collect(await client().responses.create({ model: geminiModel, input: 'Read notes.md', tools: [READ_FILE_TOOL], stream: true }));
      const sent = gemini.requests.at(-1)!;
      expect(sent.path).toContain(`${geminiModel}:streamGenerateContent`);
      expect(JSON.stringify(sent.body)).toContain('"functionDeclarations"');
      const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
      expect(completed.type).toBe('response.completed');
      expect(completed.response.output).toHaveLength(1);
      expect(completed.response.output[0]).toMatchObject({ type: 'function_call', name: 'read_file', arguments: '{"path":"notes.md"}' });
      await expectBilled(expectedQuota(usage));
    });

    it('answers a whole call with an image input', async () => {
      const usage = { input: 300, output: 5 };
      gemini.setScript(() => ({ text: 'A red square.', usage }));
      const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
      const response = await client().responses.create({
        model: geminiModel,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is this?' },
              { type: 'input_image', image_url: `data:image/png;base64,${pixel}`, detail: 'auto' },
            ],
          },
        ],
      });
      expect(response.output_text).toBe('A red square.');
      expect(JSON.stringify(gemini.requests.at(-1)!.body)).toContain(`"inlineData":{"mimeType":"image/png","data":"${pixel}"}`);
      await expectBilled(expectedQuota(usage));
    });
  });

  describe('on OpenAI-wire channels', () => {
    it('converts for a chat-only vendor (DeepSeek): chat completions upstream, a Responses answer back, cached tokens billed', async () => {
      env.upstream.respond((request, response) => {
        expect(request.url).toBe('/v1/chat/completions');
        sendJson(
          response,
          200,
          chatCompletionBody('From chat.', { prompt_tokens: 80, completion_tokens: 8, total_tokens: 88, prompt_tokens_details: { cached_tokens: 60 } }),
        );
      });
      const response = await client().responses.create({ model: chatOnlyModel, instructions: 'Hi.', input: 'Hello', max_output_tokens: 64 });
      expect(response.output_text).toBe('From chat.');
      expect(response.usage).toMatchObject({ input_tokens: 80, output_tokens: 8, input_tokens_details: { cached_tokens: 60 } });
      const sent = env.upstream.requests.at(-1)!.json!;
      expect(sent).toMatchObject({
        model: chatOnlyModel,
        max_completion_tokens: 64,
        messages: [
          { role: 'system', content: 'Hi.' },
          { role: 'user', content: 'Hello' },
        ],
      });
      expect(sent.input).toBeUndefined();
      // new-api's formula: the cached part of the prompt at the cache ratio.
      await expectBilled(Math.round(MODEL_RATIO * (20 + 60 * CACHE_RATIO + 8 * COMPLETION_RATIO)));
    });

    it('streams a converted chat stream, reasoning tokens billed as output', async () => {
      env.upstream.respond((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(chatChunk({ role: 'assistant', reasoning_content: 'hmm' }));
        response.write(chatChunk({ content: 'Chat ' }));
        response.write(chatChunk({ content: 'stream.' }, 'stop'));
        response.write(usageChunk({ prompt_tokens: 10, completion_tokens: 30, total_tokens: 40, completion_tokens_details: { reasoning_tokens: 25 } }));
        response.end('data: [DONE]\n\n');
      });
      const events = await collect(await client().responses.create({ model: chatOnlyModel, input: 'Hello', stream: true }));
      const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
      expect(completed.type).toBe('response.completed');
      expect(completed.response.usage).toMatchObject({ input_tokens: 10, output_tokens: 30, output_tokens_details: { reasoning_tokens: 25 } });
      expect(events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('')).toBe('Chat stream.');
      const sent = env.upstream.requests.at(-1)!.json!;
      expect(sent).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      await expectBilled(Math.round(MODEL_RATIO * (10 + 30 * COMPLETION_RATIO)));
    });

    it("passes an OpenAI channel the client's own request, and converts on one whose setting says chat", async () => {
      const response = await client().responses.create({ model: openaiModel, input: 'hi', reasoning: { effort: 'low' } });
      expect(response.output_text).toBe('Hi');
      const passed = env.upstream.requests.at(-1)!;
      expect(passed.url).toBe('/v1/responses');
      expect(passed.json).toMatchObject({ model: openaiModel, input: 'hi', reasoning: { effort: 'low' } });
      await expectBilled(Math.round(MODEL_RATIO * (9 + 4 * COMPLETION_RATIO)));

      const switched = await client().responses.create({ model: switchedModel, input: 'hi', reasoning: { effort: 'low' } });
      expect(switched.output_text).toMatch(/^Hello from /);
      const converted = env.upstream.requests.at(-1)!;
      expect(converted.url).toBe('/v1/chat/completions');
      expect(converted.json).toMatchObject({ model: switchedModel, reasoning_effort: 'low', messages: [{ role: 'user', content: 'hi' }] });
      await expectBilled(Math.round(MODEL_RATIO * (11 + 7 * COMPLETION_RATIO)));
    });

    it('serves chat clients a model offered only through the Responses API (the ChatCompletions→Responses policy)', async () => {
      env.upstream.respond((request, response) => {
        expect(request.url).toBe('/v1/responses');
        sendJson(response, 200, {
          id: 'resp_upstream_1',
          object: 'response',
          created_at: 1764300000,
          status: 'completed',
          model: policyModel,
          output: [
            { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Thinking.' }] },
            {
              type: 'message',
              id: 'msg_1',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'From Responses.', annotations: [] }],
            },
          ],
          usage: {
            input_tokens: 50,
            input_tokens_details: { cached_tokens: 40 },
            output_tokens: 20,
            output_tokens_details: { reasoning_tokens: 12 },
            total_tokens: 70,
          },
        });
      });
      const completion = await client().chat.completions.create({
        model: policyModel,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
        max_completion_tokens: 100,
      });
      expect(completion.choices[0]!.message.content).toBe('From Responses.');
      expect(completion.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 40 } });
      const sent = env.upstream.requests.at(-1)!.json!;
      expect(sent).toMatchObject({ model: policyModel, instructions: 'Be brief.', max_output_tokens: 100, store: false });
      expect(sent.messages).toBeUndefined();
      await expectBilled(Math.round(MODEL_RATIO * (10 + 40 + 20 * COMPLETION_RATIO)));
    });

    it('streams a Responses-only model to a chat client as chat chunks', async () => {
      const created = { id: 'resp_upstream_2', object: 'response', created_at: 1764300000, status: 'in_progress', model: policyModel, output: [], usage: null };
      const item = { type: 'message', id: 'msg_2', role: 'assistant', status: 'in_progress', content: [] };
      const events = [
        { type: 'response.created', response: created },
        { type: 'response.output_item.added', output_index: 0, item },
        { type: 'response.output_text.delta', item_id: 'msg_2', output_index: 0, content_index: 0, delta: 'Streamed ' },
        { type: 'response.output_text.delta', item_id: 'msg_2', output_index: 0, content_index: 0, delta: 'answer.' },
        {
          type: 'response.completed',
          response: { ...created, status: 'completed', usage: { input_tokens: 8, output_tokens: 4, total_tokens: 12 } },
        },
      ];
      env.upstream.respond((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(events.map((event, index) => `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`).join(''));
      });
      const stream = await client().chat.completions.create({
        model: policyModel,
        messages: [{ role: 'user', content: 'Hello' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let usage: unknown;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe('Streamed answer.');
      expect(usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 4 });
      expect(env.upstream.requests.at(-1)!.json).toMatchObject({ stream: true, input: [{ role: 'user' }] });
      await expectBilled(Math.round(MODEL_RATIO * (8 + 4 * COMPLETION_RATIO)));
    });

    it('turns an upstream failure inside a converted stream into response.failed', async () => {
      env.upstream.respond((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(chatChunk({ role: 'assistant', content: 'partial' }));
        response.end(`data: ${JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error' } })}\n\n`);
      });
      const events = await collect(await client().responses.create({ model: chatOnlyModel, input: 'Hello', stream: true }));
      const failed = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.failed' }>;
      expect(failed.type).toBe('response.failed');
      expect(failed.response.error?.message).toContain('upstream overloaded');
      await env.runtime.drain();
      const after = await totals(env.context, ids);
      // What was generated before the failure is paid for, and the books still agree.
      charged = after.logQuotaSum;
      await expectBilled(0);
    });
  });
});
