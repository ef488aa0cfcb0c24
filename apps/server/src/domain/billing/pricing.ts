import { AppError } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';

/**
 * How one call of a model is priced for a group, from the ModelPrice, ModelRatio,
 * CompletionRatio and GroupRatio options.
 */
export interface ModelPricing {
  /** Fixed USD per call; -1 when the model is billed by tokens. */
  modelPrice: number;
  modelRatio: number;
  completionRatio: number;
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
  if (price !== undefined) return { modelPrice: price, modelRatio: 0, completionRatio: 1, groupRatio };
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
  return { modelPrice: -1, modelRatio, completionRatio, groupRatio };
}

export const isFixedPrice = (pricing: ModelPricing): boolean => pricing.modelPrice >= 0;

/**
 * The charge for a call, exactly as the issue states it:
 * - by tokens: round(groupRatio × modelRatio × (prompt + completion × completionRatio)), at least
 *   1 when tokens were used and the model is not free (a ratio of 0 stays free);
 * - fixed price: round(modelPrice × QuotaPerUnit × groupRatio) per call (`calls` images for the
 *   images endpoint).
 */
export function quotaFor(pricing: ModelPricing, usage: { promptTokens: number; completionTokens: number; calls: number }, quotaPerUnit: number): number {
  if (isFixedPrice(pricing)) return Math.round(pricing.modelPrice * quotaPerUnit * pricing.groupRatio * usage.calls);
  const tokens = usage.promptTokens + usage.completionTokens;
  const quota = Math.round(pricing.groupRatio * pricing.modelRatio * (usage.promptTokens + usage.completionTokens * pricing.completionRatio));
  if (quota <= 0 && tokens > 0 && pricing.groupRatio * pricing.modelRatio > 0) return 1;
  return quota;
}
