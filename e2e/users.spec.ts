import { expect, request as playwrightRequest, test, type Locator, type Page } from '@playwright/test';
import { apiCall, apiSession, registerUser, ROOT, signIn, toast, USER_PASSWORD } from './wallet-helpers';

/**
 * User management (/user, 管理用户) over the real server: promote, demote, disable and enable with
 * the role and status the server answers, the add and edit drawers, the add-quota modal, deregistered
 * rows, paging and the admin-only guard.
 */

const TEXTS = {
  zh: {
    title: '管理用户',
    search: '搜索用户的 ID，用户名，显示名称，以及邮箱地址 ...',
    searchButton: '查询',
    promote: '提升',
    demote: '降级',
    disable: '禁用',
    enable: '启用',
    confirm: '确定',
    more: '更多操作',
    done: '操作成功完成！',
    common: '普通用户',
    admin: '管理员',
    active: '已激活',
    banned: '已封禁',
  },
  en: {
    title: 'Users',
    search: 'Search by ID, username, display name or email…',
    searchButton: 'Search',
    promote: 'Promote',
    demote: 'Demote',
    disable: 'Disable',
    enable: 'Enable',
    confirm: 'OK',
    more: 'More actions',
    done: 'Done',
    common: 'User',
    admin: 'Admin',
    active: 'Active',
    banned: 'Banned',
  },
} as const;

function baseURL(): string {
  return `http://127.0.0.1:${process.env.MODELGATE_E2E_PORT}`;
}

function rowOf(page: Page, username: string): Locator {
  return page.locator(`tr[data-username="${username}"]`);
}

async function searchFor(page: Page, language: keyof typeof TEXTS, keyword: string): Promise<void> {
  await page.getByPlaceholder(TEXTS[language].search).fill(keyword);
  await page.getByRole('button', { name: TEXTS[language].searchButton }).click();
  await expect(page).toHaveURL(new RegExp(`keyword=${keyword}`));
}

async function loginAnswer(username: string): Promise<{ success: boolean; message: string }> {
  const api = await playwrightRequest.newContext({ baseURL: baseURL() });
  const response = await api.post('/api/user/login', { data: { username, password: USER_PASSWORD } });
  const body = (await response.json()) as { success: boolean; message: string };
  await api.dispose();
  return body;
}

for (const language of ['zh', 'en'] as const) {
  const text = TEXTS[language];

  test(`[${language}] an admin promotes, disables, enables and demotes a user`, async ({ page }) => {
    await page.addInitScript((value) => localStorage.setItem('i18nextLng', value), language);
    const username = await registerUser(`pm${language}`);
    await signIn(page, ROOT.username, ROOT.password);
    await page.goto('/user');
    await expect(page.getByRole('heading', { name: text.title })).toBeVisible();
    await searchFor(page, language, username);

    const row = rowOf(page, username);
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(text.common);
    await expect(row).toContainText(text.active);

    // Promote and demote sit under the row's "more" menu and ask first.
    await row.getByRole('button', { name: text.more }).click();
    await page.getByRole('menuitem', { name: text.promote }).click();
    await page.getByRole('dialog').locator('button', { hasText: text.confirm }).click();
    await expect(toast(page, text.done)).toBeVisible();
    await expect(row.locator('td').nth(4)).toHaveText(text.admin);

    await row.getByRole('button', { name: text.disable }).click();
    await expect(row.locator('td').nth(5)).toHaveText(text.banned);
    await expect(row.getByRole('button', { name: text.enable })).toBeVisible();
    // The server really refuses the banned user.
    expect(await loginAnswer(username)).toMatchObject({ success: false, message: '用户已被封禁' });

    // The row reflects the server after a reload too.
    await page.reload();
    await expect(rowOf(page, username).locator('td').nth(5)).toHaveText(text.banned);
    await expect(rowOf(page, username).locator('td').nth(4)).toHaveText(text.admin);

    await rowOf(page, username).getByRole('button', { name: text.enable }).click();
    await expect(rowOf(page, username).locator('td').nth(5)).toHaveText(text.active);
    expect(await loginAnswer(username)).toMatchObject({ success: true });

    await rowOf(page, username).getByRole('button', { name: text.more }).click();
    await page.getByRole('menuitem', { name: text.demote }).click();
    await page.getByRole('dialog').locator('button', { hasText: text.confirm }).click();
    await expect(rowOf(page, username).locator('td').nth(4)).toHaveText(text.common);
  });
}

test("root's own row offers no action the server refuses; each says why", async ({ page }) => {
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/user?keyword=root');
  const row = rowOf(page, 'root');
  await expect(row.getByRole('button', { name: '禁用' })).toBeDisabled();
  await expect(row.getByRole('button', { name: '编辑' })).toBeEnabled();
  await row.getByTestId('user-action-denied-disable').hover();
  await expect(page.locator('.semi-tooltip-content')).toHaveText('无法禁用超级管理员用户');
  await page.screenshot({ path: '.tmp/screens/users-root-row-zh-1440.png' });
  await row.getByRole('button', { name: '更多操作' }).click();
  for (const name of ['提升', '降级', '注销']) await expect(page.getByRole('menuitem', { name })).toHaveAttribute('aria-disabled', 'true');
  await page.getByTestId('user-action-denied-delete').hover();
  await expect(page.locator('.semi-tooltip-content').filter({ hasText: '无法删除超级管理员用户' })).toBeVisible();
  await page.keyboard.press('Escape');
  // A click on a disabled action sends nothing: no refusal pops up and the row stays.
  await row.getByTestId('user-action-denied-disable').click({ force: true });
  await expect(toast(page, '无法禁用超级管理员用户')).toHaveCount(0);
  await expect(row.locator('td').nth(5)).toHaveText('已激活');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(row.getByRole('button', { name: '禁用' })).toBeDisabled();
  await page.screenshot({ path: '.tmp/screens/users-root-row-zh-390.png', fullPage: true });
});

test('a regular admin cannot promote, nor act on another admin or root; the rows say why', async ({ page }) => {
  const admin = await registerUser('adm');
  const otherAdmin = await registerUser('adm2');
  const target = await registerUser('tgt');
  const root = await apiSession(ROOT.username, ROOT.password);
  for (const name of [admin, otherAdmin]) {
    const found = await apiCall<{ items: Array<{ id: number }> }>(root, 'GET', `/api/user/search?keyword=${name}`);
    await apiCall(root, 'POST', '/api/user/manage', { id: found.items[0]!.id, action: 'promote' });
  }
  await root.api.dispose();

  await page.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
  await signIn(page, admin, USER_PASSWORD);
  await page.goto(`/user?keyword=${target}`);
  const common = rowOf(page, target);
  await common.getByRole('button', { name: 'More actions' }).click();
  await expect(page.getByRole('menuitem', { name: 'Promote' })).toHaveAttribute('aria-disabled', 'true');
  await page.getByTestId('user-action-denied-promote').hover();
  // The open menu is a tooltip too: the reason is the other one.
  await expect(page.locator('.semi-tooltip-content').filter({ hasText: 'Only the super' })).toHaveText(
    'Only the super administrator can promote users to administrator',
  );
  await page.keyboard.press('Escape');
  // What the admin may do stays available, and works.
  await common.getByRole('button', { name: 'Disable' }).click();
  await expect(common.locator('td').nth(5)).toHaveText('Banned');

  for (const name of [otherAdmin, 'root']) {
    await page.goto(`/user?keyword=${name}`);
    const row = rowOf(page, name);
    for (const action of ['Disable', 'Edit']) await expect(row.getByRole('button', { name: action })).toBeDisabled();
    await row.getByRole('button', { name: 'More actions' }).click();
    for (const action of ['Promote', 'Demote', 'Delete']) await expect(page.getByRole('menuitem', { name: action })).toHaveAttribute('aria-disabled', 'true');
    await page.keyboard.press('Escape');
    // The menu is a tooltip too and fades out: wait until it is gone, then read the row's reason.
    await expect(page.getByRole('menuitem', { name: 'Promote' })).toHaveCount(0);
    await row.getByTestId('user-action-denied-edit').hover();
    await expect(page.locator('.semi-tooltip-content').filter({ hasText: 'You cannot change' })).toHaveText(
      'You cannot change users at your own level or above',
    );
  }
});

test('the add-user drawer validates and creates the user', async ({ page }) => {
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/user');
  await page.getByRole('button', { name: '添加用户' }).click();
  const drawer = page.locator('.semi-sidesheet');
  await drawer.getByTestId('drawer-submit').click();
  await expect(toast(page, '用户名和密码不能为空！')).toBeVisible();

  const username = `new${Date.now().toString(36).slice(-7)}`;
  await drawer.getByPlaceholder('请输入用户名，最长 12 位').fill(username);
  await drawer.getByPlaceholder('请输入显示名称').fill('新来的');
  await drawer.getByPlaceholder('请输入密码，最短 8 位，最长 20 位').fill('short');
  await drawer.getByTestId('drawer-submit').click();
  await expect(drawer.getByText('密码长度不得小于 8 位！')).toBeVisible();

  await drawer.getByPlaceholder('请输入密码，最短 8 位，最长 20 位').fill(USER_PASSWORD);
  await drawer.getByTestId('drawer-submit').click();
  await expect(toast(page, '用户账户创建成功！')).toBeVisible();
  await expect(drawer).toBeHidden();
  await searchFor(page, 'zh', username);
  await expect(rowOf(page, username)).toContainText('新来的');
  expect(await loginAnswer(username)).toMatchObject({ success: true });
});

test('the edit drawer changes name, group and password, and adds quota with a preview', async ({ page }) => {
  const username = await registerUser('edt');
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto(`/user?keyword=${username}`);
  const row = rowOf(page, username);
  await row.getByRole('button', { name: '编辑' }).click();
  await expect(page).toHaveURL(/\/user\/edit\/\d+\?keyword=/);
  const drawer = page.locator('.semi-sidesheet');
  await expect(drawer.getByText('编辑用户')).toBeVisible();
  await expect(drawer.getByText('此项只读，需要用户通过个人设置页面的相关绑定按钮进行绑定，不可直接修改')).toBeVisible();

  await drawer.getByPlaceholder('请输入显示名称').fill('改过的名字');
  await drawer.getByPlaceholder('请输入新的密码，最短 8 位；留空则不修改').fill('changed-pass-9');

  // Add-quota modal: old + added = new, applied at once by the server.
  const quotaInput = drawer.getByPlaceholder('请输入额度');
  const before = Number(await quotaInput.inputValue());
  await drawer.getByRole('button', { name: '添加额度' }).click();
  const modal = page.locator('.mg-add-quota-modal');
  await modal.getByPlaceholder('请输入要添加的额度（负数表示扣减）').fill('500000');
  await expect(modal.getByTestId('quota-preview')).toHaveText(/^新额度：\$[\d.]+ \+ \$1\.00 = \$[\d.]+$/);
  await modal.getByRole('button', { name: '确定' }).click();
  await expect(toast(page, '操作成功完成！')).toBeVisible();
  await expect(quotaInput).toHaveValue(String(before + 500_000));

  // A negative amount subtracts.
  await drawer.getByRole('button', { name: '添加额度' }).click();
  await modal.getByPlaceholder('请输入要添加的额度（负数表示扣减）').fill('-100000');
  await expect(modal.getByTestId('quota-preview')).toContainText(' - ');
  await modal.getByRole('button', { name: '确定' }).click();
  await expect(quotaInput).toHaveValue(String(before + 400_000));

  await drawer.getByTestId('drawer-submit').click();
  await expect(toast(page, '用户信息更新成功！')).toBeVisible();
  await expect(page).toHaveURL(/\/user\?keyword=/);
  await expect(row).toContainText('改过的名字');

  const session = await apiSession(username, 'changed-pass-9');
  const self = await apiCall<{ quota: number; display_name: string }>(session, 'GET', '/api/user/self');
  expect(self).toMatchObject({ quota: before + 400_000, display_name: '改过的名字' });
  await session.api.dispose();
});

test('a deregistered user is shown as such, without actions', async ({ page }) => {
  const username = await registerUser('gone');
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto(`/user?keyword=${username}`);
  const row = rowOf(page, username);
  await row.getByRole('button', { name: '更多操作' }).click();
  await page.getByRole('menuitem', { name: '注销' }).click();
  await page.getByRole('dialog').locator('button', { hasText: '确定' }).click();
  await expect(toast(page, '操作成功完成！')).toBeVisible();
  await expect(row.locator('td').nth(5)).toHaveText('已注销');
  await expect(row.getByRole('button')).toHaveCount(0);
  expect((await loginAnswer(username)).success).toBe(false);
});

test('paging: the page lives in the URL and the page size in localStorage', async ({ page }) => {
  const prefix = `pg${Date.now().toString(36).slice(-4)}`;
  const root = await apiSession(ROOT.username, ROOT.password);
  for (let index = 0; index < 12; index += 1) {
    await apiCall(root, 'POST', '/api/user/', { username: `${prefix}${String(index).padStart(2, '0')}`, password: USER_PASSWORD });
  }
  await root.api.dispose();

  await signIn(page, ROOT.username, ROOT.password);
  await page.goto(`/user?keyword=${prefix}`);
  const rows = page.locator('tr[data-username]');
  await expect(rows).toHaveCount(10);
  await expect(page.getByText('第 1 - 10 条，共 12 条')).toBeVisible();
  await page.locator('.semi-page-item').filter({ hasText: /^2$/ }).click();
  await expect(page).toHaveURL(/[?&]p=2/);
  await expect(rows).toHaveCount(2);

  await page.reload();
  await expect(rows).toHaveCount(2);
  await page.locator('.semi-page-switch .semi-select').click();
  await page.locator('.semi-select-option').filter({ hasText: '20' }).first().click();
  await expect(rows).toHaveCount(12);
  expect(await page.evaluate(() => localStorage.getItem('page-size'))).toBe('20');
  await expect(page).not.toHaveURL(/[?&]p=/);
});

test("/user/edit opens the signed-in admin's own account", async ({ page }) => {
  const admin = await registerUser('slf');
  const root = await apiSession(ROOT.username, ROOT.password);
  const found = await apiCall<{ items: Array<{ id: number }> }>(root, 'GET', `/api/user/search?keyword=${admin}`);
  await apiCall(root, 'POST', '/api/user/manage', { id: found.items[0]!.id, action: 'promote' });
  await root.api.dispose();

  await signIn(page, admin, USER_PASSWORD);
  await page.goto('/user/edit');
  const drawer = page.locator('.semi-sidesheet');
  await expect(drawer.getByText('编辑个人信息')).toBeVisible();
  await expect(drawer.getByPlaceholder('请输入用户名，最长 12 位')).toHaveValue(admin);
  await drawer.getByPlaceholder('请输入显示名称').fill('我自己');
  await drawer.getByTestId('drawer-submit').click();
  await expect(toast(page, '用户信息更新成功！')).toBeVisible();
  await expect(page).toHaveURL(/\/user$/);
  await expect(page.getByTestId('user-menu')).toContainText('我自己');
});

test('ordinary users cannot open the users screen', async ({ page }) => {
  const username = await registerUser('nop');
  await signIn(page, username, USER_PASSWORD);
  await page.goto('/user');
  await expect(page.getByText('页面不存在')).toBeVisible();
});
