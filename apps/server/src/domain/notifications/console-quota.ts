import type { OptionService } from '../options/option-service.js';

/** new-api's default QuotaPerUnit: 500,000 quota units are one US dollar. */
const DEFAULT_QUOTA_PER_UNIT = 500_000;

/** 10,000 and more with k, 1,000,000 with M, 1,000,000,000 with B (the console's abbreviation). */
function abbreviate(value: number): string {
  const sign = value < 0 ? '-' : '';
  const magnitude = Math.abs(value);
  const trim = (scaled: number) => `${sign}${Number(scaled.toFixed(1))}`;
  if (magnitude >= 1_000_000_000) return `${trim(magnitude / 1_000_000_000)}B`;
  if (magnitude >= 1_000_000) return `${trim(magnitude / 1_000_000)}M`;
  if (magnitude >= 10_000) return `${trim(magnitude / 1_000)}k`;
  return `${sign}${magnitude}`;
}

/**
 * A quota amount written the way the console shows it (apps/web/src/lib/quota.ts formatQuota), so
 * a mail names the same balance the user reads on the wallet page: dollars with two decimals when
 * DisplayInCurrencyEnabled (a tiny non-zero amount as ≈$0.01), else abbreviated units.
 */
export function formatQuotaAsConsole(options: OptionService, quota: number): string {
  if (!options.bool('DisplayInCurrencyEnabled')) return abbreviate(quota);
  const perUnit = options.number('QuotaPerUnit');
  const amount = quota / (Number.isFinite(perUnit) && perUnit > 0 ? perUnit : DEFAULT_QUOTA_PER_UNIT);
  const fixed = amount.toFixed(2);
  if (Number(fixed) === 0 && quota !== 0) return amount > 0 ? '≈$0.01' : '≈-$0.01';
  return `$${fixed}`;
}
