import { expect, test, type Page } from '@playwright/test';
import { startFakeOidcProvider, type FakeOidcProvider } from '../apps/server/src/test-support/fake-oidc-provider';
import { apiCall, apiSession, registerUser, ROOT, setOption, signIn, toast, USER_PASSWORD, type ApiSession } from './wallet-helpers';

/**
 * OIDC sign-in through the console against a local OpenID provider (discovery, JWKS, an
 * authorize page with an Approve link, RS256-signed ID tokens, userinfo): the login page's
 * button, the provider's page, back to /oauth/oidc and signed in; binding from the personal
 * bindings card; the system tab's card filling the endpoints from the well-known document.
 * Every option changed is put back at the end, since later specs share this server.
 */

const OIDC_KEYS = [
  'oidc.enabled',
  'oidc.client_id',
  'oidc.client_secret',
  'oidc.well_known',
  'oidc.authorization_endpoint',
  'oidc.token_endpoint',
  'oidc.user_info_endpoint',
] as const;

let provider: FakeOidcProvider;
let root: ApiSession;
const originals = new Map<string, string>();

const unique = () => `${Date.now().toString(36).slice(-5)}${Math.floor(Math.random() * 1296).toString(36)}`;

async function useLanguage(page: Page, language: 'zh' | 'en'): Promise<void> {
  await page.addInitScript((lang) => localStorage.setItem('i18nextLng', lang), language);
}

test.beforeAll(async () => {
  provider = await startFakeOidcProvider({ id: 'e2e-oidc-client', secret: 'e2e-oidc-secret-Q7' });
  root = await apiSession(ROOT.username, ROOT.password);
  const readable = Object.fromEntries((await apiCall<{ key: string; value: string }[]>(root, 'GET', '/api/option/')).map((entry) => [entry.key, entry.value]));
  // The secret is never readable; every run starts and ends with it empty.
  for (const key of OIDC_KEYS) originals.set(key, readable[key] ?? '');
  await setOption(root, 'oidc.client_id', provider.client.id);
  await setOption(root, 'oidc.client_secret', provider.client.secret);
  await setOption(root, 'oidc.well_known', provider.wellKnown);
  await setOption(root, 'oidc.authorization_endpoint', provider.endpoints.authorization);
  await setOption(root, 'oidc.token_endpoint', provider.endpoints.token);
  await setOption(root, 'oidc.user_info_endpoint', provider.endpoints.userInfo);
  await setOption(root, 'oidc.enabled', true);
});

test.afterAll(async () => {
  for (const [key, value] of originals) await setOption(root, key, value);
  const after = Object.fromEntries((await apiCall<{ key: string; value: string }[]>(root, 'GET', '/api/option/')).map((entry) => [entry.key, entry.value]));
  for (const [key, value] of originals) if (key !== 'oidc.client_secret') expect(after[key], key).toBe(value);
  await root.api.dispose();
  await provider.close();
});

test('the login page button signs a new user in through the provider, and the same account the next time', async ({ page, browser }) => {
  const name = `oi${unique()}`;
  provider.authorizeAs = { sub: `sub-${name}`, email: `${name}@idp.test`, name: 'OIDC Browser', preferred_username: name };
  await useLanguage(page, 'en');
  await page.goto('/login');
  await page.getByRole('button', { name: 'Continue with OIDC' }).click();

  // The provider's own page, reached with the parameters an OIDC provider needs.
  await expect(page.getByRole('heading', { name: 'Fake OIDC provider' })).toBeVisible();
  const authorize = new URL(page.url());
  expect(authorize.origin + authorize.pathname).toBe(provider.endpoints.authorization);
  expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
    client_id: provider.client.id,
    response_type: 'code',
    scope: 'openid profile email',
  });
  expect(authorize.searchParams.get('redirect_uri')).toMatch(/\/oauth\/oidc$/);
  expect(authorize.searchParams.get('state')).toMatch(/^\w{12}$/);
  await page.getByRole('link', { name: 'Approve' }).click();

  await expect(toast(page, 'Login successful!')).toBeVisible();
  await expect(page).not.toHaveURL(/\/oauth\/oidc|\/login/);
  const signedIn = await page.evaluate(() => JSON.parse(localStorage.getItem('user') ?? '{}') as { id: number });
  const self = (await (await page.request.get('/api/user/self', { headers: { 'New-Api-User': String(signedIn.id) } })).json()) as {
    data: { username: string; display_name: string; oidc_id: string };
  };
  expect(self.data).toMatchObject({ username: name, display_name: 'OIDC Browser', oidc_id: `sub-${name}` });

  // A second sign-in, in a fresh browser, finds the same account.
  const context = await browser.newContext();
  const again = await context.newPage();
  await useLanguage(again, 'zh');
  await again.goto('/login');
  await again.getByRole('button', { name: '使用 OIDC 登录' }).click();
  await again.getByRole('link', { name: 'Approve' }).click();
  await expect(toast(again, '登录成功')).toBeVisible();
  const stored = await again.evaluate(() => JSON.parse(localStorage.getItem('user') ?? '{}') as { username: string });
  expect(stored.username).toBe(name);
  await context.close();
});

test('a signed-in user binds an OIDC account from the bindings card; a sub bound elsewhere is refused', async ({ page }) => {
  const username = await registerUser('ob');
  const sub = `bind-${unique()}`;
  provider.authorizeAs = { sub, name: 'Bound Elsewhere' };
  await useLanguage(page, 'zh');
  await signIn(page, username, USER_PASSWORD);
  await page.goto('/setting');
  const row = page.getByTestId('binding-oidc');
  await expect(row).toContainText('未绑定');
  await row.getByRole('button', { name: '绑定' }).click();
  await page.getByRole('link', { name: 'Approve' }).click();
  await expect(toast(page, '绑定成功')).toBeVisible();
  await expect(page.getByTestId('binding-oidc')).toContainText(sub);

  // Another user cannot take the same provider account.
  const other = await registerUser('oc');
  const second = await page.context().browser()!.newContext();
  const otherPage = await second.newPage();
  await useLanguage(otherPage, 'zh');
  await signIn(otherPage, other, USER_PASSWORD);
  await otherPage.goto('/setting');
  await otherPage.getByTestId('binding-oidc').getByRole('button', { name: '绑定' }).click();
  await otherPage.getByRole('link', { name: 'Approve' }).click();
  await expect(toast(otherPage, '该 OIDC 账户已被绑定')).toBeVisible();
  const otherSession = await apiSession(other, USER_PASSWORD);
  expect((await apiCall<{ oidc_id: string }>(otherSession, 'GET', '/api/user/self')).oidc_id).toBe('');
  await otherSession.api.dispose();
  await second.close();
});

test('the system tab card fills the endpoints from the well-known document and shows the callback to register', async ({ page }) => {
  await useLanguage(page, 'en');
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/setting?tab=system');
  const card = page.getByTestId('system-oidc');
  await expect(card.getByLabel('Allow logging in and registering with OIDC')).toBeChecked();
  await expect(card.getByTestId('oidc-callback').or(card.getByText('fill in and save the server address'))).toBeVisible();

  for (const label of ['Authorization Endpoint', 'Token Endpoint', 'User Info Endpoint']) await card.getByLabel(label, { exact: true }).fill('');
  await card.getByLabel('Well-Known URL', { exact: true }).fill('ftp://nope');
  await card.getByTestId('oidc-fetch').click();
  await expect(toast(page, 'The Well-Known URL must start with http:// or https://')).toBeVisible();

  await card.getByLabel('Well-Known URL', { exact: true }).fill(provider.wellKnown);
  await card.getByTestId('oidc-fetch').click();
  await expect(toast(page, 'OIDC configuration fetched')).toBeVisible();
  await expect(card.getByLabel('Authorization Endpoint', { exact: true })).toHaveValue(provider.endpoints.authorization);
  await expect(card.getByLabel('Token Endpoint', { exact: true })).toHaveValue(provider.endpoints.token);
  await expect(card.getByLabel('User Info Endpoint', { exact: true })).toHaveValue(provider.endpoints.userInfo);

  // An endpoint that is not http(s) is refused before anything is sent.
  await card.getByLabel('Token Endpoint', { exact: true }).fill('javascript:alert(1)');
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page, 'Token Endpoint must start with http:// or https://')).toBeVisible();
  await card.getByLabel('Token Endpoint', { exact: true }).fill(`${provider.issuer}/token`);
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page, "You don't seem to have changed anything")).toBeVisible();
});
