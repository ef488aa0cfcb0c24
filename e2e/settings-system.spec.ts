import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { expect, request as playwrightRequest, test, type Locator, type Page } from '@playwright/test';
import { isSealed, parseSecretKey, SecretBox } from '../apps/server/src/lib/secret-box';
import { startSmtpCatcher, type SmtpCatcher } from '../apps/server/src/test-support/smtp-catcher';
import { apiCall, apiSession, registerUser, ROOT, setOption, signIn, toast, type ApiSession, presetLanguageAndTheme } from './wallet-helpers';

/**
 * The system settings tab (/setting?tab=system) over the real server, in Chinese (light) and
 * English (dark): cards saved, reloaded and read back through GET /api/option/; trailing slashes
 * stripped; secrets write-only yet in effect (a real SMTP catcher receives the test mail only
 * with the saved token); payment needs a saved server address; switching password login off
 * asks first; registration closes when RegisterEnabled is off. Every option and root's email are
 * put back afterwards, since later specs share this server.
 */

const TEXTS = {
  zh: {
    tab: '系统设置',
    save: '保存设置',
    saved: '保存成功',
    unchanged: '你似乎并没有修改什么',
    serverAddress: '服务器地址',
    workerUrl: 'Worker 地址',
    workerKey: 'Worker 密钥',
    secretPlaceholder: '敏感信息不会发送到前端显示',
    payAddress: '支付地址',
    epayId: '易支付商户 ID',
    epayKey: '易支付商户密钥',
    price: '充值价格（元/美元）',
    minTopUp: '最低充值美元数量',
    callback: '回调地址',
    serverAddressMissing: '请先填写服务器地址',
    serverAddressUnsaved: '请先保存通用设置中的服务器地址',
    priceInvalid: '充值价格必须是大于 0 的数字',
    effectiveCallback: '支付回调将发往：',
    restriction: '启用邮箱域名白名单',
    domains: '允许的邮箱域名',
    invalidDomain: '不是合法的邮箱域名：not_a_domain',
    telegramName: 'Telegram Bot 名称',
    githubClientId: 'GitHub Client ID',
    passwordLogin: '允许通过密码进行登录',
    confirmTitle: '确定要关闭密码登录吗？',
    confirmOk: '仍要关闭',
    cancel: '取消',
    confirmNote: '密码登录将在保存后关闭',
    register: '允许新用户注册',
    registerDisabledBanner: '管理员已关闭新用户注册',
    smtpServer: 'SMTP 服务器地址',
    smtpPort: 'SMTP 端口',
    smtpAccount: 'SMTP 账户',
    smtpFrom: 'SMTP 发送者邮箱',
    smtpToken: 'SMTP 访问凭证',
    ssl: '启用 SMTP SSL',
    sslForced: '端口 465 强制使用 SSL，此开关不起作用',
    test: '发送测试邮件',
    testDirty: 'SMTP 设置有未保存的修改。测试邮件使用已保存的设置，请先保存再测试。',
    testHint: '测试邮件使用已保存的 SMTP 设置，发送到你的邮箱',
    testSent: '测试邮件已发送到',
    testFailed: '测试邮件发送失败',
    testNoEmail: '你的账户还没有绑定邮箱，测试邮件无处可发：请先在个人设置中绑定邮箱。',
  },
  en: {
    tab: 'System',
    save: 'Save',
    saved: 'Saved',
    unchanged: "You don't seem to have changed anything",
    serverAddress: 'Server address',
    workerUrl: 'Worker URL',
    workerKey: 'Worker key',
    secretPlaceholder: 'Saved value is never shown',
    payAddress: 'Payment address',
    epayId: 'Epay merchant ID',
    epayKey: 'Epay merchant key',
    price: 'Top-up price (CNY per USD)',
    minTopUp: 'Minimum top-up (USD)',
    callback: 'Callback address',
    serverAddressMissing: 'Fill in the server address first',
    serverAddressUnsaved: 'Save the server address in General first',
    priceInvalid: 'The top-up price must be a number above 0',
    effectiveCallback: 'Payment callbacks go to: ',
    restriction: 'Enable the email domain whitelist',
    domains: 'Allowed email domains',
    invalidDomain: 'Not a valid email domain: not_a_domain',
    telegramName: 'Telegram bot name',
    githubClientId: 'GitHub Client ID',
    passwordLogin: 'Allow login with a password',
    confirmTitle: 'Turn off password login?',
    confirmOk: 'Turn it off',
    cancel: 'Cancel',
    confirmNote: 'Password login turns off when you save',
    register: 'Allow new users to register',
    registerDisabledBanner: 'New user registration has been disabled by the administrator',
    smtpServer: 'SMTP server',
    smtpPort: 'SMTP port',
    smtpAccount: 'SMTP account',
    smtpFrom: 'Sender address',
    smtpToken: 'SMTP password or token',
    ssl: 'Enable SMTP SSL',
    sslForced: 'Port 465 always uses SSL; this switch has no effect',
    test: 'Send test mail',
    testDirty: 'The SMTP settings have unsaved changes. The test mail uses the saved settings: save first, then test.',
    testHint: 'The test mail uses the saved SMTP settings and goes to your address',
    testSent: 'Test mail sent to',
    testFailed: 'The test mail could not be sent',
    testNoEmail: 'Your account has no email, so the test mail has nowhere to go: bind one in the Personal tab first.',
  },
} as const;

type Language = keyof typeof TEXTS;
type Theme = 'light' | 'dark';
type Text = (typeof TEXTS)[Language];

const VARIANTS: { language: Language; theme: Theme }[] = [
  { language: 'zh', theme: 'light' },
  { language: 'en', theme: 'dark' },
];

/** Every option these tests change; each goes back to its value from before the spec. */
const TOUCHED_KEYS = [
  'ServerAddress',
  'WorkerUrl',
  'WorkerValidKey',
  'PayAddress',
  'EpayId',
  'EpayKey',
  'Price',
  'MinTopUp',
  'CustomCallbackAddress',
  'PasswordLoginEnabled',
  'RegisterEnabled',
  'EmailDomainRestrictionEnabled',
  'EmailDomainWhitelist',
  'SMTPServer',
  'SMTPPort',
  'SMTPAccount',
  'SMTPFrom',
  'SMTPToken',
  'SMTPSSLEnabled',
  'GitHubClientId',
  'TelegramBotName',
] as const;
const SECRET_KEYS = new Set(['WorkerValidKey', 'EpayKey', 'SMTPToken']);

const ROOT_EMAIL = 'root-system-e2e@modelgate.test';
const SMTP_ACCOUNT = 'mailer-e2e@modelgate.test';
const SMTP_TOKEN = 'smtp-e2e-token-K9';

let root: ApiSession;
let smtp: SmtpCatcher;
const originals = new Map<string, string>();
let originalRootEmail: string | null = null;

/** The server's database, for what the API cannot show: stored secrets, and root's email (no API sets an admin's own). */
function withDatabase<T>(work: (database: Database.Database) => T): T {
  const database = new Database(process.env.MODELGATE_E2E_SQLITE!);
  try {
    database.pragma('busy_timeout = 10000');
    return work(database);
  } finally {
    database.close();
  }
}

/** A stored option, opened with the key file the server wrote beside its database (secrets are sealed at rest). */
const storedValue = (key: string): string | undefined => {
  const value = withDatabase((database) => (database.prepare('SELECT value FROM options WHERE key = ?').get(key) as { value: string } | undefined)?.value);
  if (value === undefined || !isSealed(value)) return value;
  const secretKey = parseSecretKey(readFileSync(`${process.env.MODELGATE_E2E_SQLITE!}.key`, 'utf8'));
  if (!secretKey) throw new Error('the server wrote no readable key file beside its database');
  return new SecretBox(secretKey).open(value);
};

async function readableOptions(): Promise<Record<string, string>> {
  const entries = await apiCall<{ key: string; value: string }[]>(root, 'GET', '/api/option/');
  return Object.fromEntries(entries.map((entry) => [entry.key, entry.value]));
}

/** Waits until GET /api/option/ shows `key` holding `value` (or, for a secret, lacking it). */
async function expectOption(key: string, value: string | undefined): Promise<void> {
  await expect.poll(async () => (await readableOptions())[key], { message: key }).toBe(value);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function openSystemTab(page: Page, language: Language, theme: Theme): Promise<void> {
  await presetLanguageAndTheme(page, language, theme);
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/setting?tab=system');
  await expect(page.getByRole('tab', { name: TEXTS[language].tab })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('system-general').getByLabel(TEXTS[language].serverAddress, { exact: true })).toBeVisible();
}

const cardOf = (page: Page, name: string): Locator => page.getByTestId(`system-${name}`);

async function save(page: Page, text: Text, name: string): Promise<void> {
  await cardOf(page, name).getByRole('button', { name: text.save, exact: true }).click();
}

/** The whole tab: the console scrolls inside its content pane, so the window is made tall enough first. */
async function screenshot(page: Page, name: string): Promise<void> {
  const height = await page.evaluate(() => {
    const tab = document.querySelector('.mg-settings')!;
    return tab.getBoundingClientRect().top + tab.scrollHeight + 48;
  });
  await page.setViewportSize({ width: 1280, height: Math.ceil(height) });
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  await page.screenshot({ path: `.tmp/screens/settings-system-${name}.png`, fullPage: true });
}

test.beforeAll(async () => {
  root = await apiSession(ROOT.username, ROOT.password);
  const readable = await readableOptions();
  for (const key of TOUCHED_KEYS) originals.set(key, SECRET_KEYS.has(key) ? (storedValue(key) ?? '') : readable[key]!);
  originalRootEmail = withDatabase(
    (database) => (database.prepare('SELECT email FROM users WHERE id = ?').get(root.user.id) as { email: string | null }).email,
  );
  withDatabase((database) => database.prepare('UPDATE users SET email = ? WHERE id = ?').run(ROOT_EMAIL, root.user.id));
  smtp = await startSmtpCatcher({ user: SMTP_ACCOUNT, pass: SMTP_TOKEN });
});

test.afterAll(async () => {
  try {
    for (const [key, value] of originals) await setOption(root, key, value);
    withDatabase((database) => database.prepare('UPDATE users SET email = ? WHERE id = ?').run(originalRootEmail, root.user.id));
    // Later specs share this server: make sure nothing was left changed.
    const readable = await readableOptions();
    for (const [key, value] of originals) expect(SECRET_KEYS.has(key) ? (storedValue(key) ?? '') : readable[key], key).toBe(value);
  } finally {
    await smtp.close();
    await root.api.dispose();
  }
});

for (const { language, theme } of VARIANTS) {
  const text = TEXTS[language];
  const tag = `[${language}, ${theme}]`;

  test(`${tag} cards save and come back after a reload; addresses lose trailing slashes; secrets stay write-only`, async ({ page }) => {
    const server = `https://gw-${language}.e2e.test`;
    const worker = `https://worker-${language}.e2e.test`;
    const workerKey = `worker-key-${language}-Q3`;
    const domain = `example-${language}.org`;
    const botName = `modelgate_${language}_bot`;
    await openSystemTab(page, language, theme);

    // General: the slashes go, and saving the same again says nothing changed.
    const general = cardOf(page, 'general');
    await general.getByLabel(text.serverAddress, { exact: true }).fill(`${server}///`);
    await save(page, text, 'general');
    await expect(toast(page, text.saved).last()).toBeVisible();
    await expectOption('ServerAddress', server);
    await save(page, text, 'general');
    await expect(toast(page, text.unchanged).last()).toBeVisible();

    // Worker proxy: URL stripped, key stored but never sent back.
    const workerCard = cardOf(page, 'worker');
    await workerCard.getByLabel(text.workerUrl, { exact: true }).fill(`${worker}/`);
    const keyField = workerCard.getByLabel(text.workerKey, { exact: true });
    await expect(keyField).toHaveAttribute('type', 'password');
    await expect(keyField).toHaveAttribute('placeholder', text.secretPlaceholder);
    await keyField.fill(workerKey);
    await save(page, text, 'worker');
    await expectOption('WorkerUrl', worker);
    expect(await readableOptions()).not.toHaveProperty('WorkerValidKey');
    await expect.poll(() => storedValue('WorkerValidKey')).toBe(workerKey);
    await expect(keyField).toHaveValue('');

    // Email whitelist: a tag added, a bad one refused, stored comma-separated without spaces.
    const whitelist = cardOf(page, 'whitelist');
    await whitelist.getByRole('switch', { name: text.restriction }).click();
    const tags = whitelist.getByTestId('whitelist-domains').getByRole('textbox');
    await tags.fill(`  ${domain.toUpperCase()}`);
    await tags.press('Enter');
    await tags.fill('not_a_domain');
    await tags.press('Enter');
    await expect(toast(page, text.invalidDomain).last()).toBeVisible();
    await save(page, text, 'whitelist');
    await expectOption('EmailDomainRestrictionEnabled', 'true');
    // The switch and the list may be saved by separate writes: wait for the list's.
    await expect
      .poll(async () => (await readableOptions()).EmailDomainWhitelist ?? '', { message: 'EmailDomainWhitelist' })
      .toMatch(new RegExp(`,${domain.replaceAll('.', '\\.')}$`));
    const stored = (await readableOptions()).EmailDomainWhitelist!;
    expect(stored).not.toMatch(/\s|not_a_domain/);

    // OAuth: the callback comes from the saved server address; Telegram bot name.
    await expect(page.getByTestId('github-callback')).toHaveText(`${server}/oauth/github`);
    await expect(page.getByTestId('linuxdo-callback')).toHaveText(`${server}/oauth/linuxdo`);
    await cardOf(page, 'github').getByLabel(text.githubClientId, { exact: true }).fill(`Iv1.${language}client`);
    await save(page, text, 'github');
    await expectOption('GitHubClientId', `Iv1.${language}client`);
    await cardOf(page, 'telegram').getByLabel(text.telegramName, { exact: true }).fill(botName);
    await save(page, text, 'telegram');
    await expectOption('TelegramBotName', botName);

    await page.reload();
    await expect(cardOf(page, 'general').getByLabel(text.serverAddress, { exact: true })).toHaveValue(server);
    await expect(cardOf(page, 'worker').getByLabel(text.workerUrl, { exact: true })).toHaveValue(worker);
    await expect(cardOf(page, 'worker').getByLabel(text.workerKey, { exact: true })).toHaveValue('');
    await expect(cardOf(page, 'whitelist').getByRole('switch', { name: text.restriction })).toBeChecked();
    await expect(cardOf(page, 'whitelist').getByText(domain, { exact: true })).toBeVisible();
    await expect(cardOf(page, 'github').getByLabel(text.githubClientId, { exact: true })).toHaveValue(`Iv1.${language}client`);
    await expect(cardOf(page, 'telegram').getByLabel(text.telegramName, { exact: true })).toHaveValue(botName);
    await expect(page.getByTestId('github-callback')).toHaveText(`${server}/oauth/github`);
    await screenshot(page, `${language}-${theme}`);

    // Put the whitelist switch back now: a later test registers users.
    await setOption(root, 'EmailDomainRestrictionEnabled', originals.get('EmailDomainRestrictionEnabled')!);
  });

  test(`${tag} payment needs a saved server address, then saves with slashes stripped`, async ({ page }) => {
    await setOption(root, 'ServerAddress', '');
    await setOption(root, 'CustomCallbackAddress', '');
    const before = await readableOptions();
    const server = `https://pay-site-${language}.e2e.test`;
    const payAddress = `https://pay-${language}.e2e.test`;
    const epayKey = `epay-key-${language}-Z8`;
    await openSystemTab(page, language, theme);

    const payment = cardOf(page, 'payment');
    await payment.getByLabel(text.payAddress, { exact: true }).fill(`${payAddress}//`);
    await payment.getByLabel(text.epayId, { exact: true }).fill('1001');
    await payment.getByLabel(text.epayKey, { exact: true }).fill(epayKey);
    await payment.getByLabel(text.price, { exact: true }).fill('7.5');
    await payment.getByLabel(text.minTopUp, { exact: true }).fill('2');
    await save(page, text, 'payment');
    await expect(toast(page, text.serverAddressMissing).last()).toBeVisible();

    // Typed in the general card but not saved yet: still refused, with what to do.
    await cardOf(page, 'general').getByLabel(text.serverAddress, { exact: true }).fill(`${server}/`);
    await save(page, text, 'payment');
    await expect(toast(page, text.serverAddressUnsaved).last()).toBeVisible();
    const unchanged = await readableOptions();
    for (const key of ['PayAddress', 'EpayId', 'Price', 'MinTopUp']) expect(unchanged[key], key).toBe(before[key]);
    expect(storedValue('EpayKey') ?? '').not.toBe(epayKey);

    await save(page, text, 'general');
    await expectOption('ServerAddress', server);

    // A bad price is refused before anything is sent.
    await payment.getByLabel(text.price, { exact: true }).fill('abc');
    await save(page, text, 'payment');
    await expect(toast(page, text.priceInvalid).last()).toBeVisible();
    await payment.getByLabel(text.price, { exact: true }).fill('7.5');

    await expect(page.getByTestId('payment-callback')).toHaveText(`${text.effectiveCallback}${server}`);
    await payment.getByLabel(text.callback, { exact: true }).fill(`https://callback-${language}.e2e.test/`);
    await save(page, text, 'payment');
    await expect(toast(page, text.saved).last()).toBeVisible();
    await expectOption('PayAddress', payAddress);
    await expectOption('CustomCallbackAddress', `https://callback-${language}.e2e.test`);
    const after = await readableOptions();
    expect(after).toMatchObject({ EpayId: '1001', Price: '7.5', MinTopUp: '2' });
    expect(after).not.toHaveProperty('EpayKey');
    expect(storedValue('EpayKey')).toBe(epayKey);
    // On disk it is sealed: the plaintext is nowhere in the row.
    const sealedEpayKey = withDatabase((database) => (database.prepare('SELECT value FROM options WHERE key = ?').get('EpayKey') as { value: string }).value);
    expect(sealedEpayKey).toMatch(/^enc:v1:/);
    expect(sealedEpayKey).not.toContain(epayKey);

    await page.reload();
    const reloaded = cardOf(page, 'payment');
    await expect(reloaded.getByLabel(text.payAddress, { exact: true })).toHaveValue(payAddress);
    await expect(reloaded.getByLabel(text.price, { exact: true })).toHaveValue('7.5');
    await expect(reloaded.getByLabel(text.minTopUp, { exact: true })).toHaveValue('2');
    await expect(reloaded.getByLabel(text.epayKey, { exact: true })).toHaveValue('');
    await expect(page.getByTestId('payment-callback')).toHaveText(`${text.effectiveCallback}https://callback-${language}.e2e.test`);
    await reloaded.scrollIntoViewIfNeeded();
    await reloaded.screenshot({ path: `.tmp/screens/settings-system-payment-${language}-${theme}.png` });
  });

  test(`${tag} SMTP: the token is write-only yet used, the test mail arrives, a wrong port shows the SMTP error`, async ({ page }) => {
    await openSystemTab(page, language, theme);
    const card = cardOf(page, 'smtp');
    await card.scrollIntoViewIfNeeded();
    await expect(page.getByTestId('smtp-test-hint')).toContainText(`${text.testHint} ${ROOT_EMAIL}`);

    await card.getByLabel(text.smtpServer, { exact: true }).fill('127.0.0.1');
    await card.getByLabel(text.smtpPort, { exact: true }).fill('465');
    // Port 465 forces SSL: the switch shows on and is locked.
    await expect(card.getByRole('switch', { name: text.ssl })).toBeChecked();
    await expect(card.getByRole('switch', { name: text.ssl })).toBeDisabled();
    await expect(card.getByText(text.sslForced)).toBeVisible();
    await card.getByLabel(text.smtpPort, { exact: true }).fill(String(smtp.port));
    await expect(card.getByRole('switch', { name: text.ssl })).toBeEnabled();
    await card.getByLabel(text.smtpAccount, { exact: true }).fill(SMTP_ACCOUNT);
    await card.getByLabel(text.smtpFrom, { exact: true }).fill(`noreply-${language}@modelgate.test`);
    await card.getByLabel(text.smtpToken, { exact: true }).fill(SMTP_TOKEN);
    if (await card.getByRole('switch', { name: text.ssl }).isChecked()) await card.getByRole('switch', { name: text.ssl }).click();

    // Unsaved edits: the test would use the old settings, so it says save first and sends nothing.
    const mailsBefore = smtp.mails.length;
    await expect(page.getByTestId('smtp-test-hint')).toHaveText(text.testDirty);
    await card.getByRole('button', { name: text.test }).click();
    await expect(toast(page, text.testDirty).last()).toBeVisible();

    await save(page, text, 'smtp');
    await expect(toast(page, text.saved).last()).toBeVisible();
    await expectOption('SMTPPort', String(smtp.port));
    await expectOption('SMTPAccount', SMTP_ACCOUNT);
    expect(await readableOptions()).not.toHaveProperty('SMTPToken');
    await expect(card.getByLabel(text.smtpToken, { exact: true })).toHaveValue('');
    expect(smtp.mails.length).toBe(mailsBefore);

    // The catcher accepts only this account with this token: the mail arriving proves the secret took effect.
    await card.getByRole('button', { name: text.test }).click();
    await expect(page.getByTestId('smtp-test-result')).toContainText(`${text.testSent} ${ROOT_EMAIL}`);
    const mail = await smtp.nextMailTo(ROOT_EMAIL);
    expect(mail.to).toEqual([ROOT_EMAIL]);
    expect(mail.authUser).toBe(SMTP_ACCOUNT);
    expect(mail.from).toBe(`noreply-${language}@modelgate.test`);
    expect(mail.subject).toContain('SMTP');

    await page.reload();
    const reloaded = cardOf(page, 'smtp');
    await expect(reloaded.getByLabel(text.smtpToken, { exact: true })).toHaveValue('');
    await expect(reloaded.getByLabel(text.smtpPort, { exact: true })).toHaveValue(String(smtp.port));
    await expect(reloaded.getByLabel(text.smtpAccount, { exact: true })).toHaveValue(SMTP_ACCOUNT);

    // Nothing listens on this port: the SMTP error is shown, without the token.
    const deadPort = await closedPort();
    await reloaded.getByLabel(text.smtpPort, { exact: true }).fill(String(deadPort));
    await save(page, text, 'smtp');
    await expectOption('SMTPPort', String(deadPort));
    await reloaded.getByRole('button', { name: text.test }).click();
    const failure = page.getByTestId('smtp-test-result');
    await expect(failure).toContainText(text.testFailed);
    await expect(failure).toContainText('ECONNREFUSED');
    await expect(failure).toContainText(String(deadPort));
    await expect(failure).not.toContainText(SMTP_TOKEN);
    await reloaded.scrollIntoViewIfNeeded();
    await reloaded.screenshot({ path: `.tmp/screens/settings-system-smtp-${language}-${theme}.png` });

    // An admin without an email is told to bind one, and the button stays off.
    const setRootEmail = (email: string) => withDatabase((database) => database.prepare('UPDATE users SET email = ? WHERE id = ?').run(email, root.user.id));
    setRootEmail('');
    try {
      await page.reload();
      await expect(page.getByTestId('smtp-test-hint')).toHaveText(text.testNoEmail);
      await expect(cardOf(page, 'smtp').getByRole('button', { name: text.test })).toBeDisabled();
    } finally {
      setRootEmail(ROOT_EMAIL);
    }
  });

  test(`${tag} switching password login off asks first; cancelling keeps it on`, async ({ page }) => {
    await openSystemTab(page, language, theme);
    const card = cardOf(page, 'login');
    const passwordLogin = card.getByRole('switch', { name: text.passwordLogin });
    await expect(passwordLogin).toBeChecked();

    await passwordLogin.click();
    // Semi's confirm buttons are named "cancel" and "confirm" for assistive technology; their texts are ours.
    const dialog = page.locator('.semi-modal-content').filter({ hasText: text.confirmTitle });
    const cancel = dialog.getByRole('button', { name: 'cancel', exact: true });
    const confirm = dialog.getByRole('button', { name: 'confirm', exact: true });
    await expect(cancel).toHaveText(text.cancel);
    await expect(confirm).toHaveText(text.confirmOk);
    await cancel.click();
    await expect(dialog).toBeHidden();
    await expect(passwordLogin).toBeChecked();
    await save(page, text, 'login');
    await expect(toast(page, text.unchanged).last()).toBeVisible();

    // Confirming only changes the form (shown as pending); switching back leaves nothing to save.
    await passwordLogin.click();
    await expect(dialog).toContainText(text.confirmTitle);
    await page.waitForTimeout(400); // the modal's fade-in
    await card.page().screenshot({ path: `.tmp/screens/settings-system-confirm-${language}-${theme}.png` });
    await confirm.click();
    await expect(passwordLogin).not.toBeChecked();
    await expect(card.getByText(text.confirmNote)).toBeVisible();
    await passwordLogin.click();
    await expect(passwordLogin).toBeChecked();
    await save(page, text, 'login');
    await expect(toast(page, text.unchanged).last()).toBeVisible();
    await expectOption('PasswordLoginEnabled', 'true');
  });

  test(`${tag} with registration off, registering is refused; back on, it works`, async ({ page, browser }) => {
    await openSystemTab(page, language, theme);
    const card = cardOf(page, 'login');
    const register = card.getByRole('switch', { name: text.register });
    try {
      await expect(register).toBeChecked();
      await register.click();
      await save(page, text, 'login');
      await expect(toast(page, text.saved).last()).toBeVisible();
      await expectOption('RegisterEnabled', 'false');

      const anonymous = await playwrightRequest.newContext({ baseURL: `http://127.0.0.1:${process.env.MODELGATE_E2E_PORT}` });
      const answer = await anonymous.post('/api/user/register', {
        data: { username: `rg${language}x`, password: 'e2e-password-1', password2: 'e2e-password-1' },
      });
      expect(await answer.json()).toMatchObject({ success: false, message: '管理员关闭了新用户注册' });
      await anonymous.dispose();

      const visitor = await browser.newPage();
      await visitor.addInitScript((lang) => localStorage.setItem('i18nextLng', lang), language);
      await visitor.goto('/register');
      await expect(visitor.getByText(text.registerDisabledBanner)).toBeVisible();
      await visitor.close();

      await register.click();
      await save(page, text, 'login');
      await expectOption('RegisterEnabled', 'true');
      expect(await registerUser(`rg${language}`)).toMatch(new RegExp(`^rg${language}`));
    } finally {
      await setOption(root, 'RegisterEnabled', originals.get('RegisterEnabled')!);
    }
  });
}
