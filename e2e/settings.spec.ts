import { expect, request as playwrightRequest, test, type Page } from '@playwright/test';
import { apiCall, apiSession, registerUser, ROOT, setOption, signIn, toast, USER_PASSWORD } from './wallet-helpers';

/**
 * Personal settings (/setting, tab personal) over the real server: registration and login through
 * the forms, password change, access-token reset (and that the new token really authenticates),
 * referral transfer, model tags, self-deletion; in Chinese and in English where the flow is the
 * issue's acceptance test.
 */

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

const TEXTS = {
  zh: {
    registerUsername: '请输入用户名，最长 12 位',
    registerPassword: '输入密码，最短 8 位，最长 20 位',
    registerPassword2: '请再次输入密码',
    registerSubmit: '注册',
    registered: '注册成功！',
    loginUsername: '请输入用户名或邮箱',
    loginPassword: '请输入密码',
    loginSubmit: '登录',
    loggedIn: '登录成功！',
    tab: '个人设置',
    balance: '当前余额',
    used: '历史消耗',
    requests: '请求次数',
    changePassword: '修改密码',
    original: '请输入原密码',
    newPassword: '输入新密码，最短 8 位，最长 20 位',
    confirmPassword: '请再次输入新密码',
    requiredPasswordLabels: ['新密码', '确认新密码'],
    submitPassword: '确认修改',
    mismatch: '两次输入的密码不一致！',
    passwordChanged: '密码修改成功！',
    wrongOriginal: '原密码错误',
    generateToken: '生成令牌',
    confirm: '确定',
    tokenReset: '令牌已重置并已复制到剪贴板',
    wrongCredentials: '用户名或密码错误',
  },
  en: {
    registerUsername: 'Enter a username, at most 12 characters',
    registerPassword: 'Enter a password, 8 to 20 characters',
    registerPassword2: 'Enter the password again',
    registerSubmit: 'Sign up',
    registered: 'Registration successful!',
    loginUsername: 'Enter your username or email',
    loginPassword: 'Enter your password',
    loginSubmit: 'Log in',
    loggedIn: 'Login successful!',
    tab: 'Personal',
    balance: 'Balance',
    used: 'Total used',
    requests: 'Requests',
    changePassword: 'Change password',
    original: 'Enter your current password',
    newPassword: '8 to 20 characters',
    confirmPassword: 'Enter the new password again',
    requiredPasswordLabels: ['New password', 'Confirm new password'],
    submitPassword: 'Change password',
    mismatch: 'The passwords do not match',
    passwordChanged: 'Password changed',
    wrongOriginal: '原密码错误',
    generateToken: 'Generate token',
    confirm: 'OK',
    tokenReset: 'Token reset and copied to the clipboard',
    wrongCredentials: '用户名或密码错误',
  },
} as const;

type Language = keyof typeof TEXTS;

async function useLanguage(page: Page, language: Language): Promise<void> {
  await page.addInitScript((value) => localStorage.setItem('i18nextLng', value), language);
}

async function logInThroughForm(page: Page, language: Language, username: string, password: string): Promise<void> {
  const text = TEXTS[language];
  await page.goto('/login');
  await page.getByPlaceholder(text.loginUsername).fill(username);
  await page.getByPlaceholder(text.loginPassword).fill(password);
  await page.locator('form').getByRole('button', { name: text.loginSubmit, exact: true }).click();
}

function uniqueName(prefix: string): string {
  return `${prefix}${Date.now().toString(36).slice(-6)}${Math.floor(Math.random() * 36).toString(36)}`.slice(0, 12);
}

for (const language of ['zh', 'en'] as const) {
  const text = TEXTS[language];

  test(`[${language}] register, log in, change the password and reset the access token`, async ({ page }) => {
    await useLanguage(page, language);
    const username = uniqueName(`st${language}`);
    const firstPassword = 'first-pass-1';
    const secondPassword = 'second-pass-2';

    await page.goto('/register');
    await page.getByPlaceholder(text.registerUsername).fill(username);
    await page.getByPlaceholder(text.registerPassword).fill(firstPassword);
    await page.getByPlaceholder(text.registerPassword2).fill(firstPassword);
    await page.locator('form').getByRole('button', { name: text.registerSubmit, exact: true }).click();
    await expect(toast(page, text.registered)).toBeVisible();
    await expect(page).toHaveURL(/\/login$/);

    await logInThroughForm(page, language, username, firstPassword);
    await expect(toast(page, text.loggedIn)).toBeVisible();
    await page.goto('/setting');
    await expect(page.getByRole('tab', { name: text.tab })).toBeVisible();
    await expect(page.getByText(text.balance, { exact: true })).toBeVisible();
    await expect(page.getByText(text.used, { exact: true })).toBeVisible();
    await expect(page.getByText(text.requests, { exact: true })).toBeVisible();
    await expect(page.getByTestId('request-count')).toHaveText('0');
    await expect(page.getByTestId('invite-link')).toHaveValue(/\/register\?aff=[A-Za-z0-9]+$/);

    // Change password: the confirmation must match, the old password must be right.
    await page.getByRole('button', { name: text.changePassword }).click();
    const dialog = page.getByRole('dialog');
    // Both new-password fields carry the required mark (the original may be empty for OAuth accounts).
    await expect(dialog.locator('.semi-form-field-label-required')).toHaveText([...text.requiredPasswordLabels]);
    await dialog.getByPlaceholder(text.original).fill(firstPassword);
    await dialog.getByPlaceholder(text.newPassword).fill(secondPassword);
    await dialog.getByPlaceholder(text.confirmPassword).fill('something-else');
    await dialog.getByRole('button', { name: text.submitPassword }).click();
    await expect(dialog.getByText(text.mismatch).first()).toBeVisible();

    await dialog.getByPlaceholder(text.original).fill('not-my-password');
    await dialog.getByPlaceholder(text.confirmPassword).fill(secondPassword);
    await dialog.getByRole('button', { name: text.submitPassword }).click();
    await expect(toast(page, text.wrongOriginal)).toBeVisible();

    await dialog.getByPlaceholder(text.original).fill(firstPassword);
    await dialog.getByRole('button', { name: text.submitPassword }).click();
    await expect(toast(page, text.passwordChanged)).toBeVisible();
    await expect(dialog).toBeHidden();

    // Reset the system access token: it is shown, copied, and really authenticates.
    await page.getByRole('button', { name: text.generateToken }).click();
    await page.locator('.semi-popconfirm').getByRole('button', { name: text.confirm }).click();
    await expect(toast(page, text.tokenReset)).toBeVisible();
    const token = await page.getByTestId('access-token').inputValue();
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('user') ?? '{}') as { id: number });
    const anonymous = await playwrightRequest.newContext({ baseURL: new URL(page.url()).origin });
    const self = await anonymous.get('/api/user/self', { headers: { Authorization: `Bearer ${token}`, 'New-Api-User': String(stored.id) } });
    expect(await self.json()).toMatchObject({ success: true, data: { username } });
    await anonymous.dispose();

    // Only the new password opens the account now.
    await page.getByTestId('user-menu').click();
    await page.getByTestId('logout').click();
    await expect(page).toHaveURL(/\/login$/);
    await logInThroughForm(page, language, username, firstPassword);
    await expect(toast(page, text.wrongCredentials)).toBeVisible();
    await logInThroughForm(page, language, username, secondPassword);
    await expect(toast(page, text.loggedIn)).toBeVisible();
    await expect(page).not.toHaveURL(/\/login/);
  });
}

test('a blocked clipboard shows the new token for manual copying', async ({ page }) => {
  await page.addInitScript(() => {
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new Error('denied')) } });
    document.execCommand = () => false;
  });
  const username = await registerUser('clip');
  await signIn(page, username, USER_PASSWORD);
  // The super-administrator tabs are not offered to others: any ?tab= shows the personal tab.
  await page.goto('/setting?tab=system');
  await expect(page.getByRole('tab', { name: '个人设置' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tab')).toHaveCount(1);
  await page.getByRole('button', { name: '生成令牌' }).click();
  await page.locator('.semi-popconfirm').getByRole('button', { name: '确定' }).click();
  const manual = page.getByRole('dialog').filter({ hasText: '无法复制到剪贴板，请手动复制' });
  await expect(manual).toBeVisible();
  const token = await page.getByTestId('access-token').inputValue();
  await expect(manual.locator('.mg-manual-copy')).toHaveText(token);
});

test('available models show ten tags first, then all behind the toggle', async ({ page }) => {
  const root = await apiSession(ROOT.username, ROOT.password);
  const group = `e2em${Date.now().toString(36).slice(-5)}`;
  const models = Array.from({ length: 12 }, (_, index) => `e2e-model-${String(index + 1).padStart(2, '0')}`);
  await apiCall(root, 'POST', '/api/channel/', { type: 1, name: `models ${group}`, key: 'sk-e2e-models', group, models: models.join(',') });
  const username = await registerUser('mdl');
  const list = await apiCall<{ items: Array<{ id: number }> }>(root, 'GET', `/api/user/search?keyword=${username}`);
  await apiCall(root, 'PUT', '/api/user/', { id: list.items[0]!.id, group });

  await signIn(page, username, USER_PASSWORD);
  await page.goto('/setting');
  const tags = page.getByTestId('model-tags').locator('.semi-tag');
  await expect(tags).toHaveCount(10);
  await page.getByRole('button', { name: '显示更多（共 12 个）' }).click();
  await expect(tags).toHaveCount(12);
  await expect(tags.last()).toHaveText('e2e-model-12');
  await page.getByRole('button', { name: '收起', exact: true }).click();
  await expect(tags).toHaveCount(10);
  await root.api.dispose();
});

test('referral earnings move to the balance, at least one unit at a time', async ({ page }) => {
  const root = await apiSession(ROOT.username, ROOT.password);
  const options = await apiCall<Array<{ key: string; value: string }>>(root, 'GET', '/api/option/');
  const previous = options.find((option) => option.key === 'QuotaForInviter')?.value ?? '0';
  await setOption(root, 'QuotaForInviter', 1_500_000);
  try {
    const inviter = await registerUser('inv');
    const session = await apiSession(inviter, USER_PASSWORD);
    const code = await apiCall<string>(session, 'GET', '/api/user/aff');
    const invitee = await playwrightRequest.newContext({ baseURL: `http://127.0.0.1:${process.env.MODELGATE_E2E_PORT}` });
    const name = uniqueName('ive');
    await invitee.post('/api/user/register', { data: { username: name, password: USER_PASSWORD, password2: USER_PASSWORD, aff_code: code } });
    await invitee.dispose();
    const before = await apiCall<{ quota: number }>(session, 'GET', '/api/user/self');

    await signIn(page, inviter, USER_PASSWORD);
    await page.goto('/setting');
    await expect(page.getByTestId('invite-link')).toHaveValue(new RegExp(`/register\\?aff=${code}$`));
    await expect(page.getByTestId('aff-quota')).toHaveText('$3.00');
    await page.getByRole('button', { name: '划转到余额' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('spinbutton').fill('100');
    await dialog.getByRole('button', { name: '确认划转' }).click();
    await expect(toast(page, '划转金额最低为 $1.00')).toBeVisible();

    await dialog.getByRole('spinbutton').fill('1500000');
    await dialog.getByRole('button', { name: '确认划转' }).click();
    await expect(toast(page, '划转成功')).toBeVisible();
    await expect(page.getByTestId('aff-quota')).toHaveText('$0.00');
    const after = await apiCall<{ quota: number; aff_quota: number }>(session, 'GET', '/api/user/self');
    expect(after.quota - before.quota).toBe(1_500_000);
    expect(after.aff_quota).toBe(0);
    await session.api.dispose();
  } finally {
    await setOption(root, 'QuotaForInviter', previous);
    await root.api.dispose();
  }
});

test('binding an email asks for the address, then the code', async ({ page }) => {
  const username = await registerUser('eml');
  await signIn(page, username, USER_PASSWORD);
  await page.goto('/setting');
  await page.getByTestId('binding-email').getByRole('button', { name: '绑定邮箱' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: '确认绑定' }).click();
  await expect(toast(page, '请输入邮箱！')).toBeVisible();
  await dialog.getByPlaceholder('输入邮箱地址').fill('someone@example.com');
  await dialog.getByRole('button', { name: '确认绑定' }).click();
  await expect(toast(page, '请输入邮箱验证码！')).toBeVisible();
});

test('deleting the account needs the username typed, then signs out for good', async ({ page }) => {
  const username = await registerUser('del');
  await logInThroughForm(page, 'zh', username, USER_PASSWORD);
  await expect(toast(page, '登录成功！')).toBeVisible();
  await page.goto('/setting');
  await page.getByRole('button', { name: '删除个人账户' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByPlaceholder('输入你的账户名以确认删除').fill(`${username}x`);
  await dialog.getByRole('button', { name: '确认删除' }).click();
  await expect(toast(page, '请输入你的账户名以确认删除！')).toBeVisible();
  await expect(page).toHaveURL(/\/setting/);

  await dialog.getByPlaceholder('输入你的账户名以确认删除').fill(username);
  await dialog.getByRole('button', { name: '确认删除' }).click();
  await expect(toast(page, '账户已删除！')).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();

  await logInThroughForm(page, 'zh', username, USER_PASSWORD);
  await expect(toast(page, '用户名或密码错误')).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
});
