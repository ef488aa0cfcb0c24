import { describe, expect, it } from 'vitest';
import type { ChatChunk, ChatFinishReason, ChatUsage } from '../openai/chat-types.js';
import { SseSplitter } from '../sse/sse-splitter.js';
import { ResponsesStreamDecoder } from './responses-stream-decoder.js';
import { ResponsesStreamEncoder } from './responses-stream-encoder.js';
import {
  errorEvents,
  failedEvents,
  incompleteEvents,
  parallelCallsEvents,
  reasoningTextEvents,
  transcript,
  wholeArgumentsEvents,
} from './__fixtures__/responses-stream.js';

interface Assembled {
  content: string;
  refusal: string;
  reasoning: string;
  tools: { id?: string | undefined; name?: string | undefined; arguments: string }[];
  finish: ChatFinishReason | null;
  finishes: number;
  usage: ChatUsage | null | undefined;
  roles: number;
}

/** The chunks as a chat client assembles them. */
function assemble(chunks: ChatChunk[]): Assembled {
  const result: Assembled = { content: '', refusal: '', reasoning: '', tools: [], finish: null, finishes: 0, usage: undefined, roles: 0 };
  for (const chunk of chunks) {
    if (chunk.usage) result.usage = chunk.usage;
    for (const choice of chunk.choices) {
      const delta = choice.delta as typeof choice.delta & { refusal?: string };
      if (delta.role) result.roles++;
      result.content += delta.content ?? '';
      result.refusal += delta.refusal ?? '';
      result.reasoning += delta.reasoning_content ?? '';
      for (const call of delta.tool_calls ?? []) {
        const tool = (result.tools[call.index] ??= { arguments: '' });
        if (call.id) tool.id = call.id;
        if (call.function?.name) tool.name = call.function.name;
        tool.arguments += call.function?.arguments ?? '';
      }
      if (choice.finish_reason) {
        result.finish = choice.finish_reason;
        result.finishes++;
      }
    }
  }
  return result;
}

/** Feeds SSE text through the splitter in pieces cut at `cuts` (byte offsets), as a network would. */
function decodeText(
  text: string,
  cuts: number[] = [],
  decoder = new ResponsesStreamDecoder('asked'),
): { chunks: ChatChunk[]; decoder: ResponsesStreamDecoder } {
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

describe('ResponsesStreamDecoder', () => {
  it('decodes thinking and text, cut at awkward points, into reasoning_content and content deltas, a finish chunk and the usage chunk', () => {
    const text = transcript(reasoningTextEvents);
    const length = Buffer.byteLength(text);
    for (const cuts of [[], [1, 7, 50, 51, 300, 301, 302, 900], Array.from({ length: Math.floor(length / 13) }, (_, index) => (index + 1) * 13)]) {
      const { chunks } = decodeText(text, cuts);
      const result = assemble(chunks);
      expect(result.reasoning).toBe('**Planning the answer**\n\nThe user wants a haiku.\n\n**Counting syllables**\n\nFive, seven, five.');
      expect(result.content).toBe('Quiet gateway hums');
      expect(result.tools).toEqual([]);
      expect(result.finish).toBe('stop');
      expect(result.finishes).toBe(1);
      expect(result.usage).toEqual({
        prompt_tokens: 2048,
        completion_tokens: 320,
        total_tokens: 2368,
        prompt_tokens_details: { cached_tokens: 1536 },
        completion_tokens_details: { reasoning_tokens: 256 },
      });
      expect(result.roles).toBe(1);
      expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
      expect(chunks.every((chunk) => chunk.id === 'resp_68c1a2b2a3b48190f0e1d2c3b4a59687' && chunk.model === 'o4-mini-2025-04-16')).toBe(true);
      expect(chunks.every((chunk) => chunk.created === 1756308000 && chunk.object === 'chat.completion.chunk')).toBe(true);
      // The usage chunk comes last, with no choices, as OpenAI's include_usage does.
      expect(chunks.at(-1)?.choices).toEqual([]);
      // One delta per upstream delta: nothing is sent twice from the .done events.
      expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content)).toHaveLength(3);
      expect(chunks.filter((chunk) => chunk.choices[0]?.delta.reasoning_content)).toHaveLength(3);
    }
  });

  it('numbers parallel function calls in order, with id and name on each first delta and the arguments as deltas', () => {
    const { chunks, decoder } = decodeText(transcript(parallelCallsEvents));
    const result = assemble(chunks);
    expect(result.tools).toEqual([
      { id: 'call_12345xyz', name: 'get_weather', arguments: '{"latitude":48.8566,"longitude":2.3522}' },
      { id: 'call_67890abc', name: 'get_weather', arguments: '{"latitude":4.711,"longitude":-74.0721}' },
    ]);
    expect(result.finish).toBe('tool_calls');
    expect(result.content).toBe('');
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas).toEqual([
      { index: 0, id: 'call_12345xyz', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 0, function: { arguments: '{"latitude":48.8566,' } },
      { index: 0, function: { arguments: '"longitude":2.3522}' } },
      { index: 1, id: 'call_67890abc', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 1, function: { arguments: '{"latitude":4.711,' } },
      { index: 1, function: { arguments: '"longitude":-74.0721}' } },
    ]);
    expect(decoder.usageSoFar).toEqual({
      prompt_tokens: 291,
      completion_tokens: 46,
      total_tokens: 337,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('sends the arguments from output_item.done when the upstream streamed none', () => {
    const { chunks } = decodeText(transcript(wholeArgumentsEvents));
    expect(assemble(chunks).tools).toEqual([{ id: 'call_12345xyz', name: 'get_weather', arguments: '{"latitude":48.8566,"longitude":2.3522}' }]);
    expect(chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])).toHaveLength(2);
  });

  it('reads events without SSE event names the same way (dispatch on the JSON type), and a stray [DONE]', () => {
    const named = assemble(decodeText(transcript(parallelCallsEvents)).chunks);
    const unnamed = assemble(decodeText(`${transcript(parallelCallsEvents, false)}data: [DONE]\n\n`).chunks);
    expect(unnamed).toEqual(named);
  });

  it('finishes a response cut at max_output_tokens with length, and still gives its usage', () => {
    const result = assemble(decodeText(transcript(incompleteEvents)).chunks);
    expect(result.content).toBe('Once upon a time, in a land far');
    expect(result.finish).toBe('length');
    expect(result.usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 16, total_tokens: 30 });
  });

  it('sets error from response.failed (the response error code and message) and writes nothing more', () => {
    const { chunks, decoder } = decodeText(transcript(failedEvents));
    expect(decoder.error).toEqual({ message: 'The model failed to generate a response.', type: 'server_error' });
    const result = assemble(chunks);
    expect(result.content).toBe('Half an answer');
    expect(result.finish).toBeNull();
    expect(result.usage).toBeUndefined();
    expect(decoder.push(JSON.stringify({ type: 'response.output_text.delta', output_index: 0, delta: 'more' }))).toEqual([]);
  });

  it('sets error from an error event, flat as OpenAI sends it or nested as some compatible upstreams do', () => {
    const { decoder } = decodeText(transcript(errorEvents));
    expect(decoder.error).toEqual({ message: 'Rate limit reached for gpt-4.1 on tokens per min (TPM).', type: 'rate_limit_exceeded' });
    const nested = new ResponsesStreamDecoder('m');
    nested.push(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'bad input' } }));
    expect(nested.error).toEqual({ message: 'bad input', type: 'invalid_request_error' });
  });

  it('ignores unknown events, and takes items that were never streamed from the final response', () => {
    const decoder = new ResponsesStreamDecoder('m');
    expect(decoder.push(JSON.stringify({ type: 'response.web_search_call.searching', output_index: 0, item_id: 'ws_1' }))).toEqual([]);
    expect(decoder.push('{"type":"response.queued"}')).toEqual([]);
    const chunks = decoder.push(
      JSON.stringify({
        type: 'response.completed',
        response: {
          id: 'resp_1',
          created_at: 5,
          model: 'gpt-5',
          status: 'completed',
          output: [
            { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Hmm.' }] },
            { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Whole.' }] },
            { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{"a":1}' },
          ],
          usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
        },
      }),
    );
    const result = assemble(chunks);
    expect(result).toMatchObject({ reasoning: 'Hmm.', content: 'Whole.', finish: 'tool_calls', roles: 1 });
    expect(result.tools).toEqual([{ id: 'call_1', name: 'f', arguments: '{"a":1}' }]);
    expect(result.usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(decoder.finish()).toEqual([]);
  });

  it('streams a refusal as delta.refusal, as OpenAI chat does', () => {
    const decoder = new ResponsesStreamDecoder('m');
    const chunks = decoder.push(JSON.stringify({ type: 'response.refusal.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'I cannot.' }));
    expect(assemble(chunks)).toMatchObject({ refusal: 'I cannot.', content: '' });
  });

  it('writes no finish and no usage at finish() for a stream cut before its final response', () => {
    const decoder = new ResponsesStreamDecoder('m');
    decoder.push(JSON.stringify({ type: 'response.created', response: { id: 'resp_2', status: 'in_progress', usage: null } }));
    decoder.push(JSON.stringify({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Par' }));
    expect(decoder.usageSoFar).toBeUndefined();
    expect(decoder.finish()).toEqual([]);
  });

  it('reads back what the inbound Responses encoder writes: chat chunks → Responses events → the same chat turn', () => {
    const chunk = (delta: ChatChunk['choices'][number]['delta'], finish: ChatFinishReason | null = null): ChatChunk => ({
      id: 'chatcmpl-r1',
      object: 'chat.completion.chunk',
      created: 1_764_000_000,
      model: 'claude-sonnet-4',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const encoder = new ResponsesStreamEncoder('claude-sonnet-4');
    const usage: ChatUsage = {
      prompt_tokens: 50,
      completion_tokens: 20,
      total_tokens: 70,
      prompt_tokens_details: { cached_tokens: 30 },
      completion_tokens_details: { reasoning_tokens: 5 },
    };
    const text = [
      encoder.push(chunk({ role: 'assistant', reasoning_content: 'Look ' })),
      encoder.push(chunk({ reasoning_content: 'first.' })),
      encoder.push(chunk({ content: 'Two calls.' })),
      encoder.push(chunk({ tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'f', arguments: '{"x":' } }] })),
      encoder.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] })),
      encoder.push(chunk({ tool_calls: [{ index: 1, id: 'toolu_b', type: 'function', function: { name: 'g', arguments: '{}' } }] })),
      encoder.push(chunk({}, 'tool_calls')),
      encoder.push({ ...chunk({}), choices: [], usage }),
      encoder.finish(),
    ].join('');
    const result = assemble(decodeText(text).chunks);
    expect(result).toEqual({
      content: 'Two calls.',
      refusal: '',
      reasoning: 'Look first.',
      tools: [
        { id: 'toolu_a', name: 'f', arguments: '{"x":1}' },
        { id: 'toolu_b', name: 'g', arguments: '{}' },
      ],
      finish: 'tool_calls',
      finishes: 1,
      usage,
      roles: 1,
    });
  });
});
