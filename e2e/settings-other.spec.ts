import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiCall, apiSession, ROOT, setOption, signIn, toast, type ApiSession } from './wallet-helpers';

/**
 * The Other settings tab (/setting?tab=other) against the real server, as root: each card's live
 * preview before saving, the save, and the public page after it (home page notice once per change,
 * system name and logo in the header, home and about content as Markdown, as HTML written by the
 * admin, or as an embedded https page, the footer's HTML), in zh and en, light and dark. Every
 * option changed here is put back afterwards.
 */

const TEXTS = {
  zh: {
    save: '保存设置',
    saved: '保存成功',
    unchanged: '你似乎并没有修改什么',
    previewModal: '以弹窗预览',
    noticeTitle: '系统公告',
    close: '我知道了',
    logoInvalid: 'Logo 地址需以 https://、http://、/ 或 data:image/ 开头，且不能含空格',
    kindEmbed: '嵌入网页（iframe）',
    kindMarkdown: 'Markdown & HTML',
    kindDefault: '默认内容',
  },
  en: {
    save: 'Save',
    saved: 'Saved',
    unchanged: "You don't seem to have changed anything",
    previewModal: 'Preview as pop-up',
    noticeTitle: 'Notice',
    close: 'Got it',
    logoInvalid: 'The logo address must start with https://, http://, / or data:image/ and contain no spaces',
    kindEmbed: 'Embedded page (iframe)',
    kindMarkdown: 'Markdown & HTML',
    kindDefault: 'Default content',
  },
} as const;

type Language = keyof typeof TEXTS;
type Theme = 'light' | 'dark';

const OPTION_KEYS = ['SystemName', 'Logo', 'Notice', 'HomePageContent', 'About', 'Footer'] as const;

let root: ApiSession;
const original: Record<string, string> = {};

async function storedOptions(): Promise<Record<string, string>> {
  const entries = await apiCall<{ key: string; value: string }[]>(root, 'GET', '/api/option/');
  return Object.fromEntries(entries.map((entry) => [entry.key, entry.value]));
}

test.beforeAll(async () => {
  root = await apiSession(ROOT.username, ROOT.password);
  const stored = await storedOptions();
  for (const key of OPTION_KEYS) original[key] = stored[key] ?? '';
});

test.afterAll(async () => {
  for (const key of OPTION_KEYS) await setOption(root, key, original[key]!);
  const stored = await storedOptions();
  for (const key of OPTION_KEYS) expect(stored[key] ?? '', key).toBe(original[key]);
  await root.api.dispose();
});

async function prepare(page: Page, language: Language, theme: Theme): Promise<void> {
  await page.addInitScript(
    ([lang, mode]) => {
      // Only on the first load: a test may switch language or theme later on.
      if (!sessionStorage.getItem('e2e-prepared')) {
        sessionStorage.setItem('e2e-prepared', '1');
        localStorage.setItem('i18nextLng', lang);
        localStorage.setItem('theme-mode', mode);
      }
    },
    [language, theme] as const,
  );
  await signIn(page, ROOT.username, ROOT.password);
}

/** The console scrolls inside .mg-scroll, not the window: grow the viewport to take the whole page. */
async function screenshotWhole(page: Page, path: string): Promise<void> {
  const size = page.viewportSize()!;
  const height = await page.locator('.mg-scroll').evaluate((element) => element.scrollHeight + element.getBoundingClientRect().top);
  await page.setViewportSize({ width: size.width, height: Math.ceil(height) });
  await page.screenshot({ path });
  await page.setViewportSize(size);
}

/** The layout's footer, not the footer preview on the settings tab. */
function siteFooter(page: Page): Locator {
  return page.locator('footer.mg-footer-bar');
}

async function openOtherTab(page: Page): Promise<void> {
  await page.goto('/setting?tab=other');
  await expect(page.getByTestId('other-notice-input')).toBeVisible();
}

/** Semi's TextArea/Input keep the test id on their wrapper or on the field itself. */
function field(page: Page, testId: string): Locator {
  return page
    .locator(`textarea[data-testid="${testId}"], input[data-testid="${testId}"], [data-testid="${testId}"] textarea, [data-testid="${testId}"] input`)
    .first();
}

async function saveCard(page: Page, cardId: string, language: Language, expected: 'saved' | 'unchanged' = 'saved'): Promise<void> {
  const text = TEXTS[language];
  await page.getByTestId(cardId).getByRole('button', { name: text.save, exact: true }).click();
  await expect(toast(page, expected === 'saved' ? text.saved : text.unchanged).last()).toBeVisible();
}

async function expectStored(key: string, value: string): Promise<void> {
  await expect.poll(async () => (await storedOptions())[key]).toBe(value);
}

/** Waits for the home page's notice answer, so "no dialog" is asserted after it could have opened. */
async function gotoHome(page: Page, how: 'goto' | 'reload' = 'goto'): Promise<void> {
  const notice = page.waitForResponse((response) => response.url().endsWith('/api/notice'));
  if (how === 'goto') await page.goto('/');
  else await page.reload();
  await notice;
  // One more frame for the effect that opens the dialog.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 300))));
}

test('the notice: previewed before saving, shown once on the home page, again after a change (zh, light)', async ({ page }) => {
  const text = TEXTS.zh;
  await prepare(page, 'zh', 'light');
  await openOtherTab(page);
  await screenshotWhole(page, '.tmp/screens/settings-other-zh-light.png');

  const first = `# 维护通知 ${Date.now()}\n\n今晚 **22:00** 升级，<span style="color: rgb(220, 38, 38)" data-level="high">期间暂停服务</span>。`;
  await field(page, 'other-notice-input').fill(first);
  const preview = page.getByTestId('other-notice-preview');
  await expect(preview.getByRole('heading', { level: 1 })).toHaveText(/维护通知/);
  await expect(preview.locator('strong')).toHaveText('22:00');
  // The admin's HTML as written: inline style and custom attribute kept.
  await expect(preview.locator('span[data-level="high"]')).toHaveCSS('color', 'rgb(220, 38, 38)');

  // The pop-up preview is the dialog visitors get.
  await page.getByRole('button', { name: text.previewModal }).click();
  const previewDialog = page.getByRole('dialog');
  await expect(previewDialog.getByText(text.noticeTitle)).toBeVisible();
  await expect(previewDialog.getByRole('heading', { level: 1 })).toHaveText(/维护通知/);
  await previewDialog.getByRole('button', { name: text.close }).click();
  await expect(previewDialog).toBeHidden();

  await saveCard(page, 'other-notice', 'zh');
  await expectStored('Notice', first);
  // Saving again with nothing typed changes nothing.
  await saveCard(page, 'other-notice', 'zh', 'unchanged');

  // The home page shows it once...
  await gotoHome(page);
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { level: 1 })).toHaveText(/维护通知/);
  await expect(dialog.locator('span[data-level="high"]')).toHaveText('期间暂停服务');
  await page.screenshot({ path: '.tmp/screens/settings-other-notice-zh-light.png' });
  await dialog.getByRole('button', { name: text.close }).click();
  await expect(dialog).toBeHidden();

  // ...not after closing it, on a reload or a new visit...
  await gotoHome(page, 'reload');
  await expect(page.getByTestId('notice-body')).toHaveCount(0);
  await gotoHome(page);
  await expect(page.getByTestId('notice-body')).toHaveCount(0);

  // ...and again once the admin changes the text.
  await openOtherTab(page);
  const second = `${first}\n\n> 已延期至 23:00`;
  await field(page, 'other-notice-input').fill(second);
  await expect(page.getByTestId('other-notice-preview').locator('blockquote')).toHaveText('已延期至 23:00');
  await saveCard(page, 'other-notice', 'zh');
  await expectStored('Notice', second);
  await gotoHome(page);
  await expect(page.getByRole('dialog').locator('blockquote')).toHaveText('已延期至 23:00');
  await page.getByRole('dialog').getByRole('button', { name: text.close }).click();
  await gotoHome(page, 'reload');
  await expect(page.getByTestId('notice-body')).toHaveCount(0);

  // An empty notice shows nothing, even to a browser that never closed one.
  await setOption(root, 'Notice', '');
  await page.evaluate(() => localStorage.removeItem('notice_seen'));
  await gotoHome(page, 'reload');
  await expect(page.getByTestId('notice-body')).toHaveCount(0);
});

test('the notice pops up once in English and dark mode too', async ({ page }) => {
  const text = TEXTS.en;
  await prepare(page, 'en', 'dark');
  await openOtherTab(page);
  const notice = `## Scheduled maintenance ${Date.now()}\n\nThe gateway restarts at *02:00 UTC*.`;
  await field(page, 'other-notice-input').fill(notice);
  await expect(page.getByTestId('other-notice-preview').getByRole('heading', { level: 2 })).toHaveText(/Scheduled maintenance/);
  await saveCard(page, 'other-notice', 'en');
  await gotoHome(page);
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText(text.noticeTitle, { exact: true })).toBeVisible();
  await expect(dialog.locator('em')).toHaveText('02:00 UTC');
  await page.screenshot({ path: '.tmp/screens/settings-other-notice-en-dark.png' });
  await dialog.getByRole('button', { name: text.close }).click();
  await gotoHome(page, 'reload');
  await expect(page.getByTestId('notice-body')).toHaveCount(0);
  await setOption(root, 'Notice', '');
});

const LOGO = `data:image/svg+xml;base64,${Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#e11d48"/><circle cx="32" cy="32" r="14" fill="#fff"/></svg>',
).toString('base64')}`;

test('system name and logo: previewed, then in the header, title and footer after saving and after a reload (en, dark)', async ({ page }) => {
  const text = TEXTS.en;
  // The default footer shows the system name only while no custom footer is set.
  await setOption(root, 'Footer', '');
  await prepare(page, 'en', 'dark');
  await openOtherTab(page);

  const name = `Gate ${Date.now().toString(36).slice(-5)}`;
  await field(page, 'other-system-name-input').fill(name);
  await expect(page.getByTestId('other-system-name-brand')).toContainText(name);
  await expect(page.locator('.mg-top-nav .mg-brand-name')).not.toHaveText(name);
  await saveCard(page, 'other-system-name', 'en');
  await expectStored('SystemName', name);
  await expect(page.locator('.mg-top-nav .mg-brand-name')).toHaveText(name);
  await expect(page).toHaveTitle(name);
  await expect(siteFooter(page).getByTestId('default-footer')).toContainText(name);

  // A relative address would break on nested pages: refused before anything is sent.
  await field(page, 'other-logo-input').fill('logo.png');
  await expect(page.getByTestId('other-logo-invalid')).toHaveText(text.logoInvalid);
  await page.getByTestId('other-logo').getByRole('button', { name: text.save, exact: true }).click();
  await expect(toast(page, text.logoInvalid).last()).toBeVisible();
  expect((await storedOptions()).Logo).toBe(original.Logo);

  await field(page, 'other-logo-input').fill(LOGO);
  const image = page.getByTestId('other-logo-image');
  await expect(image).toHaveAttribute('src', LOGO);
  await expect.poll(() => image.evaluate((element: HTMLImageElement) => element.complete && element.naturalWidth)).toBeGreaterThan(0);
  await expect(page.getByTestId('other-logo-broken')).toHaveCount(0);
  await expect(page.getByTestId('other-logo-brand').locator('img')).toHaveAttribute('src', LOGO);
  await screenshotWhole(page, '.tmp/screens/settings-other-en-dark.png');
  await saveCard(page, 'other-logo', 'en');
  await expectStored('Logo', LOGO);
  await expect(page.locator('.mg-top-nav img.mg-brand-logo')).toHaveAttribute('src', LOGO);

  // A broken address is reported in the preview.
  await field(page, 'other-logo-input').fill('/no-such-logo.png');
  await expect(page.getByTestId('other-logo-broken')).toBeVisible();
  await page
    .getByTestId('other-logo')
    .getByRole('button', { name: /Discard changes/ })
    .click();
  await expect(field(page, 'other-logo-input')).toHaveValue(LOGO);

  await page.reload();
  await expect(page.locator('.mg-top-nav .mg-brand-name')).toHaveText(name);
  await expect(page.locator('.mg-top-nav img.mg-brand-logo')).toHaveAttribute('src', LOGO);
  await expect(page).toHaveTitle(name);
  await expect(field(page, 'other-system-name-input')).toHaveValue(name);
  await saveCard(page, 'other-system-name', 'en', 'unchanged');
  await page.goto('/');
  await expect(page.locator('.mg-top-nav .mg-brand-name')).toHaveText(name);
  await expect(siteFooter(page).getByTestId('default-footer')).toContainText(name);
  await page.screenshot({ path: '.tmp/screens/settings-other-brand-en-dark.png' });

  await setOption(root, 'SystemName', original.SystemName!);
  await setOption(root, 'Logo', original.Logo!);
});

const STYLED_HTML = [
  '<style>.mg-e2e-promo { letter-spacing: 3px; }</style>',
  '<div class="mg-e2e-promo" style="color: rgb(22, 163, 74); border: 2px solid rgb(22, 163, 74); padding: 8px" data-campaign="spring">',
  '  Spring sale: <b>50% off</b>',
  '</div>',
].join('\n');

test('home page content: Markdown, HTML as written and an https page in an iframe, each previewed first (zh, dark)', async ({ page }) => {
  const text = TEXTS.zh;
  await prepare(page, 'zh', 'dark');
  await openOtherTab(page);
  const input = field(page, 'other-home-input');
  const preview = page.getByTestId('other-home-preview');
  await expect(page.getByTestId('other-home-kind')).toHaveText(text.kindDefault);

  // Markdown.
  const markdown = `# 欢迎使用网关 ${Date.now()}\n\n## 快速开始\n\n- 创建令牌\n- 调用 \`/v1/chat/completions\``;
  await input.fill(markdown);
  await expect(page.getByTestId('other-home-kind')).toHaveText(text.kindMarkdown);
  await expect(preview.getByRole('heading', { level: 1 })).toHaveText(/欢迎使用网关/);
  await expect(preview.getByRole('heading', { level: 2 })).toHaveText('快速开始');
  await saveCard(page, 'other-home', 'zh');
  await expectStored('HomePageContent', markdown);
  await page.goto('/');
  await expect(page.getByTestId('rich-content').getByRole('heading', { level: 1 })).toHaveText(/欢迎使用网关/);
  await expect(page.getByTestId('rich-content').locator('li')).toHaveCount(2);
  await page.screenshot({ path: '.tmp/screens/settings-other-home-markdown-zh-dark.png' });

  // HTML with a <style> block, an inline style and a custom attribute: all kept.
  await openOtherTab(page);
  await input.fill(STYLED_HTML);
  const previewPromo = preview.locator('div.mg-e2e-promo[data-campaign="spring"]');
  await expect(previewPromo).toHaveCSS('color', 'rgb(22, 163, 74)');
  await expect(previewPromo).toHaveCSS('letter-spacing', '3px');
  await screenshotWhole(page, '.tmp/screens/settings-other-home-preview-zh-dark.png');
  await saveCard(page, 'other-home', 'zh');
  await expectStored('HomePageContent', STYLED_HTML);
  await page.goto('/');
  const promo = page.getByTestId('rich-content').locator('div.mg-e2e-promo[data-campaign="spring"]');
  await expect(promo).toHaveCSS('color', 'rgb(22, 163, 74)');
  await expect(promo).toHaveCSS('letter-spacing', '3px');
  await expect(promo.locator('b')).toHaveText('50% off');
  await expect(page.getByTestId('rich-content').locator('style')).toHaveCount(1);
  await page.screenshot({ path: '.tmp/screens/settings-other-home-html-zh-dark.png' });

  // A lone https address: an iframe with that src (offline, so only the src is checked).
  await openOtherTab(page);
  const address = 'https://docs.example.com/welcome?from=e2e';
  await input.fill(address);
  await expect(page.getByTestId('other-home-kind')).toHaveText(text.kindEmbed);
  await expect(preview.locator('iframe')).toHaveAttribute('src', address);
  await saveCard(page, 'other-home', 'zh');
  await expectStored('HomePageContent', address);
  await page.goto('/');
  await expect(page.getByTestId('rich-content-frame')).toHaveAttribute('src', address);

  // Empty brings the default home page back.
  await openOtherTab(page);
  await input.fill('');
  await expect(page.getByTestId('other-home-kind')).toHaveText(text.kindDefault);
  await saveCard(page, 'other-home', 'zh');
  await expectStored('HomePageContent', '');
  await page.goto('/');
  await expect(page.getByTestId('base-url')).toBeVisible();
  await setOption(root, 'HomePageContent', original.HomePageContent!);
});

test('about: Markdown and HTML as written, an https page in an iframe (en, light)', async ({ page }) => {
  const text = TEXTS.en;
  await prepare(page, 'en', 'light');
  await openOtherTab(page);
  const input = field(page, 'other-about-input');
  const preview = page.getByTestId('other-about-preview');

  const about = `# About us ${Date.now()}\n\nWe run **modelgate** for our team.\n\n${STYLED_HTML}`;
  await input.fill(about);
  await expect(page.getByTestId('other-about-kind')).toHaveText(text.kindMarkdown);
  await expect(preview.getByRole('heading', { level: 1 })).toHaveText(/About us/);
  await expect(preview.locator('div.mg-e2e-promo[data-campaign="spring"]')).toHaveCSS('color', 'rgb(22, 163, 74)');
  await saveCard(page, 'other-about', 'en');
  await expectStored('About', about);
  await page.goto('/about');
  await expect(page.getByTestId('rich-content').getByRole('heading', { level: 1 })).toHaveText(/About us/);
  await expect(page.getByTestId('rich-content').locator('div.mg-e2e-promo')).toHaveCSS('letter-spacing', '3px');
  await page.screenshot({ path: '.tmp/screens/settings-other-about-en-light.png' });

  await openOtherTab(page);
  const address = 'https://about.example.com/team';
  await input.fill(address);
  await expect(preview.locator('iframe')).toHaveAttribute('src', address);
  await saveCard(page, 'other-about', 'en');
  await page.goto('/about');
  await expect(page.getByTestId('rich-content-frame')).toHaveAttribute('src', address);
  await page.reload();
  await expect(page.getByTestId('rich-content-frame')).toHaveAttribute('src', address);
  await setOption(root, 'About', original.About!);
});

test('footer: HTML previewed, then at the bottom of every page as written (zh, dark and en, light)', async ({ page }) => {
  await prepare(page, 'zh', 'dark');
  await openOtherTab(page);
  const footer = `<div id="mg-e2e-footer" style="font-weight: 700; color: rgb(234, 88, 12)">© 2025 示例网关 · <a href="/about">关于我们</a></div>`;
  await field(page, 'other-footer-input').fill(footer);
  const preview = page.getByTestId('other-footer-preview');
  await expect(preview.locator('#mg-e2e-footer')).toHaveCSS('color', 'rgb(234, 88, 12)');
  await expect(preview.getByRole('link', { name: '关于我们' })).toHaveAttribute('href', '/about');
  await screenshotWhole(page, '.tmp/screens/settings-other-footer-zh-dark.png');
  await saveCard(page, 'other-footer', 'zh');
  await expectStored('Footer', footer);

  await page.goto('/');
  const pageFooter = siteFooter(page).getByTestId('custom-footer');
  await expect(pageFooter.locator('#mg-e2e-footer')).toHaveCSS('font-weight', '700');
  await expect(siteFooter(page).getByTestId('default-footer')).toHaveCount(0);
  await page.goto('/pricing');
  await expect(siteFooter(page).locator('#mg-e2e-footer')).toHaveText(/© 2025 示例网关/);

  // Empty brings the default footer back, in the preview first.
  await page.evaluate(() => {
    localStorage.setItem('i18nextLng', 'en');
    localStorage.setItem('theme-mode', 'light');
  });
  await openOtherTab(page);
  await field(page, 'other-footer-input').fill('');
  await expect(preview.getByTestId('default-footer')).toBeVisible();
  await saveCard(page, 'other-footer', 'en');
  await expectStored('Footer', '');
  await page.reload();
  await expect(siteFooter(page).getByTestId('default-footer')).toBeVisible();
  await setOption(root, 'Footer', original.Footer!);
});
