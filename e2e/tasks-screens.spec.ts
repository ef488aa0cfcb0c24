import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { MockMidjourney } from '../apps/server/src/providers/midjourney/testing/mock-midjourney';
import { startMockSuno, type MockSuno } from '../apps/server/src/providers/suno/testing/mock-suno';
import { apiSession, dataOf, signInBrowser } from './support/console-session';
import { presetLanguageAndTheme } from './wallet-helpers';

/**
 * The drawing (/midjourney) and async task (/task) screens over the real server: a user submits a
 * drawing and Suno songs and lyrics through the relay with an sk- key, to a channel of type 2 and
 * one of type 36 pointing at the mock Midjourney-proxy and mock Suno-API; the server's poller
 * finishes them. The user opens the drawing in the viewer (zoom, download), plays a song and
 * reads its lyrics, in zh and en, light and dark; root filters by channel and task id in the URL.
 */

interface WireDrawing {
  id: number;
  mj_id: string;
  status: string;
  progress: string;
  image_url: string;
  fail_reason: string;
  channel_id: number;
  prompt: string;
}

interface WireTask {
  id: number;
  task_id: string;
  action: string;
  status: string;
}

const run = Date.now().toString(36).slice(-6);
const username = `ts${run}`;
const password = 'correct-horse';
const PROMPT = `a lighthouse at dawn, watercolor ${run}`;
const FAIL_REASON = 'Banned prompt detected';
const SONG_TITLE = `Harbour Lights ${run}`;
const SONG_LYRICS = `[Verse]\nLanterns on the water ${run}\nGulls above the pier`;
/** Options this file changes, restored afterwards (the e2e specs share one server). */
const CHANGED_OPTIONS = ['DrawingEnabled', 'TaskEnabled'];

let mj: MockMidjourney;
let suno: MockSuno;
let root: APIRequestContext;
let user: APIRequestContext;
let savedOptions: Array<[string, string]> = [];
const channelIds: number[] = [];
let drawing: WireDrawing;
let failedDrawing: WireDrawing;
let song: WireTask;
let lyrics: WireTask;
let userKey: string;

async function setOption(key: string, value: string): Promise<void> {
  await dataOf(await root.put('/api/option/', { data: { key, value } }));
}

async function relayPost(path: string, key: string, data: unknown): Promise<Record<string, unknown>> {
  const answer = await user.post(path, { headers: { Authorization: `Bearer sk-${key}` }, data });
  expect(answer.status(), `${path}: ${await answer.text()}`).toBe(200);
  return (await answer.json()) as Record<string, unknown>;
}

/** The user's own rows once the poller has finished them (TASK_POLL_INTERVAL, 15 s by default). */
async function waitForDrawings(ids: string[]): Promise<WireDrawing[]> {
  let rows: WireDrawing[] = [];
  await expect
    .poll(
      async () => {
        const page = await dataOf<{ items: WireDrawing[] }>(await user.get('/api/mj/self', { params: { p: 1, page_size: 20 } }));
        rows = page.items.filter((row) => ids.includes(row.mj_id));
        return rows.filter((row) => row.status === 'SUCCESS' || row.status === 'FAILURE').length;
      },
      { timeout: 75_000, intervals: [1000] },
    )
    .toBe(ids.length);
  return rows;
}

async function waitForTasks(ids: string[]): Promise<WireTask[]> {
  let rows: WireTask[] = [];
  await expect
    .poll(
      async () => {
        const page = await dataOf<{ items: WireTask[] }>(await user.get('/api/task/self', { params: { p: 1, page_size: 20 } }));
        rows = page.items.filter((row) => ids.includes(row.task_id));
        return rows.filter((row) => row.status === 'SUCCESS').length;
      },
      { timeout: 75_000, intervals: [1000] },
    )
    .toBe(ids.length);
  return rows;
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  mj = await new MockMidjourney({ autoAdvanceMs: 300, plan: { steps: 3 } }).start();
  suno = await startMockSuno({ realTime: true, durationSeconds: 1 });
  root = (await apiSession('root', '123456')).api;
  const options = await dataOf<Array<{ key: string; value: string }>>(await root.get('/api/option/'));
  savedOptions = options.filter((option) => CHANGED_OPTIONS.includes(option.key)).map((option) => [option.key, option.value]);
  await setOption('DrawingEnabled', 'true');
  await setOption('TaskEnabled', 'true');

  // A group of its own: no other spec's channel serves this user, and these serve nobody else.
  const channel = async (data: Record<string, unknown>) => {
    const created = await dataOf<{ id: number }>(await root.post('/api/channel/', { data: { group: username, ...data } }));
    channelIds.push(created.id);
    return created.id;
  };
  await channel({ type: 2, name: `mj-${run}`, base_url: mj.url, key: mj.secret, models: 'mj_imagine,mj_upscale,mj_variation' });
  await channel({ type: 36, name: `suno-${run}`, base_url: suno.url, key: suno.key, models: 'suno_music,suno_lyrics' });

  const created = await dataOf<{ id: number }>(await root.post('/api/user/', { data: { username, password } }));
  await dataOf(await root.put('/api/user/', { data: { id: created.id, quota: 50_000_000, group: username } }));
  user = (await apiSession(username, password)).api;
  const token = await dataOf<{ id: number }>(await user.post('/api/token/', { data: { name: 'tasks', unlimited_quota: true, expired_time: -1 } }));
  const { key } = await dataOf<{ key: string }>(await user.post(`/api/token/${token.id}/key`));
  userKey = key;

  const imagine = await relayPost('/mj/submit/imagine', key, { prompt: PROMPT });
  expect(imagine.code).toBe(1);
  mj.plan = { steps: 2, outcome: 'failure', failReason: FAIL_REASON };
  const failing = await relayPost('/mj/submit/imagine', key, { prompt: `a forbidden picture ${run}` });
  mj.plan = { steps: 3, outcome: 'success', failReason: '' };
  const music = await relayPost('/suno/submit/music', key, { prompt: SONG_LYRICS, title: SONG_TITLE, tags: 'folk, acoustic', mv: 'chirp-v3-5' });
  const words = await relayPost('/suno/submit/lyrics', key, { prompt: 'a quiet harbour at night' });
  expect(music.code).toBe('success');

  const drawings = await waitForDrawings([String(imagine.result), String(failing.result)]);
  drawing = drawings.find((row) => row.mj_id === String(imagine.result))!;
  failedDrawing = drawings.find((row) => row.mj_id === String(failing.result))!;
  expect(drawing.status).toBe('SUCCESS');
  expect(failedDrawing.status).toBe('FAILURE');
  const tasks = await waitForTasks([String(music.data), String(words.data)]);
  song = tasks.find((row) => row.action === 'MUSIC')!;
  lyrics = tasks.find((row) => row.action === 'LYRICS')!;
});

test.afterAll(async () => {
  if (root) {
    for (const [key, value] of savedOptions) await root.put('/api/option/', { data: { key, value } });
    for (const id of channelIds) await root.delete(`/api/channel/${id}/`);
  }
  await user?.dispose();
  await root?.dispose();
  await mj?.close();
  await suno?.close();
});

async function open(page: Page, path: string, language: 'zh' | 'en', theme: 'light' | 'dark', who = username, secret = password): Promise<void> {
  await page.setViewportSize({ width: 1440, height: 900 });
  await presetLanguageAndTheme(page, language, theme);
  await signInBrowser(page, who, secret);
  await page.goto(path);
}

const dialog = (page: Page) => page.locator('.semi-modal-content');

test('drawing screen in zh, light: the finished drawing in the viewer, zoomed and downloaded; prompt and fail reason', async ({ page }) => {
  await open(page, '/midjourney', 'zh', 'light');
  await expect(page.locator('.mg-side-nav')).toContainText('绘图');
  const row = page.getByTestId(`mj-row-${drawing.id}`);
  await expect(row).toContainText(drawing.mj_id);
  await expect(row).toContainText('绘图');
  await expect(row).toContainText('成功');
  await expect(row.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  await expect(page.getByTestId(`mj-duration-${drawing.id}`)).toHaveText(/^[\d.]+ 秒$/);
  // A user sees neither the channel nor the submit result.
  await expect(page.locator('.semi-table-thead')).not.toContainText('渠道');
  await expect(page.getByTestId('mj-filter-channel')).toHaveCount(0);
  await page.screenshot({ path: '.tmp/screens/midjourney-zh-light.png' });

  await page.getByTestId(`mj-prompt-${drawing.id}`).click();
  await expect(dialog(page)).toContainText(PROMPT);
  await page.keyboard.press('Escape');
  const failed = page.getByTestId(`mj-row-${failedDrawing.id}`);
  await expect(failed).toContainText('失败');
  await page.getByTestId(`mj-fail-${failedDrawing.id}`).click();
  await expect(dialog(page)).toContainText(FAIL_REASON);
  await page.keyboard.press('Escape');
  await expect(failed.getByRole('button', { name: '查看图片' })).toHaveCount(0);

  await page.getByTestId(`mj-image-${drawing.id}`).click();
  const viewer = page.locator('.mg-drawing-viewer');
  const image = viewer.locator('img.semi-image-preview-image-img');
  await expect(image).toHaveAttribute('src', drawing.image_url);
  await expect.poll(() => image.evaluate((element: HTMLImageElement) => element.naturalWidth)).toBeGreaterThan(0);
  const drawingNaturalWidth = await image.evaluate((element: HTMLImageElement) => element.naturalWidth);
  const widthOf = () => image.evaluate((element: HTMLImageElement) => element.getBoundingClientRect().width);
  const footer = viewer.locator('.semi-image-preview-footer');
  // The mock's drawing is 1×1 px: fitted to the window at first, shown at its real size, then zoomed in.
  await expect.poll(widthOf).toBeGreaterThan(100);
  await page.screenshot({ path: '.tmp/screens/midjourney-viewer-zh-light.png' });
  await footer.locator('[aria-label="real_size_stroked"]').click();
  await expect.poll(widthOf).toBe(drawingNaturalWidth);
  // Four steps of 25 % double it (Semi floors the pixel size, so a 1 px image shows 2 px only at 200 %).
  for (let step = 0; step < 4; step += 1) await footer.locator('[aria-label="plus"]').click();
  await expect.poll(widthOf).toBe(drawingNaturalWidth * 2);
  // The mock's host allows no cross-origin reads, so the picture opens in a tab to be saved there.
  const saved = Promise.race([
    page.waitForEvent('download').then((download) => download.suggestedFilename()),
    page.waitForEvent('popup').then((popup) => popup.url()),
  ]);
  await viewer.locator('.semi-image-preview-footer [aria-label="download"]').click();
  expect(await saved).toMatch(new RegExp(`${drawing.mj_id}\\.png$`));
});

test('task screen in en, dark: a Suno song plays with its cover and lyrics; lyrics task shown; copy task id', async ({ page }) => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await open(page, '/task', 'en', 'dark');
  await expect(page.locator('.mg-side-nav')).toContainText('Tasks');
  const row = page.getByTestId(`task-row-${song.id}`);
  await expect(row).toContainText('Suno');
  await expect(row).toContainText('Generate music');
  await expect(row).toContainText('Success');
  await expect(page.getByTestId(`task-duration-${song.id}`)).toHaveText(/^\d+(\.\d)? s$/);
  await expect(page.getByTestId(`task-row-${lyrics.id}`)).toContainText('Generate lyrics');
  await page.screenshot({ path: '.tmp/screens/task-en-dark.png' });

  await page.getByTestId(`task-copy-${song.id}`).click();
  await expect(page.locator('.semi-toast-content').filter({ hasText: 'Task ID copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(song.task_id);

  await page.getByTestId(`task-suno-${song.id}`).click();
  const result = page.getByTestId('suno-result');
  await expect(dialog(page)).toContainText('Music preview');
  await expect(result.getByTestId('suno-title-0')).toHaveText(SONG_TITLE);
  await expect(result.getByTestId('suno-lyrics-0')).toHaveText(SONG_LYRICS);
  const audio = result.getByTestId('suno-audio-0');
  await expect(audio).toHaveAttribute('src', new RegExp(`^${suno.url}/`));
  // The browser really loads and plays the track.
  const played = await audio.evaluate(async (element: HTMLAudioElement) => {
    element.muted = true;
    await element.play();
    return { duration: element.duration, paused: element.paused };
  });
  expect(played.paused).toBe(false);
  expect(played.duration).toBeGreaterThan(0);
  await page.screenshot({ path: '.tmp/screens/task-suno-en-dark.png' });
  await page.keyboard.press('Escape');

  await page.getByTestId(`task-suno-${lyrics.id}`).click();
  await expect(dialog(page)).toContainText('Lyrics');
  await expect(page.getByTestId('suno-lyrics-text')).toContainText('[Verse]');
});

test('drawing screen in en, dark', async ({ page }) => {
  await open(page, '/midjourney', 'en', 'dark');
  const row = page.getByTestId(`mj-row-${drawing.id}`);
  await expect(row).toContainText('Imagine');
  await expect(row).toContainText('Success');
  await expect(page.getByTestId(`mj-row-${failedDrawing.id}`)).toContainText('Failed');
  await page.screenshot({ path: '.tmp/screens/midjourney-en-dark.png' });
  await page.getByTestId(`mj-image-${drawing.id}`).click();
  await expect(page.locator('.mg-drawing-viewer img.semi-image-preview-image-img')).toHaveAttribute('src', drawing.image_url);
  await expect(page.locator('.mg-drawing-viewer .semi-image-preview-footer [aria-label="plus"]')).toBeVisible();
  await expect(page.locator('.mg-drawing-viewer .semi-image-preview-footer [aria-label="download"]')).toBeVisible();
});

test('task screen in zh, light', async ({ page }) => {
  await open(page, '/task', 'zh', 'light');
  const songRow = page.getByTestId(`task-row-${song.id}`);
  await expect(songRow).toContainText('生成音乐');
  await expect(songRow).toContainText('成功');
  await expect(page.getByTestId(`task-row-${lyrics.id}`)).toContainText('生成歌词');
  await page.screenshot({ path: '.tmp/screens/task-zh-light.png' });
  await page.getByTestId(`task-suno-${song.id}`).click();
  await expect(dialog(page)).toContainText('音乐预览');
  await expect(page.getByTestId('suno-lyrics-0')).toHaveText(SONG_LYRICS);
  await page.keyboard.press('Escape');
  await page.getByTestId(`task-suno-${lyrics.id}`).click();
  await expect(dialog(page)).toContainText('歌词');
});

test('root filters by channel and task id, kept in the URL; a filter that matches nothing shows an empty table', async ({ page }) => {
  const [mjChannel, sunoChannel] = channelIds;
  await open(page, `/midjourney?channel_id=${mjChannel}`, 'zh', 'light', 'root', '123456');
  await expect(page.getByTestId(`mj-row-${drawing.id}`)).toBeVisible();
  await expect(page.getByTestId('mj-filter-channel')).toHaveValue(String(mjChannel));
  await expect(page.getByTestId(`mj-row-${drawing.id}`)).toContainText(`#${mjChannel}`);
  await expect(page.getByTestId(`mj-row-${drawing.id}`)).toContainText('已提交');
  await page.screenshot({ path: '.tmp/screens/midjourney-admin-zh-light.png' });

  await page.getByTestId('mj-filter-id').fill(failedDrawing.mj_id);
  await page.getByTestId('mj-filter-submit').click();
  await expect(page).toHaveURL(new RegExp(`task_id=${failedDrawing.mj_id}`));
  await expect(page.getByTestId(`mj-row-${failedDrawing.id}`)).toBeVisible();
  await expect(page.getByTestId(`mj-row-${drawing.id}`)).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId(`mj-row-${failedDrawing.id}`)).toBeVisible();
  await expect(page.getByTestId(`mj-row-${drawing.id}`)).toHaveCount(0);

  await page.goto(`/task?channel_id=${sunoChannel}&task_id=${song.task_id}`);
  await expect(page.getByTestId(`task-row-${song.id}`)).toContainText(`#${sunoChannel}`);
  await expect(page.getByTestId(`task-row-${lyrics.id}`)).toHaveCount(0);
  await page.goto(`/task?channel_id=${mjChannel}`);
  await expect(page.getByTestId('task-page').locator('.semi-table-wrapper')).toContainText('暂无数据');
  await expect(page.locator('[data-testid^="task-row-"]')).toHaveCount(0);
  await page.getByTestId('task-filter-reset').click();
  await expect(page).toHaveURL(/\/task$/);
  await expect(page.getByTestId(`task-row-${song.id}`)).toBeVisible();
});

test('the default range ends now, and a refresh lists a drawing submitted after the screen opened', async ({ page }) => {
  await open(page, '/midjourney', 'zh', 'light');
  await expect(page.getByTestId(`mj-row-${drawing.id}`)).toBeVisible();
  // The range shown ends at the moment the screen opened, not an hour later.
  const shownEnd = await page.getByTestId('mj-filter-range').locator('input').last().inputValue();
  const endMs = new Date(`${shownEnd.replace(' ', 'T')}Z`).getTime(); // the browser runs in UTC
  expect(Math.abs(endMs - Date.now())).toBeLessThan(10 * 60_000);

  const later = await relayPost('/mj/submit/imagine', userKey, { prompt: `a second lighthouse ${run}` });
  expect(later.code).toBe(1);
  const [added] = await waitForDrawings([String(later.result)]);
  await page.getByTestId('mj-filter-submit').click();
  await expect(page.getByTestId(`mj-row-${added.id}`)).toBeVisible();
  // The default end stays open in the URL, so a reload still reaches "now".
  expect(new URL(page.url()).searchParams.has('end')).toBe(false);
});

test('with drawing turned off the drawing screen leaves the navigation and says it is off', async ({ page }) => {
  await setOption('DrawingEnabled', 'false');
  try {
    await open(page, '/midjourney', 'zh', 'light');
    const off = page.getByTestId('feature-off');
    await expect(off).toContainText('此功能未开启');
    await expect(off).toContainText('绘图功能目前已关闭。');
    await page.screenshot({ path: '.tmp/screens/midjourney-off-zh-light.png' });
    // A user is not told where the switch is; that is for administrators.
    await expect(page.getByTestId('feature-off-where')).toHaveCount(0);
    await expect(page.getByText('页面不存在')).toHaveCount(0);
    await expect(page.getByTestId('mj-page')).toHaveCount(0);
    await expect(page.locator('.mg-side-nav')).not.toContainText('绘图');
    await expect(page.locator('.mg-side-nav')).toContainText('异步任务');
  } finally {
    await setOption('DrawingEnabled', 'true');
  }
});

test('with tasks turned off /task tells root where to turn them on', async ({ page }) => {
  const sunoChannel = channelIds[1];
  // An enabled Suno channel also turns the screen on: switch both off.
  await setOption('TaskEnabled', 'false');
  await dataOf(await root.put('/api/channel/', { data: { id: sunoChannel, status: 2 } }));
  try {
    await open(page, '/task', 'en', 'dark', 'root', '123456');
    const off = page.getByTestId('feature-off');
    await expect(off).toContainText('This feature is turned off');
    await expect(page.getByTestId('feature-off-where')).toHaveText(
      'The super administrator can turn on “Enable async tasks” under Settings → Operation → Drawing.',
    );
    await page.screenshot({ path: '.tmp/screens/task-off-en-dark.png' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await expect(off).toBeVisible();
    await page.screenshot({ path: '.tmp/screens/task-off-en-dark-390.png' });
    await off.getByRole('button', { name: 'Open the operation settings' }).click();
    await expect(page).toHaveURL(/\/setting\?tab=operation$/);
    await expect(page.getByTestId('op-card-drawing')).toContainText('Enable async tasks');
  } finally {
    await dataOf(await root.put('/api/channel/', { data: { id: sunoChannel, status: 1 } }));
    await setOption('TaskEnabled', 'true');
  }
});
