import { LogType } from '@modelgate/contract';
import { CREATE_CACHE_RATIO_FALLBACK } from '../billing/default-prices.js';
import type { ModelPricing } from '../billing/pricing.js';
import type { LogInsert } from './log-buffer.js';

/** One successful relayed call, as its consume log (type 2) records it. */
export interface ConsumeRecord {
  createdAt: number;
  userId: number;
  username: string;
  tokenId: number;
  tokenName: string;
  /** The model the client asked for: what it is billed and listed under. */
  model: string;
  /** The model sent upstream after the channel's mapping. */
  upstreamModel: string;
  channelId: number;
  channelName: string;
  group: string;
  /** What the user and token were actually charged. */
  quota: number;
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the upstream served from its cache (billed at the cache ratio); 0 when none. */
  cachedTokens?: number;
  /** Prompt tokens the upstream wrote into its cache (billed at the cache-creation ratio); 0 when none. */
  cacheCreationTokens?: number;
  useTimeSeconds: number;
  isStream: boolean;
  pricing: ModelPricing;
  /** Milliseconds from the request to the first byte of the answer. */
  firstResponseMs: number;
  /** Every channel tried for this request, in order. */
  triedChannelIds: readonly number[];
  /** Part of the cost that could not be charged (balance ran out mid-call); admins only. */
  unpaidQuota: number;
  /** Listed words the sensitive-word check found in the answer; named in the content as new-api does. */
  sensitiveWords?: readonly string[] | undefined;
  /** The caller's IP, recorded only for users whose setting asks for it (record_ip_log); else empty. */
  ip?: string;
}

const formatRatio = (value: number): string => String(Math.round(value * 1e6) / 1e6);

/** consumeContent per pricing: the relay's pricings are shared per group and model (resolvePricing's cache). */
const contents = new WeakMap<ModelPricing, string>();

function contentOf(pricing: ModelPricing): string {
  let content = contents.get(pricing);
  if (content === undefined) {
    content = consumeContent(pricing);
    contents.set(pricing, content);
  }
  return content;
}

export function consumeContent(pricing: ModelPricing): string {
  if (pricing.modelPrice >= 0) return `模型价格 ${formatRatio(pricing.modelPrice)}，分组倍率 ${formatRatio(pricing.groupRatio)}`;
  return `模型倍率 ${formatRatio(pricing.modelRatio)}，补全倍率 ${formatRatio(pricing.completionRatio)}，分组倍率 ${formatRatio(pricing.groupRatio)}`;
}

export function consumeLogRow(record: ConsumeRecord): LogInsert {
  const mapped = record.upstreamModel !== record.model;
  const adminInfo: Record<string, unknown> = { use_channel: record.triedChannelIds.map(String) };
  if (record.unpaidQuota > 0) adminInfo.unpaid_quota = record.unpaidQuota;
  const other: Record<string, unknown> = {
    model_ratio: record.pricing.modelRatio,
    completion_ratio: record.pricing.completionRatio,
    group_ratio: record.pricing.groupRatio,
    model_price: record.pricing.modelPrice,
    // new-api's names; it writes both on every text call, 0 cached tokens included.
    cache_tokens: record.cachedTokens ?? 0,
    cache_ratio: record.pricing.cacheRatio ?? 1,
    frt: record.firstResponseMs,
    is_model_mapped: mapped,
    admin_info: adminInfo,
  };
  // new-api writes these two only when the upstream reported a cache write.
  if (record.cacheCreationTokens !== undefined && record.cacheCreationTokens > 0) {
    other.cache_creation_tokens = record.cacheCreationTokens;
    other.cache_creation_ratio = record.pricing.createCacheRatio ?? CREATE_CACHE_RATIO_FALLBACK;
  }
  if (mapped) other.upstream_model_name = record.upstreamModel;
  return {
    user_id: record.userId,
    created_at: record.createdAt,
    type: LogType.Consume,
    content: record.sensitiveWords?.length ? `${contentOf(record.pricing)}，敏感词：${record.sensitiveWords.join(', ')}` : contentOf(record.pricing),
    username: record.username,
    token_name: record.tokenName,
    model_name: record.model,
    quota: record.quota,
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    use_time: record.useTimeSeconds,
    is_stream: record.isStream ? 1 : 0,
    channel_id: record.channelId,
    channel_name: record.channelName,
    token_id: record.tokenId,
    group: record.group,
    ip: record.ip ?? '',
    other: JSON.stringify(other),
  };
}
