import { AUDIT_ACTIONS, type AuditEntry } from '@modelgate/contract';
import i18next, { type TFunction } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import en from '../../i18n/locales/en/audit.json';
import zh from '../../i18n/locales/zh/audit.json';
import { actionName, auditSummary, changedFields, filtersFromParams, roleKey } from './audit-rules';

const texts = i18next.createInstance();
let tEn: TFunction<'audit'>;
let tZh: TFunction<'audit'>;
beforeAll(async () => {
  await texts.init({
    resources: { en: { audit: en }, zh: { audit: zh } },
    lng: 'en',
    ns: ['audit'],
    interpolation: { escapeValue: false },
    showSupportNotice: false,
  });
  tEn = texts.getFixedT('en', 'audit') as unknown as TFunction<'audit'>;
  tZh = texts.getFixedT('zh', 'audit') as unknown as TFunction<'audit'>;
});

const entry = (fields: Partial<AuditEntry>): AuditEntry => ({
  id: 1,
  created_at: 1_700_000_000,
  actor_id: 2,
  actor_username: 'auditor',
  actor_role: 10,
  ip: '203.0.113.7',
  action: 'user.quota_change',
  target_type: 'user',
  target_id: '5',
  summary: '服务器的摘要',
  details: {},
  ...fields,
});
const dollars = (quota: number) => `$${(quota / 500_000).toFixed(2)}`;

describe('audit texts', () => {
  it('name every action code in zh and en', () => {
    for (const code of AUDIT_ACTIONS) {
      expect(actionName(tEn, code), code).not.toContain('actions.');
      expect(actionName(tZh, code), code).not.toContain('actions.');
    }
    expect(actionName(tZh, 'user.quota_change')).toBe('调整用户额度');
    expect(actionName(tEn, 'some.future_code')).toBe('some.future_code');
  });
});

describe('audit summaries in the reader’s language', () => {
  it('render a quota change from its before and after', () => {
    const row = entry({ details: { before: { quota: 0 }, after: { quota: 500_000 }, params: { mode: 'add', value: 500_000, target_username: 'alice' } } });
    expect(auditSummary(tEn, row, dollars)).toBe('Quota of alice (ID 5): $0.00 → $1.00');
    expect(auditSummary(tZh, row, dollars)).toBe('alice（ID 5）的额度：$0.00 → $1.00');
  });

  it('render an option change, a named target, a count and a sign-in', () => {
    const option = entry({ action: 'option.update', target_type: 'option', target_id: 'Notice', details: { before: { Notice: '' }, after: { Notice: 'hi' } } });
    expect(auditSummary(tEn, option, dollars)).toBe('Setting Notice: (empty) → hi');
    const channel = entry({ action: 'channel.delete', target_type: 'channel', target_id: '9', details: { before: { name: 'main', key: '******' } } });
    expect(auditSummary(tZh, channel, dollars)).toBe('删除渠道：main（ID 9）');
    const batch = entry({ action: 'channel.batch_delete', target_type: 'channel', target_id: '', details: { params: { ids: [1, 2], count: 2 } } });
    expect(auditSummary(tEn, batch, dollars)).toBe('Delete channels: 2 in all');
    expect(auditSummary(tEn, entry({ action: 'admin.login_failed' }), dollars)).toBe('auditor failed to sign in (wrong password)');
    const codeRefused = entry({ action: 'admin.login_failed', details: { params: { reason: '2fa' } } });
    expect(auditSummary(tZh, codeRefused, dollars)).toBe('auditor 登录失败（两步验证码错误）');
  });

  it('fall back to the server’s line for an action this console does not know', () => {
    expect(auditSummary(tEn, entry({ action: 'some.future_code' }), dollars)).toBe('服务器的摘要');
  });
});

describe('audit rows', () => {
  it('list each field either side names', () => {
    const row = entry({ details: { before: { display_name: 'a', password: '******' }, after: { display_name: 'b', password: '******', remark: 'x' } } });
    expect(changedFields(row)).toEqual([
      { field: 'display_name', before: 'a', after: 'b' },
      { field: 'password', before: '******', after: '******' },
      { field: 'remark', before: undefined, after: 'x' },
    ]);
  });

  it('read the filters from the address, dropping codes and types it does not know', () => {
    const filters = filtersFromParams(new URLSearchParams('action=user.create&actor=bob&target_type=user&target_id=5&ip=1.2.3.4&start=10&end=x'));
    expect(filters).toEqual({ action: 'user.create', actor: 'bob', targetType: 'user', targetId: '5', ip: '1.2.3.4', start: 10, end: 0 });
    expect(filtersFromParams(new URLSearchParams('action=drop.table&target_type=planet'))).toMatchObject({ action: '', targetType: '' });
  });

  it('tell roles apart', () => {
    expect([1, 10, 100].map(roleKey)).toEqual(['user', 'admin', 'root']);
  });
});
