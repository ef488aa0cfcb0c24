import { expect, test, type CDPSession, type Page } from '@playwright/test';
import { apiCall, apiSession, presetLanguageAndTheme, registerUser, ROOT, signIn, toast, USER_PASSWORD } from './wallet-helpers';

/**
 * Issue 28, passkeys, through the real pages with Chromium's virtual authenticator (DevTools
 * protocol WebAuthn): add a passkey from the personal settings (after the security verification),
 * sign out, sign in with it and no password, remove it, and an administrator's reset. WebAuthn
 * needs a secure context: the pages are opened at http://localhost, which is one (127.0.0.1 is
 * not a valid relying-party id).
 */

const LOCAL = `http://localhost:${process.env.MODELGATE_E2E_PORT}`;

const TEXTS = {
  zh: {
    loginUsername: '请输入用户名或邮箱',
    loginPassword: '请输入密码',
    loginSubmit: '登录',
    loggedIn: '登录成功！',
    card: '通行密钥',
    add: '添加通行密钥',
    namePlaceholder: '例如：我的笔记本电脑',
    next: '继续',
    verifyPassword: '请输入当前登录密码',
    verifySubmit: '验证',
    verifyPasskey: '使用通行密钥验证',
    added: '通行密钥添加成功',
    empty: '尚未添加通行密钥',
    passkeyLogin: '使用通行密钥登录',
    remove: '删除',
    confirm: '确定',
    removed: '通行密钥已删除',
    reset: '重置通行密钥',
    more: '更多操作',
    resetDone: '通行密钥已重置',
  },
  en: {
    loginUsername: 'Enter your username or email',
    loginPassword: 'Enter your password',
    loginSubmit: 'Log in',
    loggedIn: 'Login successful!',
    card: 'Passkeys',
    add: 'Add a passkey',
    namePlaceholder: 'e.g. My laptop',
    next: 'Continue',
    verifyPassword: 'Your current sign-in password',
    verifySubmit: 'Verify',
    verifyPasskey: 'Verify with a passkey',
    added: 'Passkey added',
    empty: 'No passkeys yet',
    passkeyLogin: 'Sign in with a passkey',
    remove: 'Remove',
    confirm: 'OK',
    removed: 'Passkey removed',
    reset: 'Reset passkeys',
    more: 'More actions',
    resetDone: 'Passkeys reset',
  },
} as const;
type Language = keyof typeof TEXTS;

/** A platform authenticator with resident keys and user verification, as a phone or laptop has. */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { cdp, authenticatorId };
}

async function credentialsHeld(cdp: CDPSession, authenticatorId: string): Promise<number> {
  return (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials.length;
}

async function logInWithPassword(page: Page, language: Language, username: string): Promise<void> {
  const text = TEXTS[language];
  await page.goto(`${LOCAL}/login`);
  await page.getByPlaceholder(text.loginUsername).fill(username);
  await page.getByPlaceholder(text.loginPassword).fill(USER_PASSWORD);
  await page.locator('form').getByRole('button', { name: text.loginSubmit, exact: true }).click();
  await expect(toast(page, text.loggedIn).last()).toBeVisible();
}

/** Adds a passkey from the personal settings; verifies with the password when asked for it. */
async function addPasskey(page: Page, language: Language, name: string, proof: 'password' | 'passkey' | 'none'): Promise<void> {
  const text = TEXTS[language];
  const card = page.getByTestId('passkeys-card');
  await card.getByRole('button', { name: text.add }).click();
  await page.getByPlaceholder(text.namePlaceholder).fill(name);
  await page.getByRole('button', { name: text.next }).click();
  if (proof === 'password') {
    await page.getByPlaceholder(text.verifyPassword).fill(USER_PASSWORD);
    await page.getByTestId('security-verification').getByRole('button', { name: text.verifySubmit }).click();
  } else if (proof === 'passkey') {
    await page.getByRole('button', { name: text.verifyPasskey }).click();
  }
  await expect(toast(page, text.added).last()).toBeVisible();
  await expect(card.getByTestId('passkey-row').filter({ hasText: name })).toBeVisible();
}

test('a passkey is added from the settings, signs in without a password, is removed, and an administrator resets passkeys (zh, 1440 px)', async ({
  page,
  browser,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await presetLanguageAndTheme(page, 'zh', 'light');
  const text = TEXTS.zh;
  const username = await registerUser('pk');
  const { cdp, authenticatorId } = await virtualAuthenticator(page);

  await logInWithPassword(page, 'zh', username);
  await page.goto(`${LOCAL}/setting`);
  const card = page.getByTestId('passkeys-card');
  await expect(card.getByText(text.card, { exact: true })).toBeVisible();
  await expect(card.getByText(text.empty)).toBeVisible();
  await addPasskey(page, 'zh', '我的笔记本', 'password');
  expect(await credentialsHeld(cdp, authenticatorId)).toBe(1);
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '.tmp/screens/passkeys-settings-zh-1440.png', fullPage: true });

  // Sign out; the passkey signs in with no username and no password.
  await page.getByTestId('user-menu').click();
  await page.getByTestId('logout').click();
  await expect(page).toHaveURL(/\/login$/);
  await page.screenshot({ path: '.tmp/screens/passkeys-login-zh-1440.png' });
  await page.getByRole('button', { name: text.passkeyLogin }).click();
  await expect(toast(page, text.loggedIn).last()).toBeVisible();
  await expect(page.getByTestId('user-menu')).toContainText(username);

  // Removing it asks for the passkey now that the account has one (a new session is not verified).
  await page.goto(`${LOCAL}/setting`);
  await expect(card.getByText(/上次使用/)).toBeVisible();
  await card.getByTestId('passkey-row').getByRole('button', { name: text.remove }).click();
  await page.getByRole('button', { name: text.confirm }).click();
  await page.getByRole('button', { name: text.verifyPasskey }).click();
  await expect(toast(page, text.removed).last()).toBeVisible();
  await expect(card.getByText(text.empty)).toBeVisible();
  // The authenticator still holds the credential, but the site no longer knows it.
  await page.getByTestId('user-menu').click();
  await page.getByTestId('logout').click();
  await page.getByRole('button', { name: text.passkeyLogin }).click();
  await expect(toast(page, /Passkey 验证失败/).last()).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);

  // A new passkey, then the administrator's reset from the users list.
  await logInWithPassword(page, 'zh', username);
  await page.goto(`${LOCAL}/setting`);
  await addPasskey(page, 'zh', '手机', 'password');

  const adminContext = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const admin = await adminContext.newPage();
  await presetLanguageAndTheme(admin, 'zh', 'light');
  await signIn(admin, ROOT.username, ROOT.password);
  await admin.goto(`/user?keyword=${username}`);
  const row = admin.locator('.semi-table-row').filter({ hasText: username });
  await row.getByRole('button', { name: text.more }).click();
  await admin.getByRole('menuitem', { name: text.reset }).click();
  await admin.getByRole('dialog').locator('button', { hasText: text.confirm }).click();
  await expect(toast(admin, text.resetDone).last()).toBeVisible();
  await admin.screenshot({ path: '.tmp/screens/passkeys-users-zh-1440.png' });
  await adminContext.close();

  await page.reload();
  await expect(card.getByText(text.empty)).toBeVisible();
  const root = await apiSession(ROOT.username, ROOT.password);
  const found = await apiCall<{ items: { id: number }[] }>(root, 'GET', `/api/user/search?keyword=${username}`);
  const again = await root.api.delete(`/api/user/${found.items[0]!.id}/reset_passkey`, { headers: root.headers });
  expect(await again.json()).toMatchObject({ success: false, message: '该用户尚未绑定 Passkey' });
  await root.api.dispose();
});

test('the passkey card and the passkey sign-in in English at 390 px, dark', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await presetLanguageAndTheme(page, 'en', 'dark');
  const text = TEXTS.en;
  const username = await registerUser('pkm');
  await virtualAuthenticator(page);

  await logInWithPassword(page, 'en', username);
  await page.goto(`${LOCAL}/setting`);
  await addPasskey(page, 'en', 'Work phone', 'password');
  // Within the verification window another try needs no new proof; this authenticator already
  // holds a passkey of the account (the server excluded it), and the page says so.
  const card = page.getByTestId('passkeys-card');
  await card.getByRole('button', { name: text.add }).click();
  await page.getByPlaceholder(text.namePlaceholder).fill('Again');
  await page.getByRole('button', { name: text.next }).click();
  await expect(toast(page, 'This device already holds a passkey for this account')).toBeVisible();
  await expect(card.getByTestId('passkey-row')).toHaveCount(1);
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: '.tmp/screens/passkeys-settings-en-390.png' });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  await page.getByTestId('user-menu').click();
  await page.getByTestId('logout').click();
  await expect(page.getByRole('button', { name: text.passkeyLogin })).toBeVisible();
  await page.screenshot({ path: '.tmp/screens/passkeys-login-en-390.png' });
  await page.getByRole('button', { name: text.passkeyLogin }).click();
  await expect(toast(page, text.loggedIn).last()).toBeVisible();
});

test('the super administrator turns passkeys off in the system settings; the sign-in page drops the button', async ({ page, browser }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await presetLanguageAndTheme(page, 'zh', 'light');
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/setting?tab=system');
  const card = page.getByTestId('system-passkey');
  await expect(card.getByText('通行密钥设置')).toBeVisible();
  const toggle = card.getByRole('switch', { name: '允许通行密钥登录' });
  await expect(toggle).toBeChecked();
  await toggle.click();
  await card.getByRole('button', { name: '保存设置' }).click();
  await expect(toast(page, '保存成功').last()).toBeVisible();
  await card.screenshot({ path: '.tmp/screens/passkeys-system-zh-1440.png' });

  const visitor = await browser.newContext();
  const login = await visitor.newPage();
  try {
    await login.goto(`${LOCAL}/login`);
    await expect(login.getByRole('main').getByRole('button', { name: '登录', exact: true })).toBeVisible();
    await expect(login.getByRole('button', { name: TEXTS.zh.passkeyLogin })).toHaveCount(0);
    const begin = await login.request.post(`${LOCAL}/api/user/passkey/login/begin`, { data: {} });
    expect(await begin.json()).toMatchObject({ success: false, message: '管理员未启用 Passkey 登录' });
  } finally {
    await visitor.close();
    const root = await apiSession(ROOT.username, ROOT.password);
    await apiCall(root, 'PUT', '/api/option/', { key: 'passkey.enabled', value: 'true' });
    await root.api.dispose();
  }
});
