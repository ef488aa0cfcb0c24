import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { apiSession, dataOf, signInBrowser } from './support/console-session';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream';

/**
 * A user's token screen over the real server. A mock OpenAI upstream behind a real channel lets
 * the test spend a created token through the relay and watch the quota move.
 */

interface WireToken {
  id: number;
  name: string;
  key: string;
  status: number;
  expired_time: number;
  remain_quota: number;
  used_quota: number;
  unlimited_quota: boolean;
  group: string;
}

const run = Date.now().toString(36).slice(-6);
const username = `tk${run}`;
const password = 'correct-horse';
const QUOTA_PER_UNIT = 500_000;
let upstream: MockUpstream;
let root: APIRequestContext;
let userId: number;
let relayChannelId: number | undefined;

test.beforeAll(async () => {
  upstream = await startMockUpstream(['gpt-4o-mini']);
  root = (await apiSession('root', '123456')).api;
  relayChannelId = (
    await dataOf<{ id: number }>(
      await root.post('/api/channel/', {
        // A group of its own: channels other specs leave behind (with their mocks gone) never serve this user.
        data: { type: 1, name: `relay-${run}`, group: username, models: 'gpt-4o-mini', base_url: upstream.url, key: 'sk-upstream-secret' },
      }),
    )
  ).id;
  const user = await dataOf<{ id: number }>(await root.post('/api/user/', { data: { username, password } }));
  userId = user.id;
  await dataOf(await root.put('/api/user/', { data: { id: userId, quota: 10_000_000, group: username } }));
});

test.afterAll(async () => {
  // The mock upstream goes away with this file, so does the channel pointing at it.
  if (root && relayChannelId !== undefined) await root.delete(`/api/channel/${relayChannelId}/`);
  await root?.dispose();
  await upstream?.close();
});

const toast = (page: Page, text: string | RegExp) => page.locator('.semi-toast-content').filter({ hasText: text }).first();
const dollars = (quota: number) => `$${(quota / QUOTA_PER_UNIT).toFixed(2)}`;

async function myTokens(page: Page, keyword: string): Promise<WireToken[]> {
  const answer = await page.request.get('/api/token/search', { params: { keyword, size: 100 }, headers: { 'New-Api-User': String(userId) } });
  return (await dataOf<{ items: WireToken[] }>(answer)).items;
}

/** A token's full key (without sk-): token answers carry masked keys only. */
async function fullKeyOf(page: Page, id: number): Promise<string> {
  return (await dataOf<{ key: string }>(await page.request.post(`/api/token/${id}/key`, { headers: { 'New-Api-User': String(userId) } }))).key;
}

const MASKED = /^[A-Za-z0-9]{4}\*{10}[A-Za-z0-9]{4}$/;

async function createTokenByApi(page: Page, fields: Record<string, unknown>): Promise<WireToken> {
  const answer = await page.request.post('/api/token/', {
    data: { remain_quota: 500_000, expired_time: -1, ...fields },
    headers: { 'New-Api-User': String(userId) },
  });
  return dataOf<WireToken>(answer);
}

test('a user creates a token, copies its key, spends it through the relay and sees the quota change', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  // Every token list and token answer the console receives, to check none holds the full key.
  const tokenAnswers: Promise<string>[] = [];
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    // The key routes (one token, or a batch) are the ones meant to answer it.
    if (path.startsWith('/api/token') && !/\/keys?$/.test(path)) tokenAnswers.push(response.text().catch(() => ''));
  });
  // The real login form: once /token exists it is where a password login lands.
  await page.goto('/login');
  await page.getByPlaceholder('请输入用户名或邮箱').fill(username);
  await page.getByPlaceholder('请输入密码').fill(password);
  await page.locator('form').getByRole('button', { name: '登录', exact: true }).click();
  await expect(page).toHaveURL(/\/token$/);
  await expect(page.getByTestId('token-warning')).toContainText('令牌无法精确控制使用额度，只允许自用，请勿直接将令牌分发给他人。');

  await page.getByTestId('token-add').click();
  const drawer = page.locator('.semi-sidesheet').filter({ hasText: '创建新的令牌' });
  await expect(drawer.getByTestId('token-form-quota')).toHaveValue('500000');
  await drawer.getByTestId('token-form-name').fill(`relay-key-${run}`);
  await drawer.getByRole('button', { name: '$10.00' }).click();
  await expect(drawer.getByTestId('token-form-quota')).toHaveValue('5000000');
  await drawer.getByTestId('token-form-submit').click();
  // The new key is shown once, whole, with a copy button (issue 29: as new-api's console does).
  const createdModal = page.getByTestId('created-keys');
  await expect(createdModal).toBeVisible();
  await expect(page.getByText('令牌已创建')).toBeVisible();
  const shownKey = (await createdModal.getByTestId('created-key-value').textContent()) ?? '';
  expect(shownKey).toMatch(/^sk-[A-Za-z0-9]{48}$/);
  await createdModal.getByRole('button', { name: '复制' }).click();
  await expect(toast(page, '已复制到剪贴板')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shownKey);
  await page.getByTestId('created-keys-close').click();
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: '.tmp/screens/tokens-list-zh-1440.png' });
  await expect(createdModal).toBeHidden();

  const [token] = await myTokens(page, `relay-key-${run}`);
  expect(shownKey).toBe(`sk-${await fullKeyOf(page, token!.id)}`);
  expect(token).toMatchObject({ name: `relay-key-${run}`, remain_quota: 5_000_000, expired_time: -1, status: 1 });
  const row = page.getByTestId(`token-row-${token!.id}`);
  await expect(row).toContainText('已启用');
  await expect(row).toContainText('永不过期');
  await expect(page.getByTestId(`token-remaining-${token!.id}`)).toHaveText('$10.00');

  // The server answers masked keys; the table shows them with sk-. Copy reads the full key from
  // the key route and puts it on the clipboard.
  expect(token!.key).toMatch(MASKED);
  const keyCell = page.getByTestId(`token-key-${token!.id}`);
  await expect(keyCell).toHaveText(`sk-${token!.key}`);
  const keyRead = page.waitForResponse((response) => response.url().endsWith(`/api/token/${token!.id}/key`) && response.request().method() === 'POST');
  await page.getByTestId(`token-copy-${token!.id}`).click();
  expect((await keyRead).ok()).toBe(true);
  await expect(toast(page, '已复制到剪贴板')).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toMatch(/^sk-[A-Za-z0-9]{48}$/);
  expect(copied).toBe(`sk-${await fullKeyOf(page, token!.id)}`);
  expect(copied.slice(3, 7) + '**********' + copied.slice(-4)).toBe(token!.key);
  await expect(keyCell).toHaveText(`sk-${token!.key}`);
  // Viewing shows the full key, hiding masks it again.
  await page.getByTestId(`token-view-${token!.id}`).click();
  await expect(keyCell).toHaveText(copied);
  await page.getByTestId(`token-view-${token!.id}`).click();
  await expect(keyCell).toHaveText(`sk-${token!.key}`);
  expect(tokenAnswers.length).toBeGreaterThan(0);
  for (const text of await Promise.all(tokenAnswers)) expect(text).not.toContain(copied.slice(3));

  // Connection info (under "more"): base URLs, and a cURL call that, copied, carries the full key
  // and the user's first model; run as written, it spends the token.
  await page.getByTestId(`token-more-${token!.id}`).click();
  await page.getByTestId(`token-connection-${token!.id}`).click();
  const connection = page.locator('.semi-modal-content').filter({ hasText: `令牌 relay-key-${run} 的连接信息` });
  // The address is the ServerAddress option when one is set, else the page's own.
  const status = await dataOf<{ server_address?: string }>(await page.request.get('/api/status'));
  const origin = status.server_address?.replace(/\/+$/, '') || new URL(page.url()).origin;
  await expect(connection.getByTestId('connection-url-openai')).toContainText(`${origin}/v1`);
  await expect(connection.getByTestId('connection-snippet-curl')).toContainText(`Bearer sk-${token!.key}`);
  await connection.getByRole('tab', { name: 'Claude Code' }).click();
  await expect(connection.getByTestId('connection-snippet-claudeCode')).toContainText(`export ANTHROPIC_BASE_URL='${origin}'`);
  await expect(connection.getByTestId('connection-snippet-claudeCode')).toContainText('ANTHROPIC_AUTH_TOKEN');
  await page.screenshot({ path: test.info().outputPath('connection.png') });
  await connection.getByRole('tab', { name: 'cURL' }).click();
  await connection.getByTestId('connection-copy-curl').click();
  await expect(toast(page, '已复制，含完整密钥，请妥善保管')).toBeVisible();
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  const [, url] = /^curl '([^']+)'/.exec(curl)!;
  const [, authorization] = /-H 'Authorization: ([^']+)'/.exec(curl)!;
  const [, body] = /-d '([^']+)'/.exec(curl)!;
  expect(authorization).toBe(`Bearer ${copied}`);
  expect(JSON.parse(body!)).toMatchObject({ model: 'gpt-4o-mini' });
  await connection.locator('.semi-modal-close').click();

  // Spend it: the relay answers from the mock upstream and bills the token and the user.
  expect(url).toBe(`${origin}/v1/chat/completions`);
  const reply = await page.request.post(new URL(url!).pathname, { headers: { Authorization: authorization!, 'Content-Type': 'application/json' }, data: body });
  expect(reply.status()).toBe(200);
  expect((await reply.json()).choices[0].message.content).toBe('Hello from the mock upstream.');
  expect(upstream.seen.at(-1)?.authorization).toBe('Bearer sk-upstream-secret');

  // Usage is written in batches (BATCH_UPDATE_INTERVAL); the list shows it once stored.
  let spent: WireToken | undefined;
  await expect(async () => {
    [spent] = await myTokens(page, `relay-key-${run}`);
    expect(spent!.used_quota).toBeGreaterThan(0);
  }).toPass({ timeout: 20_000 });
  expect(spent!.remain_quota).toBe(5_000_000 - spent!.used_quota);
  await page.reload();
  await expect(page.getByTestId(`token-used-${token!.id}`)).toHaveText(dollars(spent!.used_quota));
  await expect(page.getByTestId(`token-remaining-${token!.id}`)).toHaveText(dollars(spent!.remain_quota));
  await expect(page.getByTestId(`token-remaining-${token!.id}`)).not.toHaveText('$10.00');
  const self = await dataOf<{ quota: number }>(await page.request.get('/api/user/self', { headers: { 'New-Api-User': String(userId) } }));
  expect(self.quota).toBe(10_000_000 - spent!.used_quota);
});

test('batch creation names the extra tokens with a random suffix and checks the expiry format', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signInBrowser(page, username, password);
  await page.goto('/token');
  await page.getByTestId('token-add').click();
  const drawer = page.locator('.semi-sidesheet').filter({ hasText: '创建新的令牌' });

  await drawer.getByTestId('token-form-submit').click();
  await expect(drawer.getByText('请输入名称！')).toBeVisible();

  const name = `batch-${run}`;
  await drawer.getByTestId('token-form-name').fill(name);
  const expiry = drawer.getByTestId('token-form-expiry');
  await expiry.fill('tomorrow at noon');
  await drawer.getByTestId('token-form-submit').click();
  await expect(drawer.getByText('过期时间格式错误！')).toBeVisible();
  await expiry.fill('2024-02-31 10:00:00');
  await drawer.getByTestId('token-form-submit').click();
  await expect(drawer.getByText('过期时间格式错误！')).toBeVisible();
  await drawer.getByRole('button', { name: '一小时' }).click();
  await expect(expiry).toHaveValue(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

  await drawer.getByRole('button', { name: '10个' }).click();
  await expect(drawer.getByTestId('token-form-count')).toHaveValue('10');
  await drawer.getByTestId('token-form-group').click();
  await page.locator('.semi-select-option').filter({ hasText: 'vip' }).click();
  // The select applies its choice after its dropdown closes; submit only once the form shows it.
  await expect(drawer.getByTestId('token-form-group')).toContainText('vip');
  await expect(drawer.getByTestId('token-form-count')).toHaveValue('10');
  await drawer.getByTestId('token-form-submit').click();
  const createdModal = page.getByTestId('created-keys');
  await expect(page.getByText('已创建 10 个令牌')).toBeVisible();
  await expect(createdModal.getByTestId('created-key-value')).toHaveCount(10);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: '.tmp/screens/tokens-created-batch-zh-1440.png' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: '.tmp/screens/tokens-created-batch-zh-390.png' });
  await page.getByTestId('created-keys-copy-all').click();
  const copiedAll = (await page.evaluate(() => navigator.clipboard.readText())).split('\n');
  expect(copiedAll).toHaveLength(10);
  for (const line of copiedAll) expect(line).toMatch(new RegExp(`^${name}(-[A-Za-z0-9]{6})?    sk-[A-Za-z0-9]{48}$`));
  await page.getByTestId('created-keys-close').click();
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: '.tmp/screens/tokens-list-zh-1440.png' });

  const created = await myTokens(page, name);
  expect(created).toHaveLength(10);
  const names = created.map((token) => token.name);
  expect(names.filter((tokenName) => tokenName === name)).toHaveLength(1);
  const suffixed = names.filter((tokenName) => tokenName !== name);
  expect(suffixed).toHaveLength(9);
  for (const tokenName of suffixed) expect(tokenName).toMatch(new RegExp(`^${name}-[A-Za-z0-9]{6}$`));
  expect(new Set(suffixed).size).toBe(9);
  const inAnHour = Date.now() / 1000 + 3600;
  for (const token of created) {
    expect(Math.abs(token.expired_time - inAnHour)).toBeLessThan(120);
    expect(token.group).toBe('vip');
  }
  await expect(page.locator('.semi-table-tbody .semi-table-row').filter({ hasText: name })).toHaveCount(10);
});

test('expired and used-up tokens cannot be enabled until the cause is edited away', async ({ page }) => {
  await signInBrowser(page, username, password);
  const soon = await createTokenByApi(page, { name: `soon-${run}`, expired_time: Math.floor(Date.now() / 1000) + 2 });
  const empty = await createTokenByApi(page, { name: `empty-${run}`, remain_quota: 0 });
  await page.waitForTimeout(2500);
  await page.goto(`/token?keyword=-${run}`);

  for (const token of [soon, empty]) {
    await page.getByTestId(`token-more-${token.id}`).click();
    await page.getByTestId(`token-status-${token.id}`).click();
    await expect(page.getByTestId(`token-status-tag-${token.id}`)).toHaveText('已禁用');
  }
  await page.getByTestId(`token-more-${soon.id}`).click();
  await page.getByTestId(`token-status-${soon.id}`).click();
  await expect(toast(page, '令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期')).toBeVisible();
  await page.getByTestId(`token-more-${empty.id}`).click();
  await page.getByTestId(`token-status-${empty.id}`).click();
  await expect(toast(page, '令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度')).toBeVisible();
  await expect(page.getByTestId(`token-status-tag-${empty.id}`)).toHaveText('已禁用');

  // Editing the cause away makes enabling possible: unlimited quota for the used-up one.
  await page.getByTestId(`token-edit-${empty.id}`).click();
  const drawer = page.locator('.semi-sidesheet').filter({ hasText: '更新令牌信息' });
  await expect(drawer.getByTestId('token-form-name')).toHaveValue(`empty-${run}`);
  await drawer.getByTestId('token-form-unlimited').click();
  await drawer.getByTestId('token-form-submit').click();
  await expect(toast(page, '令牌更新成功！')).toBeVisible();
  await expect(page.getByTestId(`token-row-${empty.id}`)).toContainText('无限制');
  await page.getByTestId(`token-more-${empty.id}`).click();
  await page.getByTestId(`token-status-${empty.id}`).click();
  await expect(page.getByTestId(`token-status-tag-${empty.id}`)).toHaveText('已启用');
});

test('copy selected, search by key, the chat menu and delete', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signInBrowser(page, username, password);
  const other = await createTokenByApi(page, { name: `other-${run}` });
  const fine = await createTokenByApi(page, { name: `fine-${run}` });
  await page.goto(`/token?keyword=-${run}`);

  // Copy selected needs a selection, then copies "name    sk-key" lines.
  await page.getByTestId('token-copy-selected').click();
  await expect(toast(page, '请至少选择一个令牌！')).toBeVisible();
  for (const token of [fine, other]) await page.getByTestId(`token-row-${token.id}`).locator('.semi-checkbox').click();
  expect(fine.key).toMatch(MASKED);
  const fineKey = await fullKeyOf(page, fine.id);
  const otherKey = await fullKeyOf(page, other.id);
  await page.getByTestId('token-copy-selected').click();
  await expect(toast(page, '已复制到剪贴板')).toBeVisible();
  const lines = (await page.evaluate(() => navigator.clipboard.readText())).split('\n').sort();
  expect(lines).toEqual([`other-${run}    sk-${otherKey}`, `fine-${run}    sk-${fineKey}`].sort());

  // Search by key (with or without sk-).
  await page.getByTestId('token-search-keyword').fill('');
  await page.getByTestId('token-search-key').fill(`sk-${fineKey}`);
  await page.getByTestId('token-search-submit').click();
  await expect(page).toHaveURL(/token=sk-/);
  await expect(page.getByTestId(`token-row-${fine.id}`)).toBeVisible();
  await expect(page.locator('.semi-table-tbody .semi-table-row')).toHaveCount(1);

  // The chat menu lists the configured chat links and opens one with the key filled in.
  await page.getByTestId(`token-chat-menu-${fine.id}`).click();
  await expect(page.locator('.semi-dropdown-item').filter({ hasText: '请联系管理员配置聊天链接' })).toBeVisible();
  const template = 'https://chat.example.test/#/?settings={"key":"{key}","url":"{address}"}';
  await dataOf(await root.put('/api/option/', { data: { key: 'Chats', value: JSON.stringify([{ 'E2E Chat': template }]) } }));
  try {
    await context.route('https://chat.example.test/**', (route) => route.fulfill({ body: 'chat client', contentType: 'text/plain' }));
    await page.reload();
    await page.getByTestId(`token-chat-menu-${fine.id}`).click();
    const popupOpened = context.waitForEvent('page');
    await page.locator('.semi-dropdown-item').filter({ hasText: 'E2E Chat' }).click();
    const popup = await popupOpened;
    // The window opens at once and gets its address when the full key has been read.
    await popup.waitForURL(/chat\.example\.test/);
    const opened = decodeURIComponent(popup.url());
    expect(opened).toContain(`"key":"sk-${fineKey}"`);
    expect(await popup.evaluate(() => window.opener)).toBeNull();
    expect(opened).toContain(`"url":"${new URL(page.url()).origin}"`);
    await popup.close();
  } finally {
    await root.put('/api/option/', { data: { key: 'Chats', value: '[]' } });
  }

  // Delete asks first, then the token is gone.
  await page.getByTestId(`token-more-${fine.id}`).click();
  await page.locator('.semi-dropdown-item').filter({ hasText: '删除' }).click();
  await page.locator('.semi-modal-content').filter({ hasText: '确定是否要删除此令牌？' }).locator('button', { hasText: '确定' }).click();
  await expect(toast(page, '删除成功')).toBeVisible();
  await expect(page.getByTestId(`token-row-${fine.id}`)).toBeHidden();
  expect(await myTokens(page, `fine-${run}`)).toHaveLength(0);
});
