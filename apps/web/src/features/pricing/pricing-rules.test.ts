import { describe, expect, it } from 'vitest';
import type { PricedModel } from './api';
import { formatDollars, initialGroup, matchesSearch, pricesOf } from './pricing-rules';

const model = (fields: Partial<PricedModel>): PricedModel => ({
  model_name: 'm',
  quota_type: 0,
  model_ratio: 0,
  model_price: 0,
  completion_ratio: 1,
  enable_groups: ['default'],
  owner_by: '',
  ...fields,
});

describe('pricing page numbers (spec 02 §9)', () => {
  it('prices a ratio model per 1M tokens as ratio × 2 × group ratio, output times the completion ratio', () => {
    const prices = pricesOf(model({ model_ratio: 0.075, completion_ratio: 4 }), 1.5);
    expect(formatDollars(prices.input!)).toBe('$0.225');
    expect(formatDollars(prices.output!)).toBe('$0.9');
    expect(prices.perCall).toBeNull();
    // No cache_ratio in the answer (new-api leaves it out for a model without one): no cached price.
    expect(prices.cached).toBeNull();
  });

  it('prices cached input tokens at the input price × cache_ratio when the model has one', () => {
    const prices = pricesOf(model({ model_ratio: 1.25, completion_ratio: 4, cache_ratio: 0.5 }), 1.5);
    expect(formatDollars(prices.input!)).toBe('$3.75');
    expect(formatDollars(prices.cached!)).toBe('$1.875');
    expect(pricesOf(model({ quota_type: 1, model_price: 0.04, cache_ratio: 0.5 }), 1).cached).toBeNull();
  });

  it('prices a fixed-price model per call, times the group ratio', () => {
    const prices = pricesOf(model({ quota_type: 1, model_price: 0.04 }), 2);
    expect(prices).toEqual({ input: null, output: null, cached: null, perCall: 0.08 });
    expect(formatDollars(prices.perCall!)).toBe('$0.08');
  });

  it("starts on the user's group, else default, else the first offered", () => {
    expect(initialGroup(['default', 'vip'], 'vip')).toBe('vip');
    expect(initialGroup(['default', 'vip'], 'gone')).toBe('default');
    expect(initialGroup(['vip', 'svip'], undefined)).toBe('vip');
    expect(initialGroup([], undefined)).toBe('');
  });

  it('searches model names case-insensitively', () => {
    expect(matchesSearch(model({ model_name: 'GPT-4o-mini' }), ' 4O ')).toBe(true);
    expect(matchesSearch(model({ model_name: 'claude' }), 'gpt')).toBe(false);
  });
});
