import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

let test: TestApp;
let root: Record<string, string>;
let user: Record<string, string>;
let userId: number;
beforeEach(async () => {
  test = await startTestApp();
  root = await test.login();
  await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username: 'notified', password: 'password123' } });
  user = await test.login('notified', 'password123');
  userId = Number(user['new-api-user']);
});
afterEach(async () => test.close());

const put = async (payload: unknown, headers = user) => {
  const response = await test.app.inject({ method: 'PUT', url: '/api/user/setting', headers, payload: payload as object });
  return { status: response.statusCode, body: response.json() };
};
const selfSetting = async (headers = user) => {
  const body = (await test.app.inject({ method: 'GET', url: '/api/user/self', headers })).json();
  expect(typeof body.data.setting).toBe('string');
  return body.data.setting === '' ? {} : JSON.parse(body.data.setting);
};
const storedColumn = async () =>
  (await test.context.db.kysely.selectFrom('users').select('setting').where('id', '=', userId).executeTakeFirstOrThrow()).setting;
/** The stored setting with its webhook secret opened (it is sealed in the column). */
const stored = async () => {
  const setting = JSON.parse(await storedColumn()) as Record<string, unknown>;
  if (typeof setting.webhook_secret === 'string') setting.webhook_secret = test.context.db.secrets.open(setting.webhook_secret);
  return setting;
};

const SECRET = 'whsec-0123456789-abcdef';

describe('PUT /api/user/setting', () => {
  it('stores a mail warning with its threshold and address, returned by GET /api/user/self as a JSON string', async () => {
    expect(await selfSetting()).toEqual({});
    const saved = await put({
      notify_type: 'email',
      quota_warning_threshold: 250000,
      notification_email: 'alerts@example.com',
      accept_unset_model_ratio_model: false,
      record_ip_log: false,
    });
    expect(saved).toEqual({ status: 200, body: { success: true, message: '设置已更新' } });
    expect(await selfSetting()).toEqual({
      notify_type: 'email',
      quota_warning_threshold: 250000,
      notification_email: 'alerts@example.com',
      accept_unset_model_ratio_model: false,
      record_ip_log: false,
    });
  });

  it('stores a webhook with a write-only secret: never read back, kept when sent empty, removed with null', async () => {
    expect(
      (await put({ notify_type: 'webhook', quota_warning_threshold: 1000, webhook_url: 'https://hooks.example.com/q?token=abc', webhook_secret: SECRET })).body
        .success,
    ).toBe(true);
    expect(await stored()).toMatchObject({ notify_type: 'webhook', webhook_url: 'https://hooks.example.com/q?token=abc', webhook_secret: SECRET });
    expect(await storedColumn()).not.toContain(SECRET);
    const shown = await selfSetting();
    expect(shown).toMatchObject({ notify_type: 'webhook', webhook_url: 'https://hooks.example.com/q?token=abc', webhook_secret_set: true });
    expect(shown).not.toHaveProperty('webhook_secret');
    // An administrator reading the user does not see it either.
    const asAdmin = (await test.app.inject({ method: 'GET', url: `/api/user/${userId}`, headers: root })).body;
    expect(asAdmin).not.toContain(SECRET);
    expect((await test.app.inject({ method: 'GET', url: '/api/user/', headers: root })).body).not.toContain(SECRET);

    // new-api's console sends back what it read: no secret. The stored one stays.
    await put({ notify_type: 'webhook', quota_warning_threshold: 2000, webhook_url: 'https://hooks.example.com/other', webhook_secret: '' });
    expect(await stored()).toMatchObject({ quota_warning_threshold: 2000, webhook_url: 'https://hooks.example.com/other', webhook_secret: SECRET });
    await put({ notify_type: 'webhook', quota_warning_threshold: 2000, webhook_url: 'https://hooks.example.com/other' });
    expect((await stored()).webhook_secret).toBe(SECRET);
    expect(await storedColumn()).not.toContain(SECRET);

    await put({ notify_type: 'webhook', quota_warning_threshold: 2000, webhook_url: 'https://hooks.example.com/other', webhook_secret: null });
    expect(await stored()).not.toHaveProperty('webhook_secret');
    expect(await selfSetting()).toMatchObject({ webhook_secret_set: false });
  });

  it('drops the webhook when the user goes back to mail, and keeps keys it does not manage', async () => {
    await test.context.db.kysely
      .updateTable('users')
      .set({ setting: JSON.stringify({ sidebar_modules: '{"chat":true}' }) })
      .where('id', '=', userId)
      .execute();
    await put({ notify_type: 'webhook', quota_warning_threshold: 1, webhook_url: 'http://hooks.example.com/', webhook_secret: SECRET });
    await put({ notify_type: 'email', quota_warning_threshold: 5 });
    expect(await stored()).toEqual({
      sidebar_modules: '{"chat":true}',
      notify_type: 'email',
      quota_warning_threshold: 5,
      accept_unset_model_ratio_model: false,
      record_ip_log: false,
    });
  });

  it('refuses what new-api refuses, with its message, and stores nothing', async () => {
    await put({ notify_type: 'email', quota_warning_threshold: 100 });
    const before = await stored();
    const cases: [unknown, string][] = [
      [{ notify_type: 'sms', quota_warning_threshold: 1 }, '无效的预警类型'],
      [{ quota_warning_threshold: 1 }, '无效的预警类型'],
      [{ notify_type: 'email', quota_warning_threshold: -1 }, '预警阈值不能为负数'],
      [{ notify_type: 'email', quota_warning_threshold: '100' }, '预警阈值必须是数字'],
      [{ notify_type: 'webhook', quota_warning_threshold: 1, webhook_url: '' }, 'Webhook地址不能为空'],
      [{ notify_type: 'webhook', quota_warning_threshold: 1 }, 'Webhook地址不能为空'],
      [{ notify_type: 'webhook', quota_warning_threshold: 1, webhook_url: 'ftp://hooks.example.com/' }, '无效的Webhook地址，须以 http:// 或 https:// 开头'],
      [{ notify_type: 'webhook', quota_warning_threshold: 1, webhook_url: 'hooks.example.com/q' }, '无效的Webhook地址，须以 http:// 或 https:// 开头'],
      [{ notify_type: 'email', quota_warning_threshold: 1, notification_email: 'not-an-address' }, '无效的邮箱地址'],
      [{ notify_type: 'email', quota_warning_threshold: 1, notification_email: 'a@b' }, '无效的邮箱地址'],
      [{ notify_type: 'email', quota_warning_threshold: 1, record_ip_log: 'yes' }, '无效的参数'],
      [[{ notify_type: 'email' }], '无效的参数'],
    ];
    for (const [payload, message] of cases) {
      const { status, body } = await put(payload);
      expect(body, JSON.stringify(payload)).toEqual({ success: false, message });
      // new-api's rule: a refusal is HTTP 200 with success:false.
      expect(status).toBe(200);
    }
    const notJson = await test.app.inject({
      method: 'PUT',
      url: '/api/user/setting',
      headers: { ...user, 'content-type': 'application/json' },
      payload: '{"notify_type":',
    });
    expect(notJson.json().success).toBe(false);
    expect(notJson.statusCode).toBe(200);
    expect(await stored()).toEqual(before);
  });

  it('needs a session', async () => {
    const { status, body } = await put({ notify_type: 'email', quota_warning_threshold: 1 }, {});
    expect(status).toBe(401);
    expect(body.success).toBe(false);
  });
});
