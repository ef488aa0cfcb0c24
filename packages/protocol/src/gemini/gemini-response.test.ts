import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../openai/chat-types.js';
import { geminiCodec } from './gemini-codec.js';
import { chatResponseToGemini, geminiResponseToChat } from './gemini-response.js';
import { chatUsageToGemini, geminiUsageToChat } from './gemini-usage.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

describe('geminiResponseToChat', () => {
  it('reads the documented text answer', () => {
    const completion = geminiResponseToChat(fixture('text-response.json'), 'gemini-2.5-flash');
    expect(completion).toMatchObject({
      id: 'mS1yaN3GHKbZz7IPkqTYyQk',
      object: 'chat.completion',
      model: 'gemini-2.5-flash',
      choices: [{ index: 0, message: { role: 'assistant', content: 'AI learns patterns from data to make predictions or decisions.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 8, completion_tokens: 12, total_tokens: 20 },
    });
    expect(completion.usage).not.toHaveProperty('prompt_tokens_details');
  });

  it('reads a function call as tool_calls with a deterministic id and finish reason tool_calls', () => {
    const completion = geminiResponseToChat(fixture('function-call-response.json'), 'gemini-2.5-flash');
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_fc-resp-1_0',
              type: 'function',
              function: { name: 'schedule_meeting', arguments: '{"attendees":["Bob","Alice"],"date":"2025-03-27","time":"10:00","topic":"Q3 planning"}' },
            },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ]);
  });

  it('reads thought parts as reasoning_content and counts thoughts as output, cached tokens inside the prompt', () => {
    const completion = geminiResponseToChat(fixture('thinking-response.json'), 'gemini-2.5-pro');
    expect(completion.choices[0]!.message).toEqual({
      role: 'assistant',
      content: 'There are 4 prime numbers below 10: 2, 3, 5 and 7.',
      reasoning_content: '**Working out the count**\n\nI need the number of prime numbers below 10: 2, 3, 5 and 7.',
    });
    expect(completion.usage).toEqual({
      prompt_tokens: 12,
      completion_tokens: 386,
      total_tokens: 398,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 364 },
    });
  });

  it('answers a blocked prompt with one empty choice filtered as content_filter', () => {
    const completion = geminiResponseToChat(fixture('blocked-response.json'), 'gemini-2.5-flash');
    expect(completion.choices).toEqual([{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter' }]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 15, completion_tokens: 0 });
  });

  it('maps each finish reason', () => {
    const reason = (finishReason: string) =>
      geminiResponseToChat({ candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason }] }, 'm').choices[0]!.finish_reason;
    expect(
      ['STOP', 'MAX_TOKENS', 'SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'MALFORMED_FUNCTION_CALL', 'OTHER'].map(reason),
    ).toEqual(['stop', 'length', 'content_filter', 'content_filter', 'content_filter', 'content_filter', 'content_filter', 'content_filter', 'stop', 'stop']);
  });
});

describe('usage', () => {
  it('adds tool-use prompt tokens to the prompt and falls back to the total for the output', () => {
    expect(geminiUsageToChat({ promptTokenCount: 10, toolUsePromptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 18 })).toEqual({
      prompt_tokens: 15,
      completion_tokens: 3,
      total_tokens: 18,
    });
    expect(geminiUsageToChat({ promptTokenCount: 10, totalTokenCount: 14 })).toEqual({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
    expect(geminiUsageToChat(undefined)).toBeUndefined();
  });

  it('goes back to usageMetadata with the reasoning share as thoughts', () => {
    expect(
      chatUsageToGemini({
        prompt_tokens: 12,
        completion_tokens: 386,
        total_tokens: 398,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 364 },
      }),
    ).toEqual({ promptTokenCount: 12, candidatesTokenCount: 22, thoughtsTokenCount: 364, cachedContentTokenCount: 4, totalTokenCount: 398 });
  });
});

describe('chatResponseToGemini', () => {
  const completion: ChatCompletion = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Calling.',
          reasoning_content: 'Need data.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        finish_reason: 'tool_calls',
      },
      { index: 1, message: { role: 'assistant', content: 'Cut' }, finish_reason: 'length' },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17, completion_tokens_details: { reasoning_tokens: 2 } },
  };

  it('writes candidates with thought, text and call parts, finish reasons and usage', () => {
    expect(chatResponseToGemini(completion)).toEqual({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ text: 'Need data.', thought: true }, { text: 'Calling.' }, { functionCall: { id: 'call_1', name: 'f', args: { a: 1 } } }],
          },
          index: 0,
          finishReason: 'STOP',
        },
        { content: { role: 'model', parts: [{ text: 'Cut' }] }, index: 1, finishReason: 'MAX_TOKENS' },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 2, totalTokenCount: 17 },
      modelVersion: 'gpt-4o',
      responseId: 'chatcmpl-1',
    });
  });

  it('round-trips: Gemini → canonical → Gemini keeps text, thoughts, calls and usage', () => {
    for (const name of ['text-response.json', 'thinking-response.json', 'function-call-response.json']) {
      const original = fixture(name);
      const back = geminiCodec.responseFromCanonical!(geminiCodec.responseToCanonical!(original, 'm'));
      const again = geminiResponseToChat(back, 'm');
      expect(again.choices).toEqual(geminiResponseToChat(original, 'm').choices);
      expect(again.usage).toEqual(geminiResponseToChat(original, 'm').usage);
    }
  });
});
