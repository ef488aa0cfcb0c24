import { presetLanguageAndTheme } from './wallet-helpers';
import Database from 'better-sqlite3';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { apiSession, dataOf, signInBrowser } from './support/console-session';
import { MOCK_USAGE, startMockUpstream, type MockUpstream } from './support/mock-upstream';

/**
 * The dashboard over the real server. Two users: `caller` makes real relay calls through the mock
 * upstream and finds them on the dashboard within seconds, before the usage export writes them to
 * quota_data (the node answers its sums not yet exported from memory); `historian` has rows of the past week, which no relay call can produce
 * today, written into the e2e SQLite file the way the export writes them (one row per user, model
 * and hour). They check the cards against the rows, the legends, the granularity buckets, the
 * 30-day limit, an admin's view and filter, and that the screen goes away with the switch.
 */

const run = Date.now().toString(36).slice(-6);
const caller = `dc${run}`;
const historian = `dh${run}`;
const password = 'correct-horse';
const QUOTA_PER_UNIT = 500_000;
const HOUR = 3600;

interface QuotaRow {
  model_name: string;
  created_at: number;
  token_used: number;
  count: number;
  quota: number;
}

let upstream: MockUpstream;
let root: APIRequestContext;
let callerApi: APIRequestContext;
let channelId: number | undefined;
let historianId = 0;
const savedOptions = new Map<string, string>();

const currentHour = Math.floor(Date.now() / 1000 / HOUR) * HOUR;
// Spread over the week the 'day' default shows (its first hour is currentHour - 167 h).
const history: QuotaRow[] = [
  { model_name: `alpha-${run}`, created_at: currentHour - HOUR, token_used: 12_000, count: 6, quota: 1_250_000 },
  { model_name: `beta-${run}`, created_at: currentHour - 2 * HOUR, token_used: 3_000, count: 2, quota: 400_000 },
  { model_name: `alpha-${run}`, created_at: currentHour - 26 * HOUR, token_used: 8_000, count: 4, quota: 750_000 },
  { model_name: `gamma-${run}`, created_at: currentHour - 75 * HOUR, token_used: 20_000, count: 9, quota: 2_000_000 },
  { model_name: `alpha-${run}`, created_at: currentHour - 120 * HOUR, token_used: 5_000, count: 3, quota: 300_000 },
];
const historyModels = [`alpha-${run}`, `beta-${run}`, `gamma-${run}`];

const dollars = (quota: number) => `$${(quota / QUOTA_PER_UNIT).toFixed(2)}`;
const grouped = (value: number) => value.toLocaleString('en-US');
const sum = (rows: QuotaRow[], field: 'quota' | 'token_used' | 'count') => rows.reduce((total, row) => total + row[field], 0);

async function setOption(key: string, value: string): Promise<void> {
  await dataOf(await root.put('/api/option/', { data: { key, value } }));
}

test.beforeAll(async () => {
  upstream = await startMockUpstream(['gpt-4o-mini', 'gpt-4o']);
  root = (await apiSession('root', '123456')).api;
  const options = await dataOf<Array<{ key: string; value: string }>>(await root.get('/api/option/'));
  for (const key of ['DataExportEnabled', 'DataExportInterval', 'DataExportDefaultTime']) {
    const found = options.find((option) => option.key === key);
    if (found) savedOptions.set(key, found.value);
  }
  await setOption('DataExportEnabled', 'true');
  await setOption('DataExportInterval', '1');
  await setOption('DataExportDefaultTime', 'day');

  channelId = (
    await dataOf<{ id: number }>(
      await root.post('/api/channel/', {
        data: { type: 1, name: `detail-${run}`, group: caller, models: 'gpt-4o-mini,gpt-4o', base_url: upstream.url, key: 'sk-upstream-secret' },
      }),
    )
  ).id;
  const created = await dataOf<{ id: number }>(await root.post('/api/user/', { data: { username: caller, password } }));
  await dataOf(await root.put('/api/user/', { data: { id: created.id, quota: 50_000_000, group: caller } }));
  historianId = (await dataOf<{ id: number }>(await root.post('/api/user/', { data: { username: historian, password } }))).id;

  // The caller's calls go first, so the export's next run (at most a minute or two away) overlaps the tests before the one that needs them.
  callerApi = (await apiSession(caller, password)).api;
  const tokenCreated = await dataOf<{ id: number }>(await callerApi.post('/api/token/', { data: { name: 'detail', unlimited_quota: true, expired_time: -1 } }));
  // Token answers carry masked keys; the full key comes from its key route.
  const token = await dataOf<{ key: string }>(await callerApi.post(`/api/token/${tokenCreated.id}/key`));
  for (const model of ['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o']) {
    const reply = await callerApi.post('/v1/chat/completions', {
      headers: { Authorization: `Bearer sk-${token.key}` },
      data: { model, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(reply.status(), await reply.text()).toBe(200);
  }

  const database = new Database(process.env.MODELGATE_E2E_SQLITE!);
  try {
    database.pragma('busy_timeout = 10000');
    // As the usage export writes them: the user's rows and, in the same transaction, their sums per
    // model and hour (the administrator's chart reads those) and a new revision of each day written
    // (a node reads a whole past day of that chart again only when its revision has moved).
    const insert = database.prepare(
      'INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, count, quota) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const addToModel = database.prepare(
      `INSERT INTO quota_data_models (model_name, created_at, token_used, count, quota) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (created_at, model_name) DO UPDATE SET token_used = token_used + excluded.token_used, count = count + excluded.count, quota = quota + excluded.quota`,
    );
    const newRevision = database.prepare(
      'INSERT INTO quota_data_days (day, revision) VALUES (?, 1) ON CONFLICT (day) DO UPDATE SET revision = quota_data_days.revision + 1',
    );
    database.transaction(() => {
      for (const row of history) {
        insert.run(historianId, historian, row.model_name, row.created_at, row.token_used, row.count, row.quota);
        addToModel.run(row.model_name, row.created_at, row.token_used, row.count, row.quota);
      }
      for (const day of new Set(history.map((row) => row.created_at - (row.created_at % 86_400)))) newRevision.run(day);
    })();
  } finally {
    database.close();
  }
});

test.afterAll(async () => {
  if (root) {
    for (const [key, value] of savedOptions) await root.put('/api/option/', { data: { key, value } });
    if (channelId !== undefined) await root.delete(`/api/channel/${channelId}/`);
  }
  await callerApi?.dispose();
  await root?.dispose();
  await upstream?.close();
});

async function openDetail(page: Page, who: string, secret: string, language: 'zh' | 'en', theme: 'light' | 'dark', query = ''): Promise<number> {
  await presetLanguageAndTheme(page, language, theme);
  await signInBrowser(page, who, secret);
  const openedAt = Date.now() / 1000;
  await page.goto(`/detail${query}`);
  return openedAt;
}

/** Tall enough for every chart (the console scrolls its content area, not the page); after recharts' entry animations. */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 1320 });
  await page.waitForTimeout(1_600);
  await page.screenshot({ path: `.tmp/screens/${name}.png`, fullPage: true });
}

const legend = (chart: Locator) => chart.locator('.recharts-legend-item-text');

/** Buckets of a range, counted the plain way (the browser runs in UTC). */
function expectedBuckets(granularity: 'hour' | 'day' | 'week', start: number, end: number): number {
  if (granularity === 'hour') return Math.floor(end / HOUR) - Math.floor(start / HOUR) + 1;
  const days = (seconds: number) => Math.floor(seconds / 86_400);
  if (granularity === 'day') return days(end) - days(start) + 1;
  // 1970-01-01 was a Thursday: shift by 3 days so weeks start on Monday.
  const weeks = (seconds: number) => Math.floor((days(seconds) + 3) / 7);
  return weeks(end) - weeks(start) + 1;
}

test('a user sees the week of its own usage: cards, legends and granularity (zh, light)', async ({ page }) => {
  const openedAt = await openDetail(page, historian, password, 'zh', 'light');
  await expect(page.getByRole('heading', { name: '数据看板' })).toBeVisible();
  await expect(page.getByTestId('detail-scope')).toHaveText('我的用量');
  // The status default (DataExportDefaultTime = day) fetches the last 7 × 24 hours; five days of data are drawn per day.
  await expect(page.getByTestId('detail-granularity-day')).toHaveClass(/checked/);
  await expect(page.getByTestId('detail-card-quota')).toHaveText(dollars(sum(history, 'quota')));
  await expect(page.getByTestId('detail-card-tokens')).toHaveText(grouped(sum(history, 'token_used')));
  await expect(page.getByTestId('detail-card-count')).toHaveText(String(sum(history, 'count')));
  // The range shown: the whole days among the 7 × 24 hours fetched (ending with the hour the page was opened in).
  const start = Math.max(Math.floor(openedAt / HOUR) * HOUR - 167 * HOUR, Math.floor(openedAt / 86_400) * 86_400 - 6 * 86_400);
  const end = openedAt;
  const minutes = (end - start) / 60;
  expect(Number(await page.getByTestId('detail-card-rpm').textContent())).toBeCloseTo(sum(history, 'count') / minutes, 2);
  expect(Number(await page.getByTestId('detail-card-tpm').textContent())).toBeCloseTo(sum(history, 'token_used') / minutes, 0);

  const quotaChart = page.getByTestId('detail-chart-quota');
  await expect(quotaChart.getByText('模型消耗分布')).toBeVisible();
  await expect(page.getByTestId('detail-chart-quota-total')).toHaveText(`总计：${dollars(sum(history, 'quota'))}`);
  await expect(legend(quotaChart)).toHaveText(
    historyModels.slice().sort((left, right) => {
      const spent = (model: string) =>
        sum(
          history.filter((row) => row.model_name === model),
          'quota',
        );
      return spent(right) - spent(left);
    }),
  );
  await expect(legend(page.getByTestId('detail-chart-calls'))).toHaveText([`alpha-${run}`, `gamma-${run}`, `beta-${run}`]);
  await expect(page.getByTestId('detail-chart-calls-total')).toHaveText(`总计：${sum(history, 'count')}`);
  await expect(page.getByTestId('detail-chart-tokens-total')).toHaveText(`总计：${grouped(sum(history, 'token_used'))}`);
  await expect(page.locator('.mg-detail-chart .recharts-bar-rectangle path').first()).toBeVisible();
  await expect(page.locator('.mg-detail-chart .recharts-line-curve')).toBeVisible();

  // Granularity re-buckets the same rows in the browser: the axis labels and the number of buckets change, the totals do not.
  const charts = page.getByTestId('detail-charts');
  await expect(charts).toHaveAttribute('data-buckets', String(expectedBuckets('day', start, end)));
  await expect(quotaChart.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').first()).toHaveText(/^\d{4}-\d{2}-\d{2}$/);
  await screenshot(page, 'detail-user-zh-light');

  await page.getByTestId('detail-granularity-hour').click();
  await expect(page).toHaveURL(/granularity=hour/);
  await expect(charts).toHaveAttribute('data-buckets', String(expectedBuckets('hour', start, end)));
  await expect(quotaChart.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').first()).toHaveText(/^\d{2}-\d{2} \d{2}:00$/);

  await page.getByTestId('detail-granularity-week').click();
  await expect(charts).toHaveAttribute('data-buckets', String(expectedBuckets('week', start, end)));
  await expect(quotaChart.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').first()).toHaveText(/^\d{2}-\d{2} ~ \d{2}-\d{2}$/);
  await expect(page.getByTestId('detail-card-quota')).toHaveText(dollars(sum(history, 'quota')));
  await screenshot(page, 'detail-user-zh-light-week');
});

test('a range past 30 days is refused with a clear message; an empty range says so (en, dark)', async ({ page }) => {
  await openDetail(page, historian, password, 'en', 'dark');
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  await expect(page.getByTestId('detail-card-count')).toHaveText(String(sum(history, 'count')));
  await expect(legend(page.getByTestId('detail-chart-quota'))).toContainText([`alpha-${run}`]);
  await screenshot(page, 'detail-user-en-dark');

  // 31 days typed into the picker: the page says why and asks nothing of the server.
  const inputs = page.getByTestId('detail-range').locator('input');
  const at = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
  const end = currentHour;
  let asked = 0;
  page.on('request', (request) => {
    if (request.url().includes('/api/data/')) asked += 1;
  });
  await inputs.nth(0).fill(at(end - 31 * 86_400));
  await inputs.nth(1).fill(at(end));
  await inputs.nth(1).press('Enter');
  await page.getByTestId('detail-submit').click();
  await expect(page.getByTestId('detail-range-problem')).toHaveText('The time range cannot exceed 1 month (30 days); please shorten it');
  expect(asked).toBe(0);
  await screenshot(page, 'detail-user-en-dark-too-long');

  // A day with no use: empty state, zero cards.
  await page.goto(`/detail?start=${currentHour - 20 * 86_400}&end=${currentHour - 19 * 86_400}`);
  await expect(page.getByTestId('detail-empty')).toContainText('No usage in the chosen time range');
  await expect(page.getByTestId('detail-card-count')).toHaveText('0');
  await expect(page.getByTestId('detail-card-quota')).toHaveText('$0.00');
  await screenshot(page, 'detail-user-en-dark-empty');

  // A success:false answer (here stood in for by the browser) is toasted and leaves an error state with a retry.
  await page.route('**/api/data/self?**', (route) => route.fulfill({ json: { success: false, message: 'database is busy' } }));
  await page.goto(`/detail?start=${currentHour - 2 * 86_400}&end=${currentHour}`);
  await expect(page.locator('.semi-toast-content').filter({ hasText: 'database is busy' }).first()).toBeVisible();
  await expect(page.getByTestId('detail-error')).toContainText('The usage data could not be loaded');
  await expect(page.getByTestId('detail-error')).toContainText('database is busy');
});

test('an admin sees every user summed and filters one by username (en, dark)', async ({ page }) => {
  await openDetail(page, 'root', '123456', 'en', 'dark');
  await expect(page.getByTestId('detail-scope')).toHaveText('All users');
  // Everyone's rows include the historian's models (and whatever other specs' calls exported).
  const quotaLegend = legend(page.getByTestId('detail-chart-quota'));
  for (const model of historyModels) await expect(quotaLegend.filter({ hasText: model })).toHaveCount(1);
  const everyone = Number((await page.getByTestId('detail-card-count').textContent())?.replace(/,/g, ''));
  expect(everyone).toBeGreaterThanOrEqual(sum(history, 'count'));

  await page.getByTestId('detail-username').fill(historian);
  await page.getByTestId('detail-submit').click();
  await expect(page).toHaveURL(new RegExp(`username=${historian}`));
  await expect(page.getByTestId('detail-scope')).toHaveText(`User: ${historian}`);
  await expect(page.getByTestId('detail-card-count')).toHaveText(String(sum(history, 'count')));
  await expect(page.getByTestId('detail-card-quota')).toHaveText(dollars(sum(history, 'quota')));
  await expect(quotaLegend).toHaveCount(historyModels.length);
  await screenshot(page, 'detail-admin-en-dark');
});

test('relay calls reach the dashboard within seconds, before any export; the caller sees only its own (zh, dark)', async ({ page }) => {
  // The export runs every DataExportInterval minutes; until then the node answers its sums from memory.
  let exported: QuotaRow[] = [];
  const now = () => Math.floor(Date.now() / 1000);
  await expect
    .poll(
      async () => {
        exported = await dataOf<QuotaRow[]>(await callerApi.get('/api/data/self', { params: { start_timestamp: now() - 86_400, end_timestamp: now() } }));
        return sum(exported, 'count');
      },
      { timeout: 10_000, intervals: [500] },
    )
    .toBe(3);
  // The log rows are written in batches off the call's way: wait for all three.
  let charged = 0;
  await expect
    .poll(
      async () => {
        const logs = await dataOf<{ items: Array<{ quota: number }> }>(await callerApi.get('/api/log/self', { params: { type: 2, page_size: 10 } }));
        charged = logs.items.reduce((total, row) => total + row.quota, 0);
        return logs.items.length;
      },
      { timeout: 10_000, intervals: [250] },
    )
    .toBe(3);
  expect(charged).toBeGreaterThan(0);

  const openedAt = await openDetail(page, caller, password, 'zh', 'dark');
  await expect(page.getByTestId('detail-card-count')).toHaveText('3');
  await expect(page.getByTestId('detail-card-tokens')).toHaveText(grouped(3 * MOCK_USAGE.total_tokens));
  await expect(page.getByTestId('detail-card-quota')).toHaveText(dollars(charged));
  // Calls of the last minutes, with the status default of a week per day: drawn per hour over the last 12 hours, not as one bar at a week's edge.
  await expect(page.getByTestId('detail-granularity-hour')).toHaveClass(/checked/);
  await expect(page.getByTestId('detail-charts')).toHaveAttribute('data-buckets', '12');
  // The range runs from the start of the hour 11 hours before the page's render to that moment;
  // the render falls between openedAt and now, possibly across the turn of an hour.
  const shownRpm = Number(await page.getByTestId('detail-card-rpm').textContent());
  const minutesAt = (at: number) => (at - (Math.floor(at / HOUR) * HOUR - 11 * HOUR)) / 60;
  const readAt = Date.now() / 1000;
  const hourTurned = Math.floor(readAt / HOUR) !== Math.floor(openedAt / HOUR);
  const fewest = hourTurned ? 11 * 60 : minutesAt(openedAt);
  const most = hourTurned ? 12 * 60 : minutesAt(readAt);
  // Shown with three decimals.
  expect(shownRpm).toBeGreaterThanOrEqual(3 / most - 0.0005);
  expect(shownRpm).toBeLessThanOrEqual(3 / fewest + 0.0005);
  await expect(page).not.toHaveURL(/granularity|start=/);
  const quotaLegend = legend(page.getByTestId('detail-chart-quota'));
  await expect(quotaLegend).toHaveCount(2);
  await expect(legend(page.getByTestId('detail-chart-calls'))).toHaveText(['gpt-4o-mini', 'gpt-4o']);
  // Nobody else's models: the historian's rows stay out of this user's view.
  await expect(page.getByText(`alpha-${run}`)).toHaveCount(0);
  await expect(page.getByTestId('detail-scope')).toHaveText('我的用量');
  await expect(page.getByTestId('detail-username')).toHaveCount(0);
  await screenshot(page, 'detail-caller-zh-dark');
});

test('with data export off the dashboard leaves the side nav, and its address says it is off (zh, light)', async ({ page }) => {
  await openDetail(page, caller, password, 'zh', 'light');
  const nav = page.locator('.mg-side-nav');
  await expect(nav.getByText('数据看板')).toBeVisible();
  await setOption('DataExportEnabled', 'false');
  try {
    await page.reload();
    await expect(nav).toContainText('日志');
    await expect(nav.getByText('数据看板')).toHaveCount(0);
    // The address says the dashboard is off rather than that the page does not exist.
    await expect(page.getByTestId('feature-off')).toContainText('数据看板目前已关闭。');
    await expect(page.getByText('页面不存在')).toHaveCount(0);
    await expect(page.getByRole('heading', { name: '数据看板' })).toHaveCount(0);
    await screenshot(page, 'detail-off-zh-light');
  } finally {
    await setOption('DataExportEnabled', 'true');
  }
});
