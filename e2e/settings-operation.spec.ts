import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiCall, apiSession, registerUser, ROOT, setOption, signIn, USER_PASSWORD, type ApiSession, presetLanguageAndTheme } from './wallet-helpers';

/**
 * The operation tab of /setting (spec 01 §2, §5, §9) over the real server, as root: cards are
 * changed, saved (保存成功), reloaded and read back from GET /api/option/; unchanged saves warn;
 * invalid JSON and out-of-range numbers never reach the server; clearing logs reports the real
 * count; the status-driven side nav follows a save without a reload; a normal user and an admin
 * (role 10) never see the tab. Every option changed here is put back afterwards.
 */

type Language = 'zh' | 'en';
type Theme = 'light' | 'dark';

/** Every option this spec may change; their values from before the run are restored at the end. */
const TOUCHED = [
  'TopUpLink',
  'LogRetentionDays',
  'RetryTimes',
  'DisplayTokenStatEnabled',
  'QuotaForNewUser',
  'QuotaRemindThreshold',
  'MinCappedOutputTokens',
  'ModelMaxOutputTokens',
  'ChannelDisableThreshold',
  'AutomaticDisableChannelEnabled',
  'ChannelBreakerFailureThreshold',
  'DataExportEnabled',
  'DataExportInterval',
  'DataExportDefaultTime',
  'GroupRatio',
  'UserUsableGroups',
  'TopupGroupRatio',
  'SensitiveWords',
  'CheckSensitiveEnabled',
  'Chats',
  'MjNotifyEnabled',
  'LogConsumeEnabled',
  'general_setting.docs_link',
  'DemoSiteEnabled',
  'SelfUseModeEnabled',
  'AutomaticDisableKeywords',
  'ModelRequestRateLimitEnabled',
  'ModelRequestRateLimitDurationMinutes',
  'ModelRequestRateLimitCount',
  'ModelRequestRateLimitSuccessCount',
] as const;

let root: ApiSession;
let before: Record<string, string> = {};

async function readOptions(): Promise<Record<string, string>> {
  const entries = await apiCall<{ key: string; value: string }[]>(root, 'GET', '/api/option/');
  return Object.fromEntries(entries.map((entry) => [entry.key, entry.value]));
}

test.beforeAll(async () => {
  root = await apiSession(ROOT.username, ROOT.password);
  before = await readOptions();
});

test.afterAll(async () => {
  if (!root) return;
  const now = await readOptions();
  for (const key of TOUCHED) {
    if (before[key] !== undefined && now[key] !== before[key]) await setOption(root, key, before[key]!);
  }
  const restored = await readOptions();
  for (const key of TOUCHED) expect(restored[key], key).toBe(before[key]);
  await root.api.dispose();
});

async function openOperation(page: Page, language: Language, theme: Theme): Promise<void> {
  await presetLanguageAndTheme(page, language, theme);
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/setting?tab=operation');
  await expect(page.getByTestId('op-card-general').locator('#op-field-TopUpLink')).toBeVisible();
}

const card = (page: Page, name: string) => page.getByTestId(`op-card-${name}`);
const field = (page: Page, key: string) => page.locator(`#op-field-${key}`);
const switchOf = (page: Page, key: string) => page.getByTestId(`op-${key}`).getByRole('switch');

const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/**
 * Runs `action` and expects a new toast saying exactly `text`: toasts already on screen (an
 * earlier save's 保存成功) are marked first, so only one that appears after the action counts.
 */
async function expectToast(page: Page, text: string, action: () => Promise<void>): Promise<void> {
  const toasts = page.locator('.semi-toast-content');
  await toasts.evaluateAll((nodes) => nodes.forEach((node) => node.setAttribute('data-seen', 'true')));
  await action();
  await expect(
    page
      .locator('.semi-toast-content:not([data-seen])')
      .filter({ hasText: exactly(text) })
      .first(),
  ).toBeVisible();
}

async function save(page: Page, cardName: string, language: Language, expected: string): Promise<void> {
  await expectToast(page, expected, () =>
    card(page, cardName)
      .getByRole('button', { name: language === 'zh' ? '保存设置' : 'Save', exact: true })
      .click(),
  );
}

/** The whole tab: the console scrolls inside .mg-scroll, so the viewport grows to its height for the shot. */
async function screenshot(page: Page, name: string): Promise<void> {
  const size = page.viewportSize()!;
  const height = await page.evaluate(() => (document.querySelector('.mg-scroll')?.scrollHeight ?? 0) + 60);
  await page.setViewportSize({ width: size.width, height: Math.min(Math.max(height, size.height), 9000) });
  await page.screenshot({ path: `.tmp/screens/settings-operation-${name}.png`, fullPage: true });
  await page.setViewportSize(size);
}

async function expectChecked(locator: Locator, checked: boolean): Promise<void> {
  await expect(locator).toHaveAttribute('aria-checked', String(checked));
}

test('[zh, light] general card: change, save, reload and see it; an unchanged save warns; letters cannot be typed into numbers', async ({ page }) => {
  await openOperation(page, 'zh', 'light');
  const general = card(page, 'general');
  await expect(general).toContainText('通用设置');
  await expect(page.getByLabel('充值链接')).toHaveValue(before.TopUpLink ?? '');

  const link = `https://shop.example.com/buy-${Date.now().toString(36)}`;
  const retries = before.RetryTimes === '3' ? '4' : '3';
  const tokenStat = before.DisplayTokenStatEnabled !== 'true';
  await page.getByLabel('充值链接').fill(link);
  await field(page, 'RetryTimes').fill('');
  await field(page, 'RetryTimes').pressSequentially(`x${retries}-.`);
  await expect(field(page, 'RetryTimes')).toHaveValue(retries);
  await switchOf(page, 'DisplayTokenStatEnabled').click();
  await expectChecked(switchOf(page, 'DisplayTokenStatEnabled'), tokenStat);
  await save(page, 'general', 'zh', '保存成功');

  const stored = await readOptions();
  expect(stored).toMatchObject({ TopUpLink: link, RetryTimes: retries, DisplayTokenStatEnabled: String(tokenStat) });

  await page.reload();
  await expect(page.getByLabel('充值链接')).toHaveValue(link);
  await expect(field(page, 'RetryTimes')).toHaveValue(retries);
  await expectChecked(switchOf(page, 'DisplayTokenStatEnabled'), tokenStat);

  await save(page, 'general', 'zh', '你似乎并没有修改什么');
  // An emptied number is refused in the form with its name.
  await field(page, 'RetryTimes').fill('');
  await expect(general.getByRole('alert')).toHaveText('失败重试次数不能为空');
  await save(page, 'general', 'zh', '失败重试次数不能为空');
  expect((await readOptions()).RetryTimes).toBe(retries);
  await field(page, 'RetryTimes').fill(retries);
  await screenshot(page, 'zh-light');
});

test('[en, dark] quota card shows quota as money; monitoring keeps its fields and breakers; both save and reload', async ({ page }) => {
  await openOperation(page, 'en', 'dark');
  const quota = card(page, 'quota');
  await expect(quota).toContainText('Quota');
  const perUnit = Number(before.QuotaPerUnit ?? '500000');
  const newUserQuota = String(perUnit * 2);
  await page.getByLabel('Quota for new users').fill(newUserQuota);
  await expect(page.getByTestId('op-QuotaForNewUser')).toContainText('≈ $2');
  await page.getByLabel('Low-balance reminder').fill(String(perUnit / 2));
  await expect(page.getByTestId('op-QuotaRemindThreshold')).toContainText('≈ $0.5');
  await save(page, 'quota', 'en', 'Saved');

  const monitoring = card(page, 'monitoring');
  await page.getByLabel('Longest response time').fill('7.5');
  await page.getByLabel('Breaker: failures in a row').fill('8');
  const autoDisable = before.AutomaticDisableChannelEnabled !== 'true';
  await switchOf(page, 'AutomaticDisableChannelEnabled').click();
  await expect(monitoring).toContainText('Circuit breakers');
  await save(page, 'monitoring', 'en', 'Saved');

  expect(await readOptions()).toMatchObject({
    QuotaForNewUser: newUserQuota,
    QuotaRemindThreshold: String(perUnit / 2),
    ChannelDisableThreshold: '7.5',
    ChannelBreakerFailureThreshold: '8',
    AutomaticDisableChannelEnabled: String(autoDisable),
  });

  await page.reload();
  await expect(page.getByLabel('Quota for new users')).toHaveValue(newUserQuota);
  await expect(page.getByLabel('Longest response time')).toHaveValue('7.5');
  await expect(page.getByLabel('Breaker: failures in a row')).toHaveValue('8');
  await expectChecked(switchOf(page, 'AutomaticDisableChannelEnabled'), autoDisable);
  await save(page, 'monitoring', 'en', "You don't seem to have changed anything");
  await screenshot(page, 'en-dark');
});

/** The option keys each PUT /api/option/ of the page carries, in the order they were sent. */
function recordOptionWrites(page: Page): string[] {
  const keys: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'PUT' && new URL(request.url()).pathname === '/api/option/') keys.push((request.postDataJSON() as { key: string }).key);
  });
  return keys;
}

test('[zh, light] 输出上限: the smallest capped output and the model output bounds are checked, each saved alone when it alone changed, and kept after a reload', async ({
  page,
}) => {
  await openOperation(page, 'zh', 'light');
  const limits = card(page, 'output-limits');
  await expect(limits).toContainText('输出上限');
  await expect(limits).toContainText('余额不足时的最小输出上限');
  await expect(limits).toContainText('模型最大输出 Tokens');
  await expect(field(page, 'MinCappedOutputTokens')).toHaveValue(before.MinCappedOutputTokens!);
  await expect(field(page, 'ModelMaxOutputTokens')).toHaveValue(before.ModelMaxOutputTokens!);
  const writes = recordOptionWrites(page);

  // Below 1, not JSON, and a bound of 0 (which the relay would skip) never reach the server.
  await field(page, 'MinCappedOutputTokens').fill('0');
  await expect(page.getByTestId('op-MinCappedOutputTokens').getByRole('alert')).toHaveText('余额不足时的最小输出上限不能小于 1');
  await save(page, 'output-limits', 'zh', '余额不足时的最小输出上限不能小于 1');
  const minimum = before.MinCappedOutputTokens === '256' ? '512' : '256';
  await field(page, 'MinCappedOutputTokens').fill(minimum);
  await field(page, 'ModelMaxOutputTokens').fill('{"default": 16384');
  await expect(page.getByTestId('op-ModelMaxOutputTokens').getByRole('alert')).toHaveText('模型最大输出 Tokens不是合法的 JSON 字符串');
  await save(page, 'output-limits', 'zh', '模型最大输出 Tokens不是合法的 JSON 字符串');
  await field(page, 'ModelMaxOutputTokens').fill('{"default": 16384, "gpt-4o": 0}');
  await save(page, 'output-limits', 'zh', '模型最大输出 Tokens中 gpt-4o 的值必须是正整数');
  expect(writes).toEqual([]);

  // Only the minimum changed (the bounds are back to what is stored): one write, of that key.
  await field(page, 'ModelMaxOutputTokens').fill(before.ModelMaxOutputTokens!);
  await save(page, 'output-limits', 'zh', '保存成功');
  expect(writes).toEqual(['MinCappedOutputTokens']);
  const bounds = JSON.stringify({ default: 8192, 'gpt-4o': 16384, [`e2e-${Date.now().toString(36)}`]: 1024 }, null, 2);
  await field(page, 'ModelMaxOutputTokens').fill(bounds);
  await save(page, 'output-limits', 'zh', '保存成功');
  expect(writes).toEqual(['MinCappedOutputTokens', 'ModelMaxOutputTokens']);
  expect(await readOptions()).toMatchObject({ MinCappedOutputTokens: minimum, ModelMaxOutputTokens: bounds });

  await page.reload();
  await expect(field(page, 'MinCappedOutputTokens')).toHaveValue(minimum);
  await expect(field(page, 'ModelMaxOutputTokens')).toHaveValue(bounds);
  await save(page, 'output-limits', 'zh', '你似乎并没有修改什么');
  await card(page, 'output-limits').scrollIntoViewIfNeeded();
  await card(page, 'output-limits').screenshot({ path: '.tmp/screens/settings-operation-output-limits-zh-light.png' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(field(page, 'MinCappedOutputTokens')).toHaveValue(minimum);
  await card(page, 'output-limits').scrollIntoViewIfNeeded();
  await card(page, 'output-limits').screenshot({ path: '.tmp/screens/settings-operation-output-limits-phone-zh-light.png' });
  await setOption(root, 'MinCappedOutputTokens', before.MinCappedOutputTokens!);
  await setOption(root, 'ModelMaxOutputTokens', before.ModelMaxOutputTokens!);
});

test('[en, dark] output limits: refused in English, saved; the card reads at phone width', async ({ page }) => {
  await openOperation(page, 'en', 'dark');
  const limits = card(page, 'output-limits');
  await expect(limits).toContainText('Output limits');
  await page.getByLabel('Smallest capped output').fill('');
  await save(page, 'output-limits', 'en', 'Smallest capped output cannot be empty');
  await page.getByLabel('Smallest capped output').fill('64');
  await page.getByLabel('Model max output tokens').fill('{"default": 4096.5}');
  await save(page, 'output-limits', 'en', 'In Model max output tokens, the value of default must be a whole number of 1 or more');
  await page.getByLabel('Model max output tokens').fill('{"default": 32768}');
  await save(page, 'output-limits', 'en', 'Saved');
  expect(await readOptions()).toMatchObject({ MinCappedOutputTokens: '64', ModelMaxOutputTokens: '{"default": 32768}' });
  await page.reload();
  await expect(page.getByLabel('Model max output tokens')).toHaveValue('{"default": 32768}');
  await limits.scrollIntoViewIfNeeded();
  await limits.screenshot({ path: '.tmp/screens/settings-operation-output-limits-en-dark.png' });

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByLabel('Smallest capped output')).toHaveValue('64');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await card(page, 'output-limits').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '.tmp/screens/settings-operation-output-limits-phone-en-dark.png' });
  // Put back at once: the relay of the specs that follow reads these.
  await setOption(root, 'MinCappedOutputTokens', before.MinCappedOutputTokens!);
  await setOption(root, 'ModelMaxOutputTokens', before.ModelMaxOutputTokens!);
});

test('[zh, dark] data dashboard: an interval of 0 is refused in the form and by the server; the switch hides and shows 数据看板 without a reload', async ({
  page,
}) => {
  await setOption(root, 'DataExportEnabled', 'true');
  await openOperation(page, 'zh', 'dark');
  const nav = page.locator('.mg-side-nav');
  await expect(nav.getByText('数据看板')).toBeVisible();

  await page.getByLabel('数据看板更新间隔').fill('0');
  await expect(card(page, 'dashboard').getByRole('alert')).toHaveText('数据看板更新间隔不能小于 1');
  await save(page, 'dashboard', 'zh', '数据看板更新间隔不能小于 1');
  expect((await readOptions()).DataExportInterval).toBe(before.DataExportInterval);
  // The server refuses it too.
  const refused = await root.api.put('/api/option/', { data: { key: 'DataExportInterval', value: '0' }, headers: root.headers });
  expect(((await refused.json()) as { success: boolean }).success).toBe(false);

  await page.getByLabel('数据看板更新间隔').fill('3');
  await page.getByTestId('op-DataExportDefaultTime').locator('.semi-select').click();
  await page.locator('.semi-select-option', { hasText: /^天$/ }).click();
  await switchOf(page, 'DataExportEnabled').click();
  await save(page, 'dashboard', 'zh', '保存成功');
  await expect(nav.getByText('数据看板')).toHaveCount(0);
  expect(await readOptions()).toMatchObject({ DataExportEnabled: 'false', DataExportInterval: '3', DataExportDefaultTime: 'day' });
  await card(page, 'dashboard').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '.tmp/screens/settings-operation-dashboard-off-zh-dark.png' });

  await switchOf(page, 'DataExportEnabled').click();
  await save(page, 'dashboard', 'zh', '保存成功');
  await expect(nav.getByText('数据看板')).toBeVisible();

  await page.reload();
  await expect(page.getByLabel('数据看板更新间隔')).toHaveValue('3');
  await expect(page.getByTestId('op-DataExportDefaultTime')).toContainText('天');
  await expectChecked(switchOf(page, 'DataExportEnabled'), true);
});

test('[zh, light] group ratios: invalid JSON is refused with §5 messages and nothing is saved; the ratios show as §9-coloured tags', async ({ page }) => {
  await openOperation(page, 'zh', 'light');
  const groups = card(page, 'groups');
  const groupRatio = page.getByLabel('分组倍率', { exact: true });
  await expect(groupRatio).toHaveValue(before.GroupRatio!);

  await groupRatio.fill('{"default": 1,');
  await expect(groups.getByRole('alert')).toHaveText('分组倍率不是合法的 JSON 字符串');
  await save(page, 'groups', 'zh', '分组倍率不是合法的 JSON 字符串');
  await expect(page.getByTestId('op-group-ratio-tags')).toContainText('分组倍率无法解析');

  const ratios = '{\n  "default": 1,\n  "vip": 2,\n  "svip": 4,\n  "ultra": 6\n}';
  await groupRatio.fill(ratios);
  await page.getByLabel('充值分组倍率').fill('{"default": 1');
  await save(page, 'groups', 'zh', '充值分组倍率不是合法的 JSON 字符串');
  await page.getByLabel('充值分组倍率').fill(before.TopupGroupRatio!);
  await page.getByLabel('用户可选分组').fill('{"default": "默认分组",}');
  await save(page, 'groups', 'zh', '用户可选分组不是合法的 JSON 字符串');
  // Valid JSON of the wrong shape is refused in the form too (the server would refuse it).
  await page.getByLabel('用户可选分组').fill('{"default": 1}');
  await save(page, 'groups', 'zh', '用户可选分组中 default 的值必须是字符串');
  // Nothing reached the server.
  const untouched = await readOptions();
  expect(untouched.GroupRatio).toBe(before.GroupRatio);
  expect(untouched.UserUsableGroups).toBe(before.UserUsableGroups);
  expect(untouched.TopupGroupRatio).toBe(before.TopupGroupRatio);

  await page.getByLabel('用户可选分组').fill(before.UserUsableGroups!);
  const expectedColours = { default: 'green', vip: 'blue', svip: 'orange', ultra: 'red' };
  for (const [group, colour] of Object.entries(expectedColours)) {
    await expect(page.getByTestId(`op-group-tag-${group}`)).toHaveClass(new RegExp(`semi-tag-${colour}-`));
  }
  await save(page, 'groups', 'zh', '保存成功');
  expect((await readOptions()).GroupRatio).toBe(ratios);

  await page.reload();
  await expect(groupRatio).toHaveValue(ratios);
  await expect(page.getByTestId('op-group-tag-ultra')).toHaveText('ultra × 6');
  await expect(page.getByTestId('op-group-tag-ultra')).toHaveClass(/semi-tag-red-/);
  await groups.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '.tmp/screens/settings-operation-groups-zh-light.png' });
});

test('[en, dark] group ratios and chats: invalid JSON is refused in English too, nothing saved', async ({ page }) => {
  await openOperation(page, 'en', 'dark');
  await page.getByLabel('Top-up group ratios').fill('{"vip": ');
  await save(page, 'groups', 'en', 'Top-up group ratios is not a valid JSON string');
  await page.getByLabel('Chat clients').fill('[{"NextChat": ');
  await save(page, 'chats', 'en', 'Chat clients is not a valid JSON string');
  const stored = await readOptions();
  expect(stored.TopupGroupRatio).toBe(before.TopupGroupRatio);
  expect(stored.Chats).toBe(before.Chats);
  await card(page, 'groups').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '.tmp/screens/settings-operation-groups-en-dark.png' });
});

test('[zh, light] sensitive words are counted and saved; chats take an example, save, and the side nav offers 聊天', async ({ page }) => {
  await setOption(root, 'Chats', '[]');
  await openOperation(page, 'zh', 'light');
  const words = `alpha\n\n  beta  \nGamma\ngamma\nop${Date.now().toString(36)}`;
  await page.getByLabel('屏蔽词列表').fill(words);
  await expect(page.getByTestId('op-sensitive-count')).toHaveText('共 4 个屏蔽词，1 行重复');
  const filterOn = before.CheckSensitiveEnabled !== 'true';
  await switchOf(page, 'CheckSensitiveEnabled').click();
  await save(page, 'sensitive', 'zh', '保存成功');
  expect(await readOptions()).toMatchObject({ SensitiveWords: words, CheckSensitiveEnabled: String(filterOn) });

  // Chats: a malformed entry is refused, the example is accepted.
  const nav = page.locator('.mg-side-nav');
  const chatsBefore = await nav.getByText('聊天', { exact: true }).count();
  await page.getByLabel('聊天配置').fill('["https://chat.example.com"]');
  await save(page, 'chats', 'zh', '聊天配置的每一项必须形如 {"客户端名称": "链接"}');
  await card(page, 'chats').getByRole('button', { name: '填入示例' }).click();
  await expect(page.getByTestId('op-chats-readout')).toContainText('已配置 1 个客户端');
  await expect(page.getByTestId('op-chats-readout')).toContainText('ChatGPT Next Web');
  await save(page, 'chats', 'zh', '保存成功');
  const chats = JSON.parse((await readOptions()).Chats!) as Record<string, string>[];
  expect(Object.keys(chats[0]!)).toEqual(['ChatGPT Next Web']);
  expect(chats[0]!['ChatGPT Next Web']).toContain('{key}');
  // The status query was refreshed: the chat entry is in the side nav without a reload.
  if (chatsBefore === 0) await expect(nav.getByText('聊天', { exact: true })).toBeVisible();

  await page.reload();
  await expect(page.getByLabel('屏蔽词列表')).toHaveValue(words);
  await expect(page.getByTestId('op-sensitive-count')).toHaveText('共 4 个屏蔽词，1 行重复');
  await expectChecked(switchOf(page, 'CheckSensitiveEnabled'), filterOn);
  await expect(page.getByTestId('op-chats-readout')).toContainText('ChatGPT Next Web');
  await card(page, 'sensitive').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '.tmp/screens/settings-operation-sensitive-zh-light.png' });
});

test('[zh, light] log card: no time → 请选择日志记录时间; with a time, after a confirm, the real count is reported', async ({ page }) => {
  // Logs of our own: an admin's quota changes each write a management log at once.
  const username = await registerUser('oplog');
  const users = await apiCall<{ items: { id: number; username: string }[] }>(root, 'GET', `/api/user/search?keyword=${username}`);
  const userId = users.items.find((user) => user.username === username)!.id;
  for (let index = 0; index < 3; index += 1) await apiCall(root, 'POST', '/api/user/manage', { id: userId, action: 'add_quota', value: 1000 + index });
  const own = await apiCall<{ total: number }>(root, 'GET', `/api/log/?username=${username}&page_size=1`);
  expect(own.total).toBeGreaterThanOrEqual(3);

  await openOperation(page, 'zh', 'light');
  const logCard = card(page, 'log');
  await logCard.scrollIntoViewIfNeeded();
  await expectToast(page, '请选择日志记录时间', () => logCard.getByRole('button', { name: '清除历史日志' }).click());
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await page.waitForTimeout(1_100);
  const cutoff = Math.floor(Date.now() / 1000);
  const at = new Date(cutoff * 1000);
  const pad = (value: number) => String(value).padStart(2, '0');
  const picker = page.getByTestId('op-log-clear-time').locator('input');
  await picker.click();
  await picker.fill(`${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`);
  await picker.press('Enter');
  await page.keyboard.press('Escape');
  await logCard.getByRole('button', { name: '清除历史日志' }).click();
  const dialog = page.getByRole('dialog', { name: '清除历史日志' });
  await expect(dialog).toContainText('此操作不可撤销');
  await page.screenshot({ path: '.tmp/screens/settings-operation-log-confirm-zh-light.png' });
  const removable = await apiCall<{ total: number }>(root, 'GET', `/api/log/?end_timestamp=${cutoff - 1}&page_size=1`);
  expect(removable.total).toBeGreaterThanOrEqual(3);
  await expectToast(page, `${removable.total} 条日志已清理！`, () => page.getByTestId('op-log-clear-ok').click());
  const after = await apiCall<{ total: number }>(root, 'GET', `/api/log/?username=${username}&page_size=1`);
  expect(after.total).toBe(0);

  // LogConsumeEnabled saves with the card's button and reads back after a reload.
  const logConsume = before.LogConsumeEnabled !== 'true';
  await switchOf(page, 'LogConsumeEnabled').click();
  await save(page, 'log', 'zh', '保存成功');
  expect((await readOptions()).LogConsumeEnabled).toBe(String(logConsume));
  await page.reload();
  await expectChecked(switchOf(page, 'LogConsumeEnabled'), logConsume);
  await setOption(root, 'LogConsumeEnabled', before.LogConsumeEnabled!);

  // 日志保留天数 beside the clearing (0 by default: kept forever): 30 saves and reads back.
  await page.reload();
  await expect(card(page, 'log')).toContainText('日志保留天数');
  await field(page, 'LogRetentionDays').fill('30');
  await field(page, 'LogRetentionDays').press('Tab');
  await save(page, 'log', 'zh', '保存成功');
  expect((await readOptions()).LogRetentionDays).toBe('30');
  await page.reload();
  await expect(field(page, 'LogRetentionDays')).toHaveValue('30');
  await card(page, 'log').screenshot({ path: '.tmp/screens/settings-operation-log-retention-zh-light.png' });
  await setOption(root, 'LogRetentionDays', before.LogRetentionDays!);
});

test('[en, light] drawing switches save and reload; the tab reads at phone width (en, dark)', async ({ page }) => {
  await openOperation(page, 'en', 'light');
  const drawing = card(page, 'drawing');
  await expect(drawing).toContainText("Allow callbacks (reveals the server's IP address)");
  await expect(drawing).toContainText("Removes --fast, --relax and --turbo from users' prompts");
  const notify = before.MjNotifyEnabled !== 'true';
  await page.getByRole('switch', { name: "Allow callbacks (reveals the server's IP address)" }).click();
  await save(page, 'drawing', 'en', 'Saved');
  expect((await readOptions()).MjNotifyEnabled).toBe(String(notify));
  await page.reload();
  await expectChecked(switchOf(page, 'MjNotifyEnabled'), notify);
  await drawing.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '.tmp/screens/settings-operation-drawing-en-light.png' });

  // Init scripts run in the order they were added: this one overrides the light theme of openOperation.
  await page.addInitScript(() => localStorage.setItem('theme-mode', 'dark'));
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(card(page, 'general')).toBeVisible();
  // Nothing spills sideways on a phone.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshot(page, 'phone-en-dark');
});

test('a normal user and an admin (role 10) do not see the operation tab; ?tab=operation falls back to personal', async ({ browser }) => {
  const normal = await registerUser('opnorm');
  const adminName = await registerUser('opadm');
  const found = await apiCall<{ items: { id: number; username: string }[] }>(root, 'GET', `/api/user/search?keyword=${adminName}`);
  const adminId = found.items.find((user) => user.username === adminName)!.id;
  const promoted = await apiCall<{ role: number }>(root, 'POST', '/api/user/manage', { id: adminId, action: 'promote' });
  expect(promoted.role).toBe(10);

  for (const [username, role] of [
    [normal, 1],
    [adminName, 10],
  ] as const) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript(() => localStorage.setItem('i18nextLng', 'zh'));
    const user = await signIn(page, username, USER_PASSWORD);
    expect(user.role).toBe(role);
    await page.goto('/setting?tab=operation');
    await expect(page.getByRole('tab', { name: '个人设置' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('tab', { name: '运营设置' })).toHaveCount(0);
    await expect(page.getByTestId('op-card-general')).toHaveCount(0);
    // The server refuses the option calls too.
    const session = await apiSession(username, USER_PASSWORD);
    const answer = await session.api.get('/api/option/', { headers: session.headers });
    expect(((await answer.json()) as { success: boolean }).success).toBe(false);
    await session.api.dispose();
    await context.close();
  }
});

test('[zh, light] new-api keys: docs link (文档 in the header), demo and self-use modes, disable keywords and model request limits save, reload and are put back', async ({
  page,
}) => {
  await openOperation(page, 'zh', 'light');
  const docs = `https://docs.example.com/${Date.now().toString(36)}`;
  const demo = before.DemoSiteEnabled !== 'true';
  const selfUse = before.SelfUseModeEnabled !== 'true';
  if (!before['general_setting.docs_link']) await expect(page.getByTestId('nav-docs')).toHaveCount(0);
  await page.getByLabel('文档地址').fill(`${docs}/`);
  await switchOf(page, 'DemoSiteEnabled').click();
  await switchOf(page, 'SelfUseModeEnabled').click();
  await save(page, 'general', 'zh', '保存成功');
  // The header follows the saved status without a reload.
  await expect(page.getByTestId('nav-docs')).toHaveAttribute('href', docs);
  await expect(page.getByTestId('nav-docs')).toContainText('文档');
  // new-api's mark beside the name: 自用模式 wins over 演示站点.
  if (selfUse || demo) await expect(page.getByTestId('mode-tag')).toHaveText(selfUse ? '自用模式' : '演示站点');
  else await expect(page.getByTestId('mode-tag')).toHaveCount(0);

  const keywords = 'Your credit balance is too low\nquota of this key ran out';
  await page.getByLabel('自动禁用关键词').fill(keywords);
  await save(page, 'monitoring', 'zh', '保存成功');

  const limits = card(page, 'rate-limit');
  await expect(limits).toContainText('模型请求速率限制');
  const enabled = before.ModelRequestRateLimitEnabled !== 'true';
  await switchOf(page, 'ModelRequestRateLimitEnabled').click();
  await page.getByLabel('限制周期').fill('7');
  await page.getByLabel('用户每周期最多请求次数').fill('0');
  await page.getByLabel('用户每周期最多请求完成次数').fill('');
  await expect(limits.getByRole('alert')).toHaveText('用户每周期最多请求完成次数不能为空');
  await page.getByLabel('用户每周期最多请求完成次数').pressSequentially('99x999');
  await expect(page.getByLabel('用户每周期最多请求完成次数')).toHaveValue('99999');
  await save(page, 'rate-limit', 'zh', '保存成功');

  expect(await readOptions()).toMatchObject({
    'general_setting.docs_link': docs,
    DemoSiteEnabled: String(demo),
    SelfUseModeEnabled: String(selfUse),
    AutomaticDisableKeywords: keywords,
    ModelRequestRateLimitEnabled: String(enabled),
    ModelRequestRateLimitDurationMinutes: '7',
    ModelRequestRateLimitCount: '0',
    ModelRequestRateLimitSuccessCount: '99999',
  });
  const status = await apiCall<Record<string, unknown>>(root, 'GET', '/api/status');
  expect(status).toMatchObject({ docs_link: docs, demo_site_enabled: demo, self_use_mode_enabled: selfUse, setup: true });

  await page.reload();
  await expect(page.getByLabel('文档地址')).toHaveValue(docs);
  await expectChecked(switchOf(page, 'DemoSiteEnabled'), demo);
  await expectChecked(switchOf(page, 'SelfUseModeEnabled'), selfUse);
  await expect(page.getByLabel('自动禁用关键词')).toHaveValue(keywords);
  await expectChecked(switchOf(page, 'ModelRequestRateLimitEnabled'), enabled);
  await expect(page.getByLabel('限制周期')).toHaveValue('7');
  await expect(page.getByLabel('用户每周期最多请求完成次数')).toHaveValue('99999');
  await expect(page.getByTestId('nav-docs')).toHaveAttribute('href', docs);
  await screenshot(page, 'new-api-keys-zh-light');

  // The default home page links the docs, and on a demo site shows the version (as new-api's home).
  if (!before.HomePageContent?.trim()) {
    await page.goto('/');
    await expect(page.getByTestId('home-docs')).toHaveAttribute('href', docs);
    if (demo) await expect(page.getByTestId('home-version')).toContainText(String(status.version));
    else await expect(page.getByTestId('home-version')).toHaveCount(0);
    await page.goto('/setting?tab=operation');
  }

  if (demo) {
    await setOption(root, 'SelfUseModeEnabled', false);
    await page.reload();
    await expect(page.getByTestId('mode-tag')).toHaveText('演示站点');
  }

  // Put back at once (the other specs share this server), and the header loses 文档 again.
  for (const key of TOUCHED.slice(TOUCHED.indexOf('general_setting.docs_link'))) await setOption(root, key, before[key]!);
  await page.reload();
  await expect(page.getByLabel('文档地址')).toHaveValue(before['general_setting.docs_link'] ?? '');
  if (!before['general_setting.docs_link']) await expect(page.getByTestId('nav-docs')).toHaveCount(0);
  if (before.SelfUseModeEnabled !== 'true' && before.DemoSiteEnabled !== 'true') await expect(page.getByTestId('mode-tag')).toHaveCount(0);
});
