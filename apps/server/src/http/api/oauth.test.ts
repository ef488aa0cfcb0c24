import { createHash, createHmac } from 'node:crypto';
import { Role, UserStatus } from '@modelgate/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { startFakeProviders, type FakeProviders } from '../../test-support/fake-providers.js';
import { startSmtpCatcher } from '../../test-support/smtp-catcher.js';
import { sessionCookieOf, startTestApp, type TestApp } from '../../test-support/test-app.js';

interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}
type Headers = Record<string, string>;
type LoginData = { id: number; username: string; display_name: string; role: number };

const PASSWORD = 'password123';

let fakes: FakeProviders;
let test: TestApp;

beforeAll(async () => {
  fakes = await startFakeProviders();
});
afterAll(() => fakes.close());

beforeEach(async () => {
  test = await startTestApp(fakes.env);
  const { options } = test.context;
  await options.set('GitHubOAuthEnabled', 'true');
  await options.set('GitHubClientId', fakes.clients.github.id);
  await options.set('GitHubClientSecret', fakes.clients.github.secret);
  await options.set('LinuxDOOAuthEnabled', 'true');
  await options.set('LinuxDOClientId', fakes.clients.linuxdo.id);
  await options.set('LinuxDOClientSecret', fakes.clients.linuxdo.secret);
  await options.set('WeChatAuthEnabled', 'true');
  await options.set('WeChatServerAddress', fakes.wechatServerAddress);
  await options.set('WeChatServerToken', fakes.wechatToken);
  return () => test.close();
});

async function addUser(username: string, extra: Record<string, unknown> = {}): Promise<number> {
  return test.context.users.repository.insert({ username, password: await hashPassword(PASSWORD), display_name: username, ...extra });
}

async function get<T = unknown>(url: string, headers: Headers = {}) {
  const response = await test.app.inject({ method: 'GET', url, headers });
  return { status: response.statusCode, body: response.json() as Envelope<T>, response };
}

/** GET /api/oauth/state, as the console does before sending the browser to the provider. */
async function startOAuth(aff = ''): Promise<{ state: string; cookie: string }> {
  const response = await test.app.inject({ method: 'GET', url: `/api/oauth/state${aff ? `?aff=${aff}` : ''}` });
  const state = (response.json() as Envelope<string>).data!;
  const cookie = response.cookies.find((candidate) => candidate.name === 'oauth_state')!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/oauth' });
  return { state, cookie: `oauth_state=${cookie.value}` };
}

/** The console's /oauth/<provider> page calling back with the provider's code. */
async function finishOAuth(provider: 'github' | 'linuxdo', code: string, options: { aff?: string; session?: Headers } = {}) {
  const { state, cookie } = await startOAuth(options.aff);
  const cookies = [cookie, options.session?.cookie].filter(Boolean).join('; ');
  const headers: Headers = { cookie: cookies };
  if (options.session) headers['new-api-user'] = options.session['new-api-user']!;
  return get<LoginData>(`/api/oauth/${provider}?code=${code}&state=${state}`, headers);
}

describe('GitHub sign-in', () => {
  it('refuses a missing state, or a state issued to another browser, and clears the state cookie', async () => {
    fakes.githubCodes.set('gh-code-1', { id: 101, login: 'octo' });
    expect(await get('/api/oauth/github?code=gh-code-1&state=abc')).toMatchObject({
      status: 200,
      body: { success: false, message: 'state is empty or not same' },
    });
    const mine = await startOAuth();
    const theirs = await startOAuth();
    const forged = await get(`/api/oauth/github?code=gh-code-1&state=${theirs.state}`, { cookie: mine.cookie });
    expect(forged).toMatchObject({ status: 200, body: { success: false, message: 'state is empty or not same' } });
    expect(forged.response.cookies.find((cookie) => cookie.name === 'oauth_state')?.value).toBe('');
    const tampered = await get(`/api/oauth/github?code=gh-code-1&state=${mine.state}`, { cookie: `oauth_state=${mine.state}|` });
    expect(tampered).toMatchObject({ status: 200, body: { success: false, message: 'state is empty or not same' } });
    const good = await get(`/api/oauth/github?code=gh-code-1&state=${mine.state}`, { cookie: mine.cookie });
    expect(good.body.success).toBe(true);
  });

  it('creates the account on first sign-in, signs the same account in later, and credits the inviter', async () => {
    const { options } = test.context;
    await options.set('QuotaForNewUser', '100');
    await options.set('QuotaForInvitee', '10');
    await options.set('QuotaForInviter', '7');
    const inviterId = await addUser('host', { aff_code: 'HOST' });

    fakes.githubCodes.set('gh-first', { id: 4242, login: 'octocat', name: 'The Octocat', email: 'Octo@GitHub.test' });
    const first = await finishOAuth('github', 'gh-first', { aff: 'HOST' });
    expect(first.body).toMatchObject({ success: true, message: '登录成功！' });
    const created = (await test.context.users.repository.findById(first.body.data!.id))!;
    expect(created).toMatchObject({
      username: `github_${inviterId + 1}`,
      display_name: 'The Octocat',
      github_id: '4242',
      email: 'octo@github.test',
      password: '',
      role: Role.Common,
      quota: 110,
      inviter_id: inviterId,
    });
    expect(await test.context.users.repository.findById(inviterId)).toMatchObject({ aff_count: 1, aff_quota: 7 });

    // The session cookie it set works for console calls.
    const session = { cookie: sessionCookieOf(first.response), 'new-api-user': String(created.id) };
    expect((await get('/api/user/self', session)).body.data).toMatchObject({ username: created.username });

    fakes.githubCodes.set('gh-second', { id: 4242, login: 'octocat-renamed' });
    const second = await finishOAuth('github', 'gh-second');
    expect(second.body.data!.id).toBe(created.id);
    expect(await test.context.users.repository.count()).toBe(3);
    // The code went to the configured token endpoint with our client credentials.
    const exchange = fakes.seen.filter((request) => request.path === '/github/login/oauth/access_token').at(-1)!;
    expect(JSON.parse(exchange.body)).toEqual({ client_id: 'gh-client', client_secret: 'gh-secret', code: 'gh-second' });
  });

  it('recognises an account bound by login name before and moves it to the numeric id', async () => {
    const id = await addUser('legacy', { github_id: 'old-login' });
    fakes.githubCodes.set('gh-legacy', { id: 777, login: 'old-login' });
    const answer = await finishOAuth('github', 'gh-legacy');
    expect(answer.body.data!.id).toBe(id);
    expect((await test.context.users.repository.findById(id))!.github_id).toBe('777');
  });

  it('binds when signed in, and refuses an account bound to someone else', async () => {
    const id = await addUser('binder');
    const session = await test.login('binder', PASSWORD);
    fakes.githubCodes.set('gh-bind', { id: 9001, login: 'binder-gh' });
    const bound = await finishOAuth('github', 'gh-bind', { session });
    expect(bound.body).toEqual({ success: true, message: 'bind' });
    expect((await test.context.users.repository.findById(id))!.github_id).toBe('9001');

    await addUser('other');
    const otherSession = await test.login('other', PASSWORD);
    fakes.githubCodes.set('gh-bind-2', { id: 9001, login: 'binder-gh' });
    const taken = await finishOAuth('github', 'gh-bind-2', { session: otherSession });
    expect(taken.body).toMatchObject({ success: false, message: '该 GitHub 账户已被绑定' });
  });

  it('refuses when switched off, when registration is closed, for banned or deregistered users and for bad codes', async () => {
    const { options } = test.context;
    await options.set('GitHubOAuthEnabled', 'false');
    fakes.githubCodes.set('gh-off', { id: 1, login: 'a' });
    expect((await finishOAuth('github', 'gh-off')).body.message).toBe('管理员未开启通过 GitHub 登录以及注册');
    await options.set('GitHubOAuthEnabled', 'true');

    await options.set('RegisterEnabled', 'false');
    fakes.githubCodes.set('gh-closed', { id: 2, login: 'b' });
    expect((await finishOAuth('github', 'gh-closed')).body.message).toBe('管理员关闭了新用户注册');
    await options.set('RegisterEnabled', 'true');

    await addUser('banned', { github_id: '3', status: UserStatus.Disabled });
    fakes.githubCodes.set('gh-banned', { id: 3, login: 'c' });
    expect((await finishOAuth('github', 'gh-banned')).body.message).toBe('用户已被封禁');
    await addUser('deleted', { github_id: '4', deleted_at: 1 });
    fakes.githubCodes.set('gh-deleted', { id: 4, login: 'd' });
    expect((await finishOAuth('github', 'gh-deleted')).body.message).toBe('用户已注销');

    const bad = await finishOAuth('github', 'never-issued');
    expect(bad.body.message).toBe('GitHub 授权失败：The code passed is incorrect or expired.');
  });
});

describe('LinuxDO sign-in', () => {
  it('creates, signs in and binds through the token endpoint with HTTP Basic client credentials', async () => {
    fakes.linuxdoCodes.set('ld-1', { id: 55, username: 'penguin', name: 'Tux' });
    const first = await finishOAuth('linuxdo', 'ld-1');
    expect(first.body).toMatchObject({ success: true, data: { display_name: 'Tux' } });
    expect(first.body.data!.username).toMatch(/^linuxdo_\d+$/);
    const exchange = fakes.seen.filter((request) => request.path === '/linuxdo/oauth2/token').at(-1)!;
    expect(new URLSearchParams(exchange.body).get('redirect_uri')).toBe('http://localhost:80/oauth/linuxdo');

    fakes.linuxdoCodes.set('ld-2', { id: 55, username: 'penguin' });
    expect((await finishOAuth('linuxdo', 'ld-2')).body.data!.id).toBe(first.body.data!.id);

    const id = await addUser('ld-binder');
    fakes.linuxdoCodes.set('ld-3', { id: 66, username: 'gnu' });
    expect((await finishOAuth('linuxdo', 'ld-3', { session: await test.login('ld-binder', PASSWORD) })).body.message).toBe('bind');
    expect((await test.context.users.repository.findById(id))!.linux_do_id).toBe('66');

    expect((await get('/api/oauth/linuxdo?error=access_denied&error_description=用户拒绝了授权')).body.message).toBe('用户拒绝了授权');
  });
});

describe('WeChat sign-in', () => {
  it('signs in with a code the WeChat server vouches for, creating the account once', async () => {
    fakes.wechatCodes.set('123456', 'openid-abc');
    const first = await get<LoginData>('/api/oauth/wechat?code=123456');
    expect(first.body).toMatchObject({ success: true, data: { display_name: 'WeChat User' } });
    expect(first.body.data!.username).toMatch(/^wechat_\d+$/);
    expect(fakes.seen.filter((request) => request.path === '/wechat/api/wechat/user').at(-1)!.headers.authorization).toBe(fakes.wechatToken);
    fakes.wechatCodes.set('654321', 'openid-abc');
    expect((await get<LoginData>('/api/oauth/wechat?code=654321')).body.data!.id).toBe(first.body.data!.id);
    expect((await get('/api/oauth/wechat?code=000000')).body).toMatchObject({ success: false, message: '验证码错误或已过期' });

    await test.context.options.set('WeChatServerToken', 'wrong');
    fakes.wechatCodes.set('111111', 'openid-x');
    expect((await get('/api/oauth/wechat?code=111111')).body.message).toBe('无权进行此操作');
    await test.context.options.set('WeChatAuthEnabled', 'false');
    expect((await get('/api/oauth/wechat?code=111111')).body.message).toBe('管理员未开启通过微信登录以及注册');
  });

  it('binds to the signed-in user once', async () => {
    const id = await addUser('wx');
    const session = await test.login('wx', PASSWORD);
    fakes.wechatCodes.set('222222', 'openid-wx');
    expect((await get('/api/oauth/wechat/bind?code=222222', session)).body).toMatchObject({ success: true, message: '微信账户绑定成功！' });
    expect((await test.context.users.repository.findById(id))!.wechat_id).toBe('openid-wx');
    await addUser('wx2');
    fakes.wechatCodes.set('333333', 'openid-wx');
    expect((await get('/api/oauth/wechat/bind?code=333333', await test.login('wx2', PASSWORD))).body.message).toBe('该微信账号已被绑定');
    expect((await get('/api/oauth/wechat/bind?code=333333')).status).toBe(401);
  });
});

describe('Telegram sign-in', () => {
  const BOT_TOKEN = '7000:telegram-bot-token';
  const sign = (fields: Record<string, string>, token = BOT_TOKEN) => {
    const lines = Object.entries(fields)
      .map(([key, value]) => `${key}=${value}`)
      .sort()
      .join('\n');
    const secret = createHash('sha256').update(token).digest();
    return { ...fields, hash: createHmac('sha256', secret).update(lines).digest('hex') };
  };
  const query = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const fresh = () => String(Math.floor(Date.now() / 1000) - 30);

  beforeEach(async () => {
    await test.context.options.set('TelegramOAuthEnabled', 'true');
    await test.context.options.set('TelegramBotToken', BOT_TOKEN);
  });

  it('binds with valid data, then signs that user in; refuses forged and stale data', async () => {
    const id = await addUser('tg');
    const session = await test.login('tg', PASSWORD);
    const data = { id: '31337', first_name: 'Pavel', username: 'durov', photo_url: 'https://t.me/i/userpic/1.jpg', auth_date: fresh() };

    expect((await get(`/api/oauth/telegram/login?${query(sign(data))}`)).body.message).toBe('该 Telegram 账户未绑定');
    const bound = await get(`/api/oauth/telegram/bind?${query(sign(data))}`, session);
    expect(bound.body).toMatchObject({ success: true });
    expect((await test.context.users.repository.findById(id))!.telegram_id).toBe('31337');

    const login = await get<LoginData>(`/api/oauth/telegram/login?${query(sign(data))}`);
    expect(login.body).toMatchObject({ success: true, data: { id, username: 'tg' } });

    const forged = { ...sign(data), id: '1' };
    expect((await get(`/api/oauth/telegram/login?${query(forged)}`)).body).toMatchObject({ success: false, message: '无效的请求' });
    const otherBot = sign(data, '8000:another-bot');
    expect((await get(`/api/oauth/telegram/login?${query(otherBot)}`)).body.message).toBe('无效的请求');
    const stale = sign({ ...data, auth_date: String(Math.floor(Date.now() / 1000) - 2 * 24 * 3600) });
    expect((await get(`/api/oauth/telegram/login?${query(stale)}`)).body.message).toBe('Telegram 登录信息已过期，请重新授权');

    await addUser('tg2');
    const second = await get(`/api/oauth/telegram/bind?${query(sign(data))}`, await test.login('tg2', PASSWORD));
    expect(second.body.message).toBe('该 Telegram 账户已被绑定');

    await test.context.options.set('TelegramOAuthEnabled', 'false');
    expect((await get(`/api/oauth/telegram/login?${query(sign(data))}`)).body.message).toBe('管理员未开启通过 Telegram 登录以及注册');
  });
});

describe('email binding', () => {
  it('binds an address proven by a mailed code, once', async () => {
    const smtp = await startSmtpCatcher();
    try {
      const { options } = test.context;
      await options.set('SMTPServer', '127.0.0.1');
      await options.set('SMTPPort', String(smtp.port));
      await options.set('SMTPFrom', 'robot@modelgate.test');
      const id = await addUser('mailer');
      const session = await test.login('mailer', PASSWORD);

      expect((await get('/api/verification?email=mailer@example.com')).body.success).toBe(true);
      const code = /<strong>(\d{6})<\/strong>/.exec((await smtp.nextMailTo('mailer@example.com')).html)![1]!;
      expect((await get('/api/oauth/email/bind?email=mailer@example.com&code=', session)).body.message).toBe('请输入邮箱验证码！');
      expect((await get(`/api/oauth/email/bind?email=other@example.com&code=${code}`, session)).body.message).toBe('验证码错误或已过期');
      const bound = await get(`/api/oauth/email/bind?email=mailer@example.com&code=${code}`, session);
      expect(bound.body).toMatchObject({ success: true, message: '邮箱账户绑定成功！' });
      expect((await test.context.users.repository.findById(id))!.email).toBe('mailer@example.com');
      const reused = await get(`/api/oauth/email/bind?email=mailer@example.com&code=${code}`, session);
      expect(reused.body.message).toBe('验证码错误或已过期');
      expect((await get(`/api/oauth/email/bind?email=mailer@example.com&code=${code}`)).status).toBe(401);
    } finally {
      await smtp.close();
    }
  });
});
