/**
 * Quota as people read it: dollars with two decimals when DisplayInCurrencyEnabled, else raw
 * units; used in names and log lines.
 */
export function formatQuota(quota: number, quotaPerUnit: number, inCurrency: boolean): string {
  if (inCurrency) return `$${(quota / quotaPerUnit).toFixed(2)}`;
  return `${quota}`;
}
