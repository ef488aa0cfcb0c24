import { describe, expect, it } from 'vitest';
import { maskTokenKey } from './token-fields.js';

describe('maskTokenKey (new-api’s MaskTokenKey)', () => {
  it('keeps the first and last four characters of a real key around ten stars', () => {
    const key = 'abcdEFGH1234567890ijklmnopqrstuvwxyzABCDEFGHwxyz';
    expect(maskTokenKey(key)).toBe('abcd**********wxyz');
    expect(maskTokenKey(key)).not.toContain('EFGH');
  });

  it('gives short keys less: two and two up to eight characters, only stars up to four', () => {
    expect(maskTokenKey('')).toBe('');
    expect(maskTokenKey('abc')).toBe('***');
    expect(maskTokenKey('abcd')).toBe('****');
    expect(maskTokenKey('abcde')).toBe('ab****de');
    expect(maskTokenKey('abcdefgh')).toBe('ab****gh');
    expect(maskTokenKey('abcdefghi')).toBe('abcd**********fghi');
  });
});
