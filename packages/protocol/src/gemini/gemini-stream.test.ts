import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '../openai/chat-types.js';
import { SseSplitter } from '../sse/sse-splitter.js';
import { geminiCodec } from './gemini-codec.js';
import { GeminiStreamDecoder } from './gemini-stream-decoder.js';

const transcript = readFileSync(new URL('./__fixtures__/stream.sse', import.meta.url));

/** Feeds bytes split at the given offsets through an SSE splitter into a decoder. */
function decode(bytes: Buffer, cuts: number[], decoder = new GeminiStreamDecoder('gemini-2.5-flash')): ChatChunk[] {
  const splitter = new SseSplitter();
  const chunks: ChatChunk[] = [];
  let start = 0;
  for (const end of [...cuts, bytes.length]) {
    for (const event of splitter.push(bytes.subarray(start, end))) chunks.push(...decoder.push(event.data));
    start = end;
  }
  chunks.push(...decoder.finish());
  return chunks;
}

interface Collected {
  text: string;
  reasoning: string;
  calls: { id?: string | undefined; name: string; arguments: string }[];
  finish: (string | null)[];
  usage: ChatChunk['usage'][];
  roles: number;
}

function collect(chunks: ChatChunk[]): Collected {
  const collected: Collected = { text: '', reasoning: '', calls: [], finish: [], usage: [], roles: 0 };
  for (const chunk of chunks) {
    if (chunk.usage) collected.usage.push(chunk.usage);
    for (const choice of chunk.choices) {
      if (choice.delta.role) collected.roles += 1;
      collected.text += choice.delta.content ?? '';
      collected.reasoning += choice.delta.reasoning_content ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        const existing = collected.calls[call.index];
        if (existing) existing.arguments += call.function?.arguments ?? '';
        else collected.calls[call.index] = { id: call.id, name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' };
      }
      if (choice.finish_reason) collected.finish.push(choice.finish_reason);
    }
  }
  return collected;
}

const sse = (...responses: unknown[]) => Buffer.from(responses.map((response) => `data: ${JSON.stringify(response)}\r\n\r\n`).join(''));

describe('GeminiStreamDecoder', () => {
  const expectedText =
    'The sky is blue because of Rayleigh scattering: air molecules scatter short (blue) wavelengths more than the longer red ones, so blue light reaches your eyes from every direction. ☀️';

  it('decodes the documented transcript whole, and split at awkward points (inside \\r\\n and inside the emoji)', () => {
    const emoji = transcript.indexOf(Buffer.from('☀'));
    const firstEnd = transcript.indexOf('\r\n\r\n');
    for (const cuts of [
      [],
      [1, 2, 3],
      [firstEnd + 1, firstEnd + 3],
      [emoji + 1, emoji + 2],
      Array.from({ length: transcript.length - 1 }, (_, index) => index + 1),
    ]) {
      const chunks = decode(transcript, cuts);
      const collected = collect(chunks);
      expect(collected.text).toBe(expectedText);
      expect(collected.roles).toBe(1);
      expect(collected.finish).toEqual(['stop']);
      // Usage is cumulative upstream: reported once, the latest, in a chunk of its own.
      expect(collected.usage).toEqual([{ prompt_tokens: 9, completion_tokens: 38, total_tokens: 47 }]);
      const last = chunks[chunks.length - 1]!;
      expect(last.choices).toEqual([]);
      expect(chunks[0]).toMatchObject({ id: 'stream-resp-1', object: 'chat.completion.chunk', model: 'gemini-2.5-flash' });
    }
  });

  it('decodes thoughts, whole function calls with running indexes, and finishes with tool_calls', () => {
    const stream = sse(
      {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Planning the calls.', thought: true }] }, index: 0 }],
        usageMetadata: { promptTokenCount: 20, totalTokenCount: 20 },
        responseId: 'r1',
      },
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ functionCall: { name: 'weather', args: { city: 'Paris' } } }, { functionCall: { id: 'g-2', name: 'weather', args: { city: 'Rome' } } }],
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 10, thoughtsTokenCount: 30, totalTokenCount: 60 },
        responseId: 'r1',
      },
    );
    const chunks = decode(stream, [50]);
    const collected = collect(chunks);
    expect(collected.reasoning).toBe('Planning the calls.');
    expect(collected.calls).toEqual([
      { id: 'call_r1_0', name: 'weather', arguments: '{"city":"Paris"}' },
      { id: 'g-2', name: 'weather', arguments: '{"city":"Rome"}' },
    ]);
    expect(collected.finish).toEqual(['tool_calls']);
    expect(collected.usage).toEqual([{ prompt_tokens: 20, completion_tokens: 40, total_tokens: 60, completion_tokens_details: { reasoning_tokens: 30 } }]);
  });

  it('finishes a blocked prompt with content_filter and reports an error object', () => {
    const blocked = collect(decode(sse(JSON.parse(readFileSync(new URL('./__fixtures__/blocked-response.json', import.meta.url), 'utf8'))), []));
    expect(blocked.finish).toEqual(['content_filter']);
    expect(blocked.usage).toEqual([{ prompt_tokens: 15, completion_tokens: 0, total_tokens: 15 }]);

    const decoder = new GeminiStreamDecoder('m');
    const error = JSON.parse(readFileSync(new URL('./__fixtures__/error-response.json', import.meta.url), 'utf8')) as unknown;
    expect(decoder.push(JSON.stringify(error))).toEqual([]);
    expect(decoder.error).toEqual({ message: 'API key not valid. Please pass a valid API key.', type: 'INVALID_ARGUMENT' });
  });

  it('maps MAX_TOKENS to length', () => {
    const collected = collect(decode(sse({ candidates: [{ content: { parts: [{ text: 'cut' }] }, finishReason: 'MAX_TOKENS' }] }), []));
    expect(collected).toMatchObject({ text: 'cut', finish: ['length'] });
  });
});

describe('GeminiStreamEncoder', () => {
  const base = { id: 'chatcmpl-9', object: 'chat.completion.chunk' as const, created: 1, model: 'gpt-4o' };
  const openAiStream: ChatChunk[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { reasoning_content: 'Think.' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'Hello ' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'world' }, finish_reason: null }] },
    {
      ...base,
      choices: [
        { index: 0, delta: { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '' } }] }, finish_reason: null },
      ],
    },
    { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }, finish_reason: null }] },
    {
      ...base,
      choices: [
        { index: 0, delta: { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '{}' } }] }, finish_reason: null },
      ],
    },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    { ...base, choices: [], usage: { prompt_tokens: 11, completion_tokens: 9, total_tokens: 20, completion_tokens_details: { reasoning_tokens: 2 } } },
  ];

  it('writes Gemini SSE events: thoughts and text as parts, whole calls, usage on the last event', () => {
    const encoder = geminiCodec.streamEncoder!('gpt-4o', { includeUsage: false });
    const text = openAiStream.map((chunk) => encoder.push(chunk)).join('') + encoder.finish();
    const events = text.split('\r\n\r\n').filter(Boolean);
    expect(events.every((event) => event.startsWith('data: '))).toBe(true);
    const responses = events.map((event) => JSON.parse(event.slice(6)) as Record<string, unknown>);
    const last = responses[responses.length - 1]!;
    expect(last).toEqual({
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { id: 'call_b', name: 'time', args: {} } }] }, index: 0, finishReason: 'STOP' }],
      modelVersion: 'gpt-4o',
      responseId: 'chatcmpl-9',
      usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 7, thoughtsTokenCount: 2, totalTokenCount: 20 },
    });
    expect(responses.filter((response) => 'usageMetadata' in response)).toHaveLength(1);
    expect(
      responses.flatMap((response) => ((response.candidates ?? []) as { content: { parts: unknown[] } }[]).flatMap((candidate) => candidate.content.parts)),
    ).toEqual([
      { text: 'Think.', thought: true },
      { text: 'Hello ' },
      { text: 'world' },
      { functionCall: { id: 'call_a', name: 'weather', args: { city: 'Paris' } } },
      { functionCall: { id: 'call_b', name: 'time', args: {} } },
    ]);
  });

  it('re-decodes to the same content, calls, finish and usage', () => {
    const encoder = geminiCodec.streamEncoder!('gpt-4o', { includeUsage: true });
    const text = openAiStream.map((chunk) => encoder.push(chunk)).join('') + encoder.finish();
    const collected = collect(decode(Buffer.from(text), [7, 100, 101]));
    expect(collected).toMatchObject({ text: 'Hello world', reasoning: 'Think.', finish: ['tool_calls'] });
    expect(collected.calls).toEqual([
      { id: 'call_a', name: 'weather', arguments: '{"city":"Paris"}' },
      { id: 'call_b', name: 'time', arguments: '{}' },
    ]);
    expect(collected.usage).toEqual([openAiStream[openAiStream.length - 1]!.usage]);
  });

  it('separates whole calls from upstreams that leave the index out', () => {
    const encoder = geminiCodec.streamEncoder!('m', { includeUsage: false });
    const call = (id: string, name: string) =>
      [{ id, type: 'function' as const, function: { name, arguments: '{}' } }] as unknown as ChatChunk['choices'][0]['delta']['tool_calls'];
    const text =
      encoder.push({ ...base, choices: [{ index: 0, delta: { tool_calls: call('c1', 'a') }, finish_reason: null }] }) +
      encoder.push({ ...base, choices: [{ index: 0, delta: { tool_calls: call('c2', 'b') }, finish_reason: 'tool_calls' }] }) +
      encoder.finish();
    expect(collect(decode(Buffer.from(text), [])).calls.map((found) => [found.id, found.name])).toEqual([
      ['c1', 'a'],
      ['c2', 'b'],
    ]);
  });

  it('flushes a held finish and pending calls at the end, and writes errors in Google shape', () => {
    const encoder = geminiCodec.streamEncoder!('m', { includeUsage: false });
    encoder.push({ ...base, choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] });
    expect(encoder.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })).toBe('');
    expect(JSON.parse(encoder.finish().slice(6))).toMatchObject({ candidates: [{ finishReason: 'STOP', index: 0 }] });

    const cut = geminiCodec.streamEncoder!('m', { includeUsage: false });
    cut.push({
      ...base,
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{"x":1}' } }] }, finish_reason: null }],
    });
    expect(JSON.parse(cut.finish().slice(6))).toMatchObject({
      candidates: [{ content: { parts: [{ functionCall: { id: 'c', name: 'f', args: { x: 1 } } }] } }],
    });

    expect(encoder.error('upstream went away', 'upstream_error')).toBe(
      'data: {"error":{"code":500,"message":"upstream went away","status":"INTERNAL"}}\r\n\r\n',
    );
  });
});
