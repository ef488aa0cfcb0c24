import { describe, expect, it } from 'vitest';
import {
  cachedTokenPrice,
  cacheWriteTokenPrice,
  clampPage,
  deleteRow,
  draftFromRow,
  filterRows,
  formatUsd,
  hasConflict,
  nextOptionText,
  pageOf,
  pageRows,
  parseNumberInput,
  parsePriceMap,
  rowsFromMaps,
  samePriceMap,
  stringifyPriceMap,
  tokenPrices,
  upsertRow,
  validateRowDraft,
  type PricingMaps,
} from './model-pricing-rules';

const maps = (): PricingMaps => ({
  ModelPrice: { 'mj-imagine': 0.1 },
  ModelRatio: { 'gpt-4o': 1.25, 'gpt-4o-mini': 0.075 },
  CompletionRatio: { 'gpt-4o': 4, 'gpt-4o-mini': 4, 'only-completion': 2 },
  CacheRatio: { 'gpt-4o': 0.5 },
  CreateCacheRatio: { 'claude-sonnet-4-20250514': 1.25 },
});

describe('parsePriceMap', () => {
  it('reads a JSON object of non-negative numbers; empty text is an empty map', () => {
    expect(parsePriceMap('{"a": 1, "b": 0.5}')).toEqual({ ok: true, map: { a: 1, b: 0.5 } });
    expect(parsePriceMap('  ')).toEqual({ ok: true, map: {} });
  });

  it('names what is wrong: not JSON, not an object, or a value that is not a non-negative number', () => {
    expect(parsePriceMap('{"a": 1,}')).toEqual({ ok: false, problem: { kind: 'json' } });
    expect(parsePriceMap('[1, 2]')).toEqual({ ok: false, problem: { kind: 'shape' } });
    expect(parsePriceMap('null')).toEqual({ ok: false, problem: { kind: 'shape' } });
    expect(parsePriceMap('{"a": "1"}')).toEqual({ ok: false, problem: { kind: 'value', model: 'a' } });
    expect(parsePriceMap('{"a": 1, "b": -2}')).toEqual({ ok: false, problem: { kind: 'value', model: 'b' } });
  });
});

describe('rowsFromMaps', () => {
  it('gives one row per name found in any map, prices first, with what each map holds', () => {
    expect(rowsFromMaps(maps())).toEqual([
      { name: 'mj-imagine', price: 0.1 },
      { name: 'gpt-4o', ratio: 1.25, completionRatio: 4, cacheRatio: 0.5 },
      { name: 'gpt-4o-mini', ratio: 0.075, completionRatio: 4 },
      { name: 'only-completion', completionRatio: 2 },
      { name: 'claude-sonnet-4-20250514', createCacheRatio: 1.25 },
    ]);
  });

  it('marks a row holding a price and ratios at once', () => {
    const rows = rowsFromMaps({ ModelPrice: { x: 1 }, ModelRatio: { x: 2 }, CompletionRatio: {}, CacheRatio: {}, CreateCacheRatio: {} });
    expect(rows).toEqual([{ name: 'x', price: 1, ratio: 2 }]);
    expect(hasConflict(rows[0]!)).toBe(true);
    expect(hasConflict({ name: 'y', price: 1 })).toBe(false);
    expect(hasConflict({ name: 'z', price: 1, cacheRatio: 0.5 })).toBe(true);
    expect(hasConflict({ name: 'w', price: 1, createCacheRatio: 1.25 })).toBe(true);
  });
});

describe('upsertRow and deleteRow', () => {
  it('adds a ratio model at the end of ModelRatio and CompletionRatio only', () => {
    const next = upsertRow(maps(), null, { name: 'new-model', ratio: 0.5, completionRatio: 3 });
    expect(Object.keys(next.ModelRatio)).toEqual(['gpt-4o', 'gpt-4o-mini', 'new-model']);
    expect(next.ModelRatio['new-model']).toBe(0.5);
    expect(next.CompletionRatio['new-model']).toBe(3);
    expect(next.ModelPrice).toEqual(maps().ModelPrice);
    expect(next.CacheRatio).toEqual(maps().CacheRatio);
  });

  it('adds, changes and clears a cache ratio in CacheRatio', () => {
    const added = upsertRow(maps(), 'gpt-4o-mini', { name: 'gpt-4o-mini', ratio: 0.075, completionRatio: 4, cacheRatio: 0.25 });
    expect(added.CacheRatio).toEqual({ 'gpt-4o': 0.5, 'gpt-4o-mini': 0.25 });
    const cleared = upsertRow(maps(), 'gpt-4o', { name: 'gpt-4o', ratio: 1.25, completionRatio: 4 });
    expect(cleared.CacheRatio).toEqual({});
    expect(cleared.ModelRatio).toEqual(maps().ModelRatio);
  });

  it('adds, changes and clears a cache-creation ratio in CreateCacheRatio', () => {
    const added = upsertRow(maps(), 'gpt-4o', { name: 'gpt-4o', ratio: 1.25, completionRatio: 4, cacheRatio: 0.5, createCacheRatio: 2 });
    expect(added.CreateCacheRatio).toEqual({ 'claude-sonnet-4-20250514': 1.25, 'gpt-4o': 2 });
    expect(added.CacheRatio).toEqual(maps().CacheRatio);
    const cleared = upsertRow(maps(), 'claude-sonnet-4-20250514', { name: 'claude-sonnet-4-20250514', ratio: 1.5 });
    expect(cleared.CreateCacheRatio).toEqual({});
    expect(cleared.ModelRatio['claude-sonnet-4-20250514']).toBe(1.5);
    // A fixed price takes it out with the other ratios.
    expect(upsertRow(added, 'gpt-4o', { name: 'gpt-4o', price: 0.01 }).CreateCacheRatio).toEqual({ 'claude-sonnet-4-20250514': 1.25 });
  });

  it('stores a row with a fixed price in ModelPrice only, taking it out of the ratio maps', () => {
    const next = upsertRow(maps(), 'gpt-4o', { name: 'gpt-4o', price: 0.02, ratio: 1.25, completionRatio: 4 });
    expect(next.ModelPrice).toEqual({ 'mj-imagine': 0.1, 'gpt-4o': 0.02 });
    expect(next.ModelRatio).toEqual({ 'gpt-4o-mini': 0.075 });
    expect(next.CompletionRatio).toEqual({ 'gpt-4o-mini': 4, 'only-completion': 2 });
    // A fixed price is billed per call: the cache ratio goes with the other ratios.
    expect(next.CacheRatio).toEqual({});
  });

  it('moves a row from a fixed price back to ratios', () => {
    const next = upsertRow(maps(), 'mj-imagine', { name: 'mj-imagine', ratio: 2 });
    expect(next.ModelPrice).toEqual({});
    expect(next.ModelRatio['mj-imagine']).toBe(2);
    expect(next.CompletionRatio).toEqual(maps().CompletionRatio);
  });

  it('renames a row in place in every map and drops a cleared completion ratio', () => {
    const next = upsertRow(maps(), 'gpt-4o', { name: 'gpt-4o-renamed', ratio: 1.5 });
    expect(Object.entries(next.ModelRatio)).toEqual([
      ['gpt-4o-renamed', 1.5],
      ['gpt-4o-mini', 0.075],
    ]);
    expect(next.CompletionRatio).toEqual({ 'gpt-4o-mini': 4, 'only-completion': 2 });
  });

  it('leaves other rows exactly as they were, a conflicting one included', () => {
    const start: PricingMaps = { ModelPrice: { x: 1 }, ModelRatio: { x: 2, y: 1 }, CompletionRatio: {}, CacheRatio: {}, CreateCacheRatio: {} };
    const next = upsertRow(start, 'y', { name: 'y', ratio: 3 });
    expect(next).toEqual({ ModelPrice: { x: 1 }, ModelRatio: { x: 2, y: 3 }, CompletionRatio: {}, CacheRatio: {}, CreateCacheRatio: {} });
  });

  it('deletes a model from every map', () => {
    const next = deleteRow(maps(), 'gpt-4o');
    expect(rowsFromMaps(next).map((row) => row.name)).toEqual(['mj-imagine', 'gpt-4o-mini', 'only-completion', 'claude-sonnet-4-20250514']);
    expect(deleteRow(maps(), 'claude-sonnet-4-20250514').CreateCacheRatio).toEqual({});
    expect(deleteRow(maps(), 'absent')).toEqual(maps());
  });
});

describe('nextOptionText', () => {
  const stored = '{\n  "a": 1,\n  "b": 2\n}';

  it('is undefined when the map did not change, so an untouched option keeps its typed text', () => {
    expect(nextOptionText(stored, { a: 1, b: 2 }, { b: 2, a: 1 })).toBeUndefined();
  });

  it('is the stored text when an edit brings the map back to what is saved', () => {
    expect(nextOptionText(stored, { a: 1 }, { b: 2, a: 1 })).toBe(stored);
  });

  it('is the new map written like the server writes it otherwise', () => {
    expect(nextOptionText(stored, { a: 1, b: 2 }, { a: 1, b: 3 })).toBe(stringifyPriceMap({ a: 1, b: 3 }));
    expect(stringifyPriceMap({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(nextOptionText(undefined, {}, { a: 1 })).toBe('{\n  "a": 1\n}');
  });

  it('compares maps by names and numbers, not order', () => {
    expect(samePriceMap({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(samePriceMap({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(samePriceMap({ a: 1 }, { b: 1 })).toBe(false);
  });
});

describe('parseNumberInput', () => {
  it('accepts decimals and leaves empty as unset', () => {
    expect(parseNumberInput('0.075')).toEqual({ ok: true, value: 0.075 });
    expect(parseNumberInput(' 3 ')).toEqual({ ok: true, value: 3 });
    expect(parseNumberInput('.5')).toEqual({ ok: true, value: 0.5 });
    expect(parseNumberInput('1e-3')).toEqual({ ok: true, value: 0.001 });
    expect(parseNumberInput('0')).toEqual({ ok: true, value: 0 });
    expect(parseNumberInput('')).toEqual({ ok: true, value: undefined });
  });

  it('refuses anything that is not a plain number, and negatives', () => {
    for (const text of ['abc', '1,5', '0x10', '1.2.3', 'Infinity', 'NaN', '2$', '1 2']) {
      expect(parseNumberInput(text)).toEqual({ ok: false, problem: 'notNumber' });
    }
    expect(parseNumberInput('-1')).toEqual({ ok: false, problem: 'negative' });
  });
});

describe('validateRowDraft', () => {
  const rows = rowsFromMaps(maps());

  it('turns a valid form into a row', () => {
    expect(validateRowDraft({ name: ' new ', price: '', ratio: '0.5', completionRatio: '3', cacheRatio: '', createCacheRatio: '' }, rows, null)).toEqual({
      row: { name: 'new', ratio: 0.5, completionRatio: 3 },
      errors: null,
    });
  });

  it('refuses a name already in the table, on add and on rename, but lets a row keep its own name', () => {
    expect(validateRowDraft({ name: 'gpt-4o', price: '', ratio: '1', completionRatio: '', cacheRatio: '', createCacheRatio: '' }, rows, null).errors).toEqual({
      name: 'duplicate',
    });
    expect(
      validateRowDraft({ name: 'gpt-4o-mini', price: '', ratio: '1', completionRatio: '', cacheRatio: '', createCacheRatio: '' }, rows, 'gpt-4o').errors,
    ).toEqual({ name: 'duplicate' });
    expect(
      validateRowDraft({ name: 'gpt-4o', price: '', ratio: '2', completionRatio: '', cacheRatio: '', createCacheRatio: '' }, rows, 'gpt-4o').errors,
    ).toBeNull();
    // Model names are looked up exactly, so another case is another model.
    expect(
      validateRowDraft({ name: 'GPT-4O', price: '', ratio: '2', completionRatio: '', cacheRatio: '', createCacheRatio: '' }, rows, null).errors,
    ).toBeNull();
  });

  it('needs a name and numbers, and a price or a ratio', () => {
    expect(validateRowDraft({ name: ' ', price: 'x', ratio: '', completionRatio: '', cacheRatio: '', createCacheRatio: '' }, rows, null).errors).toEqual({
      name: 'required',
      price: 'notNumber',
    });
    expect(validateRowDraft({ name: 'n', price: '', ratio: 'abc', completionRatio: '-1', cacheRatio: '', createCacheRatio: '' }, rows, null).errors).toEqual({
      ratio: 'notNumber',
      completionRatio: 'negative',
    });
    expect(validateRowDraft({ name: 'n', price: '', ratio: '', completionRatio: '2', cacheRatio: '', createCacheRatio: '' }, rows, null).errors).toEqual({
      row: 'noPrice',
    });
    expect(validateRowDraft({ name: 'n', price: '', ratio: '1', completionRatio: '', cacheRatio: 'half', createCacheRatio: '' }, rows, null).errors).toEqual({
      cacheRatio: 'notNumber',
    });
    expect(validateRowDraft({ name: 'n', price: '', ratio: '1', completionRatio: '', cacheRatio: '-0.1', createCacheRatio: '' }, rows, null).errors).toEqual({
      cacheRatio: 'negative',
    });
    expect(validateRowDraft({ name: 'n', price: '', ratio: '1', completionRatio: '', cacheRatio: '', createCacheRatio: 'more' }, rows, null).errors).toEqual({
      createCacheRatio: 'notNumber',
    });
    expect(validateRowDraft({ name: 'n', price: '', ratio: '1', completionRatio: '', cacheRatio: '0.1', createCacheRatio: ' 1.25 ' }, rows, null)).toEqual({
      row: { name: 'n', ratio: 1, cacheRatio: 0.1, createCacheRatio: 1.25 },
      errors: null,
    });
    expect(validateRowDraft({ name: 'n', price: '', ratio: '1', completionRatio: '', cacheRatio: ' 0.1 ', createCacheRatio: '' }, rows, null)).toEqual({
      row: { name: 'n', ratio: 1, cacheRatio: 0.1 },
      errors: null,
    });
  });

  it('ignores the disabled ratio fields when a fixed price is typed', () => {
    expect(validateRowDraft({ name: 'n', price: '0.02', ratio: 'abc', completionRatio: '4', cacheRatio: 'x', createCacheRatio: 'y' }, rows, null)).toEqual({
      row: { name: 'n', price: 0.02 },
      errors: null,
    });
  });

  it('fills the form from a row', () => {
    expect(draftFromRow({ name: 'gpt-4o', ratio: 1.25, completionRatio: 4, cacheRatio: 0.5 })).toEqual({
      name: 'gpt-4o',
      price: '',
      ratio: '1.25',
      completionRatio: '4',
      cacheRatio: '0.5',
      createCacheRatio: '',
    });
    expect(draftFromRow(null)).toEqual({ name: '', price: '', ratio: '', completionRatio: '', cacheRatio: '', createCacheRatio: '' });
  });
});

describe('tokenPrices', () => {
  it('is ratio × 2 USD per 1M input tokens, times the completion ratio for output (1 when unset)', () => {
    expect(tokenPrices({ ratio: 0.075, completionRatio: 4 })).toEqual({ input: 0.15, output: 0.6 });
    expect(tokenPrices({ ratio: 1.25 })).toEqual({ input: 2.5, output: 2.5 });
    expect(formatUsd(0.075 * 2)).toBe('$0.15');
    expect(formatUsd(0.15 * 4)).toBe('$0.6');
  });

  it('is null for fixed-price rows and rows without a ratio', () => {
    expect(tokenPrices({ price: 0.1, ratio: 1 })).toBeNull();
    expect(tokenPrices({ completionRatio: 2 })).toBeNull();
  });

  it('prices a cached input token at ratio × cache ratio × 2 USD per 1M, null without a cache ratio or with a fixed price', () => {
    expect(cachedTokenPrice({ ratio: 1.25, cacheRatio: 0.5 })).toBe(1.25);
    expect(formatUsd(cachedTokenPrice({ ratio: 0.075, cacheRatio: 0.5 })!)).toBe('$0.075');
    expect(cachedTokenPrice({ ratio: 1.25 })).toBeNull();
    expect(cachedTokenPrice({ price: 0.1, ratio: 1, cacheRatio: 0.5 })).toBeNull();
  });

  it('prices a token written to the cache at ratio × cache-creation ratio × 2 USD per 1M, null without one or with a fixed price', () => {
    expect(cacheWriteTokenPrice({ ratio: 1.5, createCacheRatio: 1.25 })).toBe(3.75);
    expect(cacheWriteTokenPrice({ ratio: 1.5 })).toBeNull();
    expect(cacheWriteTokenPrice({ price: 0.1, ratio: 1, createCacheRatio: 1.25 })).toBeNull();
  });
});

describe('search and paging', () => {
  const many = Array.from({ length: 23 }, (_, index) => ({ name: `model-${String(index).padStart(2, '0')}`, ratio: 1 }));

  it('finds names containing the search text in any case', () => {
    expect(filterRows(rowsFromMaps(maps()), 'GPT-4O').map((row) => row.name)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(filterRows(rowsFromMaps(maps()), '  ')).toHaveLength(5);
    expect(filterRows(rowsFromMaps(maps()), 'nothing')).toEqual([]);
  });

  it('shows 10 rows a page and clamps a page past the end', () => {
    expect(pageRows(many, 1)).toHaveLength(10);
    expect(pageRows(many, 3).map((row) => row.name)).toEqual(['model-20', 'model-21', 'model-22']);
    expect(pageRows(many, 9).map((row) => row.name)).toEqual(['model-20', 'model-21', 'model-22']);
    expect(clampPage(0, 23)).toBe(1);
    expect(clampPage(5, 0)).toBe(1);
  });

  it('finds the page a model is on', () => {
    expect(pageOf(many, 'model-00')).toBe(1);
    expect(pageOf(many, 'model-10')).toBe(2);
    expect(pageOf(many, 'model-22')).toBe(3);
    expect(pageOf(many, 'absent')).toBe(1);
  });
});
