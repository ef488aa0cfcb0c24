import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { startFakeProviders, type FakeProviders } from '../../test-support/fake-providers.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

/**
 * The names the console shows besides usernames (display names, token names, redemption names)
 * refuse what usernames refuse: NUL and other control characters, zero-width characters, text
 * direction overrides, lone surrogates. The username's look-alike rule is not theirs: two users may
 * both be called "Zoë".
 */
interface Envelope {
  success: boolean;
  message: string;
  data?: unknown;
}
type Headers = Record<string, string>;

const PASSWORD = 'password123';
const DISPLAY_NAME_REFUSED = '显示名称包含不允许的字符';
const TOKEN_NAME_REFUSED = '令牌名称包含不允许的字符';
const REDEMPTION_NAME_REFUSED = '兑换码名称包含不允许的字符';

const BAD_NAMES: [label: string, name: string][] = [
  ['a NUL', 'a\u0000b'],
  ['a right-to-left override', 'evil\u202etxt.exe'],
  ['a zero-width space', 'ro\u200bot'],
  ['a zero-width joiner', 'a\u200db'],
  ['a bell', 'ding\u0007'],
  ['a lone surrogate', 'ab\ud800'],
];
const GOOD_NAMES = ['Zoë', '张三', 'ok 😀', 'r\u043eot'];

let test: TestApp;
let admin: Headers;
beforeEach(async () => {
  test = await startTestApp();
  admin = await test.login();
  return () => test.close();
});

async function call(request: InjectOptions): Promise<{ status: number; body: Envelope }> {
  const response = await test.app.inject(request);
  return { status: response.statusCode, body: response.json() as Envelope };
}

async function addUser(username: string): Promise<number> {
  return test.context.users.repository.insert({ username, password: await hashPassword(PASSWORD), display_name: username });
}

const displayNameOf = async (id: number) => (await test.context.users.repository.findById(id))!.display_name;

/** The answer a refused name gets: 200 and success:false, the message naming the rule. */
function expectRefused(answer: { status: number; body: Envelope }, message: string, label: string): void {
  expect(answer.status, label).toBe(200);
  expect(answer.body.success, label).toBe(false);
  expect(answer.body.message, label).toContain(message);
}

describe('display names', () => {
  it('are refused with such characters when an admin creates a user, and accepted otherwise', async () => {
    for (const [label, name] of BAD_NAMES) {
      const answer = await call({ method: 'POST', url: '/api/user/', headers: admin, payload: { username: 'newbie', password: PASSWORD, display_name: name } });
      expectRefused(answer, DISPLAY_NAME_REFUSED, label);
    }
    expect(await test.context.db.kysely.selectFrom('users').select('id').where('username', '=', 'newbie').execute()).toEqual([]);
    for (const [index, name] of GOOD_NAMES.entries()) {
      const answer = await call({
        method: 'POST',
        url: '/api/user/',
        headers: admin,
        payload: { username: `newbie${index}`, password: PASSWORD, display_name: name },
      });
      expect(answer.body, name).toMatchObject({ success: true, data: { display_name: name } });
    }
  });

  it('are refused when an admin renames a user, and the old name stays', async () => {
    const id = await addUser('alice');
    for (const [label, name] of BAD_NAMES) {
      expectRefused(await call({ method: 'PUT', url: '/api/user/', headers: admin, payload: { id, display_name: name } }), DISPLAY_NAME_REFUSED, label);
    }
    expect(await displayNameOf(id)).toBe('alice');
    expect((await call({ method: 'PUT', url: '/api/user/', headers: admin, payload: { id, display_name: 'Alice Ω' } })).body.success).toBe(true);
    expect(await displayNameOf(id)).toBe('Alice Ω');
  });

  it('are refused when users rename themselves', async () => {
    const id = await addUser('bob');
    const bob = await test.login('bob', PASSWORD);
    for (const [label, name] of BAD_NAMES) {
      expectRefused(await call({ method: 'PUT', url: '/api/user/self', headers: bob, payload: { display_name: name } }), DISPLAY_NAME_REFUSED, label);
    }
    expect(await displayNameOf(id)).toBe('bob');
    expect((await call({ method: 'PUT', url: '/api/user/self', headers: bob, payload: { display_name: '鲍勃' } })).body.success).toBe(true);
    expect(await displayNameOf(id)).toBe('鲍勃');
  });
});

describe('token names', () => {
  it('are refused on create and rename', async () => {
    await addUser('carol');
    const carol = await test.login('carol', PASSWORD);
    for (const [label, name] of BAD_NAMES) {
      const answer = await call({
        method: 'POST',
        url: '/api/token/',
        headers: carol,
        payload: { name, remain_quota: 0, unlimited_quota: true, expired_time: -1 },
      });
      expectRefused(answer, TOKEN_NAME_REFUSED, label);
    }
    expect(
      (await call({ method: 'POST', url: '/api/token/', headers: carol, payload: { name: 'laptop 💻', unlimited_quota: true, expired_time: -1 } })).body
        .success,
    ).toBe(true);
    const [token] = await test.context.db.kysely.selectFrom('tokens').selectAll().execute();
    expect(token!.name).toBe('laptop 💻');
    for (const [label, name] of BAD_NAMES) {
      const answer = await call({
        method: 'PUT',
        url: '/api/token/',
        headers: carol,
        payload: { id: Number(token!.id), name, unlimited_quota: true, expired_time: -1 },
      });
      expectRefused(answer, TOKEN_NAME_REFUSED, label);
    }
    expect((await test.context.db.kysely.selectFrom('tokens').select('name').executeTakeFirstOrThrow()).name).toBe('laptop 💻');
  });
});

describe('redemption names', () => {
  it('are refused on create and edit', async () => {
    for (const [label, name] of BAD_NAMES) {
      expectRefused(
        await call({ method: 'POST', url: '/api/redemption/', headers: admin, payload: { name, quota: 100, count: 1 } }),
        REDEMPTION_NAME_REFUSED,
        label,
      );
    }
    expect(await test.context.db.kysely.selectFrom('redemptions').select('id').execute()).toEqual([]);
    expect((await call({ method: 'POST', url: '/api/redemption/', headers: admin, payload: { name: '新年 🎉', quota: 100, count: 1 } })).body.success).toBe(
      true,
    );
    const [redemption] = await test.context.db.kysely.selectFrom('redemptions').selectAll().execute();
    for (const [label, name] of BAD_NAMES) {
      const answer = await call({ method: 'PUT', url: '/api/redemption/', headers: admin, payload: { id: Number(redemption!.id), name, quota: 100 } });
      expectRefused(answer, REDEMPTION_NAME_REFUSED, label);
    }
    expect((await test.context.db.kysely.selectFrom('redemptions').select('name').executeTakeFirstOrThrow()).name).toBe('新年 🎉');
  });
});

describe("a sign-in provider's profile name", () => {
  let fakes: FakeProviders;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  afterAll(() => fakes.close());

  it('is cleaned, not refused: the sign-up goes through without the invisible characters', async () => {
    const oauthTest = await startTestApp(fakes.env);
    try {
      const { options } = oauthTest.context;
      await options.set('GitHubOAuthEnabled', 'true');
      await options.set('GitHubClientId', fakes.clients.github.id);
      await options.set('GitHubClientSecret', fakes.clients.github.secret);
      const stateAnswer = await oauthTest.app.inject({ method: 'GET', url: '/api/oauth/state' });
      const state = (stateAnswer.json() as Envelope).data as string;
      const cookie = stateAnswer.cookies.find((candidate) => candidate.name === 'oauth_state')!;
      fakes.githubCodes.set('gh-rlo', { id: 6262, login: 'mallory', name: 'Mal\u202elory\u200b\u0000' });
      const signUp = await oauthTest.app.inject({
        method: 'GET',
        url: `/api/oauth/github?code=gh-rlo&state=${state}`,
        headers: { cookie: `oauth_state=${cookie.value}` },
      });
      expect(signUp.json()).toMatchObject({ success: true, data: { display_name: 'Mallory' } });
    } finally {
      await oauthTest.close();
    }
  });
});
