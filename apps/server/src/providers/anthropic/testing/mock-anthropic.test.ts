import Anthropic from '@anthropic-ai/sdk';
import { AnthropicStreamEncoder, anthropicResponseFromCanonical, type ChatChunk, type ChatCompletion } from '@modelgate/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalServer } from '../../../lib/testing/local-server.js';
import type { MockTurn } from '../../testing/mock-turn.js';
import { mockAnthropicTokenCount, startMockAnthropic, type MockAnthropic } from './mock-anthropic.js';

// The official client proves the mock speaks Anthropic's wire format: it parses what the mock sends.
const KEY = 'sk-ant-mock-key';
let mock: MockAnthropic;
let client: Anthropic;

beforeAll(async () => {
  mock = await startMockAnthropic({ key: KEY });
  client = new Anthropic({ apiKey: KEY, baseURL: mock.url, maxRetries: 0 });
});
afterAll(() => mock.close());

const weatherTurn: MockTurn = {
  thinking: 'The user wants weather.',
  text: 'Let me check.',
  toolCalls: [{ id: 'toolu_weather1', name: 'get_weather', arguments: { location: 'San Francisco, CA', unit: 'celsius' } }],
  usage: { input: 40, output: 25, cacheRead: 100, cacheWrite: 20 },
  pieceLength: 3,
};

describe('mock Anthropic upstream, driven by @anthropic-ai/sdk', () => {
  it('answers a plain message and records the request with the SDK headers', async () => {
    mock.setScript(() => ({ text: 'Hi! My name is Claude.', usage: { input: 10, output: 8 } }));
    const message = await client.messages.create({ model: 'claude-sonnet-4-20250514', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Hi! My name is Claude.' }]);
    expect(message.model).toBe('claude-sonnet-4-20250514');
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 10, output_tokens: 8, cache_read_input_tokens: 0 });
    const recorded = mock.requests.at(-1);
    expect(recorded).toMatchObject({ method: 'POST', path: '/v1/messages', body: { model: 'claude-sonnet-4-20250514', max_tokens: 64 } });
    // @anthropic-ai/sdk 1.x sends the key as a bearer token (API version 2026-10-21).
    expect(recorded?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(recorded?.headers['anthropic-version']).toBeTruthy();
  });

  it('streams thinking, text in pieces and a tool call that the SDK assembles', async () => {
    mock.setScript(() => weatherTurn);
    const stream = client.messages.stream({ model: 'claude-sonnet-4-20250514', max_tokens: 2048, messages: [{ role: 'user', content: 'Weather?' }] });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(texts).toEqual(['Let', ' me', ' ch', 'eck', '.']);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'The user wants weather.', signature: expect.any(String) },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_weather1', name: 'get_weather', input: { location: 'San Francisco, CA', unit: 'celsius' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 40, output_tokens: 25, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 });
  });

  it('sends the exact event sequence of a streamed answer', async () => {
    mock.setScript(() => ({ ...weatherTurn, thinking: undefined, text: 'ok', pieceLength: 10 }));
    const stream = await client.messages.create({
      model: 'claude-3-5-haiku-20241022',
      max_tokens: 10,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    // The SDK swallows ping; the raw order is checked on the bytes below.
    // The tool input (50 characters) goes in an opening empty piece and five of ten characters.
    const toolDeltas = Array.from({ length: 6 }, () => 'content_block_delta');
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      ...toolDeltas,
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const raw = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', max_tokens: 5, stream: true, messages: [] }),
    });
    expect(raw.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await raw.text()).match(/^event: (\w+)$/gm)?.map((line) => line.slice(7));
    expect(events?.slice(0, 3)).toEqual(['message_start', 'ping', 'content_block_start']);
  });

  it('round-trips a tool use: the SDK sends the tool_result back and gets the final answer', async () => {
    mock.setScript((body) => {
      const messages = (body as { messages: { content: unknown }[] }).messages;
      return JSON.stringify(messages.at(-1)?.content).includes('tool_result')
        ? { text: 'It is 15 degrees in San Francisco.', usage: { input: 60, output: 9 } }
        : { toolCalls: [{ name: 'get_weather', arguments: { location: 'San Francisco, CA' } }], usage: { input: 30, output: 12 } };
    });
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        description: 'Weather now',
        input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
      },
    ];
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in SF?' };
    const first = await client.messages.create({ model: 'claude-sonnet-4-20250514', max_tokens: 256, tools, messages: [question] });
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(call).toMatchObject({ name: 'get_weather', input: { location: 'San Francisco, CA' } });
    expect(call?.id).toMatch(/^toolu_/);
    const second = await client.messages.create({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 256,
      tools,
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call?.id ?? '', content: '15 degrees' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'It is 15 degrees in San Francisco.' }]);
    expect(mock.requests.at(-1)?.body).toMatchObject({ tools: [{ name: 'get_weather' }] });
  });

  it('refuses a wrong key (401), missing fields (400) and answers scripted failures such as 529 overloaded', async () => {
    const wrong = new Anthropic({ apiKey: 'sk-ant-wrong', baseURL: mock.url, maxRetries: 0 });
    const denied = await wrong.messages.create({ model: 'm', max_tokens: 1, messages: [] }).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((denied as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });

    const missing = await client.messages
      .create({ model: 'm', messages: [] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(Anthropic.BadRequestError);
    expect((missing as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });

    const noVersion = await fetch(`${mock.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': KEY }, body: '{}' });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });

    mock.setScript(() => ({ status: 529, message: 'Overloaded' }));
    const overloaded = await client.messages.create({ model: 'm', max_tokens: 1, messages: [] }).catch((error: unknown) => error);
    expect(overloaded).toBeInstanceOf(Anthropic.APIError);
    expect((overloaded as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((overloaded as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });

  it('counts tokens (its own characters/4 rule) and lists models', async () => {
    const body = { model: 'm', system: 'abcd', messages: [{ role: 'user' as const, content: 'efghijkl' }] };
    const counted = await client.messages.countTokens(body);
    expect(counted.input_tokens).toBe(3);
    expect(mockAnthropicTokenCount({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'abcde' }] }] })).toBe(2);

    const listed = await startMockAnthropic({ key: KEY, models: ['claude-opus-4-20250514', 'claude-3-5-haiku-20241022'] });
    try {
      const ids: string[] = [];
      const lister = new Anthropic({ apiKey: KEY, baseURL: listed.url, maxRetries: 0 });
      for await (const model of lister.models.list()) {
        expect(model.type).toBe('model');
        expect(model.display_name).toBeTruthy();
        ids.push(model.id);
      }
      expect(ids).toEqual(['claude-opus-4-20250514', 'claude-3-5-haiku-20241022']);
      expect(listed.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v1/models']);
    } finally {
      await listed.close();
    }
  });
});

describe('the codec speaks to the official client (what /v1/messages writes for a canonical answer)', () => {
  const chunk = (delta: ChatChunk['choices'][number]['delta'], finish: ChatChunk['choices'][number]['finish_reason'] = null): ChatChunk => ({
    id: 'chatcmpl-9',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const usage = { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42, prompt_tokens_details: { cached_tokens: 10 } };

  it('AnthropicStreamEncoder output is assembled by the SDK into the same message', async () => {
    const encoder = new AnthropicStreamEncoder('gpt-4o');
    const chunks = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'think' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
      chunk({}, 'tool_calls'),
      { ...chunk({}), choices: [], usage },
    ];
    const sse = chunks.map((item) => encoder.push(item)).join('') + encoder.finish();
    const server = await new LocalServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(sse);
    }).start();
    try {
      const sdk = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
      const texts: string[] = [];
      const stream = sdk.messages
        .stream({ model: 'gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] })
        .on('text', (text) => texts.push(text));
      const message = await stream.finalMessage();
      expect(texts).toEqual(['Hel', 'lo']);
      expect(message.content).toEqual([
        { type: 'thinking', thinking: 'think', signature: '' },
        { type: 'text', text: 'Hello' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'Oslo' } },
      ]);
      expect(message.stop_reason).toBe('tool_use');
      expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 12, cache_read_input_tokens: 10, cache_creation_input_tokens: 0 });
    } finally {
      await server.close();
    }
  });

  it('anthropicResponseFromCanonical is a Message the SDK returns as is', async () => {
    const completion: ChatCompletion = {
      id: 'chatcmpl-9',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'length' }],
      usage,
    };
    const server = await new LocalServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(anthropicResponseFromCanonical(completion)));
    }).start();
    try {
      const message = await new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 }).messages.create({
        model: 'gpt-4o',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(message).toMatchObject({
        id: 'msg_chatcmpl-9',
        type: 'message',
        content: [{ type: 'text', text: 'Hi there' }],
        stop_reason: 'max_tokens',
        usage: { input_tokens: 20, output_tokens: 12 },
      });
    } finally {
      await server.close();
    }
  });
});
