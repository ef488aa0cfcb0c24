import { isFixedPrice, resolvePricing, type ModelPricing } from '../../domain/billing/pricing.js';
import type { OptionService } from '../../domain/options/option-service.js';

/** A Realtime model's price for a group: its ModelPricing and the two audio ratios. */
export interface RealtimePricing {
  base: ModelPricing;
  /** AudioRatio: an audio prompt token costs this many text prompt tokens. */
  audioRatio: number;
  /** AudioCompletionRatio: an audio output token costs audioRatio × this many text prompt tokens. */
  audioCompletionRatio: number;
}

/** One response's tokens, as its `response.done` reports them (text and audio apart). */
export interface RealtimeUsage {
  inputTokens: number;
  outputTokens: number;
  inputText: number;
  inputAudio: number;
  /** A share of the prompt the upstream served from its cache (recorded; new-api bills it in full). */
  cachedTokens: number;
  outputText: number;
  outputAudio: number;
}

/** What one response may cost at most, in tokens: its context (text and audio) and its output. */
export interface RealtimeBound {
  inputText: number;
  inputAudio: number;
  output: number;
}

type NumberMap = Record<string, number>;

/** new-api's lookup: the exact model name, else 1. */
const ratioIn = (map: NumberMap, model: string): number => (Object.hasOwn(map, model) && typeof map[model] === 'number' ? map[model] : 1);

export function resolveRealtimePricing(options: OptionService, model: string, group: string, acceptUnpriced: boolean): RealtimePricing {
  return {
    base: resolvePricing(options, model, group, acceptUnpriced),
    audioRatio: ratioIn(options.json<NumberMap>('AudioRatio'), model),
    audioCompletionRatio: ratioIn(options.json<NumberMap>('AudioCompletionRatio'), model),
  };
}

/**
 * new-api's calculateAudioQuota: round(groupRatio × modelRatio × (text in + text out ×
 * completionRatio + audio in × audioRatio + audio out × audioRatio × audioCompletionRatio)), at
 * least 1 when tokens were used and the model is not free; a fixed-price model costs its price per
 * response. Cached tokens are billed as the others (new-api gives realtime no cache discount).
 */
export function realtimeQuota(pricing: RealtimePricing, usage: RealtimeUsage, quotaPerUnit: number): number {
  const { base, audioRatio, audioCompletionRatio } = pricing;
  if (isFixedPrice(base)) return Math.round(base.modelPrice * quotaPerUnit * base.groupRatio);
  const ratio = base.groupRatio * base.modelRatio;
  const weighted =
    usage.inputText + usage.outputText * base.completionRatio + usage.inputAudio * audioRatio + usage.outputAudio * audioRatio * audioCompletionRatio;
  const quota = Math.round(ratio * weighted);
  const tokens = usage.inputTokens + usage.outputTokens + usage.inputText + usage.inputAudio + usage.outputText + usage.outputAudio;
  if (quota <= 0 && tokens > 0 && ratio > 0) return 1;
  return quota;
}

/**
 * The most a response within `bound` can cost: its context at the text and audio prompt prices,
 * every output token at the dearer of text and audio output. Never below realtimeQuota of a usage
 * within the bound.
 */
export function realtimeHold(pricing: RealtimePricing, bound: RealtimeBound, quotaPerUnit: number): number {
  const { base, audioRatio, audioCompletionRatio } = pricing;
  if (isFixedPrice(base)) return Math.round(base.modelPrice * quotaPerUnit * base.groupRatio);
  const ratio = base.groupRatio * base.modelRatio;
  if (ratio <= 0) return 0;
  const output = bound.output * Math.max(base.completionRatio, audioRatio * audioCompletionRatio);
  return Math.max(1, Math.ceil(ratio * (bound.inputText + bound.inputAudio * audioRatio + output)));
}

/** The prompt price of a token of the context whose kind is not known yet (an output still under way): the dearer one. */
export const audioIsDearer = (pricing: RealtimePricing): boolean => pricing.audioRatio >= 1;
