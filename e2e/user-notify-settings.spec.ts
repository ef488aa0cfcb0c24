import { expect, test, type Page } from '@playwright/test';
import { apiCall, apiSession, registerUser, signIn, toast, USER_PASSWORD } from './wallet-helpers';

/**
 * The quota warning card on the personal tab (PUT /api/user/setting): a webhook with its secret and
 * a threshold in dollars, then a notification email, each saved, read back after a reload and
 * through GET /api/user/self; mistakes are named before anything is sent. zh and en.
 */

const TEXTS = {
  zh: {
    card: '通知与偏好',
    webhook: 'Webhook',
    email: '邮件',
    save: '保存设置',
    saved: '设置已保存',
    secretKept: '已设置，留空保持不变',
    webhookEmpty: 'Webhook地址不能为空',
    webhookInvalid: '无效的Webhook地址，须以 http:// 或 https:// 开头',
    emailInvalid: '无效的邮箱地址',
    equals: '相当于 1000000 额度',
    acceptUnpriced: '接受未设置价格的模型',
    recordIp: '记录请求 IP',
  },
  en: {
    card: 'Notifications and preferences',
    webhook: 'Webhook',
    email: 'Email',
    save: 'Save settings',
    saved: 'Settings saved',
    secretKept: 'Set; leave empty to keep it',
    webhookEmpty: 'Enter the webhook URL',
    webhookInvalid: 'The webhook URL must start with http:// or https://',
    emailInvalid: 'Not a valid email address',
    equals: 'Equals 1000000 quota',
    acceptUnpriced: 'Accept models without a price',
    recordIp: 'Record request IPs',
  },
} as const;

interface SelfSetting {
  setting: string;
}

async function storedSetting(username: string): Promise<Record<string, unknown>> {
  const session = await apiSession(username, USER_PASSWORD);
  try {
    const self = await apiCall<SelfSetting>(session, 'GET', '/api/user/self');
    return self.setting ? (JSON.parse(self.setting) as Record<string, unknown>) : {};
  } finally {
    await session.api.dispose();
  }
}

const card = (page: Page) => page.getByTestId('notify-settings');

for (const language of ['zh', 'en'] as const) {
  const text = TEXTS[language];

  test(`[${language}] the quota warning: a webhook, then a notification email, saved and seen after a reload`, async ({ page }) => {
    await page.addInitScript((value) => localStorage.setItem('i18nextLng', value), language);
    const username = await registerUser(`nt${language}`);
    await signIn(page, username, USER_PASSWORD);
    await page.goto('/setting');
    await expect(card(page).getByText(text.card, { exact: true })).toBeVisible();
    // Nothing stored yet: mail, no threshold.
    await expect(card(page).getByRole('radio', { name: text.email })).toBeChecked();

    await card(page).getByRole('radio', { name: text.webhook }).check();
    await card(page).getByRole('button', { name: text.save }).click();
    await expect(toast(page, text.webhookEmpty)).toBeVisible();
    await card(page).locator('#mg-notify-webhook').fill('ftp://hooks.example.com/q');
    await card(page).getByRole('button', { name: text.save }).click();
    await expect(toast(page, text.webhookInvalid)).toBeVisible();
    expect(await storedSetting(username)).toEqual({});

    await card(page).locator('#mg-notify-webhook').fill('https://hooks.example.com/quota?team=7');
    await card(page).locator('#mg-notify-secret').fill('e2e-webhook-secret');
    // The site shows money: the threshold is typed in dollars ($2 = 1,000,000 quota at 500,000 a dollar).
    await card(page).locator('#mg-notify-threshold').fill('2');
    await expect(card(page).getByTestId('notify-threshold-hint')).toHaveText(text.equals);
    await card(page).locator('.semi-checkbox').filter({ hasText: text.acceptUnpriced }).click();
    await card(page).getByRole('button', { name: text.save }).click();
    await expect(toast(page, text.saved)).toBeVisible();
    expect(await storedSetting(username)).toMatchObject({
      notify_type: 'webhook',
      quota_warning_threshold: 1_000_000,
      webhook_url: 'https://hooks.example.com/quota?team=7',
      webhook_secret_set: true,
      accept_unset_model_ratio_model: true,
    });

    await page.reload();
    await expect(card(page).getByRole('radio', { name: text.webhook })).toBeChecked();
    await expect(card(page).locator('#mg-notify-webhook')).toHaveValue('https://hooks.example.com/quota?team=7');
    await expect(card(page).locator('#mg-notify-threshold')).toHaveValue('2.00');
    // The secret is never sent back: the field says one is kept.
    await expect(card(page).locator('#mg-notify-secret')).toHaveValue('');
    await expect(card(page).locator('#mg-notify-secret')).toHaveAttribute('placeholder', text.secretKept);
    await expect(card(page).locator('.semi-checkbox').filter({ hasText: text.acceptUnpriced })).toHaveClass(/semi-checkbox-checked/);

    await card(page).getByRole('radio', { name: text.email }).check();
    await card(page).locator('#mg-notify-email').fill('not-an-address');
    await card(page).getByRole('button', { name: text.save }).click();
    await expect(toast(page, text.emailInvalid)).toBeVisible();
    await card(page).locator('#mg-notify-email').fill(`${username}@example.com`);
    await card(page).locator('.semi-checkbox').filter({ hasText: text.recordIp }).click();
    await card(page).getByRole('button', { name: text.save }).click();
    await expect(toast(page, text.saved)).toBeVisible();

    await page.reload();
    await expect(card(page).getByRole('radio', { name: text.email })).toBeChecked();
    await expect(card(page).locator('#mg-notify-email')).toHaveValue(`${username}@example.com`);
    await expect(card(page).locator('#mg-notify-threshold')).toHaveValue('2.00');
    const stored = await storedSetting(username);
    expect(stored).toMatchObject({
      notify_type: 'email',
      quota_warning_threshold: 1_000_000,
      notification_email: `${username}@example.com`,
      accept_unset_model_ratio_model: true,
      record_ip_log: true,
    });
    expect(stored).not.toHaveProperty('webhook_url');
  });
}
