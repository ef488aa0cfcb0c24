import { expect, test, type Page } from '@playwright/test';

/**
 * The console shell over the real server: sign-in with the seeded root account, language and theme
 * switches, logout, route protection, register validation and the not-found page.
 * The server's first start creates root/123456, which is exactly the account the warning is about.
 */

async function logInAsRoot(page: Page): Promise<void> {
  await page.goto('/login');
  await page.getByPlaceholder('请输入用户名或邮箱').fill('root');
  await page.getByPlaceholder('请输入密码').fill('123456');
  await page.locator('form').getByRole('button', { name: '登录', exact: true }).click();
}

test('root with the default password is warned, can switch language and theme, and log out', async ({ page }) => {
  await logInAsRoot(page);

  await expect(page.getByText('登录成功！')).toBeVisible();
  const warning = page.getByRole('dialog').filter({ hasText: '您正在使用默认密码！' });
  await expect(warning).toBeVisible();
  await expect(warning).toContainText('请立刻修改默认密码！');
  await expect(page).toHaveURL(/\/(token)?$/);
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('user') ?? 'null'));
  expect(stored).toMatchObject({ username: 'root', role: 100 });
  await warning.getByText('我知道了').click();
  await expect(warning).toBeHidden();

  const topNav = page.locator('.mg-top-nav');
  await expect(topNav.getByText('首页', { exact: true })).toBeVisible();
  await page.getByTestId('language-switch').click();
  await page.getByTestId('language-en').click();
  await expect(topNav.getByText('Home', { exact: true })).toBeVisible();
  await expect(topNav.getByText('About', { exact: true })).toBeVisible();
  await expect(topNav.getByText('首页', { exact: true })).toHaveCount(0);
  expect(await page.evaluate(() => localStorage.getItem('i18nextLng'))).toBe('en');

  await expect(page.locator('body')).not.toHaveAttribute('theme-mode', 'dark');
  await page.getByTestId('theme-toggle').click();
  await expect(page.locator('body')).toHaveAttribute('theme-mode', 'dark');
  expect(await page.evaluate(() => localStorage.getItem('theme-mode'))).toBe('dark');

  // Both choices survive a reload.
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('theme-mode', 'dark');
  await expect(topNav.getByText('Home', { exact: true })).toBeVisible();

  await page.getByTestId('user-menu').click();
  await page.getByTestId('logout').click();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
  await expect(page.getByRole('link', { name: 'Sign up' }).first()).toBeVisible();
});

test('a wrong password is reported without pretending the session expired', async ({ page }) => {
  await page.goto('/login');
  await page.getByPlaceholder('请输入用户名或邮箱').fill('root');
  await page.getByPlaceholder('请输入密码').fill('not-the-password');
  await page.locator('form').getByRole('button', { name: '登录', exact: true }).click();
  // new-api's rule: 200 with success:false, so the toast is the server's message itself.
  await expect(page.locator('.semi-toast-content').first()).toHaveText('用户名或密码错误');
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
});

test('the login form requires both fields', async ({ page }) => {
  await page.goto('/login');
  await page.locator('form').getByRole('button', { name: '登录', exact: true }).click();
  await expect(page.getByText('请输入用户名和密码！')).toBeVisible();
});

test('a protected route sends a signed-out visitor to /login', async ({ page }) => {
  await page.goto('/token');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByPlaceholder('请输入用户名或邮箱')).toBeVisible();
});

test('a console path with a trailing slash serves the console; the API answers either form', async ({ page, request }) => {
  await page.goto('/token/');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByPlaceholder('请输入用户名或邮箱')).toBeVisible();
  for (const path of ['/api/status', '/api/status/']) {
    const response = await request.get(path);
    expect(response.status(), path).toBe(200);
    expect(await response.json(), path).toMatchObject({ success: true, data: { version: expect.any(String) } });
  }
});

test('an expired session is explained on the login page', async ({ page }) => {
  await page.goto('/login?expired=true');
  await expect(page.getByText('未登录或登录已过期，请重新登录')).toBeVisible();
});

test('a stale stored user is sent back to login when the server rejects the session', async ({ page }) => {
  await page.addInitScript(() => {
    localStorage.setItem('user', JSON.stringify({ id: 1, username: 'root', role: 100 }));
  });
  await page.goto('/');
  await expect(page).toHaveURL(/\/login\?expired=true$/);
  await expect(page.getByText('未登录或登录已过期，请重新登录')).toBeVisible();
});

test('register validates username, password length and confirmation', async ({ page }) => {
  await page.goto('/register?aff=INV1');
  // The inviter code from the link is kept for the registration call (spec 01 §2).
  await expect(page.getByText('邀请码：INV1')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('aff'))).toBe('INV1');

  // Every field the form needs carries the required mark, 确认密码 included.
  const required = page.locator('form .semi-form-field-label-required');
  await expect(required).toHaveText(['用户名', '密码', '确认密码']);
  await page.getByPlaceholder('输入密码，最短 8 位，最长 20 位').fill('correct-horse');
  await page.locator('form').getByRole('button', { name: '注册', exact: true }).click();
  await expect(page.getByText('请再次输入密码！')).toBeVisible();

  await page.getByPlaceholder('请输入用户名，最长 12 位').fill('a-very-long-username');
  await page.getByPlaceholder('输入密码，最短 8 位，最长 20 位').fill('short');
  await page.getByPlaceholder('请再次输入密码').fill('different');
  await page.locator('form').getByRole('button', { name: '注册', exact: true }).click();

  await expect(page.getByText('用户名长度不得超过 12 位！')).toBeVisible();
  await expect(page.getByText('密码长度不得小于 8 位！')).toBeVisible();
  await expect(page.getByText('两次输入的密码不一致')).toBeVisible();
  await expect(page).toHaveURL(/\/register/);
});

test('register creates an account and returns to login', async ({ page }) => {
  const username = `e2e${Date.now() % 1_000_000}`;
  await page.goto('/register');
  await page.getByPlaceholder('请输入用户名，最长 12 位').fill(username);
  await page.getByPlaceholder('输入密码，最短 8 位，最长 20 位').fill('correct-horse');
  await page.getByPlaceholder('请再次输入密码').fill('correct-horse');
  await page.locator('form').getByRole('button', { name: '注册', exact: true }).click();
  await expect(page.getByText('注册成功！')).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
});

test('an unknown address shows the not-found page', async ({ page }) => {
  await page.goto('/definitely/not/here');
  await expect(page.getByText('页面不存在')).toBeVisible();
  await expect(page.getByText('请检查你的浏览器地址是否正确')).toBeVisible();
  await page.getByRole('button', { name: '返回首页' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('the password reset request locks its button for 30 seconds', async ({ page }) => {
  await page.route('**/api/reset_password**', (route) => route.fulfill({ json: { success: true, message: '', data: null } }));
  await page.goto('/reset');
  await page.getByPlaceholder('请输入邮箱地址').fill('someone@example.com');
  await page.getByTestId('reset-submit').click();
  await expect(page.getByText('重置邮件发送成功，请检查邮箱！')).toBeVisible();
  await expect(page.getByTestId('reset-submit')).toBeDisabled();
  await expect(page.getByTestId('reset-submit')).toContainText(/重新发送 \((30|29|28)\)/);
});

test('third-party sign-in buttons follow their status flags', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByPlaceholder('请输入用户名或邮箱')).toBeVisible();
  await expect(page.getByRole('button', { name: /GitHub/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /微信/ })).toHaveCount(0);

  await page.route('**/api/status', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    Object.assign(body.data, {
      github_oauth: true,
      github_client_id: 'e2e-client',
      wechat_login: true,
      wechat_qrcode: '/logo.svg',
      password_login_enabled: false,
    });
    await route.fulfill({ json: body });
  });
  await page.reload();
  await expect(page.getByRole('button', { name: /GitHub/ })).toBeVisible();
  await expect(page.getByText('管理员已关闭密码登录', { exact: false })).toBeVisible();
  await expect(page.getByPlaceholder('请输入用户名或邮箱')).toHaveCount(0);
  await page.getByRole('button', { name: '使用微信登录' }).click();
  await expect(page.getByRole('dialog').getByText('微信扫码登录')).toBeVisible();
});

test('the about page falls back to a description with the project link', async ({ page }) => {
  await page.goto('/about');
  await expect(page.getByRole('heading', { name: '关于 modelgate' })).toBeVisible();
  await expect(page.getByRole('link', { name: /github\.com\/modelgate\/modelgate/ })).toBeVisible();
  await expect(page.getByTestId('default-footer')).toContainText('modelgate v');
});
