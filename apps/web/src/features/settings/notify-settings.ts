/**
 * The user's quota warning (new-api's user setting), as GET /api/user/self returns it inside the
 * `setting` JSON string and PUT /api/user/setting takes it. The webhook secret is write-only: the
 * server answers only whether one is stored.
 */
export type NotifyType = 'email' | 'webhook';

export interface NotifySettings {
  notifyType: NotifyType;
  /** Quota units; 0: the site's threshold. */
  threshold: number;
  webhookUrl: string;
  notificationEmail: string;
  secretSet: boolean;
  acceptUnsetModelRatioModel: boolean;
  recordIpLog: boolean;
}

/** Reads the `setting` string of GET /api/user/self; an empty or unreadable one is the defaults. */
export function parseNotifySettings(setting: string | undefined): NotifySettings {
  let stored: Record<string, unknown> = {};
  try {
    const value: unknown = setting ? JSON.parse(setting) : {};
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) stored = value as Record<string, unknown>;
  } catch {
    /* an unreadable setting is no setting */
  }
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const threshold = Number(stored.quota_warning_threshold);
  return {
    notifyType: stored.notify_type === 'webhook' ? 'webhook' : 'email',
    threshold: Number.isFinite(threshold) && threshold > 0 ? threshold : 0,
    webhookUrl: text(stored.webhook_url),
    notificationEmail: text(stored.notification_email),
    secretSet: stored.webhook_secret_set === true,
    acceptUnsetModelRatioModel: stored.accept_unset_model_ratio_model === true,
    recordIpLog: stored.record_ip_log === true,
  };
}

export type NotifyProblem = 'webhookEmpty' | 'webhookInvalid' | 'emailInvalid' | 'thresholdInvalid';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isHttpUrl(address: string): boolean {
  try {
    const url = new URL(address);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The same checks the server makes, so a mistake is named before anything is sent. */
export function notifyProblem(form: {
  notifyType: NotifyType;
  threshold: number | undefined;
  webhookUrl: string;
  notificationEmail: string;
}): NotifyProblem | undefined {
  if (form.threshold !== undefined && !(Number.isFinite(form.threshold) && form.threshold >= 0)) return 'thresholdInvalid';
  if (form.notifyType === 'webhook') {
    const url = form.webhookUrl.trim();
    if (url === '') return 'webhookEmpty';
    if (!isHttpUrl(url)) return 'webhookInvalid';
  } else {
    const email = form.notificationEmail.trim();
    if (email !== '' && !EMAIL.test(email)) return 'emailInvalid';
  }
  return undefined;
}

/** A threshold typed in dollars (display in currency) or in units, as quota units. */
export function thresholdToQuota(value: number | undefined, inCurrency: boolean, perUnit: number): number {
  if (value === undefined || !Number.isFinite(value) || value <= 0) return 0;
  return inCurrency ? Math.round(value * perUnit) : Math.round(value);
}

/** The stored threshold as the field shows it: dollars with at most 6 decimals, or units. */
export function quotaToThreshold(quota: number, inCurrency: boolean, perUnit: number): number | undefined {
  if (quota <= 0) return undefined;
  return inCurrency ? Number((quota / perUnit).toFixed(6)) : quota;
}

export interface NotifySettingsUpdate {
  notify_type: NotifyType;
  quota_warning_threshold: number;
  webhook_url: string;
  /** Omitted: keep the stored secret; null: remove it. */
  webhook_secret?: string | null;
  notification_email: string;
  accept_unset_model_ratio_model: boolean;
  record_ip_log: boolean;
}
