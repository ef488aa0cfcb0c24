import { describe, expect, it } from 'vitest';
import { activeRateLimits, compactFigure, isRateLimitFigure, rateLimitFormValues, rateLimitInput } from './rate-limits';

describe('rate-limit figures in the console', () => {
  it('edits 0 as an empty field and sends an empty field as 0', () => {
    const figures = { rpm_limit: 60, tpm_limit: 0, rpd_limit: 1000, concurrency_limit: 0 };
    expect(rateLimitFormValues(figures)).toEqual({ rpm_limit: 60, tpm_limit: undefined, rpd_limit: 1000, concurrency_limit: undefined });
    expect(rateLimitInput(rateLimitFormValues(figures))).toEqual(figures);
    expect(rateLimitInput({})).toEqual({ rpm_limit: 0, tpm_limit: 0, rpd_limit: 0, concurrency_limit: 0 });
  });

  it('takes what the server takes', () => {
    for (const value of [undefined, null, '', 0, 1, 2_147_483_647]) expect(isRateLimitFigure(value)).toBe(true);
    for (const value of [-1, 1.5, 2_147_483_648, '12', Number.NaN]) expect(isRateLimitFigure(value)).toBe(false);
  });

  it('lists the limits set, in order, with short figures', () => {
    expect(activeRateLimits({ rpm_limit: 60, tpm_limit: 100_000, rpd_limit: 0, concurrency_limit: 3 })).toEqual([
      { kind: 'rpm', value: 60 },
      { kind: 'tpm', value: 100_000 },
      { kind: 'concurrency', value: 3 },
    ]);
    expect(activeRateLimits({ rpm_limit: 0, tpm_limit: 0, rpd_limit: 0, concurrency_limit: 0 })).toEqual([]);
    expect([60, 9_999, 10_000, 100_000, 1_500_000, 2_000_000_000].map(compactFigure)).toEqual(['60', '9999', '10K', '100K', '1.5M', '2B']);
  });
});
