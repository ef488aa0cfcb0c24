import { useCallback } from 'react';
import { useStatus } from '../features/status/queries';
import type { SystemStatus } from '../features/status/types';

/** new-api's default QuotaPerUnit: 500,000 quota units are one US dollar. */
export const DEFAULT_QUOTA_PER_UNIT = 500_000;

export function quotaPerUnit(status: SystemStatus): number {
  const value = Number(status.quota_per_unit);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_QUOTA_PER_UNIT;
}

/** Spec 01 §1: 10,000 and more with k, 1,000,000 with M, 1,000,000,000 with B. */
export function abbreviateNumber(value: number): string {
  const sign = value < 0 ? '-' : '';
  const magnitude = Math.abs(value);
  const trim = (scaled: number) => `${sign}${Number(scaled.toFixed(1))}`;
  if (magnitude >= 1_000_000_000) return `${trim(magnitude / 1_000_000_000)}B`;
  if (magnitude >= 1_000_000) return `${trim(magnitude / 1_000_000)}M`;
  if (magnitude >= 10_000) return `${trim(magnitude / 1_000)}k`;
  return `${sign}${magnitude}`;
}

/** Quota in dollars; tiny non-zero amounts still show as a minimum instead of $0.00. */
export function quotaToCurrency(quota: number, status: SystemStatus, digits = 2): string {
  const amount = quota / quotaPerUnit(status);
  const fixed = amount.toFixed(digits);
  if (Number(fixed) === 0 && quota !== 0) {
    const smallest = (1 / 10 ** digits).toFixed(digits);
    return amount > 0 ? `≈$${smallest}` : `≈-$${smallest}`;
  }
  return `$${fixed}`;
}

/** Spec 01 §1: a currency amount when status.display_in_currency, else raw (abbreviated) units. */
export function formatQuota(quota: number, status: SystemStatus, digits = 2): string {
  return status.display_in_currency ? quotaToCurrency(quota, status, digits) : abbreviateNumber(quota);
}

/** The formatter bound to the current status object. */
export function useQuotaFormatter(): (quota: number) => string {
  const status = useStatus();
  return useCallback((quota: number) => formatQuota(quota, status), [status]);
}
