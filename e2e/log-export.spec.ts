import { readFileSync } from 'node:fs';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { apiSession, dataOf, signInBrowser } from './support/console-session';
import { presetLanguageAndTheme } from './wallet-helpers';

/**
 * The log screen's CSV export: an administrator exports the rows of a filter (one user's balance
 * changes), sees the progress of rows of the total, and gets the file with the header and those
 * rows; on a phone the export is cancelled from the progress dialog.
 */

const run = Date.now().toString(36).slice(-6);
const username = `lx${run}`;
const CHANGES = 6;
let root: APIRequestContext;
let expectedIds: number[] = [];

test.beforeAll(async () => {
  root = (await apiSession('root', '123456')).api;
  const created = await dataOf<{ id: number }>(await root.post('/api/user/', { data: { username, password: 'correct-horse' } }));
  // Each balance change is a management log line (type 3) of this user.
  for (let change = 1; change <= CHANGES; change += 1) {
    await dataOf(await root.put('/api/user/', { data: { id: created.id, quota: change * 1_000_000 } }));
  }
  const listed = await dataOf<{ items: { id: number }[] }>(await root.get('/api/log/', { params: { username, type: 3, page_size: 100 } }));
  expectedIds = listed.items.map((row) => row.id);
  expect(expectedIds.length).toBe(CHANGES);
});

test.afterAll(async () => {
  await root?.dispose();
});

/**
 * Holds the export's answer in the browser after its first rows until `release()`, so the dialog
 * can be seen mid-way (a handful of rows arrive in one chunk otherwise). The server's answer is
 * real; only its delivery to the page is split. Aborting the fetch ends the held stream.
 */
async function holdExportMidway(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const realFetch = window.fetch.bind(window);
    window.fetch = async (input, init) => {
      const response = await realFetch(input, init);
      if (!String(input).includes('/export')) return response;
      const bytes = new Uint8Array(await response.arrayBuffer());
      // After the header and two rows: the third line feed outside quotes (the content has none).
      let cut = 0;
      for (let lines = 0; lines < 3; lines += 1) cut = bytes.indexOf(0x0a, cut) + 1;
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(bytes.slice(0, cut));
          const aborted = new Promise<void>((resolve) => init?.signal?.addEventListener('abort', () => resolve()));
          const released = new Promise<void>((resolve) => {
            (window as unknown as { releaseExport: () => void }).releaseExport = resolve;
          });
          await Promise.race([aborted, released]);
          if (init?.signal?.aborted) return controller.error(new DOMException('The export was cancelled', 'AbortError'));
          controller.enqueue(bytes.slice(cut));
          controller.close();
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
  });
}

test('an administrator exports the filtered logs as CSV and watches the progress (en, light, desktop)', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await presetLanguageAndTheme(page, 'en', 'light');
  await holdExportMidway(page);
  await signInBrowser(page, 'root', '123456');
  await page.goto(`/log?username=${username}&type=3`);
  for (const id of expectedIds) await expect(page.getByTestId(`log-row-${id}`)).toBeVisible();

  await page.getByTestId('log-export').click();
  const dialog = page.getByRole('dialog', { name: 'Export logs' });
  await expect(dialog.getByTestId('log-export-count')).toContainText(`2 of ${CHANGES} rows exported`);
  await expect(dialog.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '33');
  await expect(dialog.locator('.semi-progress-line-text')).toHaveText('33%');
  const box = await dialog.boundingBox();
  expect(box!.width).toBeLessThanOrEqual(448);
  await page.screenshot({ path: '.tmp/screens/log-export-progress-en-light.png' });

  const download = page.waitForEvent('download');
  await page.evaluate(() => (window as unknown as { releaseExport: () => void }).releaseExport());
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^logs-\d{8}-\d{6}\.csv$/);
  const text = readFileSync(await file.path(), 'utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  const lines = text.slice(1).split('\r\n');
  expect(lines.at(-1)).toBe('');
  expect(lines[0]).toMatch(/^id,time \(UTC\),timestamp,type,username,token_name,model_name,group,channel_id,channel_name,/);
  const rows = lines.slice(1, -1);
  expect(rows.map((line) => Number(line.split(',')[0]))).toEqual(expectedIds);
  for (const row of rows) expect(row).toContain(`,manage,${username},`);
  await expect(page.locator('.semi-toast-content').filter({ hasText: `${CHANGES} logs exported` })).toBeVisible();
  await expect(dialog).toBeHidden();
});

test('on a phone the export can be cancelled from its progress dialog (zh, dark)', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await presetLanguageAndTheme(page, 'zh', 'dark');
  await holdExportMidway(page);
  await signInBrowser(page, 'root', '123456');
  await page.goto(`/log?username=${username}&type=3`);
  await expect(page.getByTestId(`log-row-${expectedIds[0]}`)).toBeVisible();

  await page.getByTestId('log-export').click();
  const dialog = page.getByRole('dialog', { name: '导出日志' });
  await expect(dialog.getByTestId('log-export-count')).toContainText(`已导出 2 / ${CHANGES} 条`);
  await expect(dialog.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '33');
  // The bar and its figure are animated: the screenshot waits for them to settle.
  await expect(dialog.locator('.semi-progress-line-text')).toHaveText('33%');
  // The dialog fits the phone's width.
  const box = await dialog.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  await page.screenshot({ path: '.tmp/screens/log-export-progress-zh-dark-phone.png' });
  let downloaded = false;
  page.on('download', () => {
    downloaded = true;
  });
  await dialog.getByTestId('log-export-cancel').click();
  await expect(page.locator('.semi-toast-content').filter({ hasText: '已取消导出' })).toBeVisible();
  await expect(dialog).toBeHidden();
  expect(downloaded).toBe(false);
});
