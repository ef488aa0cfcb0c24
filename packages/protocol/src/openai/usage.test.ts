import { describe, expect, it } from 'vitest';
import { normaliseUsage } from './usage.js';

describe('normaliseUsage: cached prompt tokens', () => {
  it('reads prompt_tokens_details.cached_tokens (chat) and input_tokens_details.cached_tokens (Responses)', () => {
    expect(normaliseUsage({ prompt_tokens: 1000, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 800, audio_tokens: 0 } })).toEqual({
      promptTokens: 1000,
      completionTokens: 10,
      cachedTokens: 800,
    });
    expect(normaliseUsage({ input_tokens: 500, output_tokens: 5, input_tokens_details: { cached_tokens: 256 } })).toEqual({
      promptTokens: 500,
      completionTokens: 5,
      cachedTokens: 256,
    });
  });

  it('leaves cachedTokens out when none were cached or the count is unusable', () => {
    const plain = { promptTokens: 100, completionTokens: 1 };
    expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 1 })).toEqual(plain);
    expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 0 } })).toEqual(plain);
    expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: null })).toEqual(plain);
    expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: -5 } })).toEqual(plain);
    expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: '50' } })).toEqual(plain);
    expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: [50] })).toEqual(plain);
  });

  it('never counts more cached tokens than prompt tokens', () => {
    expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 900 } })).toEqual({
      promptTokens: 100,
      completionTokens: 1,
      cachedTokens: 100,
    });
  });
});
