import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../openai/chat-types.js';
import { anthropicResponseFromCanonical, anthropicResponseToCanonical } from './anthropic-response.js';
import { anthropicUsageToChat, chatUsageToAnthropic } from './anthropic-usage.js';
import { plainResponse, thinkingResponse, toolUseResponse } from './__fixtures__/anthropic-messages.js';

describe('anthropicResponseToCanonical', () => {
  it('turns the documented plain answer into a chat completion', () => {
    const completion = anthropicResponseToCanonical(plainResponse, 'asked-model');
    expect(completion).toMatchObject({
      id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
      object: 'chat.completion',
      model: 'claude-3-7-sonnet-20250219',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi! My name is Claude.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 2095, completion_tokens: 503, total_tokens: 2598 },
    });
  });

  it('carries tool calls and thinking', () => {
    const tools = anthropicResponseToCanonical(toolUseResponse, 'm');
    expect(tools.choices[0]?.finish_reason).toBe('tool_calls');
    expect(tools.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
      },
    ]);
    const thinking = anthropicResponseToCanonical(thinkingResponse, 'm');
    expect(thinking.choices[0]?.message).toEqual({
      role: 'assistant',
      content: 'Based on my analysis...',
      reasoning_content: 'Let me analyze this step by step...',
    });
  });

  it('maps every stop reason', () => {
    const finish = (stop_reason: string) => anthropicResponseToCanonical({ ...plainResponse, stop_reason }, 'm').choices[0]?.finish_reason;
    expect(['end_turn', 'stop_sequence', 'pause_turn', 'max_tokens', 'tool_use', 'refusal'].map(finish)).toEqual([
      'stop',
      'stop',
      'stop',
      'length',
      'tool_calls',
      'content_filter',
    ]);
  });
});

describe('usage', () => {
  it('adds cache reads and writes into prompt_tokens and names them in the details', () => {
    expect(anthropicUsageToChat({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 50 })).toEqual({
      prompt_tokens: 160,
      completion_tokens: 5,
      total_tokens: 165,
      prompt_tokens_details: { cached_tokens: 100, cached_creation_tokens: 50 },
    });
    expect(anthropicUsageToChat({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: null })).toEqual({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
    });
    expect(anthropicUsageToChat({ input_tokens: 10, output_tokens: 50, output_tokens_details: { thinking_tokens: 30 } }).completion_tokens_details).toEqual({
      reasoning_tokens: 30,
    });
  });

  it('names the writes kept for an hour (cache_creation.ephemeral_1h_input_tokens), never more than the writes', () => {
    const usage = {
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 500,
      cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 300 },
    };
    expect(anthropicUsageToChat(usage).prompt_tokens_details).toEqual({ cached_tokens: 0, cached_creation_tokens: 500, cached_creation_1h_tokens: 300 });
    const fiveMinutes = { ...usage, cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 0 } };
    expect(anthropicUsageToChat(fiveMinutes).prompt_tokens_details).toEqual({ cached_tokens: 0, cached_creation_tokens: 500 });
    const overstated = { ...usage, cache_creation: { ephemeral_1h_input_tokens: 900 } };
    expect(anthropicUsageToChat(overstated).prompt_tokens_details?.cached_creation_1h_tokens).toBe(500);
  });

  it('takes them back out for an Anthropic client', () => {
    expect(
      chatUsageToAnthropic({
        prompt_tokens: 160,
        completion_tokens: 5,
        total_tokens: 165,
        prompt_tokens_details: { cached_tokens: 100, cached_creation_tokens: 50 },
      }),
    ).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 50,
    });
  });
});

describe('anthropicResponseFromCanonical', () => {
  const completion: ChatCompletion = {
    id: 'chatcmpl-abc',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Checking.',
          reasoning_content: 'think first',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } },
            { id: 'call_2', type: 'function', function: { name: 'broken', arguments: '{"loc' } },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37, prompt_tokens_details: { cached_tokens: 20 } },
  };

  it('builds an Anthropic Message with thinking, text and tool_use blocks', () => {
    expect(anthropicResponseFromCanonical(completion)).toEqual({
      id: 'msg_chatcmpl-abc',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o',
      content: [
        { type: 'thinking', thinking: 'think first', signature: '' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'Oslo' } },
        { type: 'tool_use', id: 'call_2', name: 'broken', input: {} },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 7, cache_read_input_tokens: 20, cache_creation_input_tokens: 0 },
    });
  });

  it('round-trips the documented answers (Anthropic → canonical → Anthropic)', () => {
    for (const fixture of [plainResponse, toolUseResponse]) {
      const back = anthropicResponseFromCanonical(anthropicResponseToCanonical(fixture, 'm'));
      expect(back).toEqual({ ...fixture, usage: { ...fixture.usage, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } });
    }
    const thinking = anthropicResponseFromCanonical(anthropicResponseToCanonical(thinkingResponse, 'm'));
    expect(thinking.content).toEqual([{ ...thinkingResponse.content[0], signature: '' }, thinkingResponse.content[1]]);
  });
});
