import { describe, expect, it } from 'vitest';
import { billingFormula, filtersFromParams, firstTokenColour, parseOther, rowTypeKey, logUseTimeColour } from './log-rules';

describe('log colours (spec 02 §9)', () => {
  it('colours a use time green up to 100 s, orange under 300 s, red from 300 s', () => {
    expect([0, 100, 101, 299, 300, 1000].map(logUseTimeColour)).toEqual(['green', 'green', 'orange', 'orange', 'red', 'red']);
  });

  it('colours a first token green under 3 s, orange under 10 s, red beyond', () => {
    expect([0, 2999, 3000, 9999, 10000].map(firstTokenColour)).toEqual(['green', 'green', 'orange', 'orange', 'red']);
  });
});

describe('billing details from a row', () => {
  const row = { prompt_tokens: 100, completion_tokens: 50, quota: 525 };

  it('writes out a ratio charge with the stored numbers', () => {
    const details = parseOther('{"model_ratio":2.5,"completion_ratio":1.5,"group_ratio":1.2,"model_price":-1,"frt":420}');
    expect(details.frt).toBe(420);
    expect(billingFormula(details, row, 500_000)).toBe('(100 + 50 × 1.5) × 2.5 × 1.2 = 525');
  });

  it('writes out the cached part of the prompt with its cache ratio when the upstream reported cached tokens', () => {
    const cached = parseOther('{"model_ratio":2,"completion_ratio":3,"group_ratio":1.5,"model_price":-1,"cache_tokens":800,"cache_ratio":0.25}');
    expect(cached).toMatchObject({ cacheTokens: 800, cacheRatio: 0.25 });
    expect(billingFormula(cached, { prompt_tokens: 1000, completion_tokens: 100, quota: 2100 }, 500_000)).toBe(
      '(1000 − 800 + 800 × 0.25 + 100 × 3) × 2 × 1.5 = 2100',
    );
    // No cached tokens: the formula is the plain one.
    const none = parseOther('{"model_ratio":2,"completion_ratio":3,"group_ratio":1.5,"model_price":-1,"cache_tokens":0,"cache_ratio":0.25}');
    expect(billingFormula(none, { prompt_tokens: 1000, completion_tokens: 100, quota: 3900 }, 500_000)).toBe('(1000 + 100 × 3) × 2 × 1.5 = 3900');
  });

  it('writes out the part written into the cache with its cache-creation ratio (new-api’s cache_creation_tokens and cache_creation_ratio)', () => {
    const both = parseOther(
      '{"model_ratio":1.5,"completion_ratio":5,"group_ratio":2,"model_price":-1,"cache_tokens":2000,"cache_ratio":0.1,"cache_creation_tokens":800,"cache_creation_ratio":1.25}',
    );
    expect(both).toMatchObject({ cacheCreationTokens: 800, cacheCreationRatio: 1.25 });
    expect(billingFormula(both, { prompt_tokens: 2950, completion_tokens: 120, quota: 5850 }, 500_000)).toBe(
      '(2950 − 2000 − 800 + 2000 × 0.1 + 800 × 1.25 + 120 × 5) × 1.5 × 2 = 5850',
    );
    const written = parseOther(
      '{"model_ratio":1,"completion_ratio":1,"group_ratio":1,"model_price":-1,"cache_tokens":0,"cache_ratio":1,"cache_creation_tokens":300,"cache_creation_ratio":2}',
    );
    expect(billingFormula(written, { prompt_tokens: 400, completion_tokens: 0, quota: 700 }, 500_000)).toBe('(400 − 300 + 300 × 2 + 0 × 1) × 1 × 1 = 700');
  });

  it('writes out a fixed price as price × group ratio × quota per unit', () => {
    expect(billingFormula(parseOther('{"model_price":0.02,"group_ratio":0.5}'), { ...row, quota: 5000 }, 500_000)).toBe('0.02 × 0.5 × 500000 = 5000');
  });

  it('has no formula for rows without prices (top-ups, management) or with unreadable other', () => {
    expect(billingFormula(parseOther(''), row, 500_000)).toBeNull();
    expect(billingFormula(parseOther('not json'), row, 500_000)).toBeNull();
  });

  it('shows an unknown type (0) like consumption', () => {
    expect(rowTypeKey(0)).toBe('consume');
    expect(rowTypeKey(4)).toBe('system');
  });
});

describe('filters from the URL', () => {
  it('reads the filters and drops a type that does not exist', () => {
    const filters = filtersFromParams(new URLSearchParams('type=9&token_name=a&start=100&channel=3&username=bob'));
    expect(filters).toMatchObject({ type: 0, tokenName: 'a', start: 100, end: 0, channel: '3', username: 'bob' });
  });
});
