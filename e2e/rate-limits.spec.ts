import { expect, test, type Locator, type Page } from '@playwright/test';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream';
import { apiCall, apiSession, presetLanguageAndTheme, ROOT, setOption, signIn, toast, type ApiSession } from './wallet-helpers';

/**
 * Rate limits in the console (issue 27) over the real server: a user sets a token's limits on the
 * token form and reads them in the token list, on a wide screen and on a phone; the limit then
 * refuses a relay call with 429; an administrator sets a user's limits on the user form and the
 * group and model limits in the operation settings.
 */

const run = Date.now().toString(36).slice(-6);
const username = `rl${run}`;
const password = 'rate-limits-1';
let upstream: MockUpstream;
let root: ApiSession;
let user: ApiSession;
let channelId: number | undefined;
let groupLimitsBefore = '{}';

interface WireToken {
  id: number;
  name: string;
  rpm_limit: number;
  tpm_limit: number;
  rpd_limit: number;
  concurrency_limit: number;
}

test.beforeAll(async () => {
  upstream = await startMockUpstream(['gpt-4o-mini']);
  root = await apiSession(ROOT.username, ROOT.password);
  // A group of its own: channels other specs leave behind never serve this user.
  channelId = (
    await apiCall<{ id: number }>(root, 'POST', '/api/channel/', {
      type: 1,
      name: `limits-${run}`,
      group: username,
      models: 'gpt-4o-mini',
      base_url: upstream.url,
      key: 'sk-upstream-secret',
    })
  ).id;
  const created = await apiCall<{ id: number }>(root, 'POST', '/api/user/', { username, password });
  await apiCall(root, 'PUT', '/api/user/', { id: created.id, quota: 50_000_000, group: username });
  user = await apiSession(username, password);
  const options = await apiCall<{ key: string; value: string }[]>(root, 'GET', '/api/option/');
  groupLimitsBefore = options.find((entry) => entry.key === 'GroupRateLimits')?.value ?? '{}';
});

test.afterAll(async () => {
  if (root) {
    await setOption(root, 'GroupRateLimits', groupLimitsBefore);
    if (channelId !== undefined) await root.api.delete(`/api/channel/${channelId}/`);
    await root.api.dispose();
  }
  await user?.api.dispose();
  await upstream?.close();
});

const createToken = (name: string, fields: Record<string, unknown> = {}) =>
  apiCall<WireToken>(user, 'POST', '/api/token/', { name, unlimited_quota: true, expired_time: -1, ...fields });
const readToken = (id: number) => apiCall<WireToken>(user, 'GET', `/api/token/${id}`);
const fullKey = async (id: number) => `sk-${(await apiCall<{ key: string }>(user, 'POST', `/api/token/${id}/key`)).key}`;

/** Scrolls the token table sideways to a cell's column (scrollIntoView would shift the whole page on a phone). */
async function showColumn(cell: Locator): Promise<void> {
  await cell.evaluate((node) => {
    // A phone's table has no sideways scroller: its few columns fit.
    const body = node.closest('.semi-table-body') as HTMLElement | null;
    const column = node.closest('td') as HTMLElement;
    if (body) body.scrollLeft = Math.max(0, column.offsetLeft - 24);
  });
}

async function openTokens(page: Page, language: 'zh' | 'en', width: number, height: number): Promise<void> {
  await presetLanguageAndTheme(page, language, 'light');
  await page.setViewportSize({ width, height });
  await signIn(page, username, password);
  await page.goto('/token');
}

test('[zh, 1440] a token’s limits are set on its form, shown in the list, and a call past one gets 429', async ({ page }) => {
  const token = await createToken(`limits-${run}`);
  await openTokens(page, 'zh', 1440, 900);
  const limits = page.getByTestId(`token-limits-${token.id}`);
  await expect(limits).toHaveText('不限');

  await page.getByTestId(`token-edit-${token.id}`).click();
  const drawer = page.locator('.semi-sidesheet').filter({ hasText: '更新令牌信息' });
  const form = drawer.getByTestId('token-form-limits');
  await expect(form).toContainText('速率限制');
  await expect(form.getByTestId('token-form-limits-rpm')).toHaveAttribute('placeholder', '不限制');
  await form.getByTestId('token-form-limits-rpm').fill('1');
  await form.getByTestId('token-form-limits-tpm').fill('100000');
  await form.getByTestId('token-form-limits-concurrency').fill('3');
  await form.getByTestId('token-form-limits-concurrency').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '.tmp/screens/rate-limits-token-form-zh-1440.png' });
  await drawer.getByTestId('token-form-submit').click();
  await expect(toast(page, '令牌更新成功！')).toBeVisible();
  await expect(drawer).toBeHidden();

  await expect(limits).toContainText('1 RPM');
  await expect(limits).toContainText('100K TPM');
  await expect(limits).toContainText('并发 3');
  await expect(limits).not.toContainText('RPD');
  expect(await readToken(token.id)).toMatchObject({ rpm_limit: 1, tpm_limit: 100_000, rpd_limit: 0, concurrency_limit: 3 });
  await page.screenshot({ path: '.tmp/screens/rate-limits-token-list-zh-1440.png' });

  // The form shows what is stored when opened again.
  await page.getByTestId(`token-edit-${token.id}`).click();
  await expect(drawer.getByTestId('token-form-limits-rpm')).toHaveValue('1');
  await expect(drawer.getByTestId('token-form-limits-rpd')).toHaveValue('');
  await drawer.getByRole('button', { name: '取消' }).click();

  // One call a minute: the second is refused with 429 and Retry-After, in OpenAI's shape.
  const key = await fullKey(token.id);
  const call = () =>
    page.request.post('/v1/chat/completions', {
      headers: { Authorization: `Bearer ${key}` },
      data: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
  const first = await call();
  expect(first.status()).toBe(200);
  const refused = await call();
  expect(refused.status()).toBe(429);
  expect(Number(refused.headers()['retry-after'])).toBeGreaterThanOrEqual(1);
  expect((await refused.json()).error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
});

test('[en, 390] on a phone the limit fields stack and the list shows the limits', async ({ page }) => {
  const token = await createToken(`phone-${run}`, { rpd_limit: 5000 });
  await openTokens(page, 'en', 390, 844);
  const limits = page.getByTestId(`token-limits-${token.id}`);
  await expect(limits).toHaveText('5000 RPD');

  // On a phone, edit is under the row's "more" menu.
  await page.getByTestId(`token-more-${token.id}`).click();
  await page.getByTestId(`token-edit-${token.id}`).click();
  const drawer = page.locator('.semi-sidesheet').filter({ hasText: 'Rate limits' });
  const rpm = drawer.getByTestId('token-form-limits-rpm');
  await rpm.scrollIntoViewIfNeeded();
  await expect(drawer.getByTestId('token-form-limits-rpd')).toHaveValue('5000');
  // One column on a phone: each field is as wide as the form.
  const [rpmBox, tpmBox] = [await rpm.boundingBox(), await drawer.getByTestId('token-form-limits-tpm').boundingBox()];
  expect(tpmBox!.y).toBeGreaterThan(rpmBox!.y);
  await rpm.fill('120');
  await drawer.getByTestId('token-form-limits-rpd').fill('');
  await page.screenshot({ path: '.tmp/screens/rate-limits-token-form-en-390.png' });
  await drawer.getByTestId('token-form-submit').click();
  await expect(toast(page, 'Token updated.')).toBeVisible();
  await expect(drawer).toBeHidden();

  await expect(limits).toHaveText('120 RPM');
  await showColumn(limits);
  expect(await readToken(token.id)).toMatchObject({ rpm_limit: 120, rpd_limit: 0 });
  await page.screenshot({ path: '.tmp/screens/rate-limits-token-list-en-390.png' });
});

test('[zh, 1440] an administrator sets a user’s limits on the user form', async ({ page }) => {
  await presetLanguageAndTheme(page, 'zh', 'light');
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/user');
  const row = page.locator(`[data-username="${username}"]`);
  await row.getByRole('button', { name: '编辑', exact: true }).click();
  const drawer = page.locator('.semi-sidesheet').filter({ hasText: '速率限制' });
  const limits = drawer.getByTestId('user-form-limits');
  await limits.getByTestId('user-form-limits-rpm').fill('600');
  await limits.getByTestId('user-form-limits-concurrency').fill('8');
  await limits.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '.tmp/screens/rate-limits-user-form-zh-1440.png' });
  await drawer.getByTestId('drawer-submit').click();
  await expect(toast(page, '用户信息更新成功！')).toBeVisible();
  const saved = await apiCall<Record<string, number>>(root, 'GET', `/api/user/${user.user.id}`);
  expect(saved).toMatchObject({ rpm_limit: 600, tpm_limit: 0, rpd_limit: 0, concurrency_limit: 8 });
});

test('[zh, 1440 and 390] the group and model limits are options checked before saving and read back as tags', async ({ page }) => {
  await presetLanguageAndTheme(page, 'zh', 'light');
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/setting?tab=operation');
  const card = page.getByTestId('op-card-group-rate-limits');
  await card.scrollIntoViewIfNeeded();
  await expect(card).toContainText('分组与模型速率限制');
  const groupField = page.locator('#op-field-GroupRateLimits');
  const save = () => card.getByRole('button', { name: '保存设置', exact: true }).click();

  await groupField.fill(`{"${username}": {"rpm": -1}}`);
  await save();
  await expect(toast(page, `分组速率限制中 ${username} 的值必须形如`)).toBeVisible();
  await groupField.fill(`{"${username}": {"rpm": 30, "concurrency": 2}}`);
  await save();
  await expect(toast(page, '保存成功')).toBeVisible();
  const tags = card.getByTestId('op-rate-limit-tags-GroupRateLimits');
  await expect(tags).toContainText(username);
  await expect(tags).toContainText('30 RPM');
  await expect(tags).toContainText('并发 2');
  const options = await apiCall<{ key: string; value: string }[]>(root, 'GET', '/api/option/');
  expect(JSON.parse(options.find((entry) => entry.key === 'GroupRateLimits')!.value)).toEqual({ [username]: { rpm: 30, concurrency: 2 } });
  await card.screenshot({ path: '.tmp/screens/rate-limits-group-card-zh-1440.png' });

  // On a phone (loaded there, so the side bar starts folded) the card and its tags still read.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await card.scrollIntoViewIfNeeded();
  await expect(tags).toContainText('30 RPM');
  await card.screenshot({ path: '.tmp/screens/rate-limits-group-card-zh-390.png' });
});
