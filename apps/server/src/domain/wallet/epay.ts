import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The standard Epay signature: MD5 of the key-sorted `k=v&...` string of every non-empty
 * parameter except sign and sign_type, followed by the merchant key. Used both to sign the form
 * we send and to check the notify we receive.
 */
export function epaySign(params: Record<string, string>, merchantKey: string): string {
  const payload = Object.keys(params)
    .filter((name) => name !== 'sign' && name !== 'sign_type' && params[name] !== undefined && params[name] !== '')
    .sort()
    .map((name) => `${name}=${params[name]}`)
    .join('&');
  return createHash('md5').update(payload + merchantKey, 'utf8').digest('hex');
}

export function epayVerify(params: Record<string, string>, merchantKey: string): boolean {
  const given = params.sign;
  if (!given || !merchantKey) return false;
  const expected = Buffer.from(epaySign(params, merchantKey));
  const actual = Buffer.from(given.toLowerCase());
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The console's payment method names and Epay's `type` values. */
export const EPAY_TYPES: Record<string, string> = { zfb: 'alipay', alipay: 'alipay', wx: 'wxpay', wxpay: 'wxpay' };
