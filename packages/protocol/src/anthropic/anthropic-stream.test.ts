import { describe, expect, it } from 'vitest';
import type { ChatChunk, ChatFinishReason, ChatUsage } from '../openai/chat-types.js';
import { SseSplitter } from '../sse/sse-splitter.js';
import { AnthropicStreamDecoder } from './anthropic-stream-decoder.js';
import { AnthropicStreamEncoder } from './anthropic-stream-encoder.js';
import { streamErrorTranscript, streamTranscript } from './__fixtures__/anthropic-stream.js';

interface Assembled {
  content: string;
  reasoning: string;
  tools: { id?: string | undefined; name?: string | undefined; arguments: string }[];
  finish: ChatFinishReason | null;
  usage: ChatUsage | null | undefined;
  roles: number;
}

function assemble(chunks: ChatChunk[]): Assembled {
  const result: Assembled = { content: '', reasoning: '', tools: [], finish: null, usage: undefined, roles: 0 };
  for (const chunk of chunks) {
    if (chunk.usage) result.usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.role) result.roles++;
      result.content += choice.delta.content ?? '';
      result.reasoning += choice.delta.reasoning_content ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        const tool = (result.tools[call.index] ??= { arguments: '' });
        if (call.id) tool.id = call.id;
        if (call.function?.name) tool.name = call.function.name;
        tool.arguments += call.function?.arguments ?? '';
      }
      if (choice.finish_reason) result.finish = choice.finish_reason;
    }
  }
  return result;
}

/** Feeds SSE text through the splitter in pieces cut at `cuts` (byte offsets), as a network would. */
function decodeText(text: string, cuts: number[], decoder = new AnthropicStreamDecoder('asked')): { chunks: ChatChunk[]; decoder: AnthropicStreamDecoder } {
  const bytes = Buffer.from(text);
  const splitter = new SseSplitter();
  const chunks: ChatChunk[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    for (const event of splitter.push(bytes.subarray(from, cut))) chunks.push(...decoder.push(event.data, event.event));
    from = cut;
  }
  chunks.push(...decoder.finish());
  return { chunks, decoder };
}

describe('AnthropicStreamDecoder', () => {
  it('decodes the documented transcript cut at awkward points into text, thinking, tool arguments, finish reason and usage', () => {
    const length = Buffer.byteLength(streamTranscript);
    for (const cuts of [[], [1, 7, 50, 51, 300, 301, 302, 900], Array.from({ length: Math.floor(length / 13) }, (_, index) => (index + 1) * 13)]) {
      const { chunks } = decodeText(streamTranscript, cuts);
      const result = assemble(chunks);
      expect(result.content).toBe("Okay, let's check the weather for San Francisco, CA:");
      expect(result.reasoning).toBe('The user wants the weather in San Francisco. I should call get_weather.');
      expect(result.tools).toEqual([
        { id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', arguments: '{"location": "San Francisco, CA", "unit": "fahrenheit"}' },
      ]);
      expect(JSON.parse(result.tools[0]?.arguments ?? '')).toEqual({ location: 'San Francisco, CA', unit: 'fahrenheit' });
      expect(result.finish).toBe('tool_calls');
      expect(result.usage).toEqual({
        prompt_tokens: 3544,
        completion_tokens: 89,
        total_tokens: 3633,
        prompt_tokens_details: { cached_tokens: 2048, cached_creation_tokens: 1024 },
      });
      expect(result.roles).toBe(1);
      expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
      expect(chunks.every((chunk) => chunk.id === 'msg_014p7gG3wDgGV9EUtLvnow3U' && chunk.model === 'claude-3-7-sonnet-20250219')).toBe(true);
      // The usage chunk comes last, with no choices, as OpenAI's include_usage does.
      expect(chunks.at(-1)?.choices).toEqual([]);
    }
  });

  it('takes the latest counts from message_delta, and owes usage at finish() when message_stop never came', () => {
    const decoder = new AnthropicStreamDecoder('m');
    decoder.push('{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5,"output_tokens":1}}}');
    decoder.push('{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"input_tokens":7,"cache_read_input_tokens":3,"output_tokens":40}}');
    const owed = decoder.finish();
    expect(owed).toHaveLength(1);
    expect(owed[0]?.usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 40,
      total_tokens: 50,
      prompt_tokens_details: { cached_tokens: 3, cached_creation_tokens: 0 },
    });
    expect(decoder.finish()).toEqual([]);
  });

  it('keeps the cache writes’ split by lifetime from message_start', () => {
    const decoder = new AnthropicStreamDecoder('m');
    decoder.push(
      '{"type":"message_start","message":{"id":"msg_2","usage":{"input_tokens":4,"cache_creation_input_tokens":900,"cache_read_input_tokens":100,' +
        '"cache_creation":{"ephemeral_5m_input_tokens":300,"ephemeral_1h_input_tokens":600},"output_tokens":1}}}',
    );
    decoder.push('{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":12}}');
    expect(decoder.push('{"type":"message_stop"}').at(-1)?.usage).toEqual({
      prompt_tokens: 1004,
      completion_tokens: 12,
      total_tokens: 1016,
      prompt_tokens_details: { cached_tokens: 100, cached_creation_tokens: 900, cached_creation_1h_tokens: 600 },
    });
  });

  it('reports an error event and ignores ping, unparsable data and unknown events', () => {
    const { chunks, decoder } = decodeText(
      `event: ping\ndata: {"type":"ping"}\n\ndata: not json\n\nevent: x\ndata: {"type":"brand_new"}\n\n${streamErrorTranscript}`,
      [20],
    );
    expect(decoder.error).toEqual({ message: 'Overloaded', type: 'overloaded_error' });
    expect(assemble(chunks).content).toBe('');
  });
});

const chunkOf = (delta: ChatChunk['choices'][number]['delta'], finish: ChatFinishReason | null = null): ChatChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const parseEvents = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => {
      const [eventLine, dataLine] = event.split('\n');
      return { event: eventLine?.slice('event: '.length), data: JSON.parse(dataLine?.slice('data: '.length) ?? '') as Record<string, unknown> };
    });

describe('AnthropicStreamEncoder', () => {
  it('writes the event sequence Anthropic clients expect, holding message_delta until the usage chunk', () => {
    const encoder = new AnthropicStreamEncoder('gpt-4o');
    const usage: ChatUsage = { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21, prompt_tokens_details: { cached_tokens: 2 } };
    let text = encoder.push(chunkOf({ role: 'assistant', content: '' }));
    text += encoder.push(chunkOf({ reasoning_content: 'hm' }));
    text += encoder.push(chunkOf({ content: 'Hel' }));
    text += encoder.push(chunkOf({ content: 'lo' }));
    text += encoder.push(chunkOf({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }] }));
    text += encoder.push(chunkOf({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }));
    text += encoder.push(chunkOf({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }));
    text += encoder.push(chunkOf({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }] }));
    const beforeUsage = encoder.push(chunkOf({}, 'tool_calls'));
    expect(beforeUsage).not.toContain('message_delta');
    text += beforeUsage;
    text += encoder.push({ ...chunkOf({}), choices: [], usage });
    text += encoder.finish();
    const events = parseEvents(text);
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events.every((event) => event.data.type === event.event)).toBe(true);
    expect(events[0]?.data.message).toMatchObject({ id: 'msg_chatcmpl-1', role: 'assistant', model: 'gpt-4o', content: [] });
    expect(events[12]?.data).toEqual({ type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'call_b', name: 'g', input: {} } });
    expect(events[15]?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 10, output_tokens: 9, cache_read_input_tokens: 2, cache_creation_input_tokens: 0 },
    });
  });

  it('closes a stream with no usage at finish(), and writes an error event on failure', () => {
    const encoder = new AnthropicStreamEncoder('m');
    const text = encoder.push(chunkOf({ content: 'x' }, 'length')) + encoder.finish();
    expect(parseEvents(text).map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(parseEvents(text)[4]?.data.delta).toEqual({ stop_reason: 'max_tokens', stop_sequence: null });
    const failing = new AnthropicStreamEncoder('m');
    failing.push(chunkOf({ content: 'x' }));
    expect(failing.error('Overloaded', 'overloaded_error')).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
    expect(failing.finish()).toBe('');
  });

  it('round trip: random canonical streams, encoded then decoded, keep their content, thinking, tool calls, finish and usage', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;
    for (let run = 0; run < 200; run++) {
      const chunks: ChatChunk[] = [];
      let toolCount = 0;
      let previous = '';
      // A tool call's argument pieces follow its start with nothing in between, as upstreams send them.
      for (let step = 0, steps = 1 + Math.floor(random() * 12); step < steps; step++) {
        const kind = pick(previous.startsWith('tool') ? ['text', 'thinking', 'tool-new', 'tool-more'] : ['text', 'thinking', 'tool-new']);
        previous = kind;
        const piece = pick(['a', 'ß ', '{"k":', ' "é"}', '\n', 'quote"']);
        if (kind === 'text') chunks.push(chunkOf({ content: piece }));
        else if (kind === 'thinking') chunks.push(chunkOf({ reasoning_content: piece }));
        else if (kind === 'tool-new' || toolCount === 0) {
          chunks.push(
            chunkOf({ tool_calls: [{ index: toolCount, id: `call_${toolCount}`, type: 'function', function: { name: `fn${toolCount}`, arguments: piece } }] }),
          );
          toolCount++;
        } else chunks.push(chunkOf({ tool_calls: [{ index: toolCount - 1, function: { arguments: piece } }] }));
      }
      const finish = pick<ChatFinishReason>(['stop', 'length', 'tool_calls', 'content_filter']);
      chunks.push(chunkOf({}, finish));
      const usage: ChatUsage = {
        prompt_tokens: 50 + run,
        completion_tokens: run,
        total_tokens: 50 + 2 * run,
        prompt_tokens_details: { cached_tokens: 1 + (run % 7), cached_creation_tokens: run % 3 },
      };
      chunks.push({ ...chunkOf({}), choices: [], usage });

      const encoder = new AnthropicStreamEncoder('gpt-4o');
      const text = chunks.map((chunk) => encoder.push(chunk)).join('') + encoder.finish();
      const cuts = [Math.floor(random() * text.length), Math.floor(random() * text.length)].sort((a, b) => a - b);
      const decoded = assemble(
        decodeText(
          text,
          cuts.map((cut) => Buffer.byteLength(text.slice(0, cut))),
        ).chunks,
      );
      const expected = assemble(chunks);
      expect(decoded.content).toBe(expected.content);
      expect(decoded.reasoning).toBe(expected.reasoning);
      expect(decoded.tools).toEqual(expected.tools);
      expect(decoded.finish).toBe(finish);
      expect(decoded.usage).toEqual(usage);
    }
  });
});
