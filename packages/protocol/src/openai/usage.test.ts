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

describe('normaliseUsage: prompt tokens written to the cache', () => {
  it('reads prompt_tokens_details.cached_creation_tokens beside cached_tokens, both shares of the prompt', () => {
    // A Claude answer (input 100, cache read 2000, cache write 300) as the canonical shape carries it.
    expect(normaliseUsage({ prompt_tokens: 2400, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 2000, cached_creation_tokens: 300 } })).toEqual(
      { promptTokens: 2400, completionTokens: 50, cachedTokens: 2000, cacheCreationTokens: 300 },
    );
    expect(normaliseUsage({ prompt_tokens: 400, completion_tokens: 5, prompt_tokens_details: { cached_creation_tokens: 300 } })).toEqual({
      promptTokens: 400,
      completionTokens: 5,
      cacheCreationTokens: 300,
    });
  });

  it('leaves cacheCreationTokens out when zero or unusable', () => {
    const plain = { promptTokens: 100, completionTokens: 1 };
    for (const count of [0, -3, '20', null, Number.NaN]) {
      expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_creation_tokens: count } })).toEqual(plain);
    }
  });

  it('clamps reads and writes together to the prompt: reads first, writes up to what is left', () => {
    expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 70, cached_creation_tokens: 50 } })).toEqual({
      promptTokens: 100,
      completionTokens: 1,
      cachedTokens: 70,
      cacheCreationTokens: 30,
    });
    expect(normaliseUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 100, cached_creation_tokens: 50 } })).toEqual({
      promptTokens: 100,
      completionTokens: 1,
      cachedTokens: 100,
    });
  });

  it('reads the one-hour share of the writes, within them', () => {
    const details = { cached_tokens: 100, cached_creation_tokens: 900, cached_creation_1h_tokens: 600 };
    expect(normaliseUsage({ prompt_tokens: 1004, completion_tokens: 12, prompt_tokens_details: details })).toEqual({
      promptTokens: 1004,
      completionTokens: 12,
      cachedTokens: 100,
      cacheCreationTokens: 900,
      cacheCreation1hTokens: 600,
    });
    // Writes clamped to the prompt clamp their hour's share with them; no writes, no share.
    expect(
      normaliseUsage({
        prompt_tokens: 500,
        completion_tokens: 1,
        prompt_tokens_details: { cached_tokens: 100, cached_creation_tokens: 900, cached_creation_1h_tokens: 600 },
      }),
    ).toEqual({ promptTokens: 500, completionTokens: 1, cachedTokens: 100, cacheCreationTokens: 400, cacheCreation1hTokens: 400 });
    expect(normaliseUsage({ prompt_tokens: 50, completion_tokens: 1, prompt_tokens_details: { cached_creation_1h_tokens: 40 } })).toEqual({
      promptTokens: 50,
      completionTokens: 1,
    });
  });
});
