import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { apiSession, dataOf, signInBrowser } from './support/console-session';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream';
import { presetLanguageAndTheme } from './wallet-helpers';

/**
 * Every console screen at a phone's 390×844 (zh, light) and a laptop's 1440×900 (en, dark), with
 * channels, tokens, users, calls, codes and drawings in the lists: nothing wider than the window,
 * the drawer menu on the phone, and the columns people come for on screen without sideways scrolling.
 * Screenshots go to /tmp/screens/.
 */

const run = Date.now().toString(36).slice(-6);
const group = `sc${run}`;
const password = 'screens-password';
const CHANGED_OPTIONS = ['DrawingEnabled', 'TaskEnabled', 'DataExportEnabled'];
let upstream: MockUpstream;
let root: APIRequestContext;
let savedOptions: Array<[string, string]> = [];
const channelIds: number[] = [];
const tokenIds: number[] = [];
const redemptionIds: number[] = [];
let userId = 0;

type Language = 'zh' | 'en';

/** A console screen and the column headers a user must see without scrolling sideways. */
interface Screen {
  path: string;
  slug: string;
  /** Phone: the status/key-figure and actions columns. */
  phone?: string[];
  /** 1440 px: every important column. */
  desktop?: string[];
}

const SCREENS: Screen[] = [
  { path: '/', slug: 'home' },
  { path: '/pricing', slug: 'pricing' },
  { path: '/about', slug: 'about' },
  { path: '/playground', slug: 'playground' },
  { path: '/channel', slug: 'channel', phone: ['状态', '操作'], desktop: ['Status', 'Used / balance', 'Priority', 'Weight', 'Actions'] },
  { path: '/token', slug: 'token', phone: ['状态', '操作'], desktop: ['Status', 'Remaining', 'Expires', 'Actions'] },
  { path: '/detail', slug: 'detail' },
  { path: '/redemption', slug: 'redemption', phone: ['状态', '操作'], desktop: ['Status', 'Quota', 'Actions'] },
  { path: '/topup', slug: 'topup' },
  // Listed in the navigation only while a chat link is set; the screen itself is always there.
  { path: '/chat', slug: 'chat' },
  { path: '/user', slug: 'user', phone: ['状态', '操作'], desktop: ['Status', 'Role', 'Actions'] },
  { path: '/log', slug: 'log', phone: ['模型', '花费'], desktop: ['Model', 'Prompt', 'Completion', 'Cost', 'Details'] },
  { path: '/audit', slug: 'audit', phone: ['操作'], desktop: ['Action', 'Target', 'Summary'] },
  { path: '/midjourney', slug: 'midjourney', phone: ['任务状态', '结果图片'], desktop: ['Status', 'Result image', 'Fail reason'] },
  { path: '/task', slug: 'task', phone: ['任务状态'], desktop: ['Status', 'Progress', 'Details'] },
  { path: '/setting', slug: 'setting-personal' },
  { path: '/setting?tab=operation', slug: 'setting-operation' },
  { path: '/setting?tab=system', slug: 'setting-system' },
  { path: '/setting?tab=other', slug: 'setting-other' },
];

async function setOption(key: string, value: string): Promise<void> {
  await dataOf(await root.put('/api/option/', { data: { key, value } }));
}

test.beforeAll(async () => {
  upstream = await startMockUpstream(['gpt-4o-mini']);
  root = (await apiSession('root', '123456')).api;
  const options = await dataOf<Array<{ key: string; value: string }>>(await root.get('/api/option/'));
  savedOptions = options.filter((option) => CHANGED_OPTIONS.includes(option.key)).map((option) => [option.key, option.value]);
  for (const key of CHANGED_OPTIONS) await setOption(key, 'true');

  // Three channels in a group of their own, so they serve only this file's user.
  for (const [index, name] of [`screens-openai-${run}`, `screens-a-rather-long-channel-name-${run}`, `screens-backup-${run}`].entries()) {
    const created = await dataOf<{ id: number }>(
      await root.post('/api/channel/', {
        data: { type: 1, name, group, models: 'gpt-4o-mini', base_url: upstream.url, key: 'sk-upstream', priority: index, weight: 10 },
      }),
    );
    channelIds.push(created.id);
  }
  const created = await dataOf<{ id: number }>(await root.post('/api/user/', { data: { username: group, password } }));
  userId = created.id;
  await dataOf(await root.put('/api/user/', { data: { id: userId, quota: 500_000_000, group } }));
  const user = (await apiSession(group, password)).api;
  const token = await dataOf<{ id: number }>(await user.post('/api/token/', { data: { name: 'calls', unlimited_quota: true, expired_time: -1 } }));
  const { key } = await dataOf<{ key: string }>(await user.post(`/api/token/${token.id}/key`));
  for (let call = 0; call < 6; call += 1) {
    const reply = await user.post('/v1/chat/completions', {
      headers: { Authorization: `Bearer sk-${key}` },
      data: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hello ${call}` }] },
    });
    expect(reply.status()).toBe(200);
  }
  await user.dispose();

  // Root's own tokens: one that expires, one limited, one unlimited.
  const inAMonth = Math.floor(Date.now() / 1000) + 30 * 86_400;
  for (const data of [
    { name: `screens-expiring-${run}`, expired_time: inAMonth, remain_quota: 500_000 },
    { name: `screens-limited-${run}`, expired_time: -1, remain_quota: 1_000_000 },
    { name: `screens-unlimited-${run}`, expired_time: -1, unlimited_quota: true },
  ]) {
    tokenIds.push((await dataOf<{ id: number }>(await root.post('/api/token/', { data }))).id);
  }
  const codes = await dataOf<string[]>(await root.post('/api/redemption/', { data: { name: `sc-${run}`, count: 2, quota: 500_000 } }));
  expect(codes).toHaveLength(2);
  const listed = await dataOf<{ items: Array<{ id: number }> }>(await root.get('/api/redemption/search', { params: { keyword: `sc-${run}` } }));
  redemptionIds.push(...listed.items.map((code) => code.id));

  // A finished and a failed drawing and a song task, written as the poller leaves them (the failure already refunded).
  const now = Math.floor(Date.now() / 1000);
  const database = new Database(process.env.MODELGATE_E2E_SQLITE!);
  try {
    const drawing = database.prepare(
      `INSERT INTO midjourneys (code, user_id, action, mj_id, prompt, prompt_en, description, state, submit_time, start_time, finish_time,
        image_url, video_url, video_urls, status, progress, fail_reason, channel_id, quota, buttons, properties, refunded)
       VALUES (1, ?, 'IMAGINE', ?, ?, ?, '', '', ?, ?, ?, ?, '', '[]', ?, ?, ?, ?, 50000, '[]', '{}', 1)`,
    );
    // Drawings keep their times in milliseconds.
    const ms = (seconds: number) => seconds * 1000;
    drawing.run(
      userId,
      `mj-ok-${run}`,
      'a lighthouse at dusk',
      'a lighthouse at dusk',
      ms(now - 60),
      ms(now - 55),
      ms(now - 20),
      '/logo.svg',
      'SUCCESS',
      '100%',
      '',
      channelIds[0],
    );
    drawing.run(
      userId,
      `mj-no-${run}`,
      'a forbidden picture',
      'a forbidden picture',
      ms(now - 50),
      ms(now - 45),
      ms(now - 30),
      '',
      'FAILURE',
      '0%',
      'The prompt was rejected by the upstream moderation: banned words found in the request',
      channelIds[0],
    );
    database
      .prepare(
        `INSERT INTO tasks (created_at, updated_at, task_id, platform, user_id, "group", channel_id, quota, action, status, fail_reason,
          submit_time, start_time, finish_time, progress, properties, data)
         VALUES (?, ?, ?, 'suno', ?, ?, ?, 50000, 'MUSIC', 'SUCCESS', '', ?, ?, ?, '100%', '{}', '[]')`,
      )
      .run(now, now, `task-${run}`, userId, group, channelIds[0], now - 40, now - 38, now - 10);
  } finally {
    database.close();
  }
  // Logs are written by the batch flush (BATCH_UPDATE_INTERVAL, 5 s by default).
  await expect
    .poll(async () => (await dataOf<{ items: unknown[] }>(await root.get('/api/log/', { params: { username: group, type: 2, page_size: 10 } }))).items.length, {
      timeout: 30_000,
    })
    .toBe(6);
});

test.afterAll(async () => {
  if (!root) return;
  const database = new Database(process.env.MODELGATE_E2E_SQLITE!);
  try {
    database.prepare('DELETE FROM midjourneys WHERE user_id = ?').run(userId);
    database.prepare('DELETE FROM tasks WHERE user_id = ?').run(userId);
  } finally {
    database.close();
  }
  for (const id of tokenIds) await root.delete(`/api/token/${id}`);
  for (const id of redemptionIds) await root.delete(`/api/redemption/${id}`);
  if (channelIds.length) await root.post('/api/channel/batch', { data: { ids: channelIds } });
  if (userId) await root.post('/api/user/manage', { data: { id: userId, action: 'delete' } });
  for (const [key, value] of savedOptions) await setOption(key, value);
  await root.dispose();
  await upstream?.close();
});

/** Neither the window nor the content pane scrolls sideways. */
async function expectNoOverflow(page: Page, where: string): Promise<void> {
  const widths = await page.evaluate(() => {
    const pane = document.querySelector('.mg-scroll');
    return {
      document: document.documentElement.scrollWidth,
      window: window.innerWidth,
      pane: pane ? pane.scrollWidth - pane.clientWidth : 0,
    };
  });
  expect(widths.document, `${where}: page wider than the window`).toBeLessThanOrEqual(widths.window);
  expect(widths.pane, `${where}: content wider than its pane`).toBeLessThanOrEqual(0);
}

/** The element really shows at its right edge: inside the window and not under a sticky column. */
async function expectOnScreen(target: Locator, where: string): Promise<void> {
  await expect(target, where).toBeVisible();
  // Bring it up vertically through the content pane only; scrolling the table sideways would hide the fault.
  await target.evaluate((element) => {
    const pane = document.querySelector('.mg-scroll');
    if (pane) pane.scrollTop += element.getBoundingClientRect().top - 160;
  });
  const seen = await target.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const x = box.right - 4;
    const y = box.top + box.height / 2;
    const hit = x < window.innerWidth ? document.elementFromPoint(x, y) : null;
    return {
      right: Math.round(box.right),
      window: window.innerWidth,
      covered: !hit || !element.contains(hit),
      hit: hit ? `${hit.tagName}.${hit.className}` : 'none',
    };
  });
  expect(seen.right, `${where}: right edge past the window`).toBeLessThanOrEqual(seen.window);
  expect(seen.covered, `${where}: covered by ${seen.hit}`).toBe(false);
}

function header(page: Page, text: string): Locator {
  return page
    .locator('.semi-table-thead th')
    .filter({ hasText: new RegExp(`^${text.replace(/[/()]/g, '\\$&')}$`) })
    .first();
}

async function visit(page: Page, screen: Screen, language: Language, width: number): Promise<void> {
  await page.goto(screen.path);
  await expect(page.locator('.mg-content')).toBeVisible();
  const columns = width < 768 ? screen.phone : screen.desktop;
  if (columns) {
    await expect(page.locator('.semi-table-tbody .semi-table-row').first(), `${screen.path}: rows`).toBeVisible();
    for (const column of columns) await expectOnScreen(header(page, column), `${screen.path} ${column}`);
    // The first row's last button (its actions or its details) shows too.
    const lastButton = page.locator('.semi-table-tbody .semi-table-row').first().locator('button').last();
    if ((await lastButton.count()) > 0) await expectOnScreen(lastButton, `${screen.path} first row's last button`);
    await page.evaluate(() => document.querySelector('.mg-scroll')?.scrollTo({ top: 0 }));
  } else {
    await page.waitForLoadState('networkidle');
  }
  await expectNoOverflow(page, screen.path);
  await page.screenshot({ path: `/tmp/screens/${language}-${width}-${screen.slug}.png` });
}

test('[zh, light, 390×844] every screen fits a phone; the drawer menu reaches every screen and Pricing', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await presetLanguageAndTheme(page, 'zh', 'light');
  await signInBrowser(page, 'root', '123456');

  await page.goto('/token');
  await page.getByTestId('nav-menu-button').click();
  const drawer = page.locator('.mg-nav-drawer');
  await expect(drawer.getByText('令牌', { exact: true })).toBeVisible();
  await page.screenshot({ path: '/tmp/screens/zh-390-drawer.png' });
  const listed = await drawer.locator('a.mg-nav-link').evaluateAll((links) => links.map((link) => new URL((link as HTMLAnchorElement).href).pathname));
  for (const path of listed)
    expect(
      SCREENS.map((screen) => screen.path.split('?')[0]),
      `${path} is checked here`,
    ).toContain(path);
  await drawer.getByText('模型价格', { exact: true }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(drawer).toBeHidden();

  for (const screen of SCREENS) await visit(page, screen, 'zh', 390);
});

test('[en, dark, 1440×900] every screen fits; the columns people come for show without scrolling sideways', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await presetLanguageAndTheme(page, 'en', 'dark');
  await signInBrowser(page, 'root', '123456');
  for (const screen of SCREENS) await visit(page, screen, 'en', 1440);

  // The log's column picker: a column dropped stays dropped after a reload; reset brings it back.
  await page.goto('/log');
  await expect(header(page, 'Cost')).toBeVisible();
  await page.getByTestId('log-columns-button').click();
  const picker = page.getByRole('dialog').filter({ hasText: 'Column settings' });
  await picker.getByText('Cost', { exact: true }).click();
  await page.screenshot({ path: '/tmp/screens/en-1440-log-columns.png' });
  await picker.getByTestId('log-columns-save').click();
  await expect(picker).toBeHidden();
  await expect(header(page, 'Cost')).toHaveCount(0);
  expect(await page.evaluate(() => JSON.parse(localStorage.getItem('logs-table-columns-admin') ?? '{}'))).toMatchObject({ quota: false, content: true });
  await page.reload();
  await expect(header(page, 'Model')).toBeVisible();
  await expect(header(page, 'Cost')).toHaveCount(0);
  await page.getByTestId('log-columns-button').click();
  await picker.getByTestId('log-columns-reset').click();
  await picker.getByTestId('log-columns-save').click();
  await expect(picker).toBeHidden();
  await expectOnScreen(header(page, 'Cost'), 'log Cost after reset');
});
