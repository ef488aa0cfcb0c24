import { expect, test, type Page } from '@playwright/test';
import { apiCall, apiSession, registerUser, ROOT, signIn, toast, USER_PASSWORD, type ApiSession } from './wallet-helpers';

/**
 * /redemption over the real server: an admin creates codes in a batch and sees and copies the keys,
 * searches, disables, edits and deletes; the form rejects out-of-range input; ordinary users never
 * see the screen.
 */

let root: ApiSession;

test.beforeAll(async () => {
  root = await apiSession(ROOT.username, ROOT.password);
});

test.afterAll(async () => {
  await root.api.dispose();
});

test.beforeEach(async ({ context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
});

const readClipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

function uniqueName(prefix: string): string {
  return `${prefix}${Date.now().toString(36).slice(-5)}`;
}

test('an admin creates codes in a batch, sees the keys and copies them all', async ({ page }) => {
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/redemption');
  await expect(page.getByRole('heading', { name: '兑换码' })).toBeVisible();

  const name = uniqueName('batch');
  await page.getByTestId('add-redemption').click();
  const form = page.getByRole('dialog').filter({ hasText: '创建新的兑换码' });
  await expect(form.getByLabel('额度')).toHaveValue('100000');
  await expect(form.getByLabel('生成数量')).toHaveValue('1');
  await form.getByLabel('名称').fill(name);
  await form.getByLabel('额度').fill('250000');
  await form.getByLabel('生成数量').fill('3');
  await form.getByTestId('redemption-form-submit').click();

  await expect(toast(page, '兑换码创建成功！')).toBeVisible();
  const keysDialog = page.getByRole('dialog').filter({ hasText: '已生成 3 个兑换码' });
  const keyItems = keysDialog.getByTestId('created-keys').locator('li');
  await expect(keyItems).toHaveCount(3);
  const keys = await keyItems.allTextContents();
  for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
  expect(new Set(keys).size).toBe(3);

  await keysDialog.getByTestId('copy-all-keys').click();
  await expect(toast(page, '已复制到剪贴板')).toBeVisible();
  expect(await readClipboard(page)).toBe(keys.join('\n'));
  await keysDialog.getByRole('button', { name: '关闭' }).click();
  await expect(keysDialog).toBeHidden();

  // The new rows are listed, unused, with the quota formatted ($0.50 at 500,000 per dollar).
  const rows = page.locator('.semi-table-tbody .semi-table-row').filter({ hasText: name });
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toContainText('未使用');
  await expect(rows.first()).toContainText('$0.50');
  await expect(rows.first()).toContainText('无');

  // The server holds exactly those keys under that name.
  const listed = await apiCall<{ items: Array<{ name: string; key: string }> }>(root, 'GET', `/api/redemption/search?keyword=${name}`);
  expect(listed.items.map((item) => item.key).sort()).toEqual([...keys].sort());
});

test('an empty name defaults to the formatted quota', async ({ page }) => {
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/redemption');
  await page.getByTestId('add-redemption').click();
  const form = page.getByRole('dialog').filter({ hasText: '创建新的兑换码' });
  await form.getByLabel('额度').fill('1234567');
  await form.getByTestId('redemption-form-submit').click();
  const keysDialog = page.getByRole('dialog').filter({ hasText: '兑换码创建成功' });
  const key = (await keysDialog.getByTestId('created-keys').locator('li').first().textContent()) ?? '';
  await keysDialog.getByRole('button', { name: '关闭' }).click();
  const listed = await apiCall<{ items: Array<{ name: string; key: string }> }>(root, 'GET', '/api/redemption/?p=1&page_size=100');
  expect(listed.items.find((item) => item.key === key)?.name).toBe('$2.47');
});

test('the create form rejects counts outside 1 to 100 and a non-positive quota', async ({ page }) => {
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/redemption');
  await page.getByTestId('add-redemption').click();
  const form = page.getByRole('dialog').filter({ hasText: '创建新的兑换码' });
  await form.getByLabel('生成数量').fill('101');
  await form.getByLabel('额度').fill('0');
  await form.getByTestId('redemption-form-submit').click();
  await expect(form.getByText('数量必须是 1 到 100 之间的整数')).toBeVisible();
  await expect(form.getByText('额度必须是大于 0 的整数')).toBeVisible();
  await expect(form).toBeVisible();
  // The name field stops at 20 characters.
  await form.getByLabel('名称').fill('x'.repeat(25));
  await expect(form.getByLabel('名称')).toHaveValue('x'.repeat(20));
});

test('search, disable, enable, edit, copy selected and delete', async ({ page }) => {
  const name = uniqueName('ops');
  const keys = await apiCall<string[]>(root, 'POST', '/api/redemption/', { name, quota: 100000, count: 2 });
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/redemption');

  await page.getByPlaceholder('关键字(id或者名称)').fill(name);
  await page.getByRole('button', { name: '查询' }).click();
  await expect(page).toHaveURL(new RegExp(`keyword=${name}`));
  const rows = page.locator('.semi-table-tbody .semi-table-row');
  await expect(rows).toHaveCount(2);

  // Copy selected needs a selection.
  await page.getByTestId('copy-selected').click();
  await expect(toast(page, '请至少选择一个兑换码！')).toBeVisible();
  await page.locator('.semi-table-thead .semi-checkbox').click();
  await page.getByTestId('copy-selected').click();
  const copied = (await readClipboard(page)).split('\n').sort();
  expect(copied).toEqual(keys.map((key) => `${name}    ${key}`).sort());

  // Enable and disable sit under the row's "more" menu.
  const first = rows.first();
  await first.getByRole('button', { name: '更多' }).click();
  await page.getByRole('menuitem', { name: '禁用' }).click();
  await expect(first).toContainText('已禁用');
  await expect(first.getByRole('button', { name: '编辑' })).toBeDisabled();
  await first.getByRole('button', { name: '更多' }).click();
  await page.getByRole('menuitem', { name: '启用' }).click();
  await expect(first).toContainText('未使用');

  await first.getByRole('button', { name: '编辑' }).click();
  const edit = page.getByRole('dialog').filter({ hasText: '更新兑换码信息' });
  await expect(edit.getByLabel('名称')).toHaveValue(name);
  await edit.getByLabel('名称').fill('');
  await edit.getByTestId('redemption-form-submit').click();
  await expect(edit.getByText('兑换码名称长度必须在 1 到 20 之间')).toBeVisible();
  await edit.getByLabel('名称').fill(`${name}-x`);
  await edit.getByLabel('额度').fill('300000');
  await edit.getByTestId('redemption-form-submit').click();
  await expect(toast(page, '兑换码更新成功！')).toBeVisible();
  await expect(rows.filter({ hasText: `${name}-x` })).toContainText('$0.60');

  await rows
    .filter({ hasText: `${name}-x` })
    .getByRole('button', { name: '更多' })
    .click();
  await page.getByRole('menuitem', { name: '删除' }).click();
  await page.getByRole('dialog').filter({ hasText: '确定是否要删除此兑换码？' }).locator('button', { hasText: '确定' }).click();
  await expect(rows).toHaveCount(1);
  const remaining = await apiCall<{ total: number }>(root, 'GET', `/api/redemption/search?keyword=${name}`);
  expect(remaining.total).toBe(1);
});

test('a used code shows its redeemer and can be neither edited nor enabled', async ({ page }) => {
  const name = uniqueName('used');
  const [key] = await apiCall<string[]>(root, 'POST', '/api/redemption/', { name, quota: 100000, count: 1 });
  const username = await registerUser('red');
  const user = await apiSession(username, USER_PASSWORD);
  await apiCall(user, 'POST', '/api/user/topup', { key });
  await user.api.dispose();

  await signIn(page, ROOT.username, ROOT.password);
  await page.goto(`/redemption?keyword=${name}`);
  const row = page.locator('.semi-table-tbody .semi-table-row').filter({ hasText: name });
  await expect(row).toContainText('已使用');
  await expect(row).toContainText(String(user.user.id));
  await expect(row.getByRole('button', { name: '编辑' })).toBeDisabled();
  await row.getByRole('button', { name: '更多' }).click();
  await expect(page.getByRole('menuitem', { name: '启用' })).toHaveAttribute('aria-disabled', 'true');
});

test('ordinary users have no redemption screen', async ({ page }) => {
  const username = await registerUser('plain');
  await signIn(page, username, USER_PASSWORD);
  await page.goto('/topup');
  await expect(page.locator('.mg-side-nav')).toContainText('钱包');
  await expect(page.locator('.mg-side-nav')).not.toContainText('兑换码');
  await page.goto('/redemption');
  await expect(page.getByText('页面不存在')).toBeVisible();
});
