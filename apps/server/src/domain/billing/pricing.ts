import { AppError } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';

/**
 * How one call of a model is priced for a group, from the ModelPrice, ModelRatio,
 * CompletionRatio, CacheRatio and GroupRatio options.
 */
export interface ModelPricing {
  /** Fixed USD per call; -1 when the model is billed by tokens. */
  modelPrice: number;
  modelRatio: number;
  completionRatio: number;
  /**
   * What a prompt token served from the upstream's prompt cache costs, relative to the model
   * ratio (CacheRatio; new-api's fallback for a model without one is 1, no discount).
   */
  cacheRatio?: number;
  groupRatio: number;
}

type NumberMap = Record<string, number>;

const lookup = (map: NumberMap, key: string): number | undefined =>
  Object.hasOwn(map, key) && typeof map[key] === 'number' ? map[key] : undefined;

export function groupRatioOf(options: OptionService, group: string): number {
  return lookup(options.json<NumberMap>('GroupRatio'), group) ?? 1;
}

/**
 * new-api's ratio for a model nobody priced (ratio_setting.GetModelRatio), used in self-use mode:
 * 37.5, i.e. $75 per million prompt tokens, so an unpriced model is never accidentally cheap.
 */
export const SELF_USE_MODEL_RATIO = 37.5;

/**
 * Throws when the model has neither a ratio nor a price: the admin must price it first, unless
 * SelfUseModeEnabled (new-api's self-use mode) or the caller's own setting accepts unpriced models
 * (accept_unset_model_ratio_model), where it is billed at SELF_USE_MODEL_RATIO.
 */
export function resolvePricing(options: OptionService, model: string, group: string, acceptUnpriced = false): ModelPricing {
  const groupRatio = groupRatioOf(options, group);
  const price = lookup(options.json<NumberMap>('ModelPrice'), model);
  const cacheRatio = lookup(options.json<NumberMap>('CacheRatio'), model) ?? 1;
  if (price !== undefined) return { modelPrice: price, modelRatio: 0, completionRatio: 1, cacheRatio, groupRatio };
  let modelRatio = lookup(options.json<NumberMap>('ModelRatio'), model);
  if (modelRatio === undefined && (acceptUnpriced || options.bool('SelfUseModeEnabled'))) modelRatio = SELF_USE_MODEL_RATIO;
  if (modelRatio === undefined) {
    throw new AppError(
      'billing:model_price_error',
      `模型 ${model} 的倍率或价格未设置，请联系管理员在运营设置中为它设置模型倍率或模型价格 ` +
        `(model ${model} has no ratio or price: ask the administrator to set ModelRatio or ModelPrice for it)`,
      { status: 403, type: 'new_api_error' },
    );
  }
  const completionRatio = lookup(options.json<NumberMap>('CompletionRatio'), model) ?? 1;
  return { modelPrice: -1, modelRatio, completionRatio, cacheRatio, groupRatio };
}

export const isFixedPrice = (pricing: ModelPricing): boolean => pricing.modelPrice >= 0;

/**
 * The charge for a call, exactly as the issue states it:
 * - by tokens: round(groupRatio × modelRatio × (prompt + completion × completionRatio)), at least
 *   1 when tokens were used and the model is not free (a ratio of 0 stays free); prompt tokens the
 *   upstream served from its cache count cacheRatio each instead of 1 (new-api's rule:
 *   (prompt − cached) + cached × cacheRatio), so cached tokens only ever lower the price when
 *   cacheRatio ≤ 1 and the reservation, made without them, stays an upper bound;
 * - fixed price: round(modelPrice × QuotaPerUnit × groupRatio) per call (`calls` images for the
 *   images endpoint).
 */
export function quotaFor(
  pricing: ModelPricing,
  usage: { promptTokens: number; completionTokens: number; cachedTokens?: number | undefined; calls: number },
  quotaPerUnit: number,
): number {
  if (isFixedPrice(pricing)) return Math.round(pricing.modelPrice * quotaPerUnit * pricing.groupRatio * usage.calls);
  const tokens = usage.promptTokens + usage.completionTokens;
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  const prompt = cached > 0 ? usage.promptTokens - cached + cached * (pricing.cacheRatio ?? 1) : usage.promptTokens;
  const quota = Math.round(pricing.groupRatio * pricing.modelRatio * (prompt + usage.completionTokens * pricing.completionRatio));
  if (quota <= 0 && tokens > 0 && pricing.groupRatio * pricing.modelRatio > 0) return 1;
  return quota;
}
