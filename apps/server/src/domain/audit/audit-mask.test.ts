import { describe, expect, it } from 'vitest';
import { changedFields } from './audit-log.js';
import { MASKED, maskAuditValue } from './audit-mask.js';

describe('audit masking', () => {
  it('hides values under secret names at any depth, keeps an empty one empty', () => {
    const masked = maskAuditValue({
      key: 'sk-live-0123456789abcdef',
      password: '$2a$10$hash',
      nested: { client_secret: 'abc', 'oidc.client_secret': 'def', access_token: 'tok', name: 'main' },
      list: [{ api_key: 'k1' }],
      cleared: { key: '' },
    });
    expect(masked).toEqual({
      key: MASKED,
      password: MASKED,
      nested: { client_secret: MASKED, 'oidc.client_secret': MASKED, access_token: MASKED, name: 'main' },
      list: [{ api_key: MASKED }],
      cleared: { key: '' },
    });
  });

  it('hides credentials inside ordinary text, and the names a caller adds', () => {
    const masked = maskAuditValue(
      { header_override: '{"Authorization":"Bearer abcdefghijklmnop"}', SMTPToken: 'smtp-pass', Notice: 'sk-abcdefghijklmnopqrstu' },
      (name) => name === 'SMTPToken',
    ) as Record<string, string>;
    expect(masked.SMTPToken).toBe(MASKED);
    expect(masked.header_override).not.toContain('abcdefghijklmnop');
    expect(masked.Notice).not.toContain('abcdefghijklmnopqrstu');
  });

  it('cuts long text, saying how long it was', () => {
    const masked = maskAuditValue({ setting: 'x'.repeat(10_000) }) as { setting: string };
    expect(masked.setting.length).toBeLessThan(4100);
    expect(masked.setting).toMatch(/… \(10000 characters\)$/);
  });

  it('keeps only the fields an update changed', () => {
    expect(changedFields({ a: 1, b: 'x', c: [1] }, { a: 1, b: 'y', c: [1], d: true })).toEqual({ before: { b: 'x' }, after: { b: 'y', d: true } });
    expect(changedFields(undefined, { a: 1 })).toEqual({ before: undefined, after: { a: 1 } });
  });
});
