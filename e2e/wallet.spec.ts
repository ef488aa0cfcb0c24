import { expect, test } from '@playwright/test';
import { apiCall, apiSession, registerUser, ROOT, setOption, signIn, toast, USER_PASSWORD, type ApiSession } from './wallet-helpers';

/**
 * /topup over the real server: redeeming a code changes the balance shown (once only), the empty-code
 * and missing-link messages, and online top-up from disabled to the signed form posted to the gateway.
 */

let root: ApiSession;

test.beforeAll(async () => {
  root = await apiSession(ROOT.username, ROOT.password);
});

test.afterAll(async () => {
  await root.api.dispose();
});

async function freshUser(page: import('@playwright/test').Page): Promise<string> {
  const username = await registerUser('wal');
  await signIn(page, username, USER_PASSWORD);
  return username;
}

test('a user redeems a code, sees the balance change, and a second redemption fails', async ({ page }) => {
  const [key] = await apiCall<string[]>(root, 'POST', '/api/redemption/', { name: 'e2e-wallet', quota: 1_000_000, count: 1 });
  await freshUser(page);
  await page.goto('/topup');
  const balance = page.getByTestId('wallet-balance');
  await expect(balance).toHaveText('$0.00');

  await page.getByPlaceholder('兑换码').fill(key);
  // An impatient double click must not redeem twice (nor show a failed second attempt).
  const submitButton = await page.getByTestId('redeem-submit').boundingBox();
  await page.getByTestId('redeem-submit').dblclick();
  const success = page.getByRole('dialog').filter({ hasText: '成功兑换额度：$2.00' });
  await expect(success).toBeVisible();
  // A slower double click's second click arrives once the amount shows, on the mask over the button: the amount stays.
  await page.mouse.click(submitButton!.x + submitButton!.width / 2, submitButton!.y + submitButton!.height / 2);
  await expect(success).toBeVisible();
  // One confirmation only: the modal with the amount, no toast saying the same beside it.
  await expect(toast(page, '兑换成功')).toHaveCount(0);
  await expect(balance).toHaveText('$2.00');
  await expect(page.getByPlaceholder('兑换码')).toHaveValue('');
  await success.locator('button', { hasText: /确定|OK/ }).click();
  await expect(toast(page, '无效的兑换码，或兑换码已被使用')).toHaveCount(0);

  // The same code again: the server's reason is shown and the balance stays.
  await page.getByPlaceholder('兑换码').fill(key);
  await page.getByTestId('redeem-submit').click();
  await expect(toast(page, '无效的兑换码，或兑换码已被使用')).toBeVisible();
  await expect(balance).toHaveText('$2.00');

  // A reload reads the balance from the server, not from the page's memory.
  await page.reload();
  await expect(balance).toHaveText('$2.00');
});

test('an empty code and a missing top-up link are explained', async ({ page }) => {
  await freshUser(page);
  await page.goto('/topup');
  await page.getByTestId('redeem-submit').click();
  await expect(toast(page, '请输入兑换码')).toBeVisible();
  await page.getByTestId('buy-codes').click();
  await expect(toast(page, '超级管理员未设置充值链接！')).toBeVisible();
});

test('the top-up link opens in a new tab when set', async ({ page, context }) => {
  await setOption(root, 'TopUpLink', 'https://shop.example.test/codes');
  try {
    await context.route('https://shop.example.test/**', (route) => route.fulfill({ contentType: 'text/html', body: '<h1>code shop</h1>' }));
    await freshUser(page);
    await page.goto('/topup');
    const [shop] = await Promise.all([context.waitForEvent('page'), page.getByTestId('buy-codes').click()]);
    await shop.waitForLoadState();
    expect(shop.url()).toBe('https://shop.example.test/codes');
  } finally {
    await setOption(root, 'TopUpLink', '');
  }
});

test('online top-up is disabled until the administrator configures Epay', async ({ page }) => {
  await freshUser(page);
  await page.goto('/topup');
  await expect(page.getByTestId('online-disabled')).toContainText('管理员未开启在线充值！');
  await expect(page.getByTestId('pay-zfb')).toBeDisabled();
  await expect(page.getByTestId('pay-wx')).toBeDisabled();
});

test.describe('with Epay configured', () => {
  test.beforeAll(async () => {
    await setOption(root, 'PayAddress', 'https://pay.example.test');
    await setOption(root, 'EpayId', '1001');
    await setOption(root, 'EpayKey', 'e2e-epay-key');
    await setOption(root, 'MinTopUp', 5);
  });

  test.afterAll(async () => {
    await setOption(root, 'PayAddress', '');
    await setOption(root, 'EpayId', '');
    await setOption(root, 'EpayKey', '');
    await setOption(root, 'MinTopUp', 1);
  });

  test('the amount starts at the minimum, is quoted live, and pays through the signed form', async ({ page }) => {
    let posted: URLSearchParams | null = null;
    await page.route('https://pay.example.test/**', async (route) => {
      posted = new URLSearchParams(route.request().postData() ?? '');
      await route.fulfill({ contentType: 'text/html', body: '<h1>epay gateway</h1>' });
    });
    await freshUser(page);
    await page.goto('/topup');

    const amount = page.getByTestId('topup-amount');
    const price = page.getByTestId('topup-price');
    await expect(amount).toHaveValue('5');
    // Price 7.3 per unit, group ratio 1.
    await expect(price).toHaveText('36.50 元');

    await amount.fill('2');
    await expect(page.getByTestId('topup-amount-error')).toHaveText('充值数量不能小于 5');
    await page.getByTestId('pay-zfb').click();
    await expect(toast(page, '充值数量不能小于 5')).toBeVisible();

    await amount.fill('10');
    await expect(price).toHaveText('73.00 元');
    await page.getByTestId('pay-zfb').click();
    const confirm = page.getByRole('dialog').filter({ hasText: '确定要充值吗' });
    await expect(confirm).toContainText('充值数量：10');
    await expect(confirm).toContainText('实付金额：73.00 元');
    await expect(confirm).toContainText('支付方式：支付宝');
    await confirm.locator('button', { hasText: '确定' }).click();

    await expect(page.getByRole('heading', { name: 'epay gateway' })).toBeVisible();
    expect(page.url()).toBe('https://pay.example.test/submit.php');
    const fields = Object.fromEntries(posted!.entries());
    expect(fields).toMatchObject({ pid: '1001', type: 'alipay', money: '73.00', name: 'TUC10', sign_type: 'MD5' });
    expect(fields.sign).toMatch(/^[0-9a-f]{32}$/);
    expect(fields.out_trade_no).toBeTruthy();
  });

  test('cancelling the confirmation leaves without an order being sent', async ({ page }) => {
    let gatewayHit = false;
    await page.route('https://pay.example.test/**', async (route) => {
      gatewayHit = true;
      await route.fulfill({ contentType: 'text/html', body: 'unexpected' });
    });
    await freshUser(page);
    await page.goto('/topup');
    await expect(page.getByTestId('topup-price')).toHaveText('36.50 元');
    await page.getByTestId('pay-wx').click();
    const confirm = page.getByRole('dialog').filter({ hasText: '确定要充值吗' });
    await expect(confirm).toContainText('支付方式：微信');
    await confirm.locator('button', { hasText: '取消' }).click();
    await expect(confirm).toBeHidden();
    await expect(page).toHaveURL(/\/topup$/);
    expect(gatewayHit).toBe(false);
  });
});

test('the wallet, settings and about pages are as wide as the list screens', async ({ page }) => {
  await freshUser(page);
  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    const widths: Record<string, number> = {};
    for (const path of ['/token', '/log', '/topup', '/setting', '/about']) {
      await page.goto(path);
      const root = page.locator('.mg-page').first();
      await expect(root).toBeVisible();
      widths[path] = Math.round((await root.boundingBox())!.width);
      if (path === '/topup') await page.screenshot({ path: `.tmp/screens/wallet-zh-${viewport.width}.png`, fullPage: true });
      if (path === '/about') await page.screenshot({ path: `.tmp/screens/about-zh-${viewport.width}.png`, fullPage: true });
    }
    expect(new Set(Object.values(widths)).size, JSON.stringify(widths)).toBe(1);
  }
});
