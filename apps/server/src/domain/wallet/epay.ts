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
  return createHash('md5')
    .update(payload + merchantKey, 'utf8')
    .digest('hex');
}

export function epayVerify(params: Record<string, string>, merchantKey: string): boolean {
  const given = params.sign;
  if (!given || !merchantKey) return false;
  const expected = Buffer.from(epaySign(params, merchantKey));
  const actual = Buffer.from(given.toLowerCase());
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A plain decimal amount, as Epay writes `money` ("73.00"); not hex, exponents, signs or blanks, which Number() would take. */
const MONEY_PATTERN = /^\d{1,15}(\.\d{1,8})?$/;

/**
 * Whether a notify's `money` is the order's amount, to the cent. A notify without it, or with
 * anything but a plain decimal, does not match: a signature proves who sent the notify, not that
 * what it says was paid is what the order costs.
 */
export function epayMoneyMatches(money: string | undefined, orderMoney: number): boolean {
  if (money === undefined || !MONEY_PATTERN.test(money) || !Number.isFinite(orderMoney)) return false;
  return Math.round(Number(money) * 100) === Math.round(orderMoney * 100);
}

/** The console's payment method names and Epay's `type` values. */
export const EPAY_TYPES: Record<string, string> = { zfb: 'alipay', alipay: 'alipay', wx: 'wxpay', wxpay: 'wxpay' };
