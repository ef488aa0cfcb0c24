import { api } from '../../lib/api-client';

/** One model of GET /api/pricing, in new-api's field names. */
export interface PricedModel {
  model_name: string;
  /** 0: billed by tokens with model_ratio, 1: a fixed price per call (model_price, USD). */
  quota_type: 0 | 1;
  model_ratio: number;
  model_price: number;
  completion_ratio: number;
  /** Present only for a model with a cache ratio (new-api's omitempty): cached input tokens cost this times the input price. */
  cache_ratio?: number;
  /** The groups in which some enabled channel serves the model. */
  enable_groups: string[];
  owner_by: string;
}

export interface PricingData {
  models: PricedModel[];
  /** Group name → ratio, for the groups the caller may view. */
  groupRatio: Record<string, number>;
  /** Group name → description. */
  usableGroup: Record<string, string>;
}

export async function fetchPricing(): Promise<PricingData> {
  const { data, envelope } = await api.get<PricedModel[] | null>('/api/pricing');
  return {
    models: data ?? [],
    groupRatio: (envelope.group_ratio as Record<string, number> | undefined) ?? {},
    usableGroup: (envelope.usable_group as Record<string, string> | undefined) ?? {},
  };
}
