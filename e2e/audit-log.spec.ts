import { expect, test, type Page } from '@playwright/test';
import { apiCall, apiSession, presetLanguageAndTheme, registerUser, ROOT, signIn, toast, USER_PASSWORD } from './wallet-helpers';

/**
 * The audit log (issue 28 point 5) through the real pages: an administrator changes a user's quota
 * with the add-quota modal, opens 审计日志 from the side navigation, filters by action and by
 * actor, and finds the row with the quota before and after; root's own rows stay hidden from it.
 */

const TEXTS = {
  zh: {
    nav: '审计日志',
    edit: '编辑',
    addQuota: '添加额度',
    quotaPlaceholder: '请输入要添加的额度（负数表示扣减）',
    apply: '确定',
    done: '操作成功完成！',
    cancel: '取消',
    actionName: '调整用户额度',
    actor: '操作人用户名',
    search: '查询',
    before: '修改前',
    after: '修改后',
    admin: '管理员',
    empty: '没有符合条件的审计记录',
    quotaSummary: /的额度：.+ → .+/,
  },
  en: {
    nav: 'Audit log',
    edit: 'Edit',
    addQuota: 'Add quota',
    quotaPlaceholder: 'Quota units to add (negative subtracts)',
    apply: 'Apply',
    done: 'Done',
    cancel: 'Cancel',
    actionName: 'Change user quota',
    actor: 'Actor username',
    search: 'Search',
    before: 'Before',
    after: 'After',
    admin: 'Admin',
    empty: 'No audit entries match',
    quotaSummary: /^Quota of .+: .+ → .+$/,
  },
} as const;

async function pickAction(page: Page, option: string): Promise<void> {
  await page.getByTestId('audit-filter-action').click();
  await page.locator('.semi-select-option').filter({ hasText: option }).first().click();
  await expect(page.getByTestId('audit-filter-action')).toContainText(option);
}

for (const language of ['zh', 'en'] as const) {
  const text = TEXTS[language];

  test(`[${language}] an admin's quota change shows in the audit log with before and after`, async ({ page }) => {
    const root = await apiSession(ROOT.username, ROOT.password);
    const admin = await registerUser(`aud${language}`);
    const target = await registerUser(`tq${language}`);
    const found = await apiCall<{ items: Array<{ id: number; username: string; quota: number }> }>(root, 'GET', `/api/user/search?keyword=${admin}`);
    await apiCall(root, 'POST', '/api/user/manage', { id: found.items[0]!.id, action: 'promote' });
    const targetRow = (await apiCall<{ items: Array<{ id: number; quota: number }> }>(root, 'GET', `/api/user/search?keyword=${target}`)).items[0]!;
    // Something root alone did, which an administrator's audit log must not show (an option no
    // other spec reads: the e2e server is shared, and a notice would pop up on every later page).
    await apiCall(root, 'PUT', '/api/option/', { key: 'AuditLogRetentionDays', value: language === 'zh' ? '200' : '201' });

    await presetLanguageAndTheme(page, language, language === 'zh' ? 'light' : 'dark');
    await signIn(page, admin, USER_PASSWORD);

    // The quota change, in the user screen's add-quota modal.
    await page.goto(`/user?keyword=${target}`);
    await page.locator(`tr[data-username="${target}"]`).getByRole('button', { name: text.edit }).click();
    const drawer = page.locator('.semi-sidesheet');
    await drawer.getByRole('button', { name: text.addQuota }).click();
    const modal = page.locator('.mg-add-quota-modal');
    await modal.getByPlaceholder(text.quotaPlaceholder).fill('500000');
    await modal.getByRole('button', { name: text.apply }).click();
    await expect(toast(page, text.done)).toBeVisible();
    // The quota is applied at once; the drawer is closed without saving anything else.
    await drawer.getByRole('button', { name: text.cancel }).click();
    await expect(drawer).toBeHidden();

    // 审计日志 from the side navigation.
    await page.locator('.mg-side-nav').getByText(text.nav, { exact: true }).click();
    await expect(page).toHaveURL(/\/audit$/);
    await expect(page.getByRole('heading', { name: text.nav })).toBeVisible();

    // Filter by action and by the administrator's name.
    await pickAction(page, text.actionName);
    await page.getByPlaceholder(text.actor).fill(admin);
    await page.getByRole('button', { name: text.search }).click();
    await expect(page).toHaveURL(/action=user\.quota_change/);
    await expect(page).toHaveURL(new RegExp(`actor=${admin}`));

    const rows = page.locator('tr[data-testid^="audit-row-"]');
    await expect(rows).toHaveCount(1);
    const row = rows.first();
    await expect(row).toContainText(admin);
    await expect(row).toContainText(text.admin);
    await expect(row).toContainText('127.0.0.1');
    await expect(row).toContainText(text.actionName);
    await expect(row.locator('[data-testid^="audit-summary-"]')).toHaveText(text.quotaSummary);
    await expect(row.locator('[data-testid^="audit-summary-"]')).toContainText(target);

    // Expanded: the quota before and after, as the server recorded them.
    await row.locator('.semi-table-expand-icon').click();
    const details = page.locator('[data-testid^="audit-details-"]');
    await expect(details).toBeVisible();
    await expect(details.getByRole('columnheader', { name: text.before })).toBeVisible();
    await expect(details.getByRole('columnheader', { name: text.after })).toBeVisible();
    const quota = details.getByTestId('audit-diff-quota');
    await expect(quota.locator('td').nth(1)).toHaveText(String(targetRow.quota));
    await expect(quota.locator('td').nth(2)).toHaveText(String(targetRow.quota + 500_000));
    await page.screenshot({ path: `.tmp/screens/audit-${language}.png` });

    // Root's rows are not an administrator's to read.
    await page.goto('/audit?actor=root');
    await expect(page.getByText(text.empty)).toBeVisible();
    const seen = await page.evaluate(async (userId) => {
      const response = await fetch('/api/audit/?page_size=100', { headers: { 'New-Api-User': String(userId) } });
      return (await response.json()) as { data: { items: Array<{ actor_role: number }> } };
    }, found.items[0]!.id);
    expect(seen.data.items.length).toBeGreaterThan(0);
    expect(seen.data.items.every((item) => item.actor_role < 100)).toBe(true);

    // At 390 px the screen still fits: filters stacked, the search button on screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/audit');
    await expect(page.getByRole('button', { name: text.search })).toBeInViewport();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `.tmp/screens/audit-${language}-390.png`, fullPage: true });
    await root.api.dispose();
  });
}

test('the audit log is for administrators: a user is sent away and the API refuses', async ({ page }) => {
  const username = await registerUser('audu');
  const user = await signIn(page, username, USER_PASSWORD);
  await page.goto('/audit');
  await expect(page.locator('.mg-side-nav').getByText('审计日志')).toHaveCount(0);
  const answer = await page.evaluate(async (userId) => {
    const response = await fetch('/api/audit/', { headers: { 'New-Api-User': String(userId) } });
    return (await response.json()) as { success: boolean; message: string };
  }, user.id);
  expect(answer).toEqual({ success: false, message: '无权进行此操作，权限不足' });
});
