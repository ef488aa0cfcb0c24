import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../openai/chat-types.js';
import { responsesResponseFromChat } from './responses-response.js';

const completion = (message: ChatCompletion['choices'][number]['message'], finish: ChatCompletion['choices'][number]['finish_reason']): ChatCompletion => ({
  id: 'chatcmpl-abc',
  object: 'chat.completion',
  created: 1_764_000_000,
  model: 'claude-sonnet-4',
  choices: [{ index: 0, message, finish_reason: finish }],
  usage: {
    prompt_tokens: 120,
    completion_tokens: 40,
    total_tokens: 160,
    prompt_tokens_details: { cached_tokens: 100 },
    completion_tokens_details: { reasoning_tokens: 25 },
  },
});

describe('a chat completion as a Responses answer', () => {
  it('gives thinking, text and tool calls as reasoning, message and function_call items, with the usage in Responses terms', () => {
    const answer = responsesResponseFromChat(
      completion(
        {
          role: 'assistant',
          content: 'Reading the file.',
          reasoning_content: 'The user wants a.txt.',
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'shell', arguments: '{"command":["cat","a.txt"]}' } }],
        },
        'tool_calls',
      ),
    );
    expect(answer).toEqual({
      id: 'resp_abc',
      object: 'response',
      created_at: 1_764_000_000,
      status: 'completed',
      incomplete_details: null,
      error: null,
      model: 'claude-sonnet-4',
      output: [
        { type: 'reasoning', id: 'rs_abc', summary: [{ type: 'summary_text', text: 'The user wants a.txt.' }] },
        {
          type: 'message',
          id: 'msg_abc',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Reading the file.', annotations: [] }],
        },
        { type: 'function_call', id: 'fc_toolu_1', call_id: 'toolu_1', name: 'shell', arguments: '{"command":["cat","a.txt"]}', status: 'completed' },
      ],
      output_text: 'Reading the file.',
      usage: {
        input_tokens: 120,
        input_tokens_details: { cached_tokens: 100 },
        output_tokens: 40,
        output_tokens_details: { reasoning_tokens: 25 },
        total_tokens: 160,
      },
    });
  });

  it('reports an answer cut at its limit as incomplete (max_output_tokens), and a bare tool call with no message item', () => {
    const cut = responsesResponseFromChat(completion({ role: 'assistant', content: 'Once upon a' }, 'length'));
    expect(cut).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', status: 'incomplete' }],
    });
    const call = responsesResponseFromChat(
      completion({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, 'tool_calls'),
    );
    expect(call.output.map((item) => item.type)).toEqual(['function_call']);
    expect(call.output_text).toBe('');
  });
});
