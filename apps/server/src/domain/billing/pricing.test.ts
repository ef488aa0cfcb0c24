import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeLogRow, type ConsumeRecord } from '../logs/consume-log.js';
import { OptionService } from '../options/option-service.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { DEFAULT_CREATE_CACHE_RATIO } from '../../config/default-prices.js';
import { CACHE_WRITE_1H_MULTIPLIER, promptCostFactor, quotaFor, resolvePricing, SELF_USE_MODEL_RATIO, type ModelPricing } from './pricing.js';

/**
 * new-api's charge with prompt caching: groupRatio × modelRatio × ((prompt − cached − creation)
 * + cached × cacheRatio + creation × createCacheRatio + completion × completionRatio), rounded.
 */

const byTokens = (overrides: Partial<ModelPricing> = {}): ModelPricing => ({
  modelPrice: -1,
  modelRatio: 1.5,
  completionRatio: 5,
  cacheRatio: 0.1,
  createCacheRatio: 1.25,
  groupRatio: 2,
  ...overrides,
});

describe('quotaFor', () => {
  it('bills cache reads at cacheRatio and cache writes at createCacheRatio, the rest of the prompt plainly', () => {
    // A Claude turn: 150 plain input tokens, 2000 read from the cache, 800 written to it, 120 out.
    const usage = { promptTokens: 2950, cachedTokens: 2000, cacheCreationTokens: 800, completionTokens: 120, calls: 1 };
    // 2 × 1.5 × (150 + 2000 × 0.1 + 800 × 1.25 + 120 × 5) = 3 × (150 + 200 + 1000 + 600) = 5850.
    expect(quotaFor(byTokens(), usage, 500_000)).toBe(5850);
    // Without caching the same prompt costs 3 × (2950 + 600) = 10650.
    expect(quotaFor(byTokens(), { promptTokens: 2950, completionTokens: 120, calls: 1 }, 500_000)).toBe(10650);
  });

  it('writes only: above the plain price when createCacheRatio > 1, rounded once at the end', () => {
    const usage = { promptTokens: 1001, cacheCreationTokens: 1001, completionTokens: 0, calls: 1 };
    // 2 × 1.5 × 1001 × 1.25 = 3753.75 → 3754.
    expect(quotaFor(byTokens(), usage, 500_000)).toBe(3754);
    expect(quotaFor(byTokens({ createCacheRatio: 2 }), usage, 500_000)).toBe(6006);
  });

  it('bills one-hour cache writes at createCacheRatio × 6/3.75 (new-api’s claudeCacheCreation1hMultiplier), the rest of the writes at createCacheRatio', () => {
    expect(CACHE_WRITE_1H_MULTIPLIER).toBe(1.6);
    // 100 plain, 1000 read, 800 written: 300 for five minutes, 500 for an hour; 120 out.
    const usage = { promptTokens: 1900, cachedTokens: 1000, cacheCreationTokens: 800, cacheCreation1hTokens: 500, completionTokens: 120, calls: 1 };
    // 3 × (100 + 1000 × 0.1 + 300 × 1.25 + 500 × 1.25 × 1.6 + 120 × 5) = 3 × (100 + 100 + 375 + 1000 + 600) = 6525.
    expect(quotaFor(byTokens(), usage, 500_000)).toBe(6525);
    // An hour's share beyond the writes counts as the writes only.
    expect(quotaFor(byTokens(), { ...usage, cacheCreation1hTokens: 5000 }, 500_000)).toBe(
      quotaFor(byTokens(), { ...usage, cacheCreation1hTokens: 800 }, 500_000),
    );
  });

  it('a pricing without createCacheRatio falls back to new-api’s 1.25', () => {
    const { createCacheRatio: _unused, ...legacy } = byTokens();
    expect(quotaFor(legacy, { promptTokens: 400, cacheCreationTokens: 400, completionTokens: 0, calls: 1 }, 500_000)).toBe(1500);
  });

  it('clamps reads and writes to the prompt (reads first), so no token is billed twice', () => {
    const clamped = quotaFor(byTokens(), { promptTokens: 100, cachedTokens: 80, cacheCreationTokens: 50, completionTokens: 0, calls: 1 }, 500_000);
    // 80 read (8) + 20 written (25) = 33, × 3 = 99.
    expect(clamped).toBe(99);
  });

  it('keeps the old rules: at least 1 for a priced call, 0 for a free model, fixed prices ignore tokens', () => {
    expect(quotaFor(byTokens({ modelRatio: 0.001, groupRatio: 1 }), { promptTokens: 10, cachedTokens: 10, completionTokens: 0, calls: 1 }, 500_000)).toBe(1);
    expect(quotaFor(byTokens({ modelRatio: 0 }), { promptTokens: 10, cacheCreationTokens: 10, completionTokens: 3, calls: 1 }, 500_000)).toBe(0);
    expect(quotaFor(byTokens({ modelPrice: 0.02 }), { promptTokens: 5000, cacheCreationTokens: 5000, completionTokens: 9, calls: 1 }, 500_000)).toBe(20_000);
  });
});

describe('promptCostFactor', () => {
  it('is the most a prompt token can cost relative to the model ratio, never below 1', () => {
    expect(promptCostFactor(byTokens())).toBe(1.25);
    expect(promptCostFactor(byTokens({ cacheRatio: 1.6, createCacheRatio: 1.25 }))).toBe(1.6);
    expect(promptCostFactor(byTokens({ cacheRatio: 0.1, createCacheRatio: 0.5 }))).toBe(1);
    const { createCacheRatio: _unused, ...legacy } = byTokens();
    expect(promptCostFactor(legacy)).toBe(1.25);
  });

  it('counts a one-hour cache write at createCacheRatio × 6/3.75 when the request may make one', () => {
    expect(promptCostFactor(byTokens(), true)).toBe(2);
    expect(promptCostFactor(byTokens({ cacheRatio: 2.5 }), true)).toBe(2.5);
  });
});

describe('resolvePricing and the consume log', () => {
  let fresh: FreshDb;
  let options: OptionService;
  beforeAll(async () => {
    fresh = await createFreshDb('sqlite');
    options = new OptionService(fresh.db);
  });
  afterAll(async () => fresh.drop());

  it('reads CreateCacheRatio: the model’s entry, else 1.25; new-api’s defaults for the Claude models', async () => {
    expect(resolvePricing(options, 'claude-sonnet-4-20250514', 'default').createCacheRatio).toBe(1.25);
    expect(DEFAULT_CREATE_CACHE_RATIO['claude-sonnet-4-20250514']).toBe(1.25);
    await options.set('ModelRatio', JSON.stringify({ 'cc-model': 1.5, 'cc-other': 1 }));
    await options.set('CreateCacheRatio', JSON.stringify({ 'cc-model': 2 }));
    expect(resolvePricing(options, 'cc-model', 'default')).toMatchObject({ createCacheRatio: 2, cacheRatio: 1 });
    expect(resolvePricing(options, 'cc-other', 'default').createCacheRatio).toBe(1.25);
  });

  it('answers from its cache until a pricing option changes, then from the new options at once', async () => {
    await options.set('ModelRatio', JSON.stringify({ 'cached-model': 2 }));
    await options.set('GroupRatio', JSON.stringify({ default: 1, vip: 0.5 }));
    const first = resolvePricing(options, 'cached-model', 'vip');
    expect(first).toMatchObject({ modelRatio: 2, groupRatio: 0.5 });
    // The same answer, not a new one, while nothing changed.
    expect(resolvePricing(options, 'cached-model', 'vip')).toBe(first);
    for (const [key, value, expected] of [
      ['ModelRatio', { 'cached-model': 3 }, { modelRatio: 3 }],
      ['CompletionRatio', { 'cached-model': 4 }, { completionRatio: 4 }],
      ['GroupRatio', { default: 1, vip: 0.25 }, { groupRatio: 0.25 }],
      ['CacheRatio', { 'cached-model': 0.1 }, { cacheRatio: 0.1 }],
      ['CreateCacheRatio', { 'cached-model': 3 }, { createCacheRatio: 3 }],
      ['ModelPrice', { 'cached-model': 0.05 }, { modelPrice: 0.05 }],
    ] as const) {
      await options.set(key, JSON.stringify(value));
      expect(resolvePricing(options, 'cached-model', 'vip'), key).toMatchObject(expected);
    }
    await options.set('ModelPrice', JSON.stringify({}));
    // Priced only through self-use mode: answered, not cached, and refused again once the mode is off.
    await options.set('SelfUseModeEnabled', 'true');
    expect(resolvePricing(options, 'unpriced-model', 'vip').modelRatio).toBe(SELF_USE_MODEL_RATIO);
    await options.set('SelfUseModeEnabled', 'false');
    expect(() => resolvePricing(options, 'unpriced-model', 'vip')).toThrow(/倍率或价格未设置/);
    // A caller who accepts unpriced models does not open the cache for the others.
    expect(resolvePricing(options, 'unpriced-model', 'vip', true).modelRatio).toBe(SELF_USE_MODEL_RATIO);
    expect(() => resolvePricing(options, 'unpriced-model', 'vip')).toThrow(/倍率或价格未设置/);
  });

  it('logs cache_creation_tokens and cache_creation_ratio (new-api’s names) only when the upstream wrote to its cache', () => {
    const pricing = byTokens();
    const record: ConsumeRecord = {
      createdAt: 1_700_000_000,
      userId: 1,
      username: 'u',
      tokenId: 2,
      tokenName: 't',
      model: 'claude-sonnet-4-20250514',
      upstreamModel: 'claude-sonnet-4-20250514',
      channelId: 3,
      channelName: 'c',
      group: 'default',
      quota: 5850,
      promptTokens: 2950,
      completionTokens: 120,
      cachedTokens: 2000,
      cacheCreationTokens: 800,
      useTimeSeconds: 1,
      isStream: false,
      pricing,
      firstResponseMs: 10,
      triedChannelIds: [3],
      unpaidQuota: 0,
    };
    const other = JSON.parse(consumeLogRow(record).other ?? '{}') as Record<string, unknown>;
    expect(other).toMatchObject({ cache_tokens: 2000, cache_ratio: 0.1, cache_creation_tokens: 800, cache_creation_ratio: 1.25 });
    const plain = JSON.parse(consumeLogRow({ ...record, cacheCreationTokens: 0 }).other ?? '{}') as Record<string, unknown>;
    expect(plain).not.toHaveProperty('cache_creation_tokens');
    expect(plain).not.toHaveProperty('cache_creation_ratio');
  });
});
