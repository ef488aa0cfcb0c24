import { LogType, Role, UserStatus } from '@modelgate/contract';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { createFreshDb, DIALECTS } from '../../test-support/dialects.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}
type Inject = InjectOptions;
type Headers = Record<string, string>;

async function call<T = unknown>(test: TestApp, request: Inject): Promise<{ status: number; body: Envelope<T> }> {
  const response = await test.app.inject(request);
  return { status: response.statusCode, body: response.json() as Envelope<T> };
}

const PASSWORD = 'password123';
let passwordHash = '';

/** A user straight in the database (faster than registering, and any role). */
async function addUser(test: TestApp, username: string, role: number = Role.Common, extra: Record<string, unknown> = {}): Promise<number> {
  passwordHash ||= await hashPassword(PASSWORD);
  return test.context.users.repository.insert({ username, password: passwordHash, display_name: username, role, ...extra });
}

const userById = (test: TestApp, id: number) => test.context.users.repository.findById(id);
const manage = (test: TestApp, headers: Headers, payload: Record<string, unknown>) =>
  call<{ status: number; role: number; quota: number }>(test, { method: 'POST', url: '/api/user/manage', headers, payload });

const roleNames = { common: Role.Common, admin: Role.Admin, root: Role.Root } as const;
type RoleName = keyof typeof roleNames;
const actions = ['promote', 'demote', 'disable', 'enable', 'delete', 'add_quota'] as const;
type Action = (typeof actions)[number];

const SAME_OR_HIGHER = '无权更新同权限等级或更高权限等级的用户信息';
/** Expected answer of each actor × target × action: 'ok' or the refusal message. */
const expected: Record<RoleName, Record<RoleName, Record<Action, string>>> = {
  common: Object.fromEntries(
    (['common', 'admin', 'root'] as const).map((target) => [target, Object.fromEntries(actions.map((action) => [action, '无权进行此操作，权限不足']))]),
  ) as Record<RoleName, Record<Action, string>>,
  admin: {
    common: {
      promote: '普通管理员用户无法提升其他用户为管理员',
      demote: '该用户已经是普通用户',
      disable: 'ok',
      enable: 'ok',
      delete: 'ok',
      add_quota: 'ok',
    },
    admin: {
      promote: SAME_OR_HIGHER,
      demote: SAME_OR_HIGHER,
      disable: SAME_OR_HIGHER,
      enable: SAME_OR_HIGHER,
      delete: SAME_OR_HIGHER,
      add_quota: SAME_OR_HIGHER,
    },
    root: {
      promote: SAME_OR_HIGHER,
      demote: SAME_OR_HIGHER,
      disable: SAME_OR_HIGHER,
      enable: SAME_OR_HIGHER,
      delete: SAME_OR_HIGHER,
      add_quota: SAME_OR_HIGHER,
    },
  },
  root: {
    common: { promote: 'ok', demote: '该用户已经是普通用户', disable: 'ok', enable: 'ok', delete: 'ok', add_quota: 'ok' },
    admin: { promote: '该用户已经是管理员', demote: 'ok', disable: 'ok', enable: 'ok', delete: 'ok', add_quota: 'ok' },
    root: {
      promote: '该用户已经是管理员',
      demote: '无法降级超级管理员用户',
      disable: '无法禁用超级管理员用户',
      enable: 'ok',
      delete: '无法删除超级管理员用户',
      add_quota: 'ok',
    },
  },
};

const matrix = (Object.keys(expected) as RoleName[]).flatMap((actor) =>
  (Object.keys(expected[actor]) as RoleName[]).flatMap((target) =>
    actions.map((action) => ({ actor, target, action, outcome: expected[actor][target][action] })),
  ),
);

describe('the permission matrix of user management (spec 01 §6)', () => {
  let test: TestApp;
  const actorHeaders = {} as Record<RoleName, Headers>;
  let counter = 0;

  beforeAll(async () => {
    test = await startTestApp();
    await addUser(test, 'a-common', Role.Common);
    await addUser(test, 'a-admin', Role.Admin);
    actorHeaders.common = await test.login('a-common', PASSWORD);
    actorHeaders.admin = await test.login('a-admin', PASSWORD);
    actorHeaders.root = await test.login();
  });
  afterAll(() => test.close());

  it.each(matrix)('$actor → $action on $target: $outcome', async ({ actor, target, action, outcome }) => {
    // A fresh target per case (the root target is the one root account).
    counter += 1;
    const targetId = target === 'root' ? 1 : await addUser(test, `t${counter}`, roleNames[target], { quota: 100 });
    const before = (await userById(test, targetId))!;
    const answer = await manage(test, actorHeaders[actor], { id: targetId, action, value: 25 });
    const after = (await userById(test, targetId))!;

    if (outcome !== 'ok') {
      expect(answer.body).toMatchObject({ success: false, message: outcome });
      expect(answer.status).toBe(200);
      expect(after).toEqual(before);
      return;
    }
    expect(answer.body.success).toBe(true);
    expect(answer.body.data).toMatchObject({ role: after.role, status: after.status });
    const changes: Record<Action, () => void> = {
      promote: () => expect(after.role).toBe(Role.Admin),
      demote: () => expect(after.role).toBe(Role.Common),
      disable: () => expect(after.status).toBe(UserStatus.Disabled),
      enable: () => expect(after.status).toBe(UserStatus.Enabled),
      delete: () => expect(after.deleted_at).not.toBeNull(),
      add_quota: () => expect(after.quota).toBe(before.quota + 25),
    };
    changes[action]();
  });

  it('refuses every action on a deregistered user, and on users that do not exist', async () => {
    const id = await addUser(test, 'gone', Role.Common, { deleted_at: 1 });
    expect((await manage(test, actorHeaders.root, { id, action: 'enable' })).body.message).toBe('该用户已注销');
    expect((await manage(test, actorHeaders.root, { id: 99999, action: 'enable' })).body.message).toBe('用户不存在');
    expect((await manage(test, actorHeaders.root, { id, action: 'explode' })).body.message).toContain('无效的操作');
  });
});

describe('creating, reading and editing users', () => {
  let test: TestApp;
  let root: Headers;
  let admin: Headers;
  let adminId: number;
  beforeAll(async () => {
    test = await startTestApp();
    adminId = await addUser(test, 'boss', Role.Admin);
    root = await test.login();
    admin = await test.login('boss', PASSWORD);
  });
  afterAll(() => test.close());

  it('creates users only below the creator’s level', async () => {
    const create = (headers: Headers, payload: Record<string, unknown>) => call(test, { method: 'POST', url: '/api/user/', headers, payload });
    const made = await create(admin, { username: 'newbie', display_name: 'New Bie', password: PASSWORD });
    expect(made.body).toMatchObject({ success: true, message: '用户账户创建成功！' });
    await expect(test.login('newbie', PASSWORD)).resolves.toHaveProperty('cookie');
    expect(await test.context.users.repository.findLiveByLogin('newbie')).toMatchObject({ display_name: 'New Bie', role: Role.Common });

    expect((await create(admin, { username: 'admin2', password: PASSWORD, role: Role.Admin })).body.message).toBe('无法创建权限大于等于自己的用户');
    expect((await create(root, { username: 'root2', password: PASSWORD, role: Role.Root })).body.message).toBe('无法创建权限大于等于自己的用户');
    expect((await create(root, { username: 'admin3', password: PASSWORD, role: Role.Admin })).body.success).toBe(true);
    expect((await create(root, { username: 'newbie', password: PASSWORD })).body.message).toBe('用户名已存在，或已注销');
    expect(await create(root, { username: '', password: PASSWORD })).toMatchObject({
      status: 200,
      body: { success: false, message: expect.stringMatching(/^无效的参数，username: /) },
    });
    expect((await create(root, { username: 'shorty', password: '1234567' })).body.message).toContain('密码长度不得小于 8 位！');
    const common = await test.login('newbie', PASSWORD);
    expect(await create(common, { username: 'x1', password: PASSWORD })).toMatchObject({
      status: 200,
      body: { success: false, message: '无权进行此操作，权限不足' },
    });
  });

  it('lets admins read only users below them', async () => {
    const commonId = await addUser(test, 'reader1');
    expect((await call(test, { method: 'GET', url: `/api/user/${commonId}`, headers: admin })).body.data).toMatchObject({ username: 'reader1' });
    const otherAdmin = await addUser(test, 'boss2', Role.Admin);
    expect((await call(test, { method: 'GET', url: `/api/user/${otherAdmin}`, headers: admin })).body.message).toBe('无权获取同级或更高等级用户的信息');
    expect(await call(test, { method: 'GET', url: '/api/user/1', headers: admin })).toMatchObject({
      status: 200,
      body: { success: false, message: '无权获取同级或更高等级用户的信息' },
    });
    const byRoot = await call<Record<string, unknown>>(test, { method: 'GET', url: `/api/user/${otherAdmin}`, headers: root });
    expect(byRoot.body.data).toMatchObject({ username: 'boss2', role: Role.Admin });
    expect(byRoot.body.data).not.toHaveProperty('password');
    expect(byRoot.body.data).not.toHaveProperty('access_token');
    expect(await call(test, { method: 'GET', url: '/api/user/abc', headers: root })).toMatchObject({
      status: 200,
      body: { success: false, message: '无效的参数，无效的用户 ID' },
    });
    expect(await call(test, { method: 'GET', url: '/api/user/424242', headers: root })).toMatchObject({
      status: 200,
      body: { success: false, message: '用户不存在' },
    });
  });

  it('edits the fields sent, logs a quota change, and tells caches', async () => {
    const id = await addUser(test, 'edit-me', Role.Common, { quota: 1000, group: 'default' });
    const changed: number[] = [];
    test.context.changes.on('user', (userId) => changed.push(userId));
    await test.context.options.set('DisplayInCurrencyEnabled', 'false');

    const answer = await call(test, {
      method: 'PUT',
      url: '/api/user/',
      headers: admin,
      payload: { id, username: 'edited', display_name: 'Edited', group: 'vip', quota: 4000, password: '', role: 1, status: 1 },
    });
    expect(answer.body).toMatchObject({ success: true, message: '用户信息更新成功！' });
    expect(await userById(test, id)).toMatchObject({ username: 'edited', display_name: 'Edited', group: 'vip', quota: 4000, password: passwordHash });
    expect(changed).toContain(id);
    const logs = await test.context.db.kysely.selectFrom('logs').selectAll().where('user_id', '=', id).execute();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ type: LogType.Manage, content: '管理员将用户额度从 1000 点额度修改为 4000 点额度', username: 'edited' });
    expect(JSON.parse(logs[0]!.other)).toEqual({ kind: 'admin_set', quota_before: 1000, quota_after: 4000, admin_id: adminId, admin_username: 'boss' });

    // Only the fields sent change; a new password replaces the old one.
    await call(test, { method: 'PUT', url: '/api/user/', headers: admin, payload: { id, password: 'brand-new-pass' } });
    expect(await userById(test, id)).toMatchObject({ username: 'edited', group: 'vip', quota: 4000 });
    await expect(test.login('edited', 'brand-new-pass')).resolves.toHaveProperty('cookie');

    const short = await call(test, { method: 'PUT', url: '/api/user/', headers: admin, payload: { id, password: 'short' } });
    expect(short.body.message).toContain('密码长度不得小于 8 位！');
    const fractional = await call(test, { method: 'PUT', url: '/api/user/', headers: admin, payload: { id, quota: 1.5 } });
    expect(fractional.body.message).toContain('额度必须是整数');
    const taken = await call(test, { method: 'PUT', url: '/api/user/', headers: admin, payload: { id, username: 'boss' } });
    expect(taken.body.message).toBe('用户名已存在，或已注销');
    const peer = await call(test, { method: 'PUT', url: '/api/user/', headers: admin, payload: { id: adminId, display_name: 'me' } });
    expect(peer.body.message).toBe('无权更新同权限等级或更高权限等级的用户信息');
  });

  it('lists users newest first with paging, deregistered ones included, and searches them', async () => {
    const fresh = await startTestApp();
    try {
      const headers = await fresh.login();
      for (let index = 1; index <= 12; index += 1) {
        await addUser(fresh, `user${String(index).padStart(2, '0')}`, Role.Common, {
          group: index % 2 === 0 ? 'vip' : 'default',
          email: `u${index}@mail.test`,
        });
      }
      await fresh.context.users.repository.softDelete(13);
      type Page = { items: { id: number; username: string; DeletedAt: string | null }[]; total: number; page: number; page_size: number };
      const first = await call<Page>(fresh, { method: 'GET', url: '/api/user/?p=0&page_size=5', headers });
      expect(first.body.data).toMatchObject({ total: 13, page: 1, page_size: 5 });
      expect(first.body.data!.items.map((user) => user.username)).toEqual(['user12', 'user11', 'user10', 'user09', 'user08']);
      expect(first.body.data!.items[0]!.DeletedAt).not.toBeNull();
      const sameFirst = await call<Page>(fresh, { method: 'GET', url: '/api/user/?p=1&page_size=5', headers });
      expect(sameFirst.body.data!.items).toEqual(first.body.data!.items);
      const third = await call<Page>(fresh, { method: 'GET', url: '/api/user/?p=3&page_size=5', headers });
      expect(third.body.data!.items.map((user) => user.username)).toEqual(['user02', 'user01', 'root']);

      const search = (query: string) => call<Page>(fresh, { method: 'GET', url: `/api/user/search?${query}`, headers });
      expect((await search('keyword=USER1&page_size=20')).body.data!.items.map((user) => user.username)).toEqual(['user12', 'user11', 'user10']);
      expect((await search('keyword=u7@mail')).body.data!.items.map((user) => user.username)).toEqual(['user07']);
      expect((await search('keyword=1')).body.data!.items.map((user) => user.id)).toContain(1);
      expect((await search('keyword=user&group=vip&page_size=100')).body.data!.total).toBe(6);
      expect((await search('keyword=%25')).body.data!.total).toBe(0);
      const common = await fresh.login('user01', PASSWORD);
      expect(await call(fresh, { method: 'GET', url: '/api/user/', headers: common })).toMatchObject({
        status: 200,
        body: { success: false, message: '无权进行此操作，权限不足' },
      });
    } finally {
      await fresh.close();
    }
  });
});

describe('adding quota', () => {
  let test: TestApp;
  let admin: Headers;
  beforeEach(async () => {
    test = await startTestApp();
    await addUser(test, 'boss', Role.Admin);
    admin = await test.login('boss', PASSWORD);
    await test.context.options.set('DisplayInCurrencyEnabled', 'false');
    return () => test.close();
  });

  const logContents = async (id: number) =>
    (await test.context.db.kysely.selectFrom('logs').select(['type', 'content']).where('user_id', '=', id).orderBy('id').execute()).map(
      (log) => `${log.type}:${log.content}`,
    );

  it('adds and subtracts atomically, never below zero, with a management log line each', async () => {
    const id = await addUser(test, 'wallet', Role.Common, { quota: 1000 });
    const changed: number[] = [];
    test.context.changes.on('user', (userId) => changed.push(userId));

    expect((await manage(test, admin, { id, action: 'add_quota', value: 500 })).body.data).toMatchObject({ quota: 1500 });
    expect((await manage(test, admin, { id, action: 'add_quota', value: -300 })).body.data).toMatchObject({ quota: 1200 });
    expect((await manage(test, admin, { id, action: 'add_quota', mode: 'subtract', value: 200 })).body.data).toMatchObject({ quota: 1000 });
    const tooMuch = await manage(test, admin, { id, action: 'add_quota', value: -1001 });
    expect(tooMuch.body).toMatchObject({ success: false, message: '用户额度不足，无法扣减' });
    expect((await manage(test, admin, { id, action: 'add_quota', value: 0 })).body.message).toBe('额度变更值必须是非零整数');
    expect((await manage(test, admin, { id, action: 'add_quota', value: 2.5 })).body.message).toContain('额度必须是整数');
    expect((await manage(test, admin, { id, action: 'add_quota', mode: 'override', value: 50 })).body.data).toMatchObject({ quota: 50 });
    expect((await userById(test, id))!.quota).toBe(50);
    expect(await logContents(id)).toEqual([
      '3:管理员增加用户额度 500 点额度',
      '3:管理员减少用户额度 300 点额度',
      '3:管理员减少用户额度 200 点额度',
      '3:管理员将用户额度从 1000 点额度修改为 50 点额度',
    ]);
    expect(changed.filter((userId) => userId === id)).toHaveLength(4);
  });

  it('lets exactly as many concurrent subtractions succeed as the balance covers', async () => {
    const id = await addUser(test, 'race', Role.Common, { quota: 1000 });
    const answers = await Promise.all(Array.from({ length: 15 }, () => manage(test, admin, { id, action: 'add_quota', value: -100 })));
    expect(answers.filter((answer) => answer.body.success)).toHaveLength(10);
    expect((await userById(test, id))!.quota).toBe(0);
    expect(await logContents(id)).toHaveLength(10);
  });

  it('writes currency amounts in the log when the console shows currency', async () => {
    await test.context.options.set('DisplayInCurrencyEnabled', 'true');
    const id = await addUser(test, 'dollars', Role.Common);
    await manage(test, admin, { id, action: 'add_quota', value: 1_000_000 });
    expect(await logContents(id)).toEqual(['3:管理员增加用户额度 ＄2.000000 额度']);
  });
});

describe('the signed-in user’s own account', () => {
  let test: TestApp;
  beforeEach(async () => {
    test = await startTestApp();
    return () => test.close();
  });

  it('changes the password only with the original one, unless none is set', async () => {
    const id = await addUser(test, 'pat');
    const headers = await test.login('pat', PASSWORD);
    const change = (payload: Record<string, unknown>) => call(test, { method: 'PUT', url: '/api/user/self', headers, payload });
    expect((await change({ password: 'new-password-1', original_password: 'wrong-one' })).body.message).toBe('原密码错误');
    expect((await change({ password: 'new-password-1' })).body.message).toBe('原密码错误');
    expect((await change({ password: 'new-password-1', original_password: PASSWORD })).body).toMatchObject({ success: true, message: '密码修改成功！' });
    // The change ended every session (sessions.test.ts); sign in again with the new password.
    Object.assign(headers, await test.login('pat', 'new-password-1'));
    expect((await change({ display_name: 'Patricia' })).body.success).toBe(true);
    expect(await userById(test, id)).toMatchObject({ display_name: 'Patricia' });

    // An account made by a third-party sign-in has no password and may set one.
    const oauthId = await addUser(test, 'github_9');
    await test.context.users.repository.update(oauthId, { password: '' });
    const session = await test.context.users.resetAccessToken(oauthId);
    const byToken = { authorization: session, 'new-api-user': String(oauthId) };
    const set = await call(test, { method: 'PUT', url: '/api/user/self', headers: byToken, payload: { password: 'first-password' } });
    expect(set.body.success).toBe(true);
    await expect(test.login('github_9', 'first-password')).resolves.toHaveProperty('cookie');
  });

  it('deregisters itself: sessions and the access token stop working, the name stays taken', async () => {
    const id = await addUser(test, 'leaver');
    const headers = await test.login('leaver', PASSWORD);
    const accessToken = (await call<string>(test, { method: 'GET', url: '/api/user/token', headers })).body.data!;
    const changed: number[] = [];
    test.context.changes.on('user', (userId) => changed.push(userId));

    const answer = await test.app.inject({ method: 'DELETE', url: '/api/user/self', headers });
    expect(answer.json()).toMatchObject({ success: true, message: '账户已删除！' });
    expect(answer.cookies.find((cookie) => cookie.name === 'session')?.value).toBe('');
    expect(changed).toEqual([id]);
    expect((await userById(test, id))!.deleted_at).toBeGreaterThan(0);

    expect((await call(test, { method: 'GET', url: '/api/user/self', headers })).status).toBe(401);
    const byToken = await call(test, { method: 'GET', url: '/api/user/self', headers: { authorization: accessToken, 'new-api-user': String(id) } });
    expect(byToken.status).toBe(401);
    await expect(test.login('leaver', PASSWORD)).rejects.toThrow();
    const again = await call(test, { method: 'POST', url: '/api/user/register', payload: { username: 'leaver', password: PASSWORD } });
    expect(again.body.message).toBe('用户名已存在，或已注销');

    const root = await test.login();
    expect((await call(test, { method: 'DELETE', url: '/api/user/self', headers: root })).body.message).toBe('不能删除超级管理员账户');
  });

  it('hands out an invitation code and moves referral earnings of at least one unit to the balance', async () => {
    await test.context.options.set('QuotaPerUnit', '1000');
    await test.context.options.set('DisplayInCurrencyEnabled', 'false');
    const id = await addUser(test, 'inviter', Role.Common, { aff_code: null, aff_quota: 2500, aff_history: 2500, quota: 10 });
    const headers = await test.login('inviter', PASSWORD);
    const code = (await call<string>(test, { method: 'GET', url: '/api/user/aff', headers })).body.data!;
    expect(code).toMatch(/^[A-Za-z0-9]{4}$/);
    expect((await call<string>(test, { method: 'GET', url: '/api/user/aff', headers })).body.data).toBe(code);

    const transfer = (quota: unknown) => call(test, { method: 'POST', url: '/api/user/aff_transfer', headers, payload: { quota } });
    expect((await transfer(999)).body.message).toBe('转移额度最小为1000 点额度！');
    expect((await transfer(2000)).body).toMatchObject({ success: true, message: '划转成功' });
    expect(await userById(test, id)).toMatchObject({ quota: 2010, aff_quota: 500, aff_history: 2500 });
    expect((await transfer(1000)).body.message).toBe('邀请额度不足！');
    const transferLog = await test.context.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', id)
      .where('content', 'like', '邀请奖励%')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(transferLog.other)).toEqual({ kind: 'aff_transfer', quota: 2000 });
    expect(await transfer('lots')).toMatchObject({ status: 200, body: { success: false, message: expect.stringMatching(/^无效的参数，quota: /) } });
    expect(await userById(test, id)).toMatchObject({ quota: 2010, aff_quota: 500 });
  });

  it('lists the models of enabled abilities in the user’s usable groups', async () => {
    await test.context.db.kysely
      .insertInto('abilities')
      .values([
        { group: 'default', model: 'gpt-4o', channel_id: 1, enabled: 1 },
        { group: 'default', model: 'gpt-4o', channel_id: 2, enabled: 1 },
        { group: 'vip', model: 'claude-3-5-sonnet', channel_id: 3, enabled: 1 },
        { group: 'default', model: 'disabled-model', channel_id: 4, enabled: 0 },
        { group: 'svip', model: 'svip-only', channel_id: 5, enabled: 1 },
        { group: 'team', model: 'team-model', channel_id: 6, enabled: 1 },
      ])
      .execute();
    await addUser(test, 'modeler', Role.Common, { group: 'team' });
    const headers = await test.login('modeler', PASSWORD);
    const answer = await call<string[]>(test, { method: 'GET', url: '/api/user/models', headers });
    expect(answer.body.data).toEqual(['claude-3-5-sonnet', 'gpt-4o', 'team-model']);
  });
});

describe.each(DIALECTS)('account flows on %s', (dialect) => {
  it('registers with an invitation, searches, adjusts quota under contention and transfers referral earnings', async () => {
    const fresh = await createFreshDb(dialect);
    await fresh.db.close();
    const node = await startTestApp(dialect === 'sqlite' ? {} : { SQL_DSN: fresh.sqlDsn });
    try {
      const { options, users } = node.context;
      await options.set('QuotaForNewUser', '1000');
      await options.set('QuotaForInviter', '600');
      await options.set('QuotaPerUnit', '500');
      const register = (payload: Record<string, unknown>) => call(node, { method: 'POST', url: '/api/user/register', payload });
      expect((await register({ username: 'host_1', password: PASSWORD })).body.success).toBe(true);
      const host = (await users.repository.findLiveByLogin('host_1'))!;
      expect((await register({ username: 'guest%1', password: PASSWORD, aff_code: host.aff_code })).body.success).toBe(true);
      expect(await users.repository.findById(host.id)).toMatchObject({ aff_count: 1, aff_quota: 600, aff_history: 600 });

      const root = await node.login();
      const found = await call<{ items: { username: string }[] }>(node, { method: 'GET', url: '/api/user/search?keyword=T%25', headers: root });
      expect(found.body.data!.items.map((user) => user.username)).toEqual(['guest%1']);

      const guest = (await users.repository.findLiveByLogin('guest%1'))!;
      const answers = await Promise.all(Array.from({ length: 12 }, () => manage(node, root, { id: guest.id, action: 'add_quota', value: -100 })));
      expect(answers.every((answer) => answer.status < 500)).toBe(true);
      expect(answers.filter((answer) => answer.body.success)).toHaveLength(10);
      expect((await users.repository.findById(guest.id))!.quota).toBe(0);

      const hostSession = await node.login('host_1', PASSWORD);
      const transfers = await Promise.all(
        Array.from({ length: 3 }, () => call(node, { method: 'POST', url: '/api/user/aff_transfer', headers: hostSession, payload: { quota: 500 } })),
      );
      expect(transfers.filter((answer) => answer.body.success)).toHaveLength(1);
      expect(await users.repository.findById(host.id)).toMatchObject({ quota: 1500, aff_quota: 100 });

      expect((await call(node, { method: 'DELETE', url: '/api/user/self', headers: hostSession })).body.success).toBe(true);
      expect((await register({ username: 'host_1', password: PASSWORD })).body.message).toBe('用户名已存在，或已注销');
    } finally {
      await node.close();
      await fresh.drop().catch(() => undefined);
    }
  });
});
