import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiCall, apiSession, ROOT, setOption, signIn, toast, type ApiSession } from './wallet-helpers';

/**
 * The model ratios card of /setting?tab=operation over the real server: the visual table's rules
 * (numbers only, duplicate names, a fixed price disabling the ratios, search, 10 a page, add, edit,
 * delete), both tabs showing one draft, the JSON tab's check before sending, the reset to the
 * defaults, and that a saved ratio is what GET /api/pricing offers for a served model.
 */

const run = Date.now().toString(36).slice(-6);
const ratioModel = `e2e-mp-${run}`;
const fixedModel = `e2e-mp-fixed-${run}`;
const renamedModel = `e2e-mp-renamed-${run}`;
const screens = '.tmp/screens';
const KEYS = ['ModelPrice', 'ModelRatio', 'CompletionRatio', 'CacheRatio'] as const;
type Key = (typeof KEYS)[number];

// Tall enough that the whole card (ten rows, or the three JSON fields) fits in its screenshot.
test.use({ viewport: { width: 1280, height: 1500 } });

let root: ApiSession;
let channelId: number | undefined;
/** The four options as GET /api/option/ gave them before this file changed anything. */
let before: Record<Key, string>;

const TEXTS = {
  zh: {
    visual: '可视化编辑',
    json: 'JSON 编辑',
    add: '添加模型',
    ok: '确定',
    save: '保存设置',
    saved: '保存成功',
    duplicate: '模型名称已存在',
    notNumber: '请输入数字',
    disabled: '已设置固定价格',
    invalidRatio: '模型倍率不是合法的 JSON 字符串',
    draft: '有未保存的修改',
    discard: '放弃修改',
    reset: '重置模型倍率',
    resetConfirm: '重置',
    delete: '删除',
    edit: '编辑',
  },
  en: {
    visual: 'Visual editor',
    json: 'JSON editor',
    add: 'Add model',
    ok: 'OK',
    save: 'Save',
    saved: 'Saved',
    duplicate: 'Model name already exists',
    notNumber: 'Please enter a number',
    disabled: 'Fixed price set',
    invalidRatio: 'Model ratios is not a valid JSON string',
    draft: 'Unsaved changes',
    discard: 'Discard changes',
    reset: 'Reset model ratios',
    resetConfirm: 'Reset',
    delete: 'Delete',
    edit: 'Edit',
  },
};
type Texts = (typeof TEXTS)['zh'];

async function storedOptions(): Promise<Record<Key, string>> {
  const options = await apiCall<Array<{ key: string; value: string }>>(root, 'GET', '/api/option/');
  const pick = (key: Key) => options.find((option) => option.key === key)?.value ?? '';
  return { ModelPrice: pick('ModelPrice'), ModelRatio: pick('ModelRatio'), CompletionRatio: pick('CompletionRatio'), CacheRatio: pick('CacheRatio') };
}

async function storedMaps(): Promise<Record<Key, Record<string, number>>> {
  const options = await storedOptions();
  return {
    ModelPrice: JSON.parse(options.ModelPrice) as Record<string, number>,
    ModelRatio: JSON.parse(options.ModelRatio) as Record<string, number>,
    CompletionRatio: JSON.parse(options.CompletionRatio) as Record<string, number>,
    CacheRatio: JSON.parse(options.CacheRatio) as Record<string, number>,
  };
}

test.beforeAll(async () => {
  root = await apiSession(ROOT.username, ROOT.password);
  before = await storedOptions();
  // A channel serving the new model, so GET /api/pricing offers it once it has a ratio.
  const channel = await apiCall<{ id: number }>(root, 'POST', '/api/channel/', {
    type: 1,
    name: `model-pricing-${run}`,
    group: 'default',
    models: ratioModel,
    base_url: 'http://127.0.0.1:9',
    key: 'sk-never-called',
  });
  channelId = channel.id;
});

test.afterAll(async () => {
  if (channelId !== undefined) await apiCall(root, 'DELETE', `/api/channel/${channelId}/`);
  if (before) for (const key of KEYS) await setOption(root, key, before[key]);
  await root?.api.dispose();
});

async function openCard(page: Page, lang: 'zh' | 'en', mode: 'light' | 'dark'): Promise<Locator> {
  await signIn(page, ROOT.username, ROOT.password);
  await page.addInitScript(
    ([language, theme]) => {
      localStorage.setItem('i18nextLng', language);
      localStorage.setItem('theme-mode', theme);
    },
    [lang, mode] as const,
  );
  await page.goto('/setting?tab=operation');
  const card = page.getByTestId('model-pricing-card');
  await expect(card.getByTestId('model-pricing-json-ModelRatio')).toBeVisible();
  return card;
}

const rows = (card: Locator) => card.locator('[data-testid^="model-pricing-row-"]');
const row = (card: Locator, name: string) => card.getByTestId(`model-pricing-row-${name}`);
const modal = (page: Page) => page.locator('.mg-pricing-modal');

async function openAdd(page: Page, card: Locator, texts: Texts): Promise<Locator> {
  await card.getByTestId('model-pricing-add').click();
  const dialog = modal(page);
  await expect(dialog.getByTestId('model-pricing-field-name')).toBeVisible();
  await expect(dialog).toContainText(texts.add);
  return dialog;
}

async function search(card: Locator, text: string): Promise<void> {
  await card.getByTestId('model-pricing-search').fill(text);
}

test('zh, light: a model added in the table is saved, seen after a reload in the table, the JSON tab, the options and the pricing', async ({ page }) => {
  const texts = TEXTS.zh;
  const card = await openCard(page, 'zh', 'light');
  await card.getByRole('tab', { name: texts.visual }).click();

  const dialog = await openAdd(page, card, texts);
  await dialog.getByTestId('model-pricing-field-name').fill(ratioModel);
  await dialog.getByTestId('model-pricing-field-ratio').fill('0.75');
  await dialog.getByTestId('model-pricing-field-completion').fill('3');
  await dialog.getByTestId('model-pricing-field-cache').fill('0.5');
  await expect(dialog.getByTestId('model-pricing-preview')).toHaveText('每百万 tokens：输入 $1.5，输出 $4.5');
  await dialog.getByRole('button', { name: texts.ok }).click();
  await expect(dialog).toBeHidden();

  // The new row is shown at once (on whatever page it lands), and the draft is marked unsaved.
  await expect(row(card, ratioModel)).toContainText('0.75');
  await expect(card.getByTestId('model-pricing-draft')).toContainText(texts.draft);
  // Nothing was sent yet.
  expect((await storedMaps()).ModelRatio[ratioModel]).toBeUndefined();

  // The JSON tab shows the same draft before saving.
  await card.getByRole('tab', { name: texts.json }).click();
  await expect(card.getByTestId('model-pricing-json-ModelRatio')).toHaveValue(new RegExp(`"${ratioModel}": 0\\.75`));
  await expect(card.getByTestId('model-pricing-json-CompletionRatio')).toHaveValue(new RegExp(`"${ratioModel}": 3`));
  await expect(card.getByTestId('model-pricing-json-CacheRatio')).toHaveValue(new RegExp(`"${ratioModel}": 0\\.5`));

  await card.getByRole('button', { name: texts.save }).click();
  await expect(toast(page, texts.saved).first()).toBeVisible();
  await expect(card.getByTestId('model-pricing-draft')).toBeHidden();

  // Only the three maps that changed were written; the fixed prices are as they were.
  const saved = await storedOptions();
  expect(saved.ModelPrice).toBe(before.ModelPrice);
  const maps = await storedMaps();
  expect(maps.ModelRatio[ratioModel]).toBe(0.75);
  expect(maps.CompletionRatio[ratioModel]).toBe(3);
  expect(maps.CacheRatio).toEqual({ ...(JSON.parse(before.CacheRatio) as object), [ratioModel]: 0.5 });
  expect(maps.ModelPrice[ratioModel]).toBeUndefined();
  // Every model priced before is still priced the same.
  expect(maps.ModelRatio).toEqual({ ...(JSON.parse(before.ModelRatio) as object), [ratioModel]: 0.75 });

  await page.reload();
  await expect(card.getByTestId('model-pricing-json-ModelRatio')).toHaveValue(new RegExp(`"${ratioModel}": 0\\.75`));
  await card.getByRole('tab', { name: texts.visual }).click();
  await search(card, ratioModel);
  await expect(rows(card)).toHaveCount(1);
  await expect(row(card, ratioModel)).toContainText('0.75');
  await expect(row(card, ratioModel)).toContainText('3');
  await expect(row(card, ratioModel).getByTestId('model-pricing-token-price')).toHaveText('输入 $1.5输出 $4.5缓存 $0.75');

  // The ratio takes effect: the pricing of the served model is the saved one.
  const pricing = (await (await root.api.get('/api/pricing')).json()) as {
    data: Array<{ model_name: string; quota_type: number; model_ratio: number; completion_ratio: number }>;
  };
  const offered = pricing.data.find((item) => item.model_name === ratioModel);
  expect(offered).toMatchObject({ quota_type: 0, model_ratio: 0.75, completion_ratio: 3 });

  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: `${screens}/settings-model-pricing-zh-light.png` });
});

test('en, dark: the table rules — paging, search, numbers only, duplicates, fixed price, edit, delete — in one draft with the JSON tab', async ({ page }) => {
  const texts = TEXTS.en;
  const card = await openCard(page, 'en', 'dark');
  await card.getByRole('tab', { name: texts.visual }).click();

  // 10 a page; the next page shows the next rows.
  await expect(rows(card)).toHaveCount(10);
  const firstOnPage1 = await rows(card).first().getAttribute('data-testid');
  await card.getByTestId('model-pricing-pagination').getByText('2', { exact: true }).click();
  await expect(rows(card)).toHaveCount(10);
  expect(await rows(card).first().getAttribute('data-testid')).not.toBe(firstOnPage1);

  // Search by name, any case.
  await search(card, 'GPT-4O-MINI');
  await expect(row(card, 'gpt-4o-mini')).toBeVisible();
  for (const name of await rows(card).evaluateAll((elements) => elements.map((element) => element.getAttribute('data-testid')))) {
    expect(name?.toLowerCase()).toContain('gpt-4o-mini');
  }
  await search(card, `nothing-${run}`);
  await expect(rows(card)).toHaveCount(0);
  await expect(card.getByText('No model matches')).toBeVisible();
  await search(card, '');

  const dialog = await openAdd(page, card, texts);
  // A name the table has is refused.
  await dialog.getByTestId('model-pricing-field-name').fill(ratioModel);
  await expect(dialog.getByText(texts.duplicate)).toBeVisible();
  // Anything but a number is refused.
  await dialog.getByTestId('model-pricing-field-name').fill(fixedModel);
  await expect(dialog.getByText(texts.duplicate)).toBeHidden();
  await dialog.getByTestId('model-pricing-field-ratio').fill('abc');
  await expect(dialog.getByText(texts.notNumber)).toBeVisible();
  await dialog.getByRole('button', { name: texts.ok }).click();
  await expect(dialog.getByTestId('model-pricing-field-name')).toBeVisible();
  await dialog.getByTestId('model-pricing-field-ratio').fill('2');
  await expect(dialog.getByText(texts.notNumber)).toBeHidden();
  // A fixed price disables the ratio fields; clearing it gives them back.
  await dialog.getByTestId('model-pricing-field-price').fill('0.02');
  await expect(dialog.getByTestId('model-pricing-field-ratio')).toBeDisabled();
  await expect(dialog.getByTestId('model-pricing-field-completion')).toBeDisabled();
  await expect(dialog.getByTestId('model-pricing-field-cache')).toBeDisabled();
  await expect(dialog.getByTestId('model-pricing-field-ratio')).toHaveAttribute('placeholder', texts.disabled);
  await dialog.getByTestId('model-pricing-field-price').fill('');
  await expect(dialog.getByTestId('model-pricing-field-ratio')).toBeEnabled();
  await expect(dialog.getByTestId('model-pricing-field-ratio')).toHaveValue('2');
  await dialog.getByTestId('model-pricing-field-price').fill('0.02');
  await expect(dialog.getByTestId('model-pricing-preview')).toHaveText('Billed per call: $0.02 each');
  await dialog.getByRole('button', { name: texts.ok }).click();
  await expect(dialog).toBeHidden();
  await expect(row(card, fixedModel)).toContainText('$0.02 / call');
  await expect(row(card, fixedModel)).toContainText('Per call');

  // Editing: renaming onto another model's name is refused; another name is taken in place.
  await row(card, fixedModel)
    .getByRole('button', { name: `${texts.edit} ${fixedModel}` })
    .click();
  await expect(dialog.getByTestId('model-pricing-field-name')).toHaveValue(fixedModel);
  await expect(dialog.getByTestId('model-pricing-field-ratio')).toBeDisabled();
  await dialog.getByTestId('model-pricing-field-name').fill('gpt-4o');
  await expect(dialog.getByText(texts.duplicate)).toBeVisible();
  await dialog.getByRole('button', { name: texts.ok }).click();
  await expect(dialog.getByText(texts.duplicate)).toBeVisible();
  await dialog.getByTestId('model-pricing-field-name').fill(renamedModel);
  await dialog.getByTestId('model-pricing-field-price').fill('0.05');
  await dialog.getByRole('button', { name: texts.ok }).click();
  await expect(dialog).toBeHidden();
  await expect(row(card, fixedModel)).toHaveCount(0);
  await expect(row(card, renamedModel)).toContainText('$0.05 / call');

  // Delete, after the confirm.
  await search(card, ratioModel);
  await row(card, ratioModel)
    .getByRole('button', { name: `${texts.delete} ${ratioModel}` })
    .click();
  await page.locator('.semi-popconfirm').getByRole('button', { name: texts.delete }).click();
  await expect(row(card, ratioModel)).toHaveCount(0);

  // Switching tabs keeps the draft: the JSON tab shows the renamed fixed price and no deleted model.
  await expect(card.getByTestId('model-pricing-draft')).toContainText(texts.draft);
  await card.getByRole('tab', { name: texts.json }).click();
  await expect(card.getByTestId('model-pricing-json-ModelPrice')).toHaveValue(new RegExp(`"${renamedModel}": 0\\.05`));
  await expect(card.getByTestId('model-pricing-json-ModelRatio')).not.toHaveValue(new RegExp(ratioModel));
  await card.getByRole('tab', { name: texts.visual }).click();
  await search(card, run);
  await expect(row(card, renamedModel)).toBeVisible();
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: `${screens}/settings-model-pricing-en-dark.png` });

  await card.getByRole('button', { name: texts.save, exact: true }).click();
  await expect(toast(page, texts.saved).first()).toBeVisible();
  const maps = await storedMaps();
  expect(maps.ModelPrice[renamedModel]).toBe(0.05);
  expect(maps.ModelPrice[fixedModel]).toBeUndefined();
  expect(maps.ModelRatio[renamedModel]).toBeUndefined();
  expect(maps.ModelRatio[ratioModel]).toBeUndefined();
  expect(maps.CompletionRatio[ratioModel]).toBeUndefined();

  await page.reload();
  await card.getByRole('tab', { name: texts.visual }).click();
  await search(card, run);
  await expect(rows(card)).toHaveCount(1);
  await expect(row(card, renamedModel)).toContainText('$0.05 / call');
});

test('zh, dark: the Chinese messages, and invalid JSON refused before anything is sent', async ({ page }) => {
  const texts = TEXTS.zh;
  const card = await openCard(page, 'zh', 'dark');
  const untouched = await storedOptions();

  await card.getByRole('tab', { name: texts.visual }).click();
  const dialog = await openAdd(page, card, texts);
  await dialog.getByTestId('model-pricing-field-name').fill('gpt-4o');
  await expect(dialog.getByText(texts.duplicate)).toBeVisible();
  await dialog.getByTestId('model-pricing-field-name').fill(`e2e-mp-zh-${run}`);
  await dialog.getByTestId('model-pricing-field-completion').fill('四');
  await expect(dialog.getByText(texts.notNumber)).toBeVisible();
  await dialog.getByTestId('model-pricing-field-price').fill('0.1');
  await expect(dialog.getByTestId('model-pricing-field-ratio')).toBeDisabled();
  await expect(dialog.getByTestId('model-pricing-field-completion')).toBeDisabled();
  await expect(dialog.getByText(texts.notNumber)).toBeHidden();
  await dialog.locator('.semi-modal-content').screenshot({ path: `${screens}/settings-model-pricing-zh-dark-modal.png` });
  await dialog.getByRole('button', { name: '取消' }).click();
  await expect(dialog).toBeHidden();

  // Invalid JSON: shown at the field, refused on save with the §5 message, nothing sent.
  await card.getByRole('tab', { name: texts.json }).click();
  await card.getByTestId('model-pricing-json-ModelRatio').fill('{"gpt-4o": 1.25,');
  await expect(card.getByTestId('model-pricing-json-error-ModelRatio')).toHaveText(texts.invalidRatio);
  await card.getByRole('button', { name: texts.save }).click();
  await expect(toast(page, texts.invalidRatio).first()).toBeVisible();
  expect(await storedOptions()).toEqual(untouched);
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: `${screens}/settings-model-pricing-zh-dark-json.png` });

  // The table cannot show a draft it cannot read, and says why.
  await card.getByRole('tab', { name: texts.visual }).click();
  await expect(card.getByTestId('model-pricing-blocked')).toContainText(texts.invalidRatio);
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: `${screens}/settings-model-pricing-zh-dark.png` });

  await card.getByRole('button', { name: texts.discard }).click();
  await expect(rows(card)).toHaveCount(10);
  await expect(card.getByTestId('model-pricing-draft')).toBeHidden();
  expect(await storedOptions()).toEqual(untouched);
});

test('en, light: reset to defaults after the confirm restores the values from before the test; a phone scrolls the table sideways', async ({ page }) => {
  const texts = TEXTS.en;
  // Priced models of this test's own, so the reset has something to undo whatever ran before.
  const marker = `e2e-mp-reset-${run}`;
  await setOption(root, 'ModelRatio', JSON.stringify({ ...(JSON.parse(before.ModelRatio) as object), [marker]: 9 }));
  await setOption(root, 'ModelPrice', JSON.stringify({ ...(JSON.parse(before.ModelPrice) as object), [marker]: 0.5 }));
  const card = await openCard(page, 'en', 'light');
  await expect(card.getByTestId('model-pricing-json-ModelRatio')).toHaveValue(new RegExp(marker));
  // Format lays the compact JSON out one model a line (an unsaved change, dropped by the reset).
  await card.getByTestId('model-pricing-format-ModelRatio').click();
  await expect(card.getByTestId('model-pricing-json-ModelRatio')).toHaveValue(new RegExp(`\\n  "${marker}": 9\\n}$`));
  await expect(card.getByTestId('model-pricing-draft')).toBeVisible();

  await card.getByRole('button', { name: texts.reset }).click();
  const confirm = page.locator('.semi-popconfirm');
  await expect(confirm).toContainText('Reset the model ratios?');
  await page.screenshot({ path: `${screens}/settings-model-pricing-en-light-reset.png` });
  await confirm.getByRole('button', { name: texts.resetConfirm, exact: true }).click();
  await expect(toast(page, '重置模型倍率成功').first()).toBeVisible();
  await expect(confirm).toBeHidden();

  const reset = await storedMaps();
  for (const key of KEYS) expect(reset[key]).toEqual(JSON.parse(before[key]));
  await expect(card.getByTestId('model-pricing-json-ModelPrice')).not.toHaveValue(new RegExp(marker));
  await expect(card.getByTestId('model-pricing-json-ModelRatio')).not.toHaveValue(new RegExp(marker));
  await expect(card.getByTestId('model-pricing-draft')).toBeHidden();
  await card.getByRole('tab', { name: texts.visual }).click();
  await search(card, run);
  await expect(rows(card)).toHaveCount(0);
  await search(card, '');
  await expect(rows(card)).toHaveCount(10);
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: `${screens}/settings-model-pricing-en-light.png` });

  // Phone width: the table scrolls inside the card; the page itself does not get wider.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await card.getByRole('tab', { name: texts.visual }).click();
  await expect(rows(card)).toHaveCount(10);
  const body = card.locator('.semi-table-body');
  await expect.poll(() => body.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await card.getByTestId('model-pricing-add').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${screens}/settings-model-pricing-en-light-phone.png` });
});
