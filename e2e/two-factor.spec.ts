import { expect, test, type Page } from '@playwright/test';
import { generate } from 'otplib';
import { apiCall, apiSession, presetLanguageAndTheme, registerUser, ROOT, signIn, toast, USER_PASSWORD } from './wallet-helpers';

/**
 * Two-factor sign-in and re-verification (issue 28) through the real pages: a user turns 2FA on by
 * reading the secret the page shows (the test computes the codes an authenticator would), signs in
 * with the password and a code, spends a backup code once; the super administrator reads a
 * channel's key after verifying; an administrator turns a user's 2FA off. Root never gets 2FA here:
 * the other specs sign in as root with the password alone.
 */

test.describe.configure({ mode: 'serial' });

/** The code an authenticator shows, `ahead` steps of 30 s later (the server accepts one step of drift). */
const codeFor = (secret: string, ahead = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + ahead * 30 });

const NEW_PASSWORD = 'e2e-password-2';
let username = '';
let secret = '';
let backupCodes: string[] = [];

async function logInThroughForm(page: Page, language: 'zh' | 'en', name: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByPlaceholder(language === 'zh' ? '请输入用户名或邮箱' : 'Enter your username or email').fill(name);
  await page.getByPlaceholder(language === 'zh' ? '请输入密码' : 'Enter your password').fill(password);
  await page
    .getByRole('main')
    .getByRole('button', { name: language === 'zh' ? '登录' : 'Log in', exact: true })
    .click();
}

async function signOut(page: Page): Promise<void> {
  await page.getByTestId('user-menu').click();
  await page.getByTestId('logout').click();
  await expect(page).toHaveURL(/\/login$/);
}

test('a user turns on two-factor: verification, the shown secret, a first code, backup codes once', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await presetLanguageAndTheme(page, 'zh', 'light');
  username = await registerUser('tfa');
  await signIn(page, username, USER_PASSWORD);
  await page.goto('/setting');

  const card = page.getByTestId('two-factor-card');
  await expect(card).toContainText('两步验证');
  await expect(card.getByTestId('two-factor-state')).toHaveText('未启用');
  await card.getByTestId('two-factor-enable').click();

  // The session has not verified yet: the security verification asks for the password (no factor yet).
  const verification = page.getByTestId('security-verification');
  await expect(verification).toContainText('为了保护账户安全');
  await verification.getByTestId('security-verification-input').fill('wrong-password');
  await verification.getByTestId('security-verification-submit').click();
  await expect(toast(page, '密码错误')).toBeVisible();
  await verification.getByTestId('security-verification-input').fill(USER_PASSWORD);
  await page.screenshot({ path: '.tmp/screens/two-factor-verify-zh-1440.png' });
  await verification.getByTestId('security-verification-submit').click();

  // The setup runs again by itself once verified: the QR code and the secret as text.
  const secretText = page.getByTestId('two-factor-secret');
  await expect(secretText).toHaveText(/^[A-Z2-7]{32}$/);
  secret = ((await secretText.textContent()) ?? '').trim();
  await expect(page.getByRole('img', { name: '两步验证二维码' })).toBeVisible();
  await page.screenshot({ path: '.tmp/screens/two-factor-setup-zh-1440.png' });
  await page.getByTestId('two-factor-enable-code').fill('000000');
  await page.getByTestId('two-factor-enable-submit').click();
  await expect(toast(page, '验证码或备用码错误，请重试')).toBeVisible();
  await page.getByTestId('two-factor-enable-code').fill(await codeFor(secret));
  await page.getByTestId('two-factor-enable-submit').click();
  await expect(toast(page, '两步验证启用成功')).toBeVisible();

  const codes = page.getByTestId('backup-codes').locator('li');
  await expect(codes).toHaveCount(10);
  backupCodes = await codes.allTextContents();
  expect(backupCodes[0]).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
  await page.screenshot({ path: '.tmp/screens/two-factor-backup-codes-zh-1440.png' });
  await page.getByTestId('two-factor-saved').click();
  await expect(card.getByTestId('two-factor-state')).toHaveText('已启用');
  await expect(card).toContainText('剩余备用码：10 个');
});

test('signing in asks for the code after the password; a backup code works once', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await presetLanguageAndTheme(page, 'en', 'dark');

  await logInThroughForm(page, 'en', username, USER_PASSWORD);
  const step = page.getByTestId('two-factor-login');
  await expect(step).toContainText('Enter the 6-digit code from your authenticator app');
  await page.screenshot({ path: '.tmp/screens/two-factor-login-en-390-dark.png' });
  await step.getByTestId('two-factor-login-code').fill('123456');
  await step.getByTestId('two-factor-login-submit').click();
  await expect(toast(page, '验证码或备用码错误，请重试')).toBeVisible();
  // The enabling code's step is spent: the authenticator's next code (one step ahead) is accepted.
  await step.getByTestId('two-factor-login-code').fill(await codeFor(secret, 1));
  await step.getByTestId('two-factor-login-submit').click();
  await expect(toast(page, 'Login successful!')).toBeVisible();
  await expect(page).not.toHaveURL(/\/login/);
  await signOut(page);

  // A backup code instead of the authenticator, once.
  await logInThroughForm(page, 'en', username, USER_PASSWORD);
  await page.getByTestId('two-factor-login-code').fill(backupCodes[0] as string);
  await page.getByTestId('two-factor-login-submit').click();
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto('/setting');
  const card = page.getByTestId('two-factor-card');
  await expect(card).toContainText('Backup codes left: 9');
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '.tmp/screens/two-factor-card-en-390-dark.png' });
  await signOut(page);

  await logInThroughForm(page, 'en', username, USER_PASSWORD);
  await page.getByTestId('two-factor-login-code').fill(backupCodes[0] as string);
  await page.getByTestId('two-factor-login-submit').click();
  await expect(toast(page, '验证码或备用码错误，请重试')).toBeVisible();
  await expect(page).toHaveURL(/\/login/);

  // Signed in with another backup code, the user changes the password: with 2FA on the server asks
  // for a fresh verification, the modal offers the code (not the password), then the change goes through.
  await page.getByTestId('two-factor-login-code').fill(backupCodes[1] as string);
  await page.getByTestId('two-factor-login-submit').click();
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto('/setting');
  await page.getByRole('button', { name: 'Change password' }).click();
  const passwordDialog = page.getByRole('dialog').filter({ has: page.getByPlaceholder('Enter your current password') });
  await passwordDialog.getByPlaceholder('Enter your current password').fill(USER_PASSWORD);
  await passwordDialog.getByPlaceholder('8 to 20 characters').fill(NEW_PASSWORD);
  await passwordDialog.getByPlaceholder('Enter the new password again').fill(NEW_PASSWORD);
  await passwordDialog.getByRole('button', { name: 'Change password' }).click();
  const verification = page.getByTestId('security-verification');
  await expect(verification.getByTestId('security-verification-input')).toHaveAttribute('placeholder', '6-digit code or backup code');
  await page.screenshot({ path: '.tmp/screens/two-factor-verify-code-en-390-dark.png' });
  await verification.getByTestId('security-verification-input').fill(backupCodes[2] as string);
  await verification.getByTestId('security-verification-submit').click();
  await expect(toast(page, 'Password changed')).toBeVisible();
  await expect(verification).toBeHidden();

  // Then turns two-factor off with a backup code in the code modal.
  await page.getByTestId('two-factor-disable').click();
  await page.getByTestId('two-factor-code').fill(backupCodes[0] as string);
  await page.getByTestId('two-factor-code-submit').click();
  await expect(toast(page, '验证码或备用码错误，请重试')).toBeVisible();
  await page.getByTestId('two-factor-code').fill(backupCodes[3] as string);
  await page.screenshot({ path: '.tmp/screens/two-factor-disable-en-390-dark.png' });
  await page.getByTestId('two-factor-code-submit').click();
  await expect(toast(page, 'Two-factor authentication is off')).toBeVisible();
  await expect(page.getByTestId('two-factor-state')).toHaveText('Off');
  // The new password is the one that works now, without a code.
  const signedIn = await apiSession(username, NEW_PASSWORD);
  expect(signedIn.user.username).toBe(username);
  await signedIn.api.dispose();
});

test('the super administrator reads a channel key after verifying', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await presetLanguageAndTheme(page, 'zh', 'dark');
  const root = await apiSession(ROOT.username, ROOT.password);
  const name = `tfa-key-${Date.now().toString(36)}`;
  await apiCall(root, 'POST', '/api/channel/', {
    type: 1,
    name,
    group: 'default',
    models: 'gpt-4o-mini',
    base_url: 'http://127.0.0.1:9',
    key: 'sk-e2e-secret-key-0042',
  });
  const found = await apiCall<{ items: { id: number }[] }>(root, 'GET', `/api/channel/search?keyword=${name}`);
  await root.api.dispose();
  const id = found.items[0]?.id as number;

  await signIn(page, ROOT.username, ROOT.password);
  await page.goto(`/channel/edit/${id}`);
  await page.getByTestId('channel-show-key').click();
  const verification = page.getByTestId('security-verification');
  await expect(page.locator('.semi-modal').filter({ has: verification })).toContainText('安全验证');
  await expect(verification).toContainText('登录密码');
  await page.screenshot({ path: '.tmp/screens/two-factor-verify-zh-390-dark.png' });
  await verification.getByTestId('security-verification-input').fill(ROOT.password);
  await verification.getByTestId('security-verification-submit').click();
  await expect(page.getByTestId('channel-revealed-key')).toHaveValue('sk-e2e-secret-key-0042');
  await expect(verification).toBeHidden();
  await page.screenshot({ path: '.tmp/screens/channel-key-zh-390-dark.png' });
});

test('an administrator turns off a user’s two-factor from the user list', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await presetLanguageAndTheme(page, 'en', 'light');
  const admin = await registerUser('tfadm');
  const root = await apiSession(ROOT.username, ROOT.password);
  const found = await apiCall<{ items: Array<{ id: number }> }>(root, 'GET', `/api/user/search?keyword=${admin}`);
  await apiCall(root, 'POST', '/api/user/manage', { id: found.items[0]?.id, action: 'promote' });
  await root.api.dispose();

  // A user who turned two-factor on (through the API here; the browser flow is the first test's).
  const enrolled = await registerUser('tfb');
  const user = await apiSession(enrolled, USER_PASSWORD);
  await apiCall(user, 'POST', '/api/verify', { method: 'password', password: USER_PASSWORD });
  const setup = await apiCall<{ secret: string }>(user, 'POST', '/api/user/2fa/setup');
  await apiCall(user, 'POST', '/api/user/2fa/enable', { code: await codeFor(setup.secret) });
  await user.api.dispose();

  await signIn(page, admin, USER_PASSWORD);
  await page.goto(`/user?keyword=${enrolled}`);
  const row = page.locator(`tr[data-username="${enrolled}"]`);
  await expect(row.getByTestId('user-2fa-tag')).toHaveText('2FA');
  await page.screenshot({ path: '.tmp/screens/two-factor-users-en-1440.png' });
  await row.getByRole('button', { name: 'More actions' }).click();
  await page.getByTestId('user-disable-2fa').click();
  const confirm = page.getByRole('dialog').filter({ hasText: 'Turn off this user' });
  await confirm.locator('button', { hasText: 'OK' }).click();
  await expect(toast(page, /two-factor authentication was turned off/)).toBeVisible();
  await expect(row.getByTestId('user-2fa-tag')).toHaveCount(0);

  // The password alone signs the user in again.
  const again = await apiSession(enrolled, USER_PASSWORD);
  expect(again.user.username).toBe(enrolled);
  await again.api.dispose();
});
