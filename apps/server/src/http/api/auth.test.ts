import { LogType, UserStatus } from '@modelgate/contract';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeProviders, type FakeProviders } from '../../test-support/fake-providers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../../test-support/smtp-catcher.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}

type Inject = InjectOptions;

async function call<T = unknown>(test: TestApp, request: Inject): Promise<{ status: number; body: Envelope<T> }> {
  const response = await test.app.inject(request);
  return { status: response.statusCode, body: response.json() as Envelope<T> };
}

const register = (test: TestApp, payload: Record<string, unknown>, query = '') => call(test, { method: 'POST', url: `/api/user/register${query}`, payload });

const userByName = (test: TestApp, username: string) =>
  test.context.db.kysely.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();

const logsOf = (test: TestApp, userId: number) => test.context.db.kysely.selectFrom('logs').selectAll().where('user_id', '=', userId).orderBy('id').execute();

async function useSmtp(test: TestApp, smtp: SmtpCatcher): Promise<void> {
  const { options } = test.context;
  await options.set('SMTPServer', '127.0.0.1');
  await options.set('SMTPPort', String(smtp.port));
  await options.set('SMTPAccount', 'robot@modelgate.test');
  await options.set('SMTPToken', 'smtp-secret');
  await options.set('SMTPFrom', 'robot@modelgate.test');
  await options.set('SystemName', 'Gate');
}

const codeIn = (html: string) => /<strong>(\w+)<\/strong>/.exec(html)?.[1] ?? '';

describe('password registration', () => {
  let test: TestApp;
  beforeEach(async () => {
    test = await startTestApp();
    return () => test.close();
  });

  it('creates the account with QuotaForNewUser and a log line, then lets it sign in', async () => {
    await test.context.options.set('QuotaForNewUser', '5000');
    await test.context.options.set('DisplayInCurrencyEnabled', 'false');
    const answer = await register(test, { username: 'alice', password: 'password123', password2: 'password123' });
    expect(answer.body).toMatchObject({ success: true, message: '注册成功！' });
    const alice = (await userByName(test, 'alice'))!;
    expect(alice).toMatchObject({ quota: 5000, role: 1, status: 1, display_name: 'alice', inviter_id: 0 });
    expect(alice.aff_code).toMatch(/^[A-Za-z0-9]{4}$/);
    const logs = await logsOf(test, alice.id);
    expect(logs.map((log) => [log.type, log.content, log.username])).toEqual([[LogType.System, '新用户注册赠送 5000 点额度', 'alice']]);
    await expect(test.login('alice', 'password123')).resolves.toHaveProperty('cookie');
  });

  it('refuses when registration or password registration is switched off', async () => {
    await test.context.options.set('RegisterEnabled', 'false');
    expect((await register(test, { username: 'bob', password: 'password123' })).body.message).toBe('管理员关闭了新用户注册');
    await test.context.options.set('RegisterEnabled', 'true');
    await test.context.options.set('PasswordRegisterEnabled', 'false');
    expect((await register(test, { username: 'bob', password: 'password123' })).body.message).toBe(
      '管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册',
    );
    expect(await userByName(test, 'bob')).toBeUndefined();
  });

  it('applies the username and password rules', async () => {
    const short = await register(test, { username: 'carol', password: 'short' });
    expect(short.status).toBe(200);
    expect(short.body).toMatchObject({ success: false, message: expect.stringContaining('密码长度不得小于 8 位！') });
    expect((await register(test, { username: 'carol', password: 'password123', password2: 'password124' })).body.message).toBe('两次输入的密码不一致');
    expect((await register(test, { username: 'a-very-long-name', password: 'password123' })).body.message).toContain('用户名长度不能超过 12');
    expect((await register(test, { username: 'carol', password: 'x'.repeat(21) })).body.message).toContain('密码长度不得大于 20 位！');
    expect((await register(test, { username: 'carol', password: 'password123' })).body.success).toBe(true);
    expect((await register(test, { username: 'carol', password: 'password123' })).body.message).toBe('用户名已存在，或已注销');
  });

  it('rewards invitations: QuotaForInvitee to the newcomer, QuotaForInviter to the inviter’s referral earnings', async () => {
    const { options } = test.context;
    await options.set('QuotaForNewUser', '100');
    await options.set('QuotaForInvitee', '20');
    await options.set('QuotaForInviter', '30');
    await options.set('DisplayInCurrencyEnabled', 'false');
    await register(test, { username: 'host', password: 'password123' });
    const host = (await userByName(test, 'host'))!;

    await register(test, { username: 'guest', password: 'password123', aff_code: host.aff_code });
    await register(test, { username: 'guest2', password: 'password123', aff_code: host.aff_code });
    await register(test, { username: 'stranger', password: 'password123', aff_code: 'nope' });

    const guest = (await userByName(test, 'guest'))!;
    expect(guest).toMatchObject({ quota: 120, inviter_id: host.id });
    expect((await logsOf(test, guest.id)).map((log) => log.content)).toEqual(['新用户注册赠送 100 点额度', '使用邀请码赠送 20 点额度']);
    expect((await logsOf(test, guest.id)).map((log) => JSON.parse(log.other))).toEqual([
      { kind: 'register_gift', quota: 100 },
      { kind: 'invitee_gift', quota: 20 },
    ]);
    expect(await userByName(test, 'host')).toMatchObject({ quota: 100, aff_count: 2, aff_quota: 60, aff_history: 60 });
    expect((await logsOf(test, host.id)).map((log) => log.content)).toEqual(['新用户注册赠送 100 点额度', '邀请用户赠送 30 点额度', '邀请用户赠送 30 点额度']);
    expect(await userByName(test, 'stranger')).toMatchObject({ quota: 100, inviter_id: 0 });
  });
});

describe('sign-in', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp();
    await register(test, { username: 'dora', password: 'password123' });
  });
  afterAll(() => test.close());

  it('signs in by email address whatever its case', async () => {
    await register(test, { username: 'eve', password: 'password123' });
    await test.context.users.repository.update((await userByName(test, 'eve'))!.id, { email: 'eve@example.com' });
    const answer = await call<{ username: string }>(test, {
      method: 'POST',
      url: '/api/user/login',
      payload: { username: 'Eve@Example.com', password: 'password123' },
    });
    expect(answer.body).toMatchObject({ success: true, message: '登录成功！', data: { username: 'eve' } });
  });

  it('refuses wrong credentials, banned users, deregistered users and switched-off password login', async () => {
    const wrong = await call(test, { method: 'POST', url: '/api/user/login', payload: { username: 'dora', password: 'password999' } });
    // A wrong password is a refused operation, not a lost session: 200 as in new-api, so the console shows the message.
    expect(wrong).toMatchObject({ status: 200, body: { success: false, message: '用户名或密码错误' } });
    expect((await call(test, { method: 'POST', url: '/api/user/login', payload: { username: '', password: '' } })).body.message).toBe('请输入用户名和密码！');

    const dora = (await userByName(test, 'dora'))!;
    await test.context.users.repository.update(dora.id, { status: UserStatus.Disabled });
    const banned = await call(test, { method: 'POST', url: '/api/user/login', payload: { username: 'dora', password: 'password123' } });
    expect(banned.body).toMatchObject({ success: false, message: '用户已被封禁' });
    // A wrong password does not reveal that the account is banned.
    expect((await call(test, { method: 'POST', url: '/api/user/login', payload: { username: 'dora', password: 'nope-nope' } })).body.message).toBe(
      '用户名或密码错误',
    );

    await test.context.users.repository.update(dora.id, { status: UserStatus.Enabled, deleted_at: 1 });
    expect((await call(test, { method: 'POST', url: '/api/user/login', payload: { username: 'dora', password: 'password123' } })).body.message).toBe(
      '用户名或密码错误',
    );

    await test.context.options.set('PasswordLoginEnabled', 'false');
    const off = await call(test, { method: 'POST', url: '/api/user/login', payload: { username: 'root', password: '123456' } });
    expect(off.body).toMatchObject({ success: false, message: '管理员关闭了密码登录' });
    await test.context.options.set('PasswordLoginEnabled', 'true');
  });
});

describe('email verification and password reset through a real SMTP server', () => {
  let test: TestApp;
  let smtp: SmtpCatcher;
  beforeAll(async () => {
    smtp = await startSmtpCatcher({ user: 'robot@modelgate.test', pass: 'smtp-secret' });
  });
  afterAll(() => smtp.close());
  beforeEach(async () => {
    test = await startTestApp();
    await useSmtp(test, smtp);
    return () => test.close();
  });

  it('mails a 6-digit code that registers the address once', async () => {
    await test.context.options.set('EmailVerificationEnabled', 'true');
    const missing = await register(test, { username: 'erin', password: 'password123' });
    expect(missing.body.message).toBe('管理员开启了邮箱验证，请输入邮箱地址和验证码');

    const sent = await call(test, { method: 'GET', url: '/api/verification?email=Erin@Example.com' });
    expect(sent.body).toMatchObject({ success: true, message: '验证码发送成功，请检查你的邮箱！' });
    const mail = await smtp.nextMailTo('erin@example.com');
    expect(mail.subject).toBe('Gate邮箱验证邮件');
    expect(mail.authUser).toBe('robot@modelgate.test');
    const code = codeIn(mail.html);
    expect(code).toMatch(/^\d{6}$/);
    expect(mail.html).toContain('验证码 3 分钟内有效');

    const wrongCode = code === '000000' ? '111111' : '000000';
    const wrong = await register(test, { username: 'erin', password: 'password123', email: 'erin@example.com', verification_code: wrongCode });
    expect(wrong.body.message).toBe('验证码错误或已过期');
    const done = await register(test, { username: 'erin', password: 'password123', email: 'erin@example.com', verification_code: code });
    expect(done.body.success).toBe(true);
    expect(await userByName(test, 'erin')).toMatchObject({ email: 'erin@example.com' });

    const again = await register(test, { username: 'erin2', password: 'password123', email: 'erin@example.com', verification_code: code });
    expect(again.body.message).toBe('邮箱地址已被占用');
    const taken = await call(test, { method: 'GET', url: '/api/verification?email=erin@example.com' });
    expect(taken.body.message).toBe('邮箱地址已被占用');
  });

  it('locks resending for 30 seconds per address', async () => {
    expect((await call(test, { method: 'GET', url: '/api/verification?email=fay@example.com' })).body.success).toBe(true);
    const locked = await call(test, { method: 'GET', url: '/api/verification?email=fay@example.com' });
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(/^发送过于频繁，请 (29|30) 秒后再试$/);
    expect((await call(test, { method: 'GET', url: '/api/verification?email=gus@example.com' })).body.success).toBe(true);
    await smtp.nextMailTo('fay@example.com');
    await smtp.nextMailTo('gus@example.com');
  });

  it('checks the address, the domain whitelist and the alias restriction', async () => {
    const { options } = test.context;
    expect((await call(test, { method: 'GET', url: '/api/verification' })).body.message).toBe('请输入邮箱！');
    expect((await call(test, { method: 'GET', url: '/api/verification?email=not-an-email' })).body.message).toBe('无效的邮箱地址');
    await options.set('EmailDomainRestrictionEnabled', 'true');
    await options.set('EmailDomainWhitelist', 'example.com, corp.test');
    const outside = await call(test, { method: 'GET', url: '/api/verification?email=hal@elsewhere.org' });
    expect(outside.body.message).toBe('管理员启用了邮箱域名白名单，您的邮箱地址的域名不在白名单中');
    expect((await call(test, { method: 'GET', url: '/api/verification?email=hal@corp.test' })).body.success).toBe(true);
    await options.set('EmailAliasRestrictionEnabled', 'true');
    for (const alias of ['ivy+news@example.com', 'i.vy@example.com']) {
      const refused = await call(test, { method: 'GET', url: `/api/verification?email=${encodeURIComponent(alias)}` });
      expect(refused.body.message).toBe('管理员已启用邮箱地址别名限制，您的邮箱地址由于包含特殊符号而被拒绝。');
    }
    expect((await call(test, { method: 'GET', url: '/api/verification?email=ivy@example.com' })).body.success).toBe(true);
    await smtp.nextMailTo('hal@corp.test');
    await smtp.nextMailTo('ivy@example.com');
  });

  it('says so when SMTP is not configured', async () => {
    await test.context.options.set('SMTPServer', '');
    const answer = await call(test, { method: 'GET', url: '/api/verification?email=jan@example.com' });
    expect(answer).toMatchObject({ status: 200, body: { success: false, message: 'SMTP 服务器未配置，请联系管理员' } });
  });

  it('resets a password with a one-time mailed link', async () => {
    await test.context.users.repository.update(1, { email: 'root@example.com' });
    await test.context.options.set('ServerAddress', 'https://gate.example.com');
    expect((await call(test, { method: 'GET', url: '/api/reset_password?email=nobody@example.com' })).body.message).toBe('该邮箱地址未注册');

    const sent = await call(test, { method: 'GET', url: '/api/reset_password?email=root@example.com' });
    expect(sent.body.success).toBe(true);
    const mail = await smtp.nextMailTo('root@example.com');
    expect(mail.subject).toBe('Gate密码重置');
    const link = /href="([^"]+)"/.exec(mail.html)?.[1]?.replace(/&amp;/g, '&') ?? '';
    const url = new URL(link);
    expect(`${url.origin}${url.pathname}`).toBe('https://gate.example.com/user/reset');
    expect(url.searchParams.get('email')).toBe('root@example.com');
    const token = url.searchParams.get('token')!;
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);

    const bad = await call(test, { method: 'POST', url: '/api/user/reset', payload: { email: 'root@example.com', token: 'x'.repeat(32) } });
    expect(bad.body.message).toBe('重置链接非法或已过期');
    const reset = await call<string>(test, { method: 'POST', url: '/api/user/reset', payload: { email: 'root@example.com', token } });
    expect(reset.body.success).toBe(true);
    const password = reset.body.data!;
    expect(password).toMatch(/^[A-Za-z0-9]{12}$/);
    await expect(test.login('root', password)).resolves.toHaveProperty('cookie');
    await expect(test.login('root', '123456')).rejects.toThrow('用户名或密码错误');

    const reused = await call(test, { method: 'POST', url: '/api/user/reset', payload: { email: 'root@example.com', token } });
    expect(reused.body).toMatchObject({ success: false, message: '重置链接非法或已过期' });
  });

  it('builds the reset link from the request address when ServerAddress is empty', async () => {
    await test.context.users.repository.update(1, { email: 'root@example.com' });
    await call(test, { method: 'GET', url: '/api/reset_password?email=root@example.com', headers: { host: 'console.local:8080' } });
    const mail = await smtp.nextMailTo('root@example.com');
    expect(mail.html).toContain('http://console.local:8080/user/reset?email=root%40example.com&amp;token=');
  });
});

describe('Turnstile bot check', () => {
  let test: TestApp;
  let fakes: FakeProviders;
  beforeAll(async () => {
    fakes = await startFakeProviders();
    test = await startTestApp(fakes.env);
    const { options } = test.context;
    await options.set('TurnstileCheckEnabled', 'true');
    await options.set('TurnstileSecretKey', fakes.turnstileSecret);
    fakes.turnstileTokens.add('human-token');
  });
  afterAll(async () => {
    await test.close();
    await fakes.close();
  });

  it('requires a token the verify service accepts on login, registration and mail sending', async () => {
    const login = { method: 'POST' as const, url: '/api/user/login', payload: { username: 'root', password: '123456' } };
    expect((await call(test, login)).body.message).toBe('Turnstile token 为空');
    const forged = await call(test, { ...login, url: '/api/user/login?turnstile=robot-token' });
    expect(forged).toMatchObject({ status: 200, body: { success: false, message: 'Turnstile 校验失败，请刷新重试！' } });
    expect((await call(test, { ...login, url: '/api/user/login?turnstile=human-token' })).body.success).toBe(true);

    const verify = fakes.seen.filter((request) => request.path === '/turnstile').at(-1)!;
    const form = new URLSearchParams(verify.body);
    expect(form.get('secret')).toBe(fakes.turnstileSecret);
    expect(form.get('response')).toBe('human-token');
    expect(form.get('remoteip')).toBe('127.0.0.1');

    expect((await register(test, { username: 'kim', password: 'password123' })).body.message).toBe('Turnstile token 为空');
    expect((await register(test, { username: 'kim', password: 'password123' }, '?turnstile=human-token')).body.success).toBe(true);
    expect((await call(test, { method: 'GET', url: '/api/verification?email=kim@example.com' })).body.message).toBe('Turnstile token 为空');
    expect((await call(test, { method: 'GET', url: '/api/reset_password?email=kim@example.com' })).body.message).toBe('Turnstile token 为空');
  });
});

describe('critical rate limit', () => {
  it('limits mail sending and password reset per IP', async () => {
    const test = await startTestApp({ CRITICAL_RATE_LIMIT: '3' });
    try {
      const answers: unknown[] = [];
      for (const url of ['/api/verification?email=x', '/api/reset_password?email=x', '/api/verification?email=x', '/api/verification?email=x']) {
        const { status, body } = await call(test, { method: 'GET', url });
        answers.push({ status, success: body.success, message: body.message });
      }
      const refused = { status: 200, success: false, message: '无效的邮箱地址' };
      expect(answers).toEqual([refused, refused, refused, { status: 429, success: false, message: '请求过于频繁，请稍后再试' }]);
      const reset = await call(test, { method: 'POST', url: '/api/user/reset', payload: { email: 'a@b.c', token: 't' } });
      expect(reset.status).toBe(429);
      const fromElsewhere = await call(test, { method: 'GET', url: '/api/verification?email=x', remoteAddress: '10.0.0.9' });
      expect(fromElsewhere).toMatchObject({ status: 200, body: { success: false, message: '无效的邮箱地址' } });
    } finally {
      await test.close();
    }
  });
});
