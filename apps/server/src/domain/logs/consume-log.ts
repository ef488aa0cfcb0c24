import { LogType } from '@modelgate/contract';
import { CREATE_CACHE_RATIO_FALLBACK } from '../../config/default-prices.js';
import { CACHE_WRITE_1H_MULTIPLIER, type ModelPricing } from '../billing/pricing.js';
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
  /** The share of cacheCreationTokens written for an hour (billed at the cache-creation ratio × 6/3.75); 0 when none. */
  cacheCreation1hTokens?: number;
  useTimeSeconds: number;
  isStream: boolean;
  pricing: ModelPricing;
  /** Milliseconds from the request to the first byte of the answer. */
  firstResponseMs: number;
  /** Every channel tried for this request, in order. */
  triedChannelIds: readonly number[];
  /** The index of the key that served the call, on a multi-key channel (new-api's admin_info.multi_key_index). */
  multiKeyIndex?: number | undefined;
  /** Cost within the call's reservation that went uncharged: an alarm, always 0; admins only. */
  unpaidQuota: number;
  /** Cost the upstream returned beyond what the call was held for, not charged; admins only. */
  overrunQuota?: number;
  /** The output limit the call was sent with because its payer's balance paid for no more. */
  outputCap?: number | undefined;
  /** The upstream streamed past that limit and the relay ended the stream at it; admins only. */
  outputCut?: boolean | undefined;
  /** Listed words the sensitive-word check found in the answer; named in the content as new-api does. */
  sensitiveWords?: readonly string[] | undefined;
  /** The caller's IP, recorded only for users whose setting asks for it (record_ip_log); else empty. */
  ip?: string;
  /** An async task's submit: its action (IMAGINE, MUSIC…) and the upstream's id (`ID …`, Midjourney); named in the content. */
  task?: { action: string; detail?: string | undefined } | undefined;
}

const formatRatio = (value: number): string => String(Math.round(value * 1e6) / 1e6);

/** What one pricing contributes to every log row it bills: the content and the start of `other`. */
interface PricingText {
  content: string;
  /** `other` up to and including `model_price`, ready for the per-call keys. */
  otherHead: string;
  /** `"cache_ratio":…` */
  cacheRatio: string;
  /** `"cache_creation_ratio":…` */
  createCacheRatio: string;
}

/** Per pricing: the relay's pricings are shared per group and model (resolvePricing's cache). */
const pricingTexts = new WeakMap<ModelPricing, PricingText>();

/** A number as JSON.stringify writes it (non-finite numbers are null). */
const jsonNumber = (value: number): string => (Number.isFinite(value) ? String(value) : 'null');

function pricingText(pricing: ModelPricing): PricingText {
  let text = pricingTexts.get(pricing);
  if (text === undefined) {
    text = {
      content: consumeContent(pricing),
      otherHead:
        `{"model_ratio":${jsonNumber(pricing.modelRatio)},"completion_ratio":${jsonNumber(pricing.completionRatio)},` +
        `"group_ratio":${jsonNumber(pricing.groupRatio)},"model_price":${jsonNumber(pricing.modelPrice)}`,
      cacheRatio: `"cache_ratio":${jsonNumber(pricing.cacheRatio ?? 1)}`,
      createCacheRatio: `"cache_creation_ratio":${jsonNumber(pricing.createCacheRatio ?? CREATE_CACHE_RATIO_FALLBACK)}`,
    };
    pricingTexts.set(pricing, text);
  }
  return text;
}

export function consumeContent(pricing: ModelPricing): string {
  if (pricing.modelPrice >= 0) return `模型价格 ${formatRatio(pricing.modelPrice)}，分组倍率 ${formatRatio(pricing.groupRatio)}`;
  return `模型倍率 ${formatRatio(pricing.modelRatio)}，补全倍率 ${formatRatio(pricing.completionRatio)}，分组倍率 ${formatRatio(pricing.groupRatio)}`;
}

/**
 * The row's `other`, in new-api's key order: model_ratio, completion_ratio, group_ratio,
 * model_price, cache_tokens, cache_ratio, frt, is_model_mapped, admin_info (use_channel, and
 * unpaid_quota, an alarm, overrun_quota when the upstream returned more than the call was held
 * for, is_multi_key and multi_key_index for the key of a multi-key channel that served, output_cut when it streamed past the output cap it was sent and the relay ended the stream
 * there), output_cap (a call capped at what its balance paid for), then cache_creation_tokens and
 * cache_creation_ratio (only when the upstream reported a cache write; new-api writes both cache
 * token keys on every text call, 0 included), with cache_creation_tokens_5m / _ratio_5m and
 * cache_creation_tokens_1h / _ratio_1h when some writes were for an hour, and upstream_model_name
 * (only for a mapped model), then ours (packages/contract's log contract): sensitive_words (the
 * listed words found in the answer) and task_action / task_detail (an async task's submit), each
 * only when it applies, so a console can word the row without reading its Chinese content.
 * Written as text, not through JSON.stringify of an object built per call: every relayed call
 * builds one, and the pricing's part is the same for all of its calls.
 */
function otherJson(record: ConsumeRecord, text: PricingText, mapped: boolean): string {
  let channels = '';
  const tried = record.triedChannelIds;
  for (let index = 0; index < tried.length; index += 1) channels += index === 0 ? `"${tried[index]}"` : `,"${tried[index]}"`;
  let other =
    `${text.otherHead},"cache_tokens":${jsonNumber(record.cachedTokens ?? 0)},${text.cacheRatio},"frt":${jsonNumber(record.firstResponseMs)},` +
    `"is_model_mapped":${mapped},"admin_info":{"use_channel":[${channels}]`;
  if (record.unpaidQuota > 0) other += `,"unpaid_quota":${jsonNumber(record.unpaidQuota)}`;
  if (record.overrunQuota !== undefined && record.overrunQuota > 0) other += `,"overrun_quota":${jsonNumber(record.overrunQuota)}`;
  if (record.outputCut === true) other += ',"output_cut":true';
  if (record.multiKeyIndex !== undefined) other += `,"is_multi_key":true,"multi_key_index":${jsonNumber(record.multiKeyIndex)}`;
  other += '}';
  if (record.outputCap !== undefined) other += `,"output_cap":${jsonNumber(record.outputCap)}`;
  if (record.cacheCreationTokens !== undefined && record.cacheCreationTokens > 0) {
    other += `,"cache_creation_tokens":${jsonNumber(record.cacheCreationTokens)},${text.createCacheRatio}`;
    const hour = Math.min(record.cacheCreation1hTokens ?? 0, record.cacheCreationTokens);
    // new-api's split by lifetime, each written when it is not 0.
    if (hour > 0) {
      const ratio = record.pricing.createCacheRatio ?? CREATE_CACHE_RATIO_FALLBACK;
      const fiveMinutes = record.cacheCreationTokens - hour;
      if (fiveMinutes > 0) other += `,"cache_creation_tokens_5m":${jsonNumber(fiveMinutes)},"cache_creation_ratio_5m":${jsonNumber(ratio)}`;
      other += `,"cache_creation_tokens_1h":${jsonNumber(hour)},"cache_creation_ratio_1h":${jsonNumber(ratio * CACHE_WRITE_1H_MULTIPLIER)}`;
    }
  }
  if (mapped) other += `,"upstream_model_name":${JSON.stringify(record.upstreamModel)}`;
  if (record.sensitiveWords?.length) other += `,"sensitive_words":${JSON.stringify(record.sensitiveWords)}`;
  if (record.task !== undefined) {
    other += `,"task_action":${JSON.stringify(record.task.action)}`;
    if (record.task.detail) other += `,"task_detail":${JSON.stringify(record.task.detail)}`;
  }
  return `${other}}`;
}

function contentOf(record: ConsumeRecord, priced: string): string {
  let content = priced;
  if (record.outputCap !== undefined) content += `，余额不足，输出上限降为 ${record.outputCap} tokens`;
  if (record.sensitiveWords?.length) content += `，敏感词：${record.sensitiveWords.join(', ')}`;
  if (record.task !== undefined) content += `，操作 ${record.task.action}${record.task.detail ? `，${record.task.detail}` : ''}`;
  return content;
}

export function consumeLogRow(record: ConsumeRecord): LogInsert {
  const mapped = record.upstreamModel !== record.model;
  const text = pricingText(record.pricing);
  return {
    user_id: record.userId,
    created_at: record.createdAt,
    type: LogType.Consume,
    content: contentOf(record, text.content),
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
    other: otherJson(record, text, mapped),
  };
}
