import { describe, expect, it } from 'vitest';
import { notifyProblem, parseNotifySettings, quotaToThreshold, thresholdToQuota } from './notify-settings';

describe('notify settings rules', () => {
  it('reads the setting string of GET /api/user/self, and defaults for empty or broken ones', () => {
    const defaults = {
      notifyType: 'email',
      threshold: 0,
      webhookUrl: '',
      notificationEmail: '',
      secretSet: false,
      acceptUnsetModelRatioModel: false,
      recordIpLog: false,
    };
    expect(parseNotifySettings('')).toEqual(defaults);
    expect(parseNotifySettings(undefined)).toEqual(defaults);
    expect(parseNotifySettings('{not json')).toEqual(defaults);
    expect(parseNotifySettings('[1]')).toEqual(defaults);
    expect(
      parseNotifySettings(
        JSON.stringify({
          notify_type: 'webhook',
          quota_warning_threshold: 2500,
          webhook_url: 'https://h.example/x',
          webhook_secret_set: true,
          record_ip_log: true,
        }),
      ),
    ).toEqual({ ...defaults, notifyType: 'webhook', threshold: 2500, webhookUrl: 'https://h.example/x', secretSet: true, recordIpLog: true });
    // Types the card does not offer (bark, gotify from new-api) read as mail.
    expect(parseNotifySettings('{"notify_type":"bark","quota_warning_threshold":-5}')).toMatchObject({ notifyType: 'email', threshold: 0 });
  });

  it('names the first mistake as the server would', () => {
    const form = { notifyType: 'webhook' as const, threshold: 1, webhookUrl: '', notificationEmail: '' };
    expect(notifyProblem(form)).toBe('webhookEmpty');
    expect(notifyProblem({ ...form, webhookUrl: '  ' })).toBe('webhookEmpty');
    expect(notifyProblem({ ...form, webhookUrl: 'ftp://h.example/' })).toBe('webhookInvalid');
    expect(notifyProblem({ ...form, webhookUrl: 'h.example/hook' })).toBe('webhookInvalid');
    expect(notifyProblem({ ...form, webhookUrl: 'http://h.example/hook' })).toBeUndefined();
    expect(notifyProblem({ ...form, threshold: -1, webhookUrl: 'http://h.example/' })).toBe('thresholdInvalid');
    const mail = { notifyType: 'email' as const, threshold: undefined, webhookUrl: 'ignored', notificationEmail: '' };
    expect(notifyProblem(mail)).toBeUndefined();
    expect(notifyProblem({ ...mail, notificationEmail: 'a@b' })).toBe('emailInvalid');
    expect(notifyProblem({ ...mail, notificationEmail: 'a@b.example' })).toBeUndefined();
  });

  it('converts a threshold typed in dollars or units to quota, and back', () => {
    expect(thresholdToQuota(2, true, 500_000)).toBe(1_000_000);
    expect(thresholdToQuota(0.015, true, 500_000)).toBe(7500);
    expect(thresholdToQuota(1234.6, false, 500_000)).toBe(1235);
    expect(thresholdToQuota(undefined, true, 500_000)).toBe(0);
    expect(thresholdToQuota(0, false, 500_000)).toBe(0);
    expect(quotaToThreshold(1_000_000, true, 500_000)).toBe(2);
    expect(quotaToThreshold(4000, false, 500_000)).toBe(4000);
    expect(quotaToThreshold(0, true, 500_000)).toBeUndefined();
  });
});
