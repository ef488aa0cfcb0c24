import { cohereCodec, SseSplitter, type ChatChunk, type ChatRequest } from '@modelgate/protocol';
import { request as send } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelEndpoint, NativeChatCall, UpstreamRequest } from '../provider-types.js';
import { cohereAdaptor } from './cohere-adaptor.js';
import { startMockCohere, type MockCohere } from './testing/mock-cohere.js';

const KEY = 'co-test-key-123';
let mock: MockCohere;
let channel: ChannelEndpoint;

beforeAll(async () => {
  mock = await startMockCohere({ key: KEY });
  const url = new URL(mock.url);
  channel = { type: 34, origin: url.origin, basePath: '', other: '', organization: '' };
});
afterAll(() => mock.close());

const canonical: ChatRequest = {
  model: 'command-a',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Toronto?' },
  ],
  tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }],
};

function chatCall(stream: boolean, key = KEY): NativeChatCall {
  const body = cohereCodec.requestFromCanonical!({ ...canonical, stream }, { model: 'command-a-03-2025', defaultMaxTokens: 8192 }).value;
  // apiVersion is Gemini's (gemini.version_settings); Cohere ignores it.
  return { channel, key, upstreamModel: 'command-a-03-2025', stream, body, raw: undefined, clientHeaders: {}, apiVersion: 'v1beta' } as NativeChatCall;
}

async function fetchFrom(upstream: UpstreamRequest) {
  const answer = await send(`${upstream.origin}${upstream.path}`, {
    method: upstream.method ?? 'POST',
    headers: upstream.headers,
    body: upstream.method === 'GET' ? undefined : (upstream.body as string),
  });
  return { status: answer.statusCode, text: await answer.body.text() };
}

describe('Cohere adaptor requests', () => {
  it('sends chat to /v2/chat with a Bearer key, and drops a /v1 or /v2 pasted into the base URL', async () => {
    const upstream = await cohereAdaptor.nativeChat!.buildRequest(chatCall(true));
    expect(cohereAdaptor.nativeChat!.formatFor('command-a-03-2025')).toBe('cohere');
    expect(upstream.path).toBe('/v2/chat');
    expect(upstream.headers).toMatchObject({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'text/event-stream' });
    expect(JSON.parse(upstream.body as string)).toMatchObject({
      model: 'command-a-03-2025',
      stream: true,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Toronto?' },
      ],
    });
    const pasted = await cohereAdaptor.nativeChat!.buildRequest({ ...chatCall(false), channel: { ...channel, basePath: '/v2' } });
    expect(pasted.path).toBe('/v2/chat');
  });

  it('passes a rerank body on to /v2/rerank with the channel model', () => {
    const json = { model: 'rerank', query: 'capital of France', documents: ['Paris is the capital of France', 'Berlin'], top_n: 1, return_documents: true };
    const upstream = cohereAdaptor.buildRequest({
      endpoint: 'rerank',
      channel: { ...channel, basePath: '/v1' },
      key: KEY,
      model: 'rerank',
      upstreamModel: 'rerank-v3.5',
      body: { kind: 'json', json, raw: JSON.stringify(json) },
      askStreamUsage: false,
    });
    expect(upstream.path).toBe('/v2/rerank');
    expect(upstream.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(upstream.body as string)).toEqual({ ...json, model: 'rerank-v3.5' });
    expect(cohereAdaptor.supports('rerank')).toBe(true);
    expect(cohereAdaptor.supports('chat')).toBe(true);
    expect(cohereAdaptor.supports('embeddings')).toBe(false);
  });

  it('lists chat models from /v1/models?endpoint=chat', async () => {
    const listing = cohereAdaptor.modelList!;
    if (listing.kind !== 'fetch') throw new Error('expected a fetch listing');
    const upstream = await listing.request(channel, KEY);
    expect(upstream.method).toBe('GET');
    expect(upstream.path).toBe('/v1/models?endpoint=chat&page_size=1000');
    const { status, text } = await fetchFrom(upstream);
    expect(status).toBe(200);
    expect(listing.parse(JSON.parse(text))).toEqual(['command-a-03-2025', 'command-r7b-12-2024']);
  });

  it('classifies Cohere errors: a rejected key disables, 429 and 5xx retry elsewhere, 400 does not', () => {
    expect(cohereAdaptor.classifyError({ status: 401, message: 'invalid api token', type: '', code: '' })).toEqual({ retryable: true, disableChannel: true });
    expect(
      cohereAdaptor.classifyError({ status: 429, message: 'You are using a Trial key, which is limited to 10 API calls / minute', type: '', code: '' }),
    ).toEqual({ retryable: true, disableChannel: false });
    expect(cohereAdaptor.classifyError({ status: 503, message: 'service unavailable', type: '', code: '' })).toEqual({
      retryable: true,
      disableChannel: false,
    });
    expect(cohereAdaptor.classifyError({ status: 400, message: 'invalid request: p must be between 0.01 and 0.99', type: '', code: '' })).toEqual({
      retryable: false,
      disableChannel: false,
    });
  });
});

describe('the mock Cohere answers what the codec sends', () => {
  it('whole chat: the answer converts to a canonical completion with usage', async () => {
    mock.setScript(() => ({ text: 'It is sunny.', usage: { input: 12, output: 4, cacheRead: 3 } }));
    const { status, text } = await fetchFrom(await cohereAdaptor.nativeChat!.buildRequest(chatCall(false)));
    expect(status).toBe(200);
    const completion = cohereCodec.responseToCanonical!(JSON.parse(text), 'command-a-03-2025');
    expect(completion.choices[0]!.message.content).toBe('It is sunny.');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 15, completion_tokens: 4, total_tokens: 19, prompt_tokens_details: { cached_tokens: 3 } });
    expect(mock.requests.at(-1)!.body).toMatchObject({ model: 'command-a-03-2025', tools: [{ type: 'function', function: { name: 'get_weather' } }] });
  });

  it('streamed tool call: the events decode to a plan, one call with its arguments and usage', async () => {
    mock.setScript(() => ({
      thinking: 'I will look up the weather.',
      toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { location: 'Toronto' } }],
      usage: { input: 20, output: 9 },
    }));
    const { status, text } = await fetchFrom(await cohereAdaptor.nativeChat!.buildRequest(chatCall(true)));
    expect(status).toBe(200);
    const decoder = cohereCodec.streamDecoder!('command-a-03-2025');
    const chunks: ChatChunk[] = [];
    for (const event of new SseSplitter().push(Buffer.from(text))) chunks.push(...decoder.push(event.data, event.event));
    chunks.push(...decoder.finish());
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.reasoning_content ?? '').join('')).toBe('I will look up the weather.');
    const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: 'call_w', function: { name: 'get_weather' } });
    expect(JSON.parse(calls.map((call) => call.function?.arguments ?? '').join(''))).toEqual({ location: 'Toronto' });
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 });
  });

  it('rerank: results by relevance; usage left to the relay when Cohere reports only search units', async () => {
    mock.setScript(() => ({ usage: { input: 0, output: 0 } }));
    const json = {
      model: 'rerank-v3.5',
      query: 'capital of France',
      documents: ['Berlin is in Germany', 'Paris is the capital of France'],
      top_n: 1,
      return_documents: true,
    };
    const upstream = cohereAdaptor.buildRequest({
      endpoint: 'rerank',
      channel,
      key: KEY,
      model: 'rerank-v3.5',
      upstreamModel: 'rerank-v3.5',
      body: { kind: 'json', json, raw: JSON.stringify(json) },
      askStreamUsage: false,
    });
    const { status, text } = await fetchFrom(upstream);
    expect(status).toBe(200);
    const answer = JSON.parse(text) as { results: { index: number; document: { text: string } }[] };
    expect(answer.results).toHaveLength(1);
    expect(answer.results[0]).toMatchObject({ index: 1, document: { text: 'Paris is the capital of France' } });
    expect(cohereAdaptor.parseUsage('rerank', answer)).toBeUndefined();
    expect(cohereAdaptor.parseUsage('rerank', { meta: { billed_units: { input_tokens: 42, search_units: 1 } } })).toEqual({
      promptTokens: 42,
      completionTokens: 0,
    });
    expect(cohereAdaptor.completionText('rerank', answer)).toEqual([]);
  });

  it('refuses a wrong key with 401 {message}, which the adaptor says disables the channel', async () => {
    const { status, text } = await fetchFrom(await cohereAdaptor.nativeChat!.buildRequest(chatCall(false, 'wrong-key')));
    expect(status).toBe(401);
    const body = JSON.parse(text) as { message: string };
    expect(body.message).toBe('invalid api token');
    expect(cohereAdaptor.classifyError({ status, message: body.message, type: '', code: '' }).disableChannel).toBe(true);
  });

  it('answers a scripted failure in Cohere’s shape', async () => {
    mock.setScript(() => ({ status: 429, message: 'too many requests' }));
    const { status, text } = await fetchFrom(await cohereAdaptor.nativeChat!.buildRequest(chatCall(false)));
    expect(status).toBe(429);
    expect(JSON.parse(text)).toMatchObject({ message: 'too many requests' });
  });
});
