import { AppError } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';
import { CREATE_CACHE_RATIO_FALLBACK } from '../../config/default-prices.js';

/**
 * How one call of a model is priced for a group, from the ModelPrice, ModelRatio,
 * CompletionRatio, CacheRatio, CreateCacheRatio and GroupRatio options.
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
  /**
   * What a prompt token written into the upstream's prompt cache costs, relative to the model
   * ratio (CreateCacheRatio; new-api's fallback for a model without one is 1.25).
   */
  createCacheRatio?: number;
  groupRatio: number;
}

type NumberMap = Record<string, number>;

const lookup = (map: NumberMap, key: string): number | undefined => (Object.hasOwn(map, key) && typeof map[key] === 'number' ? map[key] : undefined);

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
  const byModel = pricingCache(options).get(group);
  const cached = byModel?.get(model);
  if (cached !== undefined) return cached;
  const priced = pricingOf(options, model, group, acceptUnpriced);
  // Only what the options price: a model priced by self-use mode or the caller's setting may be
  // any name a client sends, and the cache would grow with each.
  if (priced.explicit) {
    if (byModel) byModel.set(model, priced.pricing);
    else pricingCache(options).set(group, new Map([[model, priced.pricing]]));
  }
  return priced.pricing;
}

/** The options resolvePricing reads: a change to any of them drops its cache. */
const PRICING_OPTIONS: ReadonlySet<string> = new Set([
  'GroupRatio',
  'ModelPrice',
  'ModelRatio',
  'CompletionRatio',
  'CacheRatio',
  'CreateCacheRatio',
  'SelfUseModeEnabled',
]);

/**
 * resolvePricing's answers per group and model, one cache per option service (the relay asks on
 * every call; each answer took six lookups in the price tables, maps of hundreds of models). The
 * answers are shared: nothing may change a ModelPricing it was given.
 */
const pricingCaches = new WeakMap<OptionService, Map<string, Map<string, ModelPricing>>>();

function pricingCache(options: OptionService): Map<string, Map<string, ModelPricing>> {
  let cache = pricingCaches.get(options);
  if (cache === undefined) {
    const created = new Map<string, Map<string, ModelPricing>>();
    options.onChange((key) => {
      if (PRICING_OPTIONS.has(key)) created.clear();
    });
    pricingCaches.set(options, created);
    cache = created;
  }
  return cache;
}

function pricingOf(options: OptionService, model: string, group: string, acceptUnpriced: boolean): { pricing: ModelPricing; explicit: boolean } {
  const groupRatio = groupRatioOf(options, group);
  const price = lookup(options.json<NumberMap>('ModelPrice'), model);
  const cacheRatio = lookup(options.json<NumberMap>('CacheRatio'), model) ?? 1;
  const createCacheRatio = lookup(options.json<NumberMap>('CreateCacheRatio'), model) ?? CREATE_CACHE_RATIO_FALLBACK;
  if (price !== undefined)
    return { pricing: { modelPrice: price, modelRatio: 0, completionRatio: 1, cacheRatio, createCacheRatio, groupRatio }, explicit: true };
  let modelRatio = lookup(options.json<NumberMap>('ModelRatio'), model);
  const explicit = modelRatio !== undefined;
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
  return { pricing: { modelPrice: -1, modelRatio, completionRatio, cacheRatio, createCacheRatio, groupRatio }, explicit };
}

export const isFixedPrice = (pricing: ModelPricing): boolean => pricing.modelPrice >= 0;

/**
 * The most a prompt token can cost relative to the model ratio: 1 for a plain token, cacheRatio
 * for a cache read, createCacheRatio for a cache write (times CACHE_WRITE_1H_MULTIPLIER when the
 * request may write for an hour). A reservation made for P prompt tokens as plain tokens is an
 * upper bound of their cost only when multiplied by this factor.
 */
export function promptCostFactor(pricing: ModelPricing, hourWrites = false): number {
  const write = (pricing.createCacheRatio ?? CREATE_CACHE_RATIO_FALLBACK) * (hourWrites ? CACHE_WRITE_1H_MULTIPLIER : 1);
  return Math.max(1, pricing.cacheRatio ?? 1, write);
}

/** Token counts a call is billed by (TokenUsage of @modelgate/protocol, plus the images count). */
export interface BilledUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the upstream's cache: a share of promptTokens. */
  cachedTokens?: number | undefined;
  /** Prompt tokens written into the upstream's cache: a share of promptTokens. */
  cacheCreationTokens?: number | undefined;
  /** The share of cacheCreationTokens written for an hour (Claude's 1h cache), billed at createCacheRatio × CACHE_WRITE_1H_MULTIPLIER. */
  cacheCreation1hTokens?: number | undefined;
  calls: number;
}

/**
 * What a one-hour cache write costs against a five-minute one: new-api's claudeCacheCreation1hMultiplier,
 * Claude's prices (6 against 3.75 per million tokens, docs.claude.com/en/docs/build-with-claude/prompt-caching#1-hour-cache-duration).
 * CreateCacheRatio prices the five-minute writes; there is no option of its own for the hour's.
 */
export const CACHE_WRITE_1H_MULTIPLIER = 6 / 3.75;

/**
 * The charge for a call, new-api's formula:
 * - by tokens: round(groupRatio × modelRatio × ((prompt − cached − creation) + cached × cacheRatio
 *   + creation × createCacheRatio + completion × completionRatio)), a one-hour cache write at
 *   createCacheRatio × CACHE_WRITE_1H_MULTIPLIER instead, at least 1 when tokens were
 *   used and the model is not free (a ratio of 0 stays free). Cache reads and writes are shares
 *   of the prompt (clamped to it here too: reads first, then writes).
 *   The reservation, made for the prompt as plain tokens, is therefore no longer always an upper
 *   bound: a cache read with cacheRatio > 1 or a cache write with createCacheRatio > 1 (1.25 by
 *   default) costs more than a plain token. The relay raises the reservation by
 *   promptCostFactor(pricing) for that, and tops up the difference when it still falls short;
 * - fixed price: round(modelPrice × QuotaPerUnit × groupRatio) per call (`calls` images for the
 *   images endpoint); cache tokens change nothing.
 */
export function quotaFor(pricing: ModelPricing, usage: BilledUsage, quotaPerUnit: number): number {
  if (isFixedPrice(pricing)) return Math.round(pricing.modelPrice * quotaPerUnit * pricing.groupRatio * usage.calls);
  const tokens = usage.promptTokens + usage.completionTokens;
  const cached = Math.min(Math.max(usage.cachedTokens ?? 0, 0), usage.promptTokens);
  const created = Math.min(Math.max(usage.cacheCreationTokens ?? 0, 0), usage.promptTokens - cached);
  const createdForAnHour = Math.min(Math.max(usage.cacheCreation1hTokens ?? 0, 0), created);
  const createRatio = pricing.createCacheRatio ?? CREATE_CACHE_RATIO_FALLBACK;
  const prompt =
    usage.promptTokens -
    cached -
    created +
    cached * (pricing.cacheRatio ?? 1) +
    (created - createdForAnHour) * createRatio +
    createdForAnHour * createRatio * CACHE_WRITE_1H_MULTIPLIER;
  const quota = Math.round(pricing.groupRatio * pricing.modelRatio * (prompt + usage.completionTokens * pricing.completionRatio));
  if (quota <= 0 && tokens > 0 && pricing.groupRatio * pricing.modelRatio > 0) return 1;
  return quota;
}
