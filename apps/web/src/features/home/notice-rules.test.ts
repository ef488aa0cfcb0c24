import { describe, expect, it } from 'vitest';
import { noticeFingerprint, shouldShowNotice } from './notice-rules';

describe('the home page notice, once per change', () => {
  it('is shown when this browser closed no notice yet', () => {
    expect(shouldShowNotice('# 维护通知', null)).toBe(true);
  });

  it('is not shown again once this text was closed', () => {
    const closed = noticeFingerprint('# 维护通知\n\n今晚 22:00 维护');
    expect(shouldShowNotice('# 维护通知\n\n今晚 22:00 维护', closed)).toBe(false);
    expect(shouldShowNotice('  # 维护通知\n\n今晚 22:00 维护\n', closed)).toBe(false);
  });

  it('is shown again when the admin changes the text, even by one character', () => {
    const closed = noticeFingerprint('今晚 22:00 维护');
    expect(shouldShowNotice('今晚 23:00 维护', closed)).toBe(true);
    expect(shouldShowNotice('今晚 22:00 维护。', closed)).toBe(true);
  });

  it('is never shown when empty', () => {
    expect(shouldShowNotice('', null)).toBe(false);
    expect(shouldShowNotice('  \n ', null)).toBe(false);
    expect(shouldShowNotice(undefined, null)).toBe(false);
  });

  it('fingerprints differ for texts of the same length and stay short for long ones', () => {
    expect(noticeFingerprint('abc')).not.toBe(noticeFingerprint('abd'));
    expect(noticeFingerprint('x'.repeat(100_000)).length).toBeLessThan(24);
  });
});
