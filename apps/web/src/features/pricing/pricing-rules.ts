import type { PricedModel, PricingVendor } from './api';

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

/** The vendor filter's value for models no vendor is known for. */
export const OTHER_VENDOR = 'other';

/** new-api's `tags`: comma-separated, possibly with spaces or empties. */
export function tagsOf(model: PricedModel): string[] {
  return (model.tags ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

export interface PricingFilter {
  search: string;
  /** '' for every vendor, a vendor id, or OTHER_VENDOR. */
  vendor: string;
  /** '' for every tag. */
  tag: string;
}

function matchesVendor(model: PricedModel, vendor: string, knownVendors: ReadonlySet<number>): boolean {
  if (vendor === '') return true;
  const known = model.vendor_id !== undefined && knownVendors.has(model.vendor_id);
  if (vendor === OTHER_VENDOR) return !known;
  return known && String(model.vendor_id) === vendor;
}

/** The models the search, the vendor and the tag all let through, in the answer's order. */
export function filterModels(models: readonly PricedModel[], vendors: readonly PricingVendor[], filter: PricingFilter): PricedModel[] {
  const knownVendors = new Set(vendors.map((vendor) => vendor.id));
  return models.filter(
    (model) =>
      matchesSearch(model, filter.search) && matchesVendor(model, filter.vendor, knownVendors) && (filter.tag === '' || tagsOf(model).includes(filter.tag)),
  );
}

export interface FilterChoice {
  /** The filter value: a vendor id, OTHER_VENDOR or a tag. */
  value: string;
  count: number;
  vendor?: PricingVendor;
}

/**
 * The vendor choices with how many models each has among those the search and tag let through;
 * vendors with none are left out, and "other" comes last when some model has no known vendor.
 */
export function vendorChoices(models: readonly PricedModel[], vendors: readonly PricingVendor[], filter: PricingFilter): FilterChoice[] {
  const shown = filterModels(models, vendors, { ...filter, vendor: '' });
  const choices = vendors
    .map((vendor) => ({ value: String(vendor.id), vendor, count: shown.filter((model) => model.vendor_id === vendor.id).length }))
    .filter((choice) => choice.count > 0);
  const others = shown.length - choices.reduce((sum, choice) => sum + choice.count, 0);
  return others > 0 ? [...choices, { value: OTHER_VENDOR, count: others }] : choices;
}

/** The tags of the models the search and vendor let through, most used first, then by name. */
export function tagChoices(models: readonly PricedModel[], vendors: readonly PricingVendor[], filter: PricingFilter): FilterChoice[] {
  const counts = new Map<string, number>();
  for (const model of filterModels(models, vendors, { ...filter, tag: '' })) {
    for (const tag of tagsOf(model)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  }
  return [...counts].sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : a > b ? 1 : 0)).map(([value, count]) => ({ value, count }));
}
