import type { PricedModel } from './api';

/**
 * Spec 02 §9: a quota unit costs 1/500,000 USD, so 1M tokens at model ratio r cost r × 2 dollars,
 * times the group's ratio; output tokens cost the completion ratio times that, and input tokens
 * the upstream served from its prompt cache the cache ratio times the input price.
 */
export interface ModelPrices {
  /** USD per 1M input tokens; null for fixed-price models. */
  input: number | null;
  /** USD per 1M output tokens; null for fixed-price models. */
  output: number | null;
  /** USD per 1M cached input tokens; null for fixed-price models and models without a cache ratio. */
  cached: number | null;
  /** USD per call; null for models billed by tokens. */
  perCall: number | null;
}

export function pricesOf(model: PricedModel, groupRatio: number): ModelPrices {
  if (model.quota_type === 1) return { input: null, output: null, cached: null, perCall: model.model_price * groupRatio };
  const input = model.model_ratio * 2 * groupRatio;
  const cached = typeof model.cache_ratio === 'number' ? input * model.cache_ratio : null;
  return { input, output: input * model.completion_ratio, cached, perCall: null };
}

/** Dollars without float noise (0.15 × 3 shows 0.45, not 0.44999999999999996) or padding zeros. */
export function formatDollars(value: number): string {
  return `$${Number(value.toFixed(6)).toString()}`;
}

/**
 * The group whose prices are shown first: the signed-in user's own, else 'default', else the
 * first one offered; '' when no group is offered at all.
 */
export function initialGroup(groups: string[], userGroup: string | undefined): string {
  if (userGroup && groups.includes(userGroup)) return userGroup;
  if (groups.includes('default')) return 'default';
  return groups[0] ?? '';
}

export function matchesSearch(model: PricedModel, search: string): boolean {
  const needle = search.trim().toLowerCase();
  return needle === '' || model.model_name.toLowerCase().includes(needle);
}
