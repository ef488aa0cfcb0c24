import { Role } from '@modelgate/contract';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { isUniqueViolation } from '../../domain/users/user-repository.js';
import { startFakeProviders, type FakeProviders } from '../../test-support/fake-providers.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}
type Headers = Record<string, string>;

const PASSWORD = 'password123';
const TAKEN = '用户名已存在，或已注销';
const BAD_CHARACTERS = '用户名包含不允许的字符';

/** Names that must not be registered beside `root`, and the answer each gets. */
const REFUSED: [label: string, username: string, message: string][] = [
  ['another case', 'Root', TAKEN],
  ['all capitals', 'ROOT', TAKEN],
  ['a zero-width space', 'root\u200b', BAD_CHARACTERS],
  ['a Cyrillic о', 'r\u043eot', TAKEN],
  ['a Greek ο and a Cyrillic О', 'R\u03bf\u041eT', TAKEN],
  ['full-width letters', 'ｒｏｏｔ', TAKEN],
  ['a NUL', 'a\u0000b', BAD_CHARACTERS],
  ['a right-to-left override', 'toor\u202e', BAD_CHARACTERS],
  ['a lone surrogate', 'ab\ud800', BAD_CHARACTERS],
];

let test: TestApp;
beforeEach(async () => {
  test = await startTestApp();
  return () => test.close();
});

async function call<T = unknown>(request: InjectOptions): Promise<{ status: number; body: Envelope<T> }> {
  const response = await test.app.inject(request);
  return { status: response.statusCode, body: response.json() as Envelope<T> };
}

async function addUser(username: string, role: number = Role.Common): Promise<number> {
  return test.context.users.repository.insert({ username, password: await hashPassword(PASSWORD), display_name: username, role });
}

const register = (username: string) => call({ method: 'POST', url: '/api/user/register', payload: { username, password: PASSWORD } });
const usernames = async () => (await test.context.db.kysely.selectFrom('users').select('username').orderBy('id').execute()).map((row) => row.username);

describe('registration', () => {
  it.each(REFUSED)('refuses %s', async (_label, username, message) => {
    const answer = await register(username);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body).toEqual({ success: false, message });
    expect(await usernames()).toEqual(['root']);
  });

  it('accepts names that only look unusual, and then guards them too', async () => {
    for (const name of ['Zoë', '张三', 'ok😀']) expect((await register(name)).body.success, name).toBe(true);
    expect((await register('ZOË')).body.message).toBe(TAKEN);
    expect(await usernames()).toEqual(['root', 'Zoë', '张三', 'ok😀']);
  });

  it('keeps the folded name unique in the database, whatever path writes it', async () => {
    await expect(addUser('ROOT')).rejects.toSatisfy(isUniqueViolation);
  });
});

describe('admin creation and renames', () => {
  let admin: Headers;
  beforeEach(async () => {
    admin = await test.login();
  });

  it('refuses the same names when an admin creates a user', async () => {
    for (const [label, username, message] of REFUSED) {
      const answer = await call({ method: 'POST', url: '/api/user/', headers: admin, payload: { username, password: PASSWORD } });
      expect(answer.body, label).toEqual({ success: false, message });
    }
    expect(await usernames()).toEqual(['root']);
  });

  it('refuses them when an admin renames a user, and lets a user change only the case of its own name', async () => {
    const id = await addUser('alice');
    for (const [label, username, message] of REFUSED) {
      const answer = await call({ method: 'PUT', url: '/api/user/', headers: admin, payload: { id, username } });
      expect(answer.body, label).toEqual({ success: false, message });
    }
    expect((await call({ method: 'PUT', url: '/api/user/', headers: admin, payload: { id, username: 'Alice' } })).body.success).toBe(true);
    expect((await test.context.users.repository.findById(id))!.username).toBe('Alice');
  });

  it('refuses them when users rename themselves', async () => {
    const id = await addUser('bob');
    const bob = await test.login('bob', PASSWORD);
    for (const [label, username, message] of REFUSED) {
      const answer = await call({ method: 'PUT', url: '/api/user/self', headers: bob, payload: { username } });
      expect(answer.body, label).toEqual({ success: false, message });
    }
    await addUser('carol');
    expect((await call({ method: 'PUT', url: '/api/user/self', headers: bob, payload: { username: 'C\u0430rol' } })).body.message).toBe(TAKEN);
    expect((await call({ method: 'PUT', url: '/api/user/self', headers: bob, payload: { username: 'BOB' } })).body.success).toBe(true);
    expect((await test.context.users.repository.findById(id))!.username).toBe('BOB');
  });

  it('keeps sign-in by exact username', async () => {
    await addUser('dave');
    const login = (username: string) => call({ method: 'POST', url: '/api/user/login', payload: { username, password: PASSWORD } });
    expect((await login('dave')).body.success).toBe(true);
    expect((await login('Dave')).body).toMatchObject({ success: false, message: '用户名或密码错误' });
  });
});

describe('third-party sign-up', () => {
  let fakes: FakeProviders;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  afterAll(() => fakes.close());

  it('skips a generated name that reads the same as an existing one', async () => {
    const oauthTest = await startTestApp(fakes.env);
    try {
      const { options } = oauthTest.context;
      await options.set('GitHubOAuthEnabled', 'true');
      await options.set('GitHubClientId', fakes.clients.github.id);
      await options.set('GitHubClientSecret', fakes.clients.github.secret);
      // root is 1, this user 2: the first generated name would be github_3.
      await oauthTest.context.users.repository.insert({ username: 'GitHub_3', password: 'x', display_name: 'squatter' });

      const stateAnswer = await oauthTest.app.inject({ method: 'GET', url: '/api/oauth/state' });
      const state = (stateAnswer.json() as Envelope<string>).data!;
      const cookie = stateAnswer.cookies.find((candidate) => candidate.name === 'oauth_state')!;
      fakes.githubCodes.set('gh-squat', { id: 5150, login: 'newcomer' });
      const signUp = await oauthTest.app.inject({
        method: 'GET',
        url: `/api/oauth/github?code=gh-squat&state=${state}`,
        headers: { cookie: `oauth_state=${cookie.value}` },
      });
      expect(signUp.json()).toMatchObject({ success: true, data: { username: 'github_4' } });
    } finally {
      await oauthTest.close();
    }
  });
});
