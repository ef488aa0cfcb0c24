import type { OptionService } from '../options/option-service.js';

/** A quota amount as users read it: dollars when the console shows currency, else raw units. */
export function describeQuota(options: OptionService, quota: number): string {
  if (options.bool('DisplayInCurrencyEnabled')) return `＄${(quota / options.number('QuotaPerUnit')).toFixed(6)}`;
  return `${quota} 点额度`;
}
