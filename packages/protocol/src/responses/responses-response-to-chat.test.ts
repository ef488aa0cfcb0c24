import { describe, expect, it } from 'vitest';
import { responsesResponseToChat, responsesUsageToChat } from './responses-response-to-chat.js';
import { incompleteAnswer, parallelCallsAnswer, reasoningAnswer, refusalAnswer, textAnswer } from './__fixtures__/responses-answers.js';

describe('a Responses answer as a chat completion', () => {
  it('turns the documented text answer into one choice with its id, created time, model and usage', () => {
    expect(responsesResponseToChat(textAnswer, 'asked-model')).toEqual({
      id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
      object: 'chat.completion',
      created: 1741476542,
      model: 'gpt-4.1-2025-04-14',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'In a peaceful grove beneath a silver moon, a unicorn named Lumina discovered a hidden pool that reflected the stars.',
          },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 36,
        completion_tokens: 87,
        total_tokens: 123,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });

  it('gives parallel function_call items as tool calls in order, their call_id as the id, content null, finish tool_calls', () => {
    const completion = responsesResponseToChat(parallelCallsAnswer, 'm');
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_12345xyz', type: 'function', function: { name: 'get_weather', arguments: '{"latitude":48.8566,"longitude":2.3522}' } },
            { id: 'call_67890abc', type: 'function', function: { name: 'get_weather', arguments: '{"latitude":4.711,"longitude":-74.0721}' } },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ]);
  });

  it('gives the reasoning summary parts as reasoning_content, and cached and reasoning counts in the chat details', () => {
    const completion = responsesResponseToChat(reasoningAnswer, 'm');
    expect(completion.choices[0]?.message).toEqual({
      role: 'assistant',
      content: 'The capital of France is Paris.',
      reasoning_content:
        '**Answering a simple question**\n\nThe capital of France is Paris.\n\n**Checking the question**\n\nNothing tricky here; answer plainly.',
    });
    expect(completion.usage).toEqual({
      prompt_tokens: 1520,
      completion_tokens: 644,
      total_tokens: 2164,
      prompt_tokens_details: { cached_tokens: 1280 },
      completion_tokens_details: { reasoning_tokens: 512 },
    });
  });

  it('reads raw reasoning_text content when a reasoning item has no summary (open-weight models served through Responses)', () => {
    const answer = {
      ...textAnswer,
      output: [{ type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'Think first.' }] }, ...textAnswer.output],
    };
    expect(responsesResponseToChat(answer, 'm').choices[0]?.message.reasoning_content).toBe('Think first.');
  });

  it('finishes with length at max_output_tokens, content_filter when filtered, and carries a refusal part as refusal', () => {
    const cut = responsesResponseToChat(incompleteAnswer, 'm');
    expect(cut.choices[0]).toEqual({ index: 0, message: { role: 'assistant', content: 'Once upon a time, in a land far' }, finish_reason: 'length' });
    // A call cut at the limit is still `length`: its arguments are broken.
    const cutCall = responsesResponseToChat({ ...parallelCallsAnswer, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }, 'm');
    expect(cutCall.choices[0]?.finish_reason).toBe('length');
    const filtered = responsesResponseToChat({ ...incompleteAnswer, incomplete_details: { reason: 'content_filter' } }, 'm');
    expect(filtered.choices[0]?.finish_reason).toBe('content_filter');
    const refusal = responsesResponseToChat(refusalAnswer, 'm');
    expect(refusal.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: null, refusal: "I'm sorry, I cannot assist with that request." },
      finish_reason: 'stop',
    });
  });

  it('names the asked model when the answer does not, skips built-in tool items, and reads no usage from a missing one', () => {
    const completion = responsesResponseToChat(
      {
        id: 'resp_x',
        created_at: 1,
        status: 'completed',
        output: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }, ...textAnswer.output],
      },
      'asked-model',
    );
    expect(completion.model).toBe('asked-model');
    expect(completion.choices[0]?.message.content).toMatch(/^In a peaceful grove/);
    expect(completion).not.toHaveProperty('usage');
  });
});

describe('responsesUsageToChat', () => {
  it('sums a missing total, leaves out details the upstream did not give, and reads nothing from a non-usage', () => {
    expect(responsesUsageToChat({ input_tokens: 10, output_tokens: 5 })).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(responsesUsageToChat({ input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 8 } })).toEqual({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 8 },
    });
    expect(responsesUsageToChat(null)).toBeUndefined();
    expect(responsesUsageToChat({ total_tokens: 3 })).toBeUndefined();
  });
});
