import { expect, test, type Page } from '@playwright/test';
import { apiCall, apiSession, registerUser, ROOT, setOption, signIn, toast, USER_PASSWORD, type ApiSession } from './wallet-helpers';

/**
 * /chat/{id?} and /chat2link over the real server: the configured link is filled with the user's
 * first enabled key and this server's address; the §8 messages when no link or no enabled token.
 */

let root: ApiSession;
const CHATS = [{ 'Test Chat': 'https://chat.example.test/?key={key}&api={address}' }, { 'Other Chat': 'https://other.example.test/#{key}' }];

test.beforeAll(async () => {
  root = await apiSession(ROOT.username, ROOT.password);
});

test.afterAll(async () => {
  await setOption(root, 'Chats', '[]');
  await setOption(root, 'ChatLink', '');
  await root.api.dispose();
});

/** A fresh user, signed in, with one disabled and one enabled token; answers the enabled key. */
async function userWithToken(page: Page): Promise<string> {
  const username = await registerUser('chat');
  const session = await apiSession(username, USER_PASSWORD);
  const disabled = await apiCall<{ id: number; key: string }>(session, 'POST', '/api/token/', { name: 'off', unlimited_quota: true, expired_time: -1 });
  await apiCall(session, 'PUT', '/api/token/?status_only=true', { id: disabled.id, status: 2 });
  const enabled = await apiCall<{ id: number; key: string }>(session, 'POST', '/api/token/', { name: 'on', unlimited_quota: true, expired_time: -1 });
  // Token answers carry masked keys; the chat pages read the full key from its key route.
  expect(enabled.key).toMatch(/^[A-Za-z0-9]{4}\*{10}[A-Za-z0-9]{4}$/);
  const { key } = await apiCall<{ key: string }>(session, 'POST', `/api/token/${enabled.id}/key`);
  expect(key).toMatch(/^[A-Za-z0-9]{48}$/);
  await session.api.dispose();
  await signIn(page, username, USER_PASSWORD);
  return key;
}

test.describe('with chat links configured', () => {
  test.beforeAll(async () => {
    await setOption(root, 'Chats', JSON.stringify(CHATS));
    await setOption(root, 'ChatLink', 'https://next.example.test');
  });

  test('/chat embeds the first chat link with the enabled key, /chat/1 the second', async ({ page }) => {
    await page.context().route(/example\.test/, (route) => route.fulfill({ contentType: 'text/html', body: '<p>chat client</p>' }));
    const key = await userWithToken(page);
    await page.goto('/chat');
    const origin = new URL(page.url()).origin;
    const frame = page.getByTestId('chat-frame');
    await expect(frame).toHaveAttribute('src', `https://chat.example.test/?key=sk-${key}&api=${encodeURIComponent(origin)}`);
    await expect(page.locator('.mg-side-nav')).toContainText('聊天');

    await page.goto('/chat/1');
    await expect(frame).toHaveAttribute('src', `https://other.example.test/#sk-${key}`);
  });

  test('/chat2link goes to ChatLink with the key in its settings', async ({ page }) => {
    await page.context().route(/example\.test/, (route) => route.fulfill({ contentType: 'text/html', body: '<p>next chat</p>' }));
    const key = await userWithToken(page);
    await page.goto('/chat2link');
    await page.waitForURL(/next\.example\.test/);
    const url = new URL(page.url());
    const origin = `http://127.0.0.1:${process.env.MODELGATE_E2E_PORT}`;
    expect(decodeURIComponent(url.hash)).toBe(`#/?settings={"key":"sk-${key}","url":"${origin}"}`);
  });

  test('without an enabled token the user is told and sent to /token', async ({ page }) => {
    const username = await registerUser('notok');
    await signIn(page, username, USER_PASSWORD);
    await page.goto('/chat');
    await expect(toast(page, '当前没有可用的已启用令牌，请确认是否有令牌处于启用状态！')).toBeVisible();
    await expect(page.getByTestId('chat-no-token')).toContainText('正在跳转');
    await expect(page).toHaveURL(/\/token$/, { timeout: 5_000 });
  });
});

test('with no chat link configured /chat asks to contact the administrator and the nav has no chat entry', async ({ page }) => {
  await setOption(root, 'Chats', '[]');
  await setOption(root, 'ChatLink', '');
  await userWithToken(page);
  await page.goto('/chat');
  await expect(page.getByTestId('chat-unavailable')).toContainText('请联系管理员配置聊天链接');
  await expect(page.locator('.mg-side-nav')).toContainText('钱包');
  await expect(page.locator('.mg-side-nav')).not.toContainText('聊天');
});

test('a malformed Chats option is reported as a configuration error', async ({ page }) => {
  await page.route('**/api/status', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    body.data.chats = 'not json';
    await route.fulfill({ response, json: body });
  });
  await userWithToken(page);
  await page.goto('/chat');
  await expect(page.getByTestId('chat-unavailable')).toContainText('聊天链接配置错误，请联系管理员');
});

test('a signed-out visitor is sent to login', async ({ page }) => {
  await page.goto('/chat2link');
  await expect(page).toHaveURL(/\/login$/);
});
