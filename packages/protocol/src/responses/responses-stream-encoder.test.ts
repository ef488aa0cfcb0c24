import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '../openai/chat-types.js';
import { ResponsesStreamEncoder } from './responses-stream-encoder.js';

const chunk = (delta: ChatChunk['choices'][number]['delta'], finish: ChatChunk['choices'][number]['finish_reason'] = null): ChatChunk => ({
  id: 'chatcmpl-s1',
  object: 'chat.completion.chunk',
  created: 1_764_000_000,
  model: 'claude-sonnet-4',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usageChunk: ChatChunk = {
  id: 'chatcmpl-s1',
  object: 'chat.completion.chunk',
  created: 1_764_000_000,
  model: 'claude-sonnet-4',
  choices: [],
  usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70, completion_tokens_details: { reasoning_tokens: 5 } },
};

/** The events of an SSE text, each as its parsed data (which repeats the event's name as type). */
function events(text: string): Record<string, any>[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const [eventLine, dataLine] = block.split('\n');
      const data = JSON.parse(dataLine!.slice('data: '.length));
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });
}

describe('chat chunks as a Responses stream', () => {
  it('streams thinking, text and a tool call as items, then response.completed with the whole response and its usage', () => {
    const encoder = new ResponsesStreamEncoder('claude-sonnet-4');
    let text = '';
    text += encoder.push(chunk({ role: 'assistant', reasoning_content: 'Look at ' }));
    text += encoder.push(chunk({ reasoning_content: 'the file.' }));
    text += encoder.push(chunk({ content: 'Reading ' }));
    text += encoder.push(chunk({ content: 'it.' }));
    text += encoder.push(chunk({ tool_calls: [{ index: 0, id: 'toolu_1', type: 'function', function: { name: 'shell', arguments: '' } }] }));
    text += encoder.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":' } }] }));
    text += encoder.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '["cat","a.txt"]}' } }] }));
    text += encoder.push(chunk({}, 'tool_calls'));
    text += encoder.push(usageChunk);
    text += encoder.finish();
    const all = events(text);
    expect(all.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(all.map((event) => event.sequence_number)).toEqual(all.map((_, index) => index));
    expect(all[0]!.response).toMatchObject({ id: 'resp_s1', status: 'in_progress', output: [], usage: null });
    expect(all.find((event) => event.type === 'response.output_text.done')).toMatchObject({ output_index: 1, text: 'Reading it.' });
    const completed = all.at(-1)!.response;
    expect(completed).toMatchObject({
      status: 'completed',
      output_text: 'Reading it.',
      usage: { input_tokens: 50, output_tokens: 20, output_tokens_details: { reasoning_tokens: 5 }, total_tokens: 70 },
    });
    expect(completed.output).toEqual([
      { type: 'reasoning', id: 'rs_s1_0', summary: [{ type: 'summary_text', text: 'Look at the file.' }] },
      { type: 'message', id: 'msg_s1_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Reading it.', annotations: [] }] },
      { type: 'function_call', id: 'fc_toolu_1', call_id: 'toolu_1', name: 'shell', arguments: '{"command":["cat","a.txt"]}', status: 'completed' },
    ]);
  });

  it('ends a stream cut at its limit with response.incomplete, and a failed one with response.failed and nothing after', () => {
    const cut = new ResponsesStreamEncoder('m');
    const cutEvents = events(cut.push(chunk({ content: 'Once' })) + cut.push(chunk({}, 'length')) + cut.finish());
    expect(cutEvents.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });

    const failing = new ResponsesStreamEncoder('m');
    const text = failing.push(chunk({ content: 'Half' })) + failing.error('upstream went away', 'upstream_error');
    expect(events(text).at(-1)).toMatchObject({
      type: 'response.failed',
      response: { status: 'failed', error: { code: 'upstream_error', message: 'upstream went away' } },
    });
    expect(failing.push(chunk({ content: 'more' })) + failing.finish()).toBe('');
  });
});
