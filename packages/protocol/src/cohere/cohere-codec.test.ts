import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConversionError, type OutboundContext } from '../convert/codec.js';
import type { ChatChunk, ChatRequest } from '../openai/chat-types.js';
import { SseSplitter } from '../sse/sse-splitter.js';
import { cohereCodec } from './index.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const context: OutboundContext = { model: 'command-a-03-2025', defaultMaxTokens: 8192 };
const toCohere = (request: Partial<ChatRequest>) =>
  cohereCodec.requestFromCanonical!({ model: 'client-name', messages: [{ role: 'user', content: 'hi' }], ...request }, context);

function decode(sse: string, split = 1): ChatChunk[] {
  const decoder = cohereCodec.streamDecoder!('command-a-03-2025');
  const splitter = new SseSplitter();
  const bytes = Buffer.from(sse);
  const chunks: ChatChunk[] = [];
  const step = Math.ceil(bytes.length / split);
  for (let offset = 0; offset < bytes.length; offset += step) {
    for (const event of splitter.push(bytes.subarray(offset, offset + step))) chunks.push(...decoder.push(event.data, event.event));
  }
  return [...chunks, ...decoder.finish()];
}

describe('Cohere request from canonical', () => {
  it('carries a multi-turn conversation with tools, tool results and images', () => {
    const { value, warnings } = toCohere({
      stream: true,
      messages: [
        { role: 'system', content: 'You are terse.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather here?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'I will look it up.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Toronto"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":"20C"}' },
        { role: 'assistant', content: 'It is 20C.' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
        },
      ],
      tool_choice: 'required',
      max_tokens: 300,
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      stop: 'END',
      seed: 7,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      response_format: { type: 'json_object' },
    });
    expect(warnings).toEqual([]);
    expect(value).toEqual({
      model: 'command-a-03-2025',
      stream: true,
      messages: [
        { role: 'system', content: 'You are terse.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather here?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
          ],
        },
        {
          role: 'assistant',
          tool_plan: 'I will look it up.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Toronto"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":"20C"}' },
        { role: 'assistant', content: 'It is 20C.' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
        },
      ],
      tool_choice: 'REQUIRED',
      max_tokens: 300,
      temperature: 0.3,
      p: 0.9,
      k: 40,
      stop_sequences: ['END'],
      seed: 7,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      response_format: { type: 'json_object' },
    });
  });

  it('drops what Cohere cannot carry, each named in a warning', () => {
    const { value, warnings } = toCohere({
      reasoning_effort: 'high',
      n: 2,
      logit_bias: { '50256': -100 },
      top_p: 1,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'read this' },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBER' } },
          ],
        },
      ],
    });
    expect(value.p).toBe(0.99);
    expect(value.tool_choice).toBe('REQUIRED');
    expect(value).not.toHaveProperty('reasoning_effort');
    expect(value.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'read this' }] }]);
    expect(warnings.join('\n')).toMatch(/reasoning_effort was dropped/);
    expect(warnings.join('\n')).toMatch(/logit_bias was dropped/);
    expect(warnings.join('\n')).toMatch(/n 2 was dropped/);
    expect(warnings.join('\n')).toMatch(/top_p 1 was sent as p 0.99/);
    expect(warnings.join('\n')).toMatch(/file part was dropped/);
    expect(warnings.join('\n')).toMatch(/cannot force one named tool/);
  });

  it('sends a JSON schema as json_object with its schema, and tool_choice none as NONE', () => {
    const { value } = toCohere({ tool_choice: 'none', response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } } });
    expect(value.tool_choice).toBe('NONE');
    expect(value.response_format).toEqual({ type: 'json_object', json_schema: { type: 'object' } });
  });

  it('refuses a request without messages', () => {
    expect(() => toCohere({ messages: [] })).toThrow(ConversionError);
  });
});

describe('Cohere answer to canonical', () => {
  it('reads the documented text answer with usage from tokens', () => {
    const completion = cohereCodec.responseToCanonical!(JSON.parse(fixture('chat-text.json')), 'command-a-03-2025');
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: expect.stringMatching(/^LLMs stand for Large Language Models/) },
      finish_reason: 'stop',
    });
    expect(completion.usage).toEqual({ prompt_tokens: 83, completion_tokens: 23, total_tokens: 106 });
    expect(completion.model).toBe('command-a-03-2025');
  });

  it('reads a tool call with its plan as reasoning', () => {
    const completion = cohereCodec.responseToCanonical!(JSON.parse(fixture('chat-tool-call.json')), 'command-a-03-2025');
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        reasoning_content: 'I will search for the weather in Toronto.',
        tool_calls: [{ id: 'get_weather_1byjy32y4hvq', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Toronto"}' } }],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('maps finish reasons and falls back to billed units', () => {
    const answer = (finish_reason: string) =>
      cohereCodec.responseToCanonical!({ finish_reason, message: { content: [] }, usage: { billed_units: { input_tokens: 5, output_tokens: 2 } } }, 'm');
    expect(answer('MAX_TOKENS').choices[0]!.finish_reason).toBe('length');
    expect(answer('STOP_SEQUENCE').choices[0]!.finish_reason).toBe('stop');
    expect(answer('ERROR').choices[0]!.finish_reason).toBe('stop');
    expect(answer('TIMEOUT').choices[0]!.finish_reason).toBe('stop');
    expect(answer('COMPLETE').usage).toEqual({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  });
});

describe('Cohere stream decoder', () => {
  it('turns the documented text stream into chunks ending with a usage chunk', () => {
    for (const split of [1, 7, 97]) {
      const chunks = decode(fixture('stream-text.sse'), split);
      expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? null).join('')).toBe('A large language model (LLM) is a type of neural network.');
      expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
      expect(chunks[0]!.id).toBe('29f14a5a-11de-4cae-9800-25e4747408ea');
      const finish = chunks.at(-2)!;
      expect(finish.choices[0]!.finish_reason).toBe('stop');
      const usage = chunks.at(-1)!;
      expect(usage.choices).toEqual([]);
      expect(usage.usage).toEqual({ prompt_tokens: 73, completion_tokens: 13, total_tokens: 86 });
    }
  });

  it('turns a tool plan and a streamed tool call into reasoning and tool_call deltas', () => {
    const chunks = decode(fixture('stream-tool-call.sse'), 5);
    const reasoning = chunks.map((chunk) => chunk.choices[0]?.delta.reasoning_content ?? '').join('');
    expect(reasoning).toBe('I will search for the weather in Toronto.');
    const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toEqual({ index: 0, id: 'get_weather_nsz5zm3w56q3', type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(calls.map((call) => call.function?.arguments ?? '').join('')).toBe('{"location":"Toronto"}');
    expect(calls.every((call) => call.index === 0)).toBe(true);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 1071, completion_tokens: 28, total_tokens: 1099 });
  });

  it('ends a stream cut before message-end with a finish reason and no usage', () => {
    const decoder = cohereCodec.streamDecoder!('m');
    decoder.push('{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Hi"}}}}');
    const tail = decoder.finish();
    expect(tail).toHaveLength(1);
    expect(tail[0]!.choices[0]!.finish_reason).toBe('stop');
    expect(tail[0]!.usage).toBeUndefined();
  });

  it('numbers two tool calls apart and reports a thinking delta as reasoning', () => {
    const decoder = cohereCodec.streamDecoder!('m');
    const start = (index: number, id: string) =>
      JSON.stringify({
        type: 'tool-call-start',
        index,
        delta: { message: { tool_calls: { id, type: 'function', function: { name: 'f', arguments: '{}' } } } },
      });
    const first = decoder.push(start(0, 'a'));
    const second = decoder.push(start(1, 'b'));
    expect(first.at(-1)!.choices[0]!.delta.tool_calls![0]!.index).toBe(0);
    expect(second[0]!.choices[0]!.delta.tool_calls![0]!.index).toBe(1);
    const thinking = decoder.push('{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"hmm"}}}}');
    expect(thinking[0]!.choices[0]!.delta).toEqual({ reasoning_content: 'hmm' });
  });
});
