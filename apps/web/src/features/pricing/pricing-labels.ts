import type { TFunction } from 'i18next';
import type { PricingVendor } from './api';

/** Vendor names are data (new-api seeds some in Chinese); the known ones read in the console's language. */
export function vendorLabel(t: TFunction<'pricing'>, vendor: PricingVendor | undefined): string {
  if (!vendor) return t('vendor.other');
  return t(`vendor.names.${vendor.name}`, { defaultValue: vendor.name });
}

/** Tags are data too: the ones the server derives have a label, an administrator's own show as written. */
export function tagLabel(t: TFunction<'pricing'>, tag: string): string {
  return t(`tag.names.${tag}`, { defaultValue: tag });
}
