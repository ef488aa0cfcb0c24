import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiCall, apiSession, registerUser, setOption, signIn, toast, USER_PASSWORD, type ApiSession } from './wallet-helpers';

/**
 * The public pricing page over the real server: a ratio model, a fixed-price model and a group with
 * its own ratio are seeded through the admin API, then the page is read signed out and signed in.
 */

const run = Date.now().toString(36).slice(-6);
const ratioModel = `e2e-ratio-${run}`;
const fixedModel = `e2e-fixed-${run}`;
// Named like an OpenAI model, so the server gives it a vendor (OpenAI) and a tag (vision).
const vendorModel = `gpt-4o-e2e-${run}`;
// A group of its own, so the numbers do not depend on what other specs left behind.
const premium = `pz${run}`;
const screenshots = '.tmp/pricing-screens';

let root: ApiSession;
const channelIds: number[] = [];
const previousOptions = new Map<string, string>();

async function mergeJsonOption(key: string, additions: Record<string, unknown>): Promise<void> {
  const options = await apiCall<Array<{ key: string; value: string }>>(root, 'GET', '/api/option/');
  const previous = options.find((option) => option.key === key)?.value ?? '{}';
  previousOptions.set(key, previous);
  await setOption(root, key, JSON.stringify({ ...(JSON.parse(previous) as Record<string, unknown>), ...additions }));
}

test.beforeAll(async () => {
  root = await apiSession('root', '123456');
  // 0.075 × 2 = $0.15 per 1M input tokens, ×4 = $0.6 output; $0.04 per call; group ×1.5.
  await mergeJsonOption('ModelRatio', { [ratioModel]: 0.075, [vendorModel]: 1.25 });
  await mergeJsonOption('CompletionRatio', { [ratioModel]: 4, [vendorModel]: 4 });
  await mergeJsonOption('ModelPrice', { [fixedModel]: 0.04 });
  await mergeJsonOption('GroupRatio', { [premium]: 1.5 });
  await mergeJsonOption('UserUsableGroups', { [premium]: '高级分组' });
  for (const [group, models] of [
    [`default,${premium}`, ratioModel],
    [premium, fixedModel],
    [`default,${premium}`, vendorModel],
  ]) {
    const channel = await apiCall<{ id: number }>(root, 'POST', '/api/channel/', {
      type: 1,
      name: `pricing-${run}-${channelIds.length}`,
      group,
      models,
      base_url: 'http://127.0.0.1:9',
      key: 'sk-never-called',
    });
    channelIds.push(channel.id);
  }
});

test.afterAll(async () => {
  for (const id of channelIds) await apiCall(root, 'DELETE', `/api/channel/${id}/`);
  for (const [key, value] of previousOptions) await setOption(root, key, value);
  await root?.api.dispose();
});

const row = (page: Page, model: string): Locator => page.getByTestId(`pricing-row-${model}`);

async function expectPrices(page: Page, model: string, input: string, output: string, perCall: string): Promise<void> {
  const cells = row(page, model);
  await expect(cells.getByTestId('pricing-input')).toHaveText(input);
  await expect(cells.getByTestId('pricing-output')).toHaveText(output);
  await expect(cells.getByTestId('pricing-per-call')).toHaveText(perCall);
}

/**
 * Picks a group in the selector: a visible option by the start of its label (`default（…`, `default (…`), so
 * only the open list's option can match (not one of a list still closing, nor another group
 * whose label contains the name), then waits until the selector shows it. A choice that did not
 * take (seen once: the card view kept the premium prices) fails here, where it happened.
 */
async function chooseGroup(page: Page, group: string): Promise<void> {
  const selector = page.getByTestId('pricing-group');
  // `pz1（高级分组，倍率 1.5）` in Chinese, `pz1 (Premium, ratio 1.5)` in English.
  const label = new RegExp(`^${group} ?[（(]`);
  await selector.click();
  await page.locator('.semi-select-option:visible', { hasText: label }).click();
  await expect(selector.locator('.semi-select-selection')).toHaveText(label);
}

test('signed out, in Chinese: the default group prices, another group, search and copy', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/');
  // The top navigation orders home, pricing, about for a visitor (no console yet).
  const topNav = page.locator('.mg-top-nav');
  await expect(topNav.getByText('模型价格')).toBeVisible();
  await topNav.getByText('模型价格').click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByRole('heading', { name: '模型价格' })).toBeVisible();

  await page.getByTestId('pricing-search').fill(run);
  await expectPrices(page, ratioModel, '$0.15', '$0.6', '-');
  await expectPrices(page, fixedModel, '-', '-', '$0.04');
  await expect(page.getByTestId('pricing-group')).toContainText('default');
  await expect(row(page, ratioModel)).toContainText('按量计费');
  await expect(row(page, fixedModel)).toContainText('按次计费');
  // Nobody is signed in, so no model is marked as unusable.
  await expect(page.getByTestId('pricing-unusable')).toHaveCount(0);

  await chooseGroup(page, premium);
  await expect(page.getByTestId('pricing-group-ratio')).toHaveText('当前分组倍率：1.5');
  await expectPrices(page, ratioModel, '$0.225', '$0.9', '-');
  await expectPrices(page, fixedModel, '-', '-', '$0.06');

  await page.getByTestId('pricing-search').fill(`fixed-${run}`);
  await expect(row(page, ratioModel)).toHaveCount(0);
  await expect(row(page, fixedModel)).toBeVisible();
  await row(page, fixedModel).getByTestId('pricing-copy').click();
  await expect(toast(page, `已复制模型名称：${fixedModel}`).first()).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(fixedModel);

  await page.getByTestId('pricing-search').fill(`nothing-${run}`);
  await expect(page.getByText('没有匹配的模型')).toBeVisible();
  await page.getByTestId('pricing-search').fill(run);
  await page.screenshot({ path: `${screenshots}/zh-light-signed-out.png`, fullPage: true });

  // Vendor and tag filters: the OpenAI-named model has a vendor and the vision tag, the others have neither.
  await chooseGroup(page, 'default');
  await expect(page.getByTestId('pricing-vendor-1')).toHaveText('OpenAI 1');
  await expect(page.getByTestId('pricing-vendor-other')).toHaveText('其他 2');
  await page.getByTestId('pricing-vendor-1').click();
  await expect(row(page, vendorModel)).toBeVisible();
  await expect(row(page, ratioModel)).toHaveCount(0);
  await expect(row(page, vendorModel)).toContainText('视觉');
  await page.getByTestId('pricing-vendor-all').click();
  await page.getByTestId('pricing-tag-vision').click();
  await expect(row(page, vendorModel)).toBeVisible();
  await expect(row(page, fixedModel)).toHaveCount(0);
  await expect(page).toHaveURL(/tag=vision/);

  // The card view shows the same model with its vendor and prices, and is remembered on reload.
  await page.getByTestId('pricing-view-card').click();
  const card = page.getByTestId(`pricing-card-${vendorModel}`);
  await expect(card.getByTestId('pricing-vendor-name')).toHaveText('OpenAI');
  await expect(card.getByTestId('pricing-input')).toHaveText('$2.5');
  await expect(card.getByTestId('pricing-output')).toHaveText('$10');
  await page.reload();
  await expect(card).toBeVisible();
  await page.getByTestId('pricing-tag-all').click();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId(`pricing-card-${ratioModel}`)).toBeVisible();
  await page.screenshot({ path: `${screenshots}/zh-light-cards-390.png`, fullPage: true });
});

test('signed in, in English and dark: own group first, models the group cannot use are marked', async ({ page }) => {
  const username = await registerUser('pr');
  await signIn(page, username, USER_PASSWORD);
  await page.addInitScript(() => {
    localStorage.setItem('i18nextLng', 'en');
    localStorage.setItem('theme-mode', 'dark');
  });
  await page.goto(`/pricing?q=${run}`);
  await expect(page.getByRole('heading', { name: 'Model pricing' })).toBeVisible();
  await expect(page.getByTestId('pricing-banner')).toContainText('Your group is default');

  await expectPrices(page, ratioModel, '$0.15', '$0.6', '-');
  await expectPrices(page, fixedModel, '-', '-', '$0.04');
  await expect(row(page, ratioModel)).toContainText('Per token');
  // The fixed-price model is served only in the premium group, which is not the user's.
  await expect(row(page, fixedModel).getByTestId('pricing-unusable')).toHaveText('Unavailable');
  await expect(row(page, ratioModel).getByTestId('pricing-unusable')).toHaveCount(0);
  await page.screenshot({ path: `${screenshots}/en-dark-signed-in.png`, fullPage: true });

  await chooseGroup(page, premium);
  await expect(page.getByTestId('pricing-group-ratio')).toHaveText('Group ratio: 1.5');
  await expectPrices(page, ratioModel, '$0.225', '$0.9', '-');
  await expectPrices(page, fixedModel, '-', '-', '$0.06');

  await page.getByTestId('pricing-search').fill(`ratio-${run}`);
  await expect(row(page, fixedModel)).toHaveCount(0);
  await expect(row(page, ratioModel)).toBeVisible();
  await page.getByTestId('pricing-search').fill(run);
  await page.getByTestId('pricing-view-card').click();
  await expect(page.getByTestId(`pricing-card-${vendorModel}`)).toContainText('Vision');
  await expect(page.getByTestId(`pricing-card-${fixedModel}`).getByTestId('pricing-unusable')).toHaveText('Unavailable');
  await page.screenshot({ path: `${screenshots}/en-dark-cards.png`, fullPage: true });
});

test("a user whose own group has a ratio sees that group's prices first", async ({ page }) => {
  const username = await registerUser('pq');
  const found = await apiCall<{ items: Array<{ id: number }> }>(root, 'GET', `/api/user/search?keyword=${username}`);
  await apiCall(root, 'PUT', '/api/user/', { id: found.items[0]!.id, group: premium });
  await signIn(page, username, USER_PASSWORD);
  await page.goto(`/pricing?q=${run}`);
  await expect(page.getByTestId('pricing-group')).toContainText(premium);
  await expectPrices(page, ratioModel, '$0.225', '$0.9', '-');
  await expectPrices(page, fixedModel, '-', '-', '$0.06');
  await expect(page.getByTestId('pricing-unusable')).toHaveCount(0);
});
