import type { PricedModel, PricingExtras, PricingVendor } from '@modelgate/contract';
import { api } from '../../lib/api-client';

export type { PricedModel, PricingVendor };

export interface PricingData {
  models: PricedModel[];
  /** The makers of the models listed (new-api's `vendors`), by id. */
  vendors: PricingVendor[];
  /** Group name → ratio, for the groups the caller may view. */
  groupRatio: Record<string, number>;
  /** Group name → description. */
  usableGroup: Record<string, string>;
}

export async function fetchPricing(): Promise<PricingData> {
  const { data, envelope } = await api.get<PricedModel[] | null>('/api/pricing');
  // new-api answers the groups beside the envelope's data.
  const extras = envelope as Partial<PricingExtras>;
  return { models: data ?? [], vendors: extras.vendors ?? [], groupRatio: extras.group_ratio ?? {}, usableGroup: extras.usable_group ?? {} };
}
