import { presetLanguageAndTheme } from './wallet-helpers';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { apiSession, dataOf, signInBrowser } from './support/console-session';
import { MOCK_USAGE, startMockUpstream, type MockUpstream } from './support/mock-upstream';

/**
 * The usage log screen over the real server: a user's relay calls through a mock upstream (two
 * plain, one streamed) become rows; the user filters, expands a row and reads the chips; root finds
 * them by username, opens the user's info and clears old logs.
 */

interface WireLog {
  id: number;
  type: number;
  token_name: string;
  quota: number;
  is_stream: boolean;
  other: string;
}

const run = Date.now().toString(36).slice(-6);
const username = `lg${run}`;
const password = 'correct-horse';
const QUOTA_PER_UNIT = 500_000;
let upstream: MockUpstream;
let root: APIRequestContext;
let user: APIRequestContext;
let channelId: number | undefined;
let consumeLogs: WireLog[] = [];
/** The user's redemption-code top-up (type 1). */
let redeemLog: WireLog | undefined;

const dollars = (quota: number) => `$${(quota / QUOTA_PER_UNIT).toFixed(2)}`;
const toast = (page: Page, text: string | RegExp) => page.locator('.semi-toast-content').filter({ hasText: text }).first();

async function relay(key: string, stream: boolean): Promise<void> {
  const reply = await user.post('/v1/chat/completions', {
    headers: { Authorization: `Bearer sk-${key}` },
    data: { model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(reply.status()).toBe(200);
  await reply.body();
}

test.beforeAll(async () => {
  upstream = await startMockUpstream(['gpt-4o-mini']);
  root = (await apiSession('root', '123456')).api;
  // A group of its own: channels other specs leave behind never serve this user.
  channelId = (
    await dataOf<{ id: number }>(
      await root.post('/api/channel/', {
        data: { type: 1, name: `logs-${run}`, group: username, models: 'gpt-4o-mini', base_url: upstream.url, key: 'sk-upstream-secret' },
      }),
    )
  ).id;
  const created = await dataOf<{ id: number }>(await root.post('/api/user/', { data: { username, password } }));
  await dataOf(await root.put('/api/user/', { data: { id: created.id, quota: 50_000_000, group: username } }));
  user = (await apiSession(username, password)).api;
  // Token answers carry masked keys; the full key comes from its key route.
  const keyOf = async (name: string) => {
    const created = await dataOf<{ id: number }>(await user.post('/api/token/', { data: { name, unlimited_quota: true, expired_time: -1 } }));
    return dataOf<{ key: string }>(await user.post(`/api/token/${created.id}/key`));
  };
  const plain = await keyOf('plain');
  const streamed = await keyOf('streamed');
  await relay(plain.key, false);
  await relay(plain.key, false);
  await relay(streamed.key, true);
  const [code] = await dataOf<string[]>(await root.post('/api/redemption/', { data: { name: username, quota: 250_000, count: 1 } }));
  await dataOf(await user.post('/api/user/topup', { data: { key: code } }));
  redeemLog = (await dataOf<{ items: WireLog[] }>(await user.get('/api/log/self', { params: { type: 1 } }))).items[0];
  // Logs are written by the batch flush (BATCH_UPDATE_INTERVAL, 5 s by default).
  await expect
    .poll(
      async () => {
        const page = await dataOf<{ items: WireLog[] }>(await user.get('/api/log/self', { params: { type: 2, page_size: 10 } }));
        consumeLogs = page.items;
        return consumeLogs.length;
      },
      { timeout: 30_000 },
    )
    .toBe(3);
});

test.afterAll(async () => {
  if (root && channelId !== undefined) await root.delete(`/api/channel/${channelId}/`);
  await user?.dispose();
  await root?.dispose();
  await upstream?.close();
});

async function openLogs(page: Page, who: string, secret: string, language: 'zh' | 'en', theme: 'light' | 'dark', query = ''): Promise<void> {
  await presetLanguageAndTheme(page, language, theme);
  await signInBrowser(page, who, secret);
  await page.goto(`/log${query}`);
}

test('a user sees its calls newest first, filters them, expands one and reads the chips (zh, light)', async ({ page }) => {
  await openLogs(page, username, password, 'zh', 'light');
  await expect(page.getByRole('heading', { name: '使用日志' })).toBeVisible();
  const [newest, middle, oldest] = consumeLogs;
  for (const row of consumeLogs) await expect(page.getByTestId(`log-row-${row.id}`)).toBeVisible();
  // Newest first: the streamed call was the last one made.
  const rowIds = await page.locator('[data-testid^="log-row-"]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-testid')));
  expect(rowIds.indexOf(`log-row-${newest!.id}`)).toBeLessThan(rowIds.indexOf(`log-row-${middle!.id}`));
  expect(rowIds.indexOf(`log-row-${middle!.id}`)).toBeLessThan(rowIds.indexOf(`log-row-${oldest!.id}`));
  expect(newest).toMatchObject({ token_name: 'streamed', is_stream: true });

  // The chips: the summed cost, and the three calls of the last minute with their tokens.
  const total = consumeLogs.reduce((sum, row) => sum + row.quota, 0);
  await expect(page.getByTestId('log-stat-quota')).toHaveText(`消耗额度：${dollars(total)}`);
  await expect(page.getByTestId('log-stat-rpm')).toHaveText('RPM：3');
  await expect(page.getByTestId('log-stat-tpm')).toHaveText(`TPM：${3 * MOCK_USAGE.total_tokens}`);
  // A plain call's use time is green (≤ 100 s), and it has no first-token tag.
  await expect(page.getByTestId(`log-use-time-${oldest!.id}`)).toHaveClass(/semi-tag-green/);
  await expect(page.getByTestId(`log-frt-${oldest!.id}`)).toHaveCount(0);
  await page.screenshot({ path: '.tmp/screens/logs-user-zh-light.png', fullPage: true });

  // Type filter: 充值 has none of these rows; 消费 has all three.
  await page.getByTestId('log-type-1').click();
  await expect(page).toHaveURL(/type=1/);
  await expect(page.getByTestId(`log-row-${newest!.id}`)).toHaveCount(0);
  await page.getByTestId('log-type-2').click();
  await expect(page.getByTestId(`log-row-${newest!.id}`)).toBeVisible();

  // Token name filter, kept in the URL; the chips follow the filter.
  await page.getByTestId('log-filter-token').fill('streamed');
  await page.getByTestId('log-filter-submit').click();
  await expect(page).toHaveURL(/token_name=streamed/);
  await expect(page.getByTestId(`log-row-${oldest!.id}`)).toHaveCount(0);
  await expect(page.getByTestId(`log-row-${newest!.id}`)).toBeVisible();
  await expect(page.getByTestId('log-stat-quota')).toHaveText(`消耗额度：${dollars(newest!.quota)}`);
  await expect(page.getByTestId('log-stat-rpm')).toHaveText('RPM：1');

  // Expanded: the ratios the relay stored and the charge with these numbers.
  const other = JSON.parse(newest!.other) as { model_ratio: number; completion_ratio: number; group_ratio: number; frt: number };
  await page.getByTestId(`log-row-${newest!.id}`).locator('.semi-table-expand-icon').click();
  const details = page.getByTestId(`log-details-${newest!.id}`);
  await expect(details).toContainText(`模型倍率${other.model_ratio}`);
  await expect(details).toContainText(`补全倍率${other.completion_ratio}`);
  await expect(details).toContainText(`分组倍率${other.group_ratio}`);
  await expect(details).toContainText(
    `(${MOCK_USAGE.prompt_tokens} + ${MOCK_USAGE.completion_tokens} × ${other.completion_ratio}) × ${other.model_ratio} × ${other.group_ratio} = ${newest!.quota}`,
  );
  await expect(details).toContainText('流式是');
  await expect(details).toContainText(`首字时间${other.frt} ms`);
  await expect(page.getByTestId(`log-frt-${newest!.id}`)).toHaveClass(/semi-tag-green/);
  // A user has no channel or username filter.
  await expect(page.getByTestId('log-filter-username')).toHaveCount(0);
  await page.screenshot({ path: '.tmp/screens/logs-user-zh-light-expanded.png', fullPage: true });
});

test('the user screen in English and dark: the details are English words, not the stored Chinese', async ({ page }) => {
  await openLogs(page, username, password, 'en', 'dark');
  await expect(page.getByRole('heading', { name: 'Usage logs' })).toBeVisible();
  await expect(page.getByTestId('log-stat-rpm')).toHaveText(/^RPM: \d+$/);
  const consume = consumeLogs[0]!;
  const other = JSON.parse(consume.other) as { model_ratio: number; completion_ratio: number; group_ratio: number };
  const words = `Model ratio ${other.model_ratio}, completion ratio ${other.completion_ratio}, group ratio ${other.group_ratio}`;
  await expect(page.getByTestId(`log-content-${consume.id}`)).toHaveText(words);
  expect(redeemLog).toMatchObject({ type: 1, quota: 250_000 });
  await expect(page.getByTestId(`log-content-${redeemLog!.id}`)).toHaveText(`Top-up by redemption code ${dollars(250_000)}`);
  await page.getByTestId(`log-row-${consume.id}`).locator('.semi-table-expand-icon').click();
  await expect(page.getByTestId(`log-details-${consume.id}`)).toContainText(words);
  await page.screenshot({ path: '.tmp/screens/logs-user-en-dark.png', fullPage: true });
});

test('root filters by username, opens the user info and clears old logs (en, dark and zh, light)', async ({ page }) => {
  await openLogs(page, 'root', '123456', 'en', 'dark');
  await page.getByTestId('log-filter-username').fill(username);
  await page.getByTestId('log-filter-submit').click();
  await expect(page).toHaveURL(new RegExp(`username=${username}`));
  // Until the filtered page arrives the table may still show the unfiltered one (with this user's
  // recent rows among others'): wait for every row shown to be this user's, then for all of them.
  await expect.poll(async () => [...new Set(await page.locator('[data-testid^="log-user-"]').allTextContents())], { timeout: 10_000 }).toEqual([username]);
  for (const row of consumeLogs) await expect(page.getByTestId(`log-row-${row.id}`)).toBeVisible();
  expect(new Set(await page.locator('[data-testid^="log-user-"]').allTextContents())).toEqual(new Set([username]));
  await page.screenshot({ path: '.tmp/screens/logs-admin-en-dark.png', fullPage: true });

  await page.getByTestId(`log-user-${consumeLogs[0]!.id}`).click();
  const info = page.getByTestId('log-user-info-body');
  await expect(info).toContainText(username);
  await expect(info).toContainText('Requests');
  await expect(info).toContainText('3');
  await page.screenshot({ path: '.tmp/screens/logs-admin-user-info-en-dark.png' });
  await page.keyboard.press('Escape');

  // Clear in Chinese: everything written before one second from now.
  await page.evaluate(() => {
    localStorage.setItem('i18nextLng', 'zh');
    localStorage.setItem('theme-mode', 'light');
  });
  await page.addInitScript(() => {
    localStorage.setItem('i18nextLng', 'zh');
    localStorage.setItem('theme-mode', 'light');
  });
  await page.reload();
  await page.waitForTimeout(1_100);
  const cutoff = Math.floor(Date.now() / 1000);
  const before = await dataOf<{ total: number }>(await root.get('/api/log/', { params: { end_timestamp: cutoff - 1, page_size: 1 } }));
  expect(before.total).toBeGreaterThanOrEqual(3);
  await page.getByTestId('log-clear').click();
  await page.getByTestId('log-clear-ok').click();
  await expect(toast(page, '请选择日志记录时间')).toBeVisible();
  const picker = page.getByTestId('log-clear-time').locator('input');
  const at = new Date(cutoff * 1000);
  const pad = (value: number) => String(value).padStart(2, '0');
  await picker.fill(`${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`);
  await picker.press('Enter');
  await page.screenshot({ path: '.tmp/screens/logs-admin-clear-zh-light.png' });
  await page.getByTestId('log-clear-ok').click();
  await expect(toast(page, `${before.total} 条日志已清理！`)).toBeVisible();
  await expect(page.getByTestId(`log-row-${consumeLogs[0]!.id}`)).toHaveCount(0);
  const after = await dataOf<{ total: number }>(await root.get('/api/log/', { params: { username } }));
  expect(after.total).toBe(0);
});
