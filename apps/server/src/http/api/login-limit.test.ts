import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

interface Envelope {
  success: boolean;
  message: string;
}

const REDIS_URL = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15';
const PASSWORD = 'password123';
const WRONG = 'wrong-password';
const LOCKED = '登录失败次数过多，请 15 分钟后再试';
const WRONG_CREDENTIALS = '用户名或密码错误';
const TOO_FREQUENT = '请求过于频繁，请稍后再试';

const started: TestApp[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const app of started.splice(0)) await app.close();
});

async function start(env: Record<string, string> = {}): Promise<TestApp> {
  const test = await startTestApp(env);
  started.push(test);
  return test;
}

async function addUser(test: TestApp, username: string, extra: Record<string, unknown> = {}): Promise<void> {
  await test.context.users.repository.insert({ username, password: await hashPassword(PASSWORD), display_name: username, ...extra });
}

async function login(test: TestApp, username: string, password: string, request: Partial<InjectOptions> = {}) {
  const response = await test.app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password }, ...request });
  return { status: response.statusCode, ...(response.json() as Envelope) };
}

/** A name no earlier run left a lock on in the shared Redis. */
const freshName = (prefix: string) => `${prefix}${randomBytes(3).toString('hex')}`;

describe('the per-IP sign-in limit (CRITICAL_RATE_LIMIT) and forwarding headers', () => {
  const rotating = (index: number) => ({ 'x-forwarded-for': `203.0.113.${index + 1}` });

  it('counts a client by its own address when no proxy is trusted, whatever X-Forwarded-For says', async () => {
    const test = await start({ CRITICAL_RATE_LIMIT: '5' });
    const answers = [];
    for (let index = 0; index < 7; index += 1) {
      answers.push(await login(test, `nobody${index}`, WRONG, { remoteAddress: '198.51.100.7', headers: rotating(index) }));
    }
    expect(answers.map((answer) => answer.message)).toEqual([...Array(5).fill(WRONG_CREDENTIALS), TOO_FREQUENT, TOO_FREQUENT]);
    expect(answers[5]!.status).toBe(429);
  });

  it('believes X-Forwarded-For from a trusted proxy only', async () => {
    const test = await start({ CRITICAL_RATE_LIMIT: '5', TRUSTED_PROXIES: '192.0.2.10, 10.0.0.0/8' });
    // Each client behind the proxy has its own window.
    for (let index = 0; index < 7; index += 1) {
      expect((await login(test, `nobody${index}`, WRONG, { remoteAddress: '192.0.2.10', headers: rotating(index) })).message).toBe(WRONG_CREDENTIALS);
    }
    // One client behind the proxy (or behind a proxy of the trusted range) is still limited.
    const same = [];
    for (let index = 0; index < 6; index += 1) {
      same.push((await login(test, `other${index}`, WRONG, { remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': '203.0.113.200' } })).message);
    }
    expect(same).toEqual([...Array(5).fill(WRONG_CREDENTIALS), TOO_FREQUENT]);
    // A client that is not a trusted proxy cannot pick its address.
    const direct = [];
    for (let index = 0; index < 6; index += 1) {
      direct.push((await login(test, `third${index}`, WRONG, { remoteAddress: '198.51.100.8', headers: rotating(index + 20) })).message);
    }
    expect(direct).toEqual([...Array(5).fill(WRONG_CREDENTIALS), TOO_FREQUENT]);
  });

  it('refuses a TRUSTED_PROXIES entry that is not an address or range, naming it', async () => {
    await expect(startTestApp({ TRUSTED_PROXIES: '10.0.0.1, proxy.example.com' })).rejects.toThrow(/TRUSTED_PROXIES .*"proxy\.example\.com"/);
    await expect(startTestApp({ TRUSTED_PROXIES: '10.0.0.0/33' })).rejects.toThrow(/TRUSTED_PROXIES/);
  });
});

describe('the per-account sign-in lockout', () => {
  it('locks an account after 10 failures, refusing even the right password, and leaves other accounts alone', async () => {
    const test = await start();
    await addUser(test, 'victim', { email: 'victim@example.com' });
    await addUser(test, 'bystander');
    // Each guess from another address: the lock is per account, not per client.
    for (let index = 0; index < 10; index += 1) {
      const answer = await login(test, 'victim', `${WRONG}${index}`, { remoteAddress: `198.51.100.${index + 1}` });
      expect(answer.message).toBe(WRONG_CREDENTIALS);
    }
    const right = await login(test, 'victim', PASSWORD);
    expect(right).toMatchObject({ status: 429, success: false, message: LOCKED });
    // Signing in by the account's email is the same account.
    expect((await login(test, 'Victim@Example.com', PASSWORD)).message).toBe(LOCKED);
    expect((await login(test, 'bystander', PASSWORD)).success).toBe(true);
  });

  it('ends the lock after 15 minutes', async () => {
    const test = await start();
    await addUser(test, 'sleeper');
    vi.useFakeTimers({ toFake: ['Date'] });
    for (let index = 0; index < 10; index += 1) await login(test, 'sleeper', WRONG);
    vi.setSystemTime(Date.now() + 14 * 60 * 1000);
    expect((await login(test, 'sleeper', PASSWORD)).message).toBe('登录失败次数过多，请 1 分钟后再试');
    vi.setSystemTime(Date.now() + 60 * 1000 + 1000);
    expect((await login(test, 'sleeper', PASSWORD)).success).toBe(true);
  });

  it('does not let a successful sign-in wipe the failures piled up against the account', async () => {
    const test = await start();
    await addUser(test, 'owner');
    for (let index = 0; index < 9; index += 1) expect((await login(test, 'owner', WRONG)).message).toBe(WRONG_CREDENTIALS);
    expect((await login(test, 'owner', PASSWORD)).success).toBe(true);
    expect((await login(test, 'owner', WRONG)).message).toBe(WRONG_CREDENTIALS);
    expect((await login(test, 'owner', PASSWORD)).message).toBe(LOCKED);
  });

  it('checks at most 10 passwords of 30 guesses sent at once', async () => {
    const test = await start();
    await addUser(test, 'target');
    const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => login(test, 'target', `${WRONG}${index}`)));
    expect(answers.filter((answer) => answer.message === WRONG_CREDENTIALS)).toHaveLength(10);
    expect(answers.filter((answer) => answer.message === LOCKED)).toHaveLength(20);
    expect((await login(test, 'target', PASSWORD)).message).toBe(LOCKED);
  });

  it('locks names no account has the same way, so the lock tells nothing about which accounts exist', async () => {
    const test = await start();
    for (let index = 0; index < 10; index += 1) expect((await login(test, 'ghost', WRONG)).message).toBe(WRONG_CREDENTIALS);
    expect((await login(test, 'ghost', WRONG)).message).toBe(LOCKED);
  });

  it('is shared by every node through Redis', async () => {
    const env = { REDIS_CONN_STRING: REDIS_URL };
    const nodeA = await start(env);
    const nodeB = await start({ ...env, NODE_TYPE: 'slave', SQLITE_PATH: `${nodeA.dir}/modelgate.db` });
    const name = freshName('shared');
    const other = freshName('other');
    await addUser(nodeA, name);
    await addUser(nodeA, other);
    for (let index = 0; index < 10; index += 1) {
      expect((await login(index % 2 === 0 ? nodeA : nodeB, name, WRONG)).message).toBe(WRONG_CREDENTIALS);
    }
    expect((await login(nodeB, name, PASSWORD)).message).toBe(LOCKED);
    expect((await login(nodeA, name, PASSWORD)).message).toBe(LOCKED);
    expect((await login(nodeB, other, PASSWORD)).success).toBe(true);
  });
});
