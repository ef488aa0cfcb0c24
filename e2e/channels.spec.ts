import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { apiSession, dataOf, signInBrowser } from './support/console-session';
import { REJECTED_KEY, startMockUpstream, type MockUpstream } from './support/mock-upstream';
import { expectToast, recordToasts } from './support/toasts';
import { presetLanguageAndTheme } from './wallet-helpers';

/**
 * The admin's channel screen over the real server, with a mock OpenAI upstream on loopback:
 * the drawer form and its checks, testing, inline edits, tag mode, batch work and balances.
 */

interface WireChannel {
  id: number;
  name: string;
  status: number;
  priority: number;
  weight: number;
  tag: string;
  models: string;
  group: string;
  response_time: number;
  model_mapping: string;
}

let upstream: MockUpstream;
let root: APIRequestContext;
const run = Date.now().toString(36);

test.beforeAll(async () => {
  upstream = await startMockUpstream();
  root = (await apiSession('root', '123456')).api;
});

test.afterAll(async () => {
  // The mock upstream goes away with this file: its channels must not be left to serve other specs.
  if (root) {
    const leftovers = await dataOf<{ items: WireChannel[] }>(await root.get('/api/channel/search', { params: { keyword: run, page_size: 100 } }));
    const ids = leftovers.items.map((channel) => channel.id);
    if (ids.length > 0) await dataOf(await root.post('/api/channel/batch', { data: { ids } }));
  }
  await root?.dispose();
  await upstream?.close();
});

async function channelsNamed(name: string): Promise<WireChannel[]> {
  const page = await dataOf<{ items: WireChannel[] }>(await root.get('/api/channel/search', { params: { keyword: name, page_size: 100 } }));
  return page.items.filter((channel) => channel.name === name);
}

async function createChannelByApi(fields: Record<string, unknown>): Promise<WireChannel> {
  return dataOf<WireChannel>(
    await root.post('/api/channel/', { data: { type: 1, group: 'default', models: 'gpt-4o-mini', base_url: upstream.url, key: 'sk-mock-ok', ...fields } }),
  );
}

async function openChannels(page: Page, search = ''): Promise<void> {
  await signInBrowser(page, 'root', '123456');
  await recordToasts(page);
  await page.goto(`/channel${search}`);
  await expect(page.getByTestId('channel-add')).toBeVisible();
}

test('an admin adds a channel through the drawer, which checks the fields of spec 02 §5', async ({ page }) => {
  const name = `mock-${run}`;
  await openChannels(page);

  await page.getByTestId('channel-add').click();
  await expect(page).toHaveURL(/\/channel\/add$/);
  const drawer = page.locator('.semi-sidesheet').filter({ hasText: '创建新的渠道' });
  await expect(drawer).toBeVisible();

  // Required fields are checked before anything is sent.
  await drawer.getByTestId('channel-form-submit').click();
  await expect(drawer.getByText('请填写渠道名称！')).toBeVisible();
  await expect(drawer.getByText('请填写渠道密钥！')).toBeVisible();
  await expect(drawer.getByText('请至少选择一个模型！')).toBeVisible();

  await drawer.getByTestId('channel-form-name').fill(name);
  await drawer.getByTestId('channel-form-base-url').fill(upstream.url);
  await drawer.getByTestId('channel-form-key').fill('sk-mock-ok');

  // The model list comes from the upstream's own /v1/models, called with the typed key.
  await drawer.getByTestId('channel-fetch-models').click();
  await expectToast(page, '获取模型列表成功，共 2 个模型');
  expect(upstream.seen.some((seen) => seen.path === '/v1/models' && seen.authorization === 'Bearer sk-mock-ok')).toBe(true);
  const models = drawer.getByTestId('channel-form-models');
  await expect(models).toContainText('gpt-4o-mini');
  await expect(models).toContainText('mock-model-b');

  // Custom names: a duplicate is refused, new ones are added.
  const custom = drawer.getByTestId('channel-custom-model');
  await custom.fill('gpt-4o-mini, custom-x');
  await drawer.getByTestId('channel-add-custom-model').click();
  await expectToast(page, '某些模型已存在！');
  await custom.fill('custom-x');
  await drawer.getByTestId('channel-add-custom-model').click();
  await expect(models).toContainText('custom-x');

  // model_mapping must be JSON; the template link fills a valid one.
  const mapping = drawer.getByTestId('channel-form-model-mapping');
  await mapping.fill('{not json');
  await drawer.getByTestId('channel-form-submit').click();
  await expect(drawer.getByText('模型重定向必须是合法的 JSON 格式！')).toBeVisible();
  await drawer.getByText('填入模板').click();
  await expect(mapping).toHaveValue(/"gpt-3.5-turbo": "gpt-3.5-turbo-0125"/);

  await drawer.getByTestId('channel-form-submit').click();
  await expectToast(page, '成功添加 1 个渠道');
  await expect(page).toHaveURL(/\/channel$/);
  const [created] = await channelsNamed(name);
  expect(created).toBeDefined();
  expect(created!.models.split(',').sort()).toEqual(['custom-x', 'gpt-4o-mini', 'mock-model-b']);
  expect(JSON.parse(created!.model_mapping)).toEqual({ 'gpt-3.5-turbo': 'gpt-3.5-turbo-0125' });
  const row = page.getByTestId(`channel-row-channel-${created!.id}`);
  await expect(row).toContainText(name);
  await expect(row).toContainText('未测试');
});

test('a channel is tested against the upstream, edited inline and in the drawer', async ({ page }) => {
  const name = `tested-${run}`;
  const created = await createChannelByApi({ name, models: 'gpt-4o-mini,mock-model-b' });
  await openChannels(page, `?keyword=${name}`);
  const row = page.getByTestId(`channel-row-channel-${created.id}`);
  await expect(row).toContainText('未测试');

  // Test with the default model, then one picked from the row's model menu.
  await page.getByTestId(`channel-test-${created.id}`).click();
  await expectToast(page, new RegExp(`通道 ${name} 测试成功，耗时 \\d+\\.\\d{2} 秒。`));
  await expect(row.locator('[data-color="green"]')).toContainText(/\d+\.\d{2} 秒/);
  await page.getByTestId(`channel-test-menu-${created.id}`).click();
  await page.locator('.semi-dropdown-item').filter({ hasText: 'mock-model-b' }).click();
  await expectToast(page, `模型 mock-model-b`);
  // The menu also opens the model test dialog: search, test one model, then every selected one in turn.
  await page.getByTestId(`channel-test-menu-${created.id}`).click();
  await page.getByTestId(`channel-model-test-${created.id}`).click();
  const tests = page.locator('.semi-modal-content').filter({ hasText: `${name} 渠道的模型测试` });
  await tests.getByTestId('model-test-search').fill('model-b');
  await expect(tests.getByTestId('model-test-row-gpt-4o-mini')).toBeHidden();
  await tests.getByTestId('model-test-one-mock-model-b').click();
  await expect(tests.getByTestId('model-test-row-mock-model-b')).toContainText(/成功，耗时 \d+\.\d{2} 秒/);
  await tests.getByTestId('model-test-search').fill('');
  await tests.locator('thead .semi-checkbox').click();
  await tests.getByTestId('model-test-selected').click();
  await expect(tests.getByTestId('model-test-ok')).toHaveCount(2);
  await expect(tests.getByTestId('model-test-progress')).toHaveText('已选择 2 个模型');
  await page.screenshot({ path: test.info().outputPath('model-test.png') });
  await tests.getByRole('button', { name: '关闭' }).click();
  await expect(tests).toBeHidden();
  const completions = upstream.seen.filter((seen) => seen.path === '/v1/chat/completions' && seen.authorization === 'Bearer sk-mock-ok');
  expect(completions.map((seen) => seen.body?.model)).toEqual(expect.arrayContaining(['gpt-4o-mini', 'mock-model-b']));

  // Inline priority and weight follow spec 02 §5: priority stops at -999, a negative weight is 0.
  const priority = page.getByTestId(`channel-priority-${created.id}`);
  await priority.fill('5');
  await priority.press('Enter');
  await expectToast(page, '更新成功');
  await expect.poll(async () => (await channelsNamed(name))[0]?.priority).toBe(5);
  await priority.fill('-5000');
  await priority.press('Enter');
  await expect.poll(async () => (await channelsNamed(name))[0]?.priority).toBe(-999);
  const weight = page.getByTestId(`channel-weight-${created.id}`);
  await weight.fill('3');
  await weight.press('Enter');
  await expect.poll(async () => (await channelsNamed(name))[0]?.weight).toBe(3);
  await weight.fill('-3');
  await weight.press('Enter');
  await expect.poll(async () => (await channelsNamed(name))[0]?.weight).toBe(0);
  await expect(weight).toHaveValue('0');

  // Editing opens the drawer at /channel/edit/:id with the stored values.
  await page.getByTestId(`channel-edit-${created.id}`).click();
  await expect(page).toHaveURL(new RegExp(`/channel/edit/${created.id}(\\?|$)`));
  const editDrawer = page.locator('.semi-sidesheet').filter({ hasText: '更新渠道信息' });
  await expect(editDrawer.getByTestId('channel-form-name')).toHaveValue(name);
  await editDrawer.getByTestId('channel-form-name').fill(`${name}-renamed`);
  // The header override and the Responses API mode (an OpenAI channel: its type would pass /v1/responses through).
  await editDrawer.getByTestId('channel-form-header-override').fill('{"Bad Header": "x"}');
  await editDrawer.getByTestId('channel-form-submit').click();
  await expectToast(page, '请求头名称不合法：Bad Header (invalid header name)');
  await editDrawer.getByTestId('channel-form-header-override').fill('{"X-Proxy-Key": "{api_key}"}');
  // The choice is clicked until the select shows it (the dropdown may still be opening).
  await expect(async () => {
    await editDrawer.getByTestId('channel-form-responses-api').click();
    await page.locator('.semi-select-option').filter({ hasText: '转换为 Chat Completions' }).click({ timeout: 2000 });
    await expect(editDrawer.getByTestId('channel-form-responses-api')).toContainText('转换为 Chat Completions', { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await editDrawer.getByTestId('channel-form-submit').click();
  await expectToast(page, '渠道更新成功！');
  await expect(row).toContainText(`${name}-renamed`);
  await expect.poll(async () => (await channelsNamed(`${name}-renamed`))[0]?.header_override).toBe('{"X-Proxy-Key": "{api_key}"}');
  expect(JSON.parse((await channelsNamed(`${name}-renamed`))[0]!.setting)).toEqual({ responses_api: 'chat' });
  // The stored key was kept although the form never saw it: the test still passes.
  await page.getByTestId(`channel-test-${created.id}`).click();
  await expectToast(page, new RegExp(`通道 ${name}-renamed 测试成功`));
});

test('batch mode creates one channel per key line and tag mode aggregates them', async ({ page }) => {
  const name = `batch-${run}`;
  const tag = `tag-${run}`;
  await openChannels(page);
  await page.getByTestId('channel-add').click();
  const drawer = page.locator('.semi-sidesheet').filter({ hasText: '创建新的渠道' });
  await drawer.getByTestId('channel-form-name').fill(name);
  await drawer.getByTestId('channel-form-base-url').fill(upstream.url);
  await drawer.getByTestId('channel-form-batch').click();
  await drawer.getByTestId('channel-form-key').fill('sk-batch-1\n\nsk-batch-2\nsk-batch-3\n');
  await expect(drawer.getByText('共 3 个密钥，将创建 3 个渠道')).toBeVisible();
  await drawer.getByTestId('channel-custom-model').fill('gpt-4o-mini');
  await drawer.getByTestId('channel-add-custom-model').click();
  await drawer.locator('#tag').fill(tag);
  await drawer.getByTestId('channel-form-submit').click();
  await expectToast(page, '成功添加 3 个渠道');
  const created = await channelsNamed(name);
  expect(created).toHaveLength(3);
  expect(created.every((channel) => channel.tag === tag)).toBe(true);

  await page.getByTestId('channel-toggle-tag-mode').click();
  await expect(page).toHaveURL(/tag_mode=true/);
  const tagRow = page.getByTestId(`channel-row-tag-${tag}`);
  await expect(tagRow).toContainText(`标签：${tag}`);
  await expect(tagRow).toContainText('3 个渠道');
  await expect(tagRow).toContainText('未测试');

  // Disable all, then enable all (under the tag row's "more"), for every channel of the tag at once.
  await page.getByTestId(`tag-more-${tag}`).click();
  await page.getByRole('menuitem', { name: '禁用全部' }).click();
  await expectToast(page, `已禁用标签 ${tag} 下的所有渠道`);
  await expect.poll(async () => (await channelsNamed(name)).map((channel) => channel.status)).toEqual([2, 2, 2]);
  await expect(tagRow).toContainText('已禁用');
  await page.getByTestId(`tag-more-${tag}`).click();
  await page.getByRole('menuitem', { name: '启用全部' }).click();
  await expect.poll(async () => (await channelsNamed(name)).map((channel) => channel.status)).toEqual([1, 1, 1]);

  // The tag dialog checks its numbers, refuses an empty edit, then applies to every channel.
  await page.getByTestId(`tag-edit-${tag}`).click();
  const dialog = page.locator('.semi-modal-content').filter({ hasText: '编辑标签' });
  await dialog.getByRole('button', { name: 'confirm' }).click();
  await expectToast(page, '没有任何修改！');
  await dialog.getByTestId('tag-edit-weight').fill('-1');
  await dialog.getByRole('button', { name: 'confirm' }).click();
  await expectToast(page, '权重必须是非负整数！');
  await dialog.getByTestId('tag-edit-weight').fill('4');
  await dialog.getByTestId('tag-edit-priority').fill('7');
  await dialog.getByRole('button', { name: 'confirm' }).click();
  await expectToast(page, '标签更新成功！');
  await expect
    .poll(async () => (await channelsNamed(name)).map((channel) => [channel.priority, channel.weight]))
    .toEqual([
      [7, 4],
      [7, 4],
      [7, 4],
    ]);
  await expect(page.getByTestId(`tag-priority-${tag}`)).toHaveValue('7');

  // Back to one row per channel; the address no longer carries the mode.
  await page.getByTestId('channel-toggle-tag-mode').click();
  await expect(page).not.toHaveURL(/tag_mode/);
  await expect(page.getByTestId(`channel-row-channel-${created[0]!.id}`)).toBeVisible();
});

test('an auto-disabled channel is greyed with its reason; deleting disabled channels reports the count', async ({ page }) => {
  await root.put('/api/option/', { data: { key: 'AutomaticDisableChannelEnabled', value: 'true' } });
  try {
    const revoked = await createChannelByApi({ name: `revoked-${run}`, key: REJECTED_KEY });
    const manual = await createChannelByApi({ name: `manual-${run}` });
    await openChannels(page, `?keyword=-${run}`);

    await page.getByTestId(`channel-test-${revoked.id}`).click();
    await expectToast(page, 'Incorrect API key provided');
    const revokedRow = page.getByTestId(`channel-row-channel-${revoked.id}`);
    await expect(revokedRow).toHaveClass(/mg-channel-row-disabled/);
    await expect(page.getByTestId(`channel-status-${revoked.id}`)).toHaveText('自动禁用');
    await page.getByTestId(`channel-status-${revoked.id}`).hover();
    await expect(page.locator('.semi-tooltip-content').filter({ hasText: '原因：' })).toContainText('Incorrect API key provided');

    // A manual disable greys the row too.
    const manualRow = page.getByTestId(`channel-row-channel-${manual.id}`);
    await expect(manualRow).not.toHaveClass(/mg-channel-row-disabled/);
    await page.getByTestId(`channel-more-${manual.id}`).click();
    await page.getByTestId(`channel-toggle-${manual.id}`).click();
    await expect(page.getByTestId(`channel-status-${manual.id}`)).toHaveText('已禁用');
    await expect(manualRow).toHaveClass(/mg-channel-row-disabled/);

    const disabledBefore = (await dataOf<{ items: WireChannel[] }>(await root.get('/api/channel/', { params: { page_size: 100 } }))).items.filter(
      (channel) => channel.status !== 1,
    ).length;
    await page.getByTestId('channel-delete-disabled').click();
    await page.locator('.semi-popconfirm').getByRole('button', { name: '确定' }).click();
    await expectToast(page, `已删除所有禁用渠道，共计 ${disabledBefore} 个`);
    await expect(revokedRow).toBeHidden();
    await expect(manualRow).toBeHidden();
  } finally {
    await root.put('/api/option/', { data: { key: 'AutomaticDisableChannelEnabled', value: 'false' } });
  }
});

test('a multi-key channel lists its keys masked; a refused key is disabled alone; keys are disabled, enabled and deleted from the list', async ({ page }) => {
  await root.put('/api/option/', { data: { key: 'AutomaticDisableChannelEnabled', value: 'true' } });
  try {
    const created = await dataOf<WireChannel>(
      await root.post('/api/channel/', {
        data: {
          mode: 'multi_to_single',
          multi_key_mode: 'polling',
          channel: {
            type: 1,
            name: `multi-${run}`,
            group: 'default',
            models: 'gpt-4o-mini',
            base_url: upstream.url,
            key: `sk-mock-ok\n${REJECTED_KEY}\nsk-mock-ok-2`,
          },
        },
      }),
    );
    await openChannels(page, `?keyword=multi-${run}`);
    await expect(page.getByTestId(`channel-keys-tag-${created.id}`)).toHaveText('密钥 3/3');
    // Calls take the keys in turn: the refused one is disabled alone (its call served by the next key) and the channel stays enabled.
    const token = await dataOf<{ id: number }>(await root.post('/api/token/', { data: { name: `multi-${run}`, unlimited_quota: true, expired_time: -1 } }));
    const tokenKey = (await dataOf<{ key: string }>(await root.post(`/api/token/${token.id}/key`))).key;
    for (let call = 0; call < 3; call += 1) {
      const reply = await root.post('/v1/chat/completions', {
        headers: { Authorization: `Bearer sk-${tokenKey}-${created.id}` },
        data: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(reply.status()).toBe(200);
    }
    await page.reload();
    await expect(page.getByTestId(`channel-keys-tag-${created.id}`)).toHaveText('密钥 2/3');
    await expect(page.getByTestId(`channel-status-${created.id}`)).toHaveText('已启用');

    await page.getByTestId(`channel-keys-tag-${created.id}`).click();
    const modal = page.locator('.mg-channel-keys-modal');
    await expect(modal).toContainText('多密钥管理');
    await expect(modal.getByTestId('channel-keys-auto')).toHaveText('自动禁用 1');
    const table = modal.getByTestId('channel-keys-table');
    await expect(table).toContainText('Incorrect API key provided');
    await expect(table).not.toContainText(REJECTED_KEY);
    await expect(table).not.toContainText('sk-mock-ok-2');
    await page.screenshot({ path: '.tmp/screens/channel-keys-zh-1440.png' });

    await table.locator('tr').nth(1).getByRole('button', { name: '禁用' }).click();
    await expectToast(page, '密钥已禁用');
    await expect(modal.getByTestId('channel-keys-enabled')).toHaveText('已启用 1');
    await table.locator('tr').nth(1).getByRole('button', { name: '启用' }).click();
    await expectToast(page, '密钥已启用');
    await modal.getByTestId('channel-keys-delete-auto').click();
    await page.locator('.semi-popconfirm').getByRole('button', { name: '确定' }).click();
    await expectToast(page, '已删除 1 个自动禁用的密钥');
    await expect(modal.getByTestId('channel-keys-auto')).toHaveText('自动禁用 0');
    await expect(table.locator('tbody tr')).toHaveCount(2);
    await modal.locator('.semi-modal-close').click();
    await expect(page.getByTestId(`channel-keys-tag-${created.id}`)).toHaveText('密钥 2/2');

    // On a phone, in English and dark, the list still opens from the row's more menu.
    await presetLanguageAndTheme(page, 'en', 'dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/channel?keyword=multi-${run}`);
    await page.getByTestId(`channel-more-${created.id}`).click();
    await page.getByTestId(`channel-keys-${created.id}`).click();
    await expect(page.locator('.mg-channel-keys-modal')).toContainText('Keys of');
    await expect(page.locator('.mg-channel-keys-modal').getByTestId('channel-keys-enabled')).toHaveText('Enabled 2');
    await page.screenshot({ path: '.tmp/screens/channel-keys-en-390.png' });
  } finally {
    await root.put('/api/option/', { data: { key: 'AutomaticDisableChannelEnabled', value: 'false' } });
  }
});

test('a channel whose upstream returned more than its calls were held for shows 超额返回 with the quota not charged and when', async ({ page }) => {
  const overran = await createChannelByApi({ name: `overran-${run}` });
  const calm = await createChannelByApi({ name: `calm-${run}` });
  // What the relay writes after such an overrun (relay/channel-health.ts), beside an earlier reason.
  const quota = 1_000_000;
  const at = Date.UTC(2026, 0, 2, 3, 4, 5) / 1000;
  const database = new Database(process.env.MODELGATE_E2E_SQLITE!);
  try {
    database.pragma('busy_timeout = 10000');
    const seed = database.prepare('UPDATE channels SET other_info = ? WHERE id = ?');
    seed.run(JSON.stringify({ status_reason: 'earlier', status_time: at - 60, overrun_quota: quota, overrun_time: at }), overran.id);
    seed.run(JSON.stringify({ overrun_quota: 0, overrun_time: at }), calm.id);
  } finally {
    database.close();
  }
  const listed = await dataOf<{ items: { id: number; other_info: string }[] }>(
    await root.get('/api/channel/search', { params: { keyword: `overran-${run}` } }),
  );
  expect(JSON.parse(listed.items[0]!.other_info)).toMatchObject({ overrun_quota: quota, overrun_time: at });
  // The quota as the console shows it elsewhere: dollars when the site displays currency, else units.
  const status = await dataOf<{ display_in_currency: boolean; quota_per_unit: number }>(await root.get('/api/status'));
  const shown = status.display_in_currency ? `$${(quota / Number(status.quota_per_unit)).toFixed(2)}` : '1M';
  // The browser runs in UTC (playwright.config.ts).
  const time = '2026-01-02 03:04:05';

  await page.setViewportSize({ width: 1440, height: 900 });
  await presetLanguageAndTheme(page, 'zh', 'light');
  await openChannels(page, `?keyword=${run}`);
  const tag = page.getByTestId(`channel-overrun-${overran.id}`);
  await expect(tag).toHaveText('超额返回');
  await expect(page.getByTestId(`channel-status-${overran.id}`)).toHaveText('已启用');
  await expect(page.getByTestId(`channel-status-${calm.id}`)).toHaveText('已启用');
  await expect(page.getByTestId(`channel-overrun-${calm.id}`)).toHaveCount(0);
  await tag.hover();
  const tooltip = page.locator('.semi-tooltip-content').filter({ hasText: '未计费额度' });
  await expect(tooltip).toHaveText(`上游返回超出预留的用量，未计费额度 ${shown}，最近一次 ${time}`);
  await page.screenshot({ path: '.tmp/screens/channels-overrun-zh-light.png' });

  // On a phone the table scrolls sideways to the status column; the tag and its tooltip still read.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await tag.scrollIntoViewIfNeeded();
  await tag.hover();
  await expect(tooltip).toBeVisible();
  await page.screenshot({ path: '.tmp/screens/channels-overrun-phone-zh-light.png' });

  // Init scripts run in the order they were added: this one overrides the language and theme above.
  await presetLanguageAndTheme(page, 'en', 'dark');
  await page.reload();
  await tag.scrollIntoViewIfNeeded();
  await expect(tag).toHaveText('Overran');
  await tag.hover();
  const english = page.locator('.semi-tooltip-content').filter({ hasText: 'not charged' });
  await expect(english).toHaveText(`The upstream returned more usage than was held; quota not charged: ${shown}, most recently at ${time}`);
  await page.screenshot({ path: '.tmp/screens/channels-overrun-phone-en-dark.png' });

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.reload();
  await tag.hover();
  await expect(english).toBeVisible();
  await page.screenshot({ path: '.tmp/screens/channels-overrun-en-dark.png' });
});

test('balances update per channel, unsupported types say so, and batch tag and delete work on the selection', async ({ page }) => {
  const openai = await createChannelByApi({ name: `balance-${run}` });
  const claude = await createChannelByApi({ name: `claude-${run}`, type: 14, models: 'claude-3-haiku' });
  await openChannels(page, `?keyword=-${run}`);

  await page.getByTestId(`channel-balance-${openai.id}`).click();
  await expectToast(page, `通道 balance-${run} 余额更新成功！`);
  // hard limit $100 minus 2500 cents used.
  await expect(page.getByTestId(`channel-balance-${openai.id}`)).toHaveText('$75.00');
  await page.getByTestId(`channel-balance-${claude.id}`).click();
  await expectToast(page, '该渠道类型不支持查询余额');

  await page.getByRole('button', { name: '更新所有已启用通道余额' }).click();
  await expectToast(page, /已更新 \d+ 个通道的余额，失败 \d+ 个，\d+ 个通道的类型不支持查询余额。/);

  // Batch operations need a selection first.
  await page.getByTestId('channel-toggle-batch').click();
  await page.getByTestId('channel-batch-tag').click();
  await expectToast(page, '请先选择要设置标签的渠道！');
  for (const channel of [openai, claude]) {
    await page.getByTestId(`channel-row-channel-${channel.id}`).locator('.semi-checkbox').click();
  }
  await expect(page.getByText('已选择 2 个渠道')).toBeVisible();
  await page.getByTestId('channel-batch-tag').click();
  const dialog = page.locator('.semi-modal-content').filter({ hasText: '批量设置标签' });
  await dialog.getByRole('button', { name: 'confirm' }).click();
  await expectToast(page, '标签不能为空！');
  await dialog.getByTestId('batch-tag-input').fill(`picked-${run}`);
  await dialog.getByRole('button', { name: 'confirm' }).click();
  await expectToast(page, '已为 2 个渠道设置标签！');

  // Copy makes a third channel with the same settings.
  await page.getByTestId(`channel-more-${openai.id}`).click();
  await page.locator('.semi-dropdown-item').filter({ hasText: '复制' }).click();
  const copyDialog = page.locator('.semi-modal-content').filter({ hasText: '复制渠道' });
  await expect(copyDialog.getByTestId('channel-copy-suffix')).toHaveValue('_复制');
  await expect(copyDialog).toContainText(`新渠道名称：balance-${run}_复制`);
  await copyDialog.getByTestId('channel-copy-confirm').click();
  await expectToast(page, '渠道复制成功');
  await expect(page.getByText(`balance-${run}_复制`)).toBeVisible();
  const [copy] = await channelsNamed(`balance-${run}_复制`);
  // Same settings; balance and used quota start over (the checked default); the key works, as the test shows.
  expect(copy).toMatchObject({ type: 1, models: 'gpt-4o-mini', group: 'default', balance: 0, used_quota: 0 });
  await page.getByTestId(`channel-test-${copy!.id}`).click();
  await expectToast(page, new RegExp(`通道 balance-${run}_复制 测试成功`));

  // A single delete asks first.
  await page.getByTestId(`channel-more-${copy!.id}`).click();
  await page.locator('.semi-dropdown-item').filter({ hasText: '删除' }).click();
  await page.locator('.semi-modal-content').filter({ hasText: '确定是否要删除此渠道？' }).locator('button', { hasText: '确定' }).click();
  await expect(page.getByTestId(`channel-row-channel-${copy!.id}`)).toBeHidden();
  expect(await channelsNamed(`balance-${run}_复制`)).toHaveLength(0);

  // Rebuilding abilities reports what it did.
  await page.getByRole('button', { name: '修复数据库一致性' }).click();
  await page.locator('.semi-popconfirm').getByRole('button', { name: '确定' }).click();
  await expectToast(page, /已修复 \d+ 个通道，失败 0 个通道。/);

  // The repair's confirm may still be fading out: pick the delete confirm by its title.
  await page.getByRole('button', { name: '删除所选通道' }).click();
  await page.locator('.semi-popconfirm').filter({ hasText: '确定是否要删除所选通道？' }).getByRole('button', { name: '确定' }).click();
  await expectToast(page, '已删除 2 个通道！');
  await expect(page.getByTestId(`channel-row-channel-${openai.id}`)).toBeHidden();
  await expect(page.getByTestId(`channel-row-channel-${claude.id}`)).toBeHidden();
});

test('the channel list filters by keyword, model and group through the address', async ({ page }) => {
  const one = await createChannelByApi({ name: `filter-a-${run}`, models: 'model-alpha' });
  const two = await createChannelByApi({ name: `filter-b-${run}`, models: 'model-beta', group: 'vip' });
  await openChannels(page);
  await page.getByTestId('channel-search-keyword').fill(`filter-`);
  await page.getByTestId('channel-search-model').fill('model-beta');
  await page.getByTestId('channel-search-submit').click();
  await expect(page).toHaveURL(/keyword=filter-.*model=model-beta/);
  await expect(page.getByTestId(`channel-row-channel-${two.id}`)).toBeVisible();
  await expect(page.getByTestId(`channel-row-channel-${one.id}`)).toBeHidden();
  // Reloading keeps the filter: it lives in the URL.
  await page.reload();
  await expect(page.getByTestId(`channel-row-channel-${two.id}`)).toBeVisible();
  await expect(page.getByTestId(`channel-row-channel-${one.id}`)).toBeHidden();
  await page.goto(`/channel?keyword=filter-&group=default`);
  await expect(page.getByTestId(`channel-row-channel-${one.id}`)).toBeVisible();
  await expect(page.getByTestId(`channel-row-channel-${two.id}`)).toBeHidden();
});
