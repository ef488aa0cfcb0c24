import { describe, expect, it } from 'vitest';
import { epayMoneyMatches } from './epay.js';

describe('epayMoneyMatches', () => {
  it('matches a plain decimal equal to the order amount to the cent', () => {
    expect(epayMoneyMatches('73.00', 73)).toBe(true);
    expect(epayMoneyMatches('73', 73)).toBe(true);
    expect(epayMoneyMatches('0.10', 0.1)).toBe(true);
    // A float that is not quite 0.3 in the database is still 30 cents.
    expect(epayMoneyMatches('0.30', 0.1 + 0.2)).toBe(true);
  });

  it('refuses an absent, malformed or different amount', () => {
    for (const money of [undefined, '', ' ', 'abc', 'NaN', 'Infinity', '0x49', '7.3e1', '+73', '-73.00', '73.', '.5', '73,00', '73.01', '1'.repeat(40)]) {
      expect(epayMoneyMatches(money, 73), String(money)).toBe(false);
    }
    expect(epayMoneyMatches('73.00', Number.NaN)).toBe(false);
  });
});
