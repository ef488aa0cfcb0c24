import { describe, expect, it } from 'vitest';
import type { ModelPricing } from '../billing/pricing.js';
import { consumeLogRow, type ConsumeRecord } from './consume-log.js';

const tokenPricing: ModelPricing = { modelRatio: 0.075, completionRatio: 4, groupRatio: 1, modelPrice: -1 };

const record = (change: Partial<ConsumeRecord> = {}): ConsumeRecord => ({
  createdAt: 1_700_000_000,
  userId: 2,
  username: 'alice',
  tokenId: 7,
  tokenName: '令牌 7',
  model: 'gpt-4o-mini',
  upstreamModel: 'gpt-4o-mini',
  channelId: 3,
  channelName: 'mock',
  group: 'default',
  quota: 1234,
  promptTokens: 24,
  completionTokens: 96,
  useTimeSeconds: 1,
  isStream: true,
  pricing: tokenPricing,
  firstResponseMs: 12,
  triedChannelIds: [3],
  unpaidQuota: 0,
  ...change,
});

/**
 * new-api's `other` of a consume log, key for key in its order, as an object: what the row's text
 * must equal byte for byte once stringified (the console and scripts read these keys).
 */
function expectedOther(r: ConsumeRecord): Record<string, unknown> {
  const adminInfo: Record<string, unknown> = { use_channel: r.triedChannelIds.map(String) };
  if (r.unpaidQuota > 0) adminInfo.unpaid_quota = r.unpaidQuota;
  const other: Record<string, unknown> = {
    model_ratio: r.pricing.modelRatio,
    completion_ratio: r.pricing.completionRatio,
    group_ratio: r.pricing.groupRatio,
    model_price: r.pricing.modelPrice,
    cache_tokens: r.cachedTokens ?? 0,
    cache_ratio: r.pricing.cacheRatio ?? 1,
    frt: r.firstResponseMs,
    is_model_mapped: r.upstreamModel !== r.model,
    admin_info: adminInfo,
  };
  if ((r.cacheCreationTokens ?? 0) > 0) {
    other.cache_creation_tokens = r.cacheCreationTokens;
    other.cache_creation_ratio = r.pricing.createCacheRatio ?? 1.25;
    const hour = Math.min(r.cacheCreation1hTokens ?? 0, r.cacheCreationTokens ?? 0);
    if (hour > 0) {
      if ((r.cacheCreationTokens ?? 0) > hour) {
        other.cache_creation_tokens_5m = (r.cacheCreationTokens ?? 0) - hour;
        other.cache_creation_ratio_5m = r.pricing.createCacheRatio ?? 1.25;
      }
      other.cache_creation_tokens_1h = hour;
      other.cache_creation_ratio_1h = (r.pricing.createCacheRatio ?? 1.25) * (6 / 3.75);
    }
  }
  if (r.upstreamModel !== r.model) other.upstream_model_name = r.upstreamModel;
  if (r.sensitiveWords?.length) other.sensitive_words = r.sensitiveWords;
  if (r.task) {
    other.task_action = r.task.action;
    if (r.task.detail) other.task_detail = r.task.detail;
  }
  return other;
}

describe('consume log row', () => {
  const cases: [string, Partial<ConsumeRecord>][] = [
    ['a plain token-priced call', {}],
    ['a fixed-price call', { pricing: { modelRatio: 0, completionRatio: 1, groupRatio: 0.8, modelPrice: 0.02 } }],
    ['retries over three channels', { triedChannelIds: [3, 17, 1024] }],
    ['an unpaid remainder', { unpaidQuota: 55 }],
    ['cache reads and writes', { cachedTokens: 10, cacheCreationTokens: 6, pricing: { ...tokenPricing, cacheRatio: 0.1, createCacheRatio: 1.25 } }],
    ['a cache write without a configured ratio', { cacheCreationTokens: 6 }],
    [
      'cache writes for five minutes and an hour',
      { cacheCreationTokens: 900, cacheCreation1hTokens: 600, pricing: { ...tokenPricing, createCacheRatio: 1.25 } },
    ],
    ['cache writes for an hour only', { cacheCreationTokens: 600, cacheCreation1hTokens: 600 }],
    ['a mapped model whose name needs escaping', { upstreamModel: 'vendor/"quoted"\\模型\n' }],
    ['fractional ratios', { pricing: { modelRatio: 1 / 3, completionRatio: 1e-7, groupRatio: 1e21, modelPrice: -1 } }],
    ['listed words in the answer', { sensitiveWords: ['foo', '"bar"'] }],
    ['a Midjourney submit', { task: { action: 'IMAGINE', detail: 'ID 1712345' } }],
    ['a task submit without an upstream id', { task: { action: 'MUSIC' } }],
    ['everything at once', { triedChannelIds: [9, 3], unpaidQuota: 1, cachedTokens: 4, cacheCreationTokens: 2, upstreamModel: 'gpt-4o-mini-2024-07-18' }],
  ];

  it.each(cases)('writes other as new-api does: %s', (_name, change) => {
    const r = record(change);
    const row = consumeLogRow(r);
    expect(row.other).toBe(JSON.stringify(expectedOther(r)));
    expect(JSON.parse(row.other)).toEqual(expectedOther(r));
  });

  it('names the prices in the content, and the listed words the answer held', () => {
    expect(consumeLogRow(record()).content).toBe('模型倍率 0.075，补全倍率 4，分组倍率 1');
    expect(consumeLogRow(record({ pricing: { modelRatio: 0, completionRatio: 1, groupRatio: 0.8, modelPrice: 0.02 } })).content).toBe(
      '模型价格 0.02，分组倍率 0.8',
    );
    expect(consumeLogRow(record({ sensitiveWords: ['foo', 'bar'] })).content).toBe('模型倍率 0.075，补全倍率 4，分组倍率 1，敏感词：foo, bar');
    expect(consumeLogRow(record({ task: { action: 'IMAGINE', detail: 'ID 17' } })).content).toBe('模型倍率 0.075，补全倍率 4，分组倍率 1，操作 IMAGINE，ID 17');
  });

  it('keeps each call its own values when calls share a pricing', () => {
    const first = consumeLogRow(record({ firstResponseMs: 5, triedChannelIds: [1] }));
    const second = consumeLogRow(record({ firstResponseMs: 900, triedChannelIds: [2, 4], upstreamModel: 'other-model' }));
    expect(JSON.parse(first.other)).toMatchObject({ frt: 5, is_model_mapped: false, admin_info: { use_channel: ['1'] } });
    expect(JSON.parse(first.other)).not.toHaveProperty('upstream_model_name');
    expect(JSON.parse(second.other)).toMatchObject({
      frt: 900,
      is_model_mapped: true,
      upstream_model_name: 'other-model',
      admin_info: { use_channel: ['2', '4'] },
    });
  });
});
