import { z } from 'zod';
import { badRequest } from '../../errors/app-error.js';
import type { SecretBox } from '../../lib/secret-box.js';

/**
 * A user's own settings, stored as new-api stores them: one JSON object in users.setting (new-api's
 * dto.UserSetting). Here the quota warning: how (mail or webhook), where, and below which balance.
 * Keys this file does not know (other new-api settings) are kept as they are.
 */
export interface UserSetting {
  notify_type?: NotifyType;
  /** Quota units; 0 or unset: the site's QuotaRemindThreshold. */
  quota_warning_threshold?: number;
  webhook_url?: string;
  webhook_secret?: string;
  notification_email?: string;
  accept_unset_model_ratio_model?: boolean;
  record_ip_log?: boolean;
  [other: string]: unknown;
}

export const NOTIFY_TYPES = ['email', 'webhook'] as const;
export type NotifyType = (typeof NOTIFY_TYPES)[number];

const MAX_URL_LENGTH = 2048;
const MAX_SECRET_LENGTH = 256;

const emailAddress = z.email().max(128);

/**
 * PUT /api/user/setting, new-api's UpdateUserSettingRequest. Its console sends every field each
 * time; webhook_secret is write-only here (never read back), so an empty or missing one keeps the
 * stored secret and null removes it.
 */
export const updateSchema = z.object(
  {
    notify_type: z.string({ error: '无效的预警类型' }),
    quota_warning_threshold: z
      .number({ error: '预警阈值必须是数字' })
      .min(0, '预警阈值不能为负数')
      .max(Number.MAX_SAFE_INTEGER, '预警阈值过大')
      .optional()
      .default(0),
    webhook_url: z.string({ error: '无效的Webhook地址' }).optional().default(''),
    webhook_secret: z.string({ error: '无效的Webhook密钥' }).max(MAX_SECRET_LENGTH, 'Webhook密钥过长').nullable().optional(),
    notification_email: z.string({ error: '无效的邮箱地址' }).optional().default(''),
    accept_unset_model_ratio_model: z.boolean({ error: '无效的参数' }).optional().default(false),
    record_ip_log: z.boolean({ error: '无效的参数' }).optional().default(false),
  },
  { error: '无效的参数' },
);

export type UserSettingUpdate = z.output<typeof updateSchema>;

/** The stored setting as an object; an empty or unreadable column is no setting. */
export function parseUserSetting(stored: string | null | undefined): UserSetting {
  if (!stored) return {};
  try {
    const value: unknown = JSON.parse(stored);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as UserSetting) : {};
  } catch {
    return {};
  }
}

function isHttpUrl(address: string): boolean {
  if (address.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(address);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Checks an update and merges it into the stored setting, as new-api's UpdateUserSetting does: the
 * webhook fields are kept only for the webhook type and the notification email only for the email
 * type. Throws the message new-api answers for the first problem.
 */
export function applyUserSettingUpdate(stored: UserSetting, input: unknown): UserSetting {
  const parsed = updateSchema.safeParse(input ?? {});
  if (!parsed.success) throw badRequest(parsed.error.issues[0]!.message, 'user_setting:invalid');
  const update = parsed.data;
  if (!(NOTIFY_TYPES as readonly string[]).includes(update.notify_type)) throw badRequest('无效的预警类型', 'user_setting:invalid_type');
  const notifyType = update.notify_type as NotifyType;

  const next: UserSetting = { ...stored };
  delete next.webhook_url;
  delete next.webhook_secret;
  delete next.notification_email;
  next.notify_type = notifyType;
  next.quota_warning_threshold = update.quota_warning_threshold;
  next.accept_unset_model_ratio_model = update.accept_unset_model_ratio_model;
  next.record_ip_log = update.record_ip_log;

  if (notifyType === 'webhook') {
    const url = update.webhook_url.trim();
    if (url === '') throw badRequest('Webhook地址不能为空', 'user_setting:webhook_empty');
    if (!isHttpUrl(url)) throw badRequest('无效的Webhook地址，须以 http:// 或 https:// 开头', 'user_setting:webhook_invalid');
    next.webhook_url = url;
    const secret = update.webhook_secret === undefined || update.webhook_secret === '' ? stored.webhook_secret : update.webhook_secret;
    if (typeof secret === 'string' && secret !== '') next.webhook_secret = secret;
  } else {
    const email = update.notification_email.trim();
    if (email !== '') {
      if (!emailAddress.safeParse(email).success) throw badRequest('无效的邮箱地址', 'user_setting:email_invalid');
      next.notification_email = email;
    }
  }
  return next;
}

/**
 * users.setting as the user (and an administrator) may read it: the stored JSON without the webhook
 * secret, which is write-only; for a webhook `webhook_secret_set` says whether one is stored.
 */
export function publicUserSetting(stored: string): string {
  if (!stored) return stored;
  const setting = parseUserSetting(stored);
  if (setting.notify_type !== 'webhook' && !WRITE_ONLY_KEYS.some((key) => key in setting)) return stored;
  const secret = setting.webhook_secret;
  const shown: UserSetting = { ...setting };
  for (const key of WRITE_ONLY_KEYS) delete shown[key];
  return JSON.stringify({ ...shown, webhook_secret_set: typeof secret === 'string' && secret !== '' });
}

/** Secrets a setting may hold (gotify_token from a database new-api wrote). */
const WRITE_ONLY_KEYS = ['webhook_secret', 'gotify_token'] as const;

/** The setting as it is stored: its secrets sealed (those already sealed are kept as they are). */
export function sealUserSetting(setting: UserSetting, box: SecretBox): UserSetting {
  const sealed: UserSetting = { ...setting };
  for (const key of WRITE_ONLY_KEYS) {
    const value = sealed[key];
    if (typeof value === 'string' && value !== '') sealed[key] = box.sealOnce(value);
  }
  return sealed;
}

/** A stored setting column with its secrets open (as JSON.stringify writes it when it holds any). */
export function openStoredUserSetting(stored: string, box: SecretBox): string {
  if (!stored || !WRITE_ONLY_KEYS.some((key) => stored.includes(`"${key}"`))) return stored;
  const setting = parseUserSetting(stored);
  for (const key of WRITE_ONLY_KEYS) {
    const value = setting[key];
    if (typeof value === 'string') setting[key] = box.open(value);
  }
  return JSON.stringify(setting);
}

/** A stored setting column with its secrets sealed; unchanged when it holds none in plain text. */
export function sealStoredUserSetting(stored: string, box: SecretBox): string {
  if (!stored || !WRITE_ONLY_KEYS.some((key) => stored.includes(`"${key}"`))) return stored;
  const setting = parseUserSetting(stored);
  const sealed = sealUserSetting(setting, box);
  return WRITE_ONLY_KEYS.some((key) => sealed[key] !== setting[key]) ? JSON.stringify(sealed) : stored;
}

/** The quota warning a user asked for, read from the stored setting. */
export interface QuotaWarningPreference {
  type: NotifyType;
  /** 0: the site's threshold. */
  threshold: number;
  webhookUrl: string;
  webhookSecret: string;
  notificationEmail: string;
}

export function quotaWarningPreference(stored: string | null | undefined, box: SecretBox): QuotaWarningPreference {
  const setting = parseUserSetting(stored);
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const threshold = Number(setting.quota_warning_threshold);
  return {
    type: setting.notify_type === 'webhook' ? 'webhook' : 'email',
    threshold: Number.isFinite(threshold) && threshold > 0 ? threshold : 0,
    webhookUrl: text(setting.webhook_url),
    webhookSecret: box.open(text(setting.webhook_secret)),
    notificationEmail: text(setting.notification_email),
  };
}
