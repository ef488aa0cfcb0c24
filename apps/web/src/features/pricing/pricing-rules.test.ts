import { describe, expect, it } from 'vitest';
import type { PricedModel } from './api';
import { filterModels, formatDollars, initialGroup, matchesSearch, OTHER_VENDOR, pricesOf, tagChoices, tagsOf, vendorChoices } from './pricing-rules';

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

describe('pricing page filters: vendor and tag (new-api vendors and tags)', () => {
  const vendors = [
    { id: 1, name: 'OpenAI', icon: 'OpenAI' },
    { id: 2, name: 'Anthropic', icon: 'Claude.Color' },
    { id: 9, name: 'Unused' },
  ];
  const models = [
    model({ model_name: 'gpt-4o', vendor_id: 1, tags: 'vision' }),
    model({ model_name: 'o3', vendor_id: 1, tags: 'reasoning, vision' }),
    model({ model_name: 'text-embedding-3-small', vendor_id: 1, tags: 'embedding' }),
    model({ model_name: 'claude-sonnet-4', vendor_id: 2, tags: 'reasoning,vision,' }),
    model({ model_name: 'house-model' }),
    // A vendor id the answer's vendors do not list counts as unknown.
    model({ model_name: 'stray', vendor_id: 42, tags: 'vision' }),
  ];
  const names = (list: PricedModel[]) => list.map((item) => item.model_name);
  const all = { search: '', vendor: '', tag: '' };

  it('reads tags split on commas, trimmed, without empties', () => {
    expect(tagsOf(models[1]!)).toEqual(['reasoning', 'vision']);
    expect(tagsOf(models[3]!)).toEqual(['reasoning', 'vision']);
    expect(tagsOf(models[4]!)).toEqual([]);
  });

  it('filters by vendor, "other" for models without a known vendor, by tag, and by all of them with the search', () => {
    expect(names(filterModels(models, vendors, all))).toHaveLength(6);
    expect(names(filterModels(models, vendors, { ...all, vendor: '1' }))).toEqual(['gpt-4o', 'o3', 'text-embedding-3-small']);
    expect(names(filterModels(models, vendors, { ...all, vendor: OTHER_VENDOR }))).toEqual(['house-model', 'stray']);
    expect(names(filterModels(models, vendors, { ...all, tag: 'reasoning' }))).toEqual(['o3', 'claude-sonnet-4']);
    expect(names(filterModels(models, vendors, { search: 'O', vendor: '1', tag: 'vision' }))).toEqual(['gpt-4o', 'o3']);
  });

  it('counts each vendor among the models the other filters let through, leaving out empty vendors, "other" last', () => {
    const counts = (filter: typeof all) => vendorChoices(models, vendors, filter).map(({ value, count }) => [value, count]);
    expect(counts(all)).toEqual([
      ['1', 3],
      ['2', 1],
      [OTHER_VENDOR, 2],
    ]);
    expect(counts({ ...all, tag: 'reasoning' })).toEqual([
      ['1', 1],
      ['2', 1],
    ]);
    // The chosen vendor does not narrow its own choices.
    expect(counts({ ...all, vendor: '2' })).toEqual(counts(all));
  });

  it('lists tags most used first, then by name, among the models the vendor and search let through', () => {
    const tags = (filter: typeof all) => tagChoices(models, vendors, filter).map(({ value, count }) => [value, count]);
    expect(tags(all)).toEqual([
      ['vision', 4],
      ['reasoning', 2],
      ['embedding', 1],
    ]);
    expect(tags({ ...all, vendor: '2' })).toEqual([
      ['reasoning', 1],
      ['vision', 1],
    ]);
  });
});
