import { Role, type AuditEntry } from '@modelgate/contract';
import { generate } from 'otplib';
import { afterEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { SoftAuthenticator } from '../../test-support/soft-authenticator.js';
import { routesOf } from '../../test-support/route-walk.js';
import { sessionCookieOf, startTestApp, type TestApp } from '../../test-support/test-app.js';
import SqliteDatabase from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Issue 28 point 5, the audit log: each kind of admin and root action leaves a row with who, when,
 * from which IP, what and before/after, secrets masked; administrators do not see root's rows; no
 * route edits or deletes a row (clearing the usage logs leaves them); old rows go by the retention option.
 */

const ADMIN_IP = '203.0.113.7';
const ROOT_IP = '198.51.100.20';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Headers = Record<string, string>;

let test: TestApp;
let fresh: FreshDb | undefined;

afterEach(async () => {
  await test?.close();
  await fresh?.drop();
  fresh = undefined;
});

async function call(headers: Headers, method: Method, url: string, payload?: unknown, ip = ADMIN_IP) {
  const response = await test.app.inject({ method, url, headers, remoteAddress: ip, ...(payload === undefined ? {} : { payload: payload as object }) });
  const body = response.json() as { success: boolean; message: string; data: any };
  return body;
}

async function done(headers: Headers, method: Method, url: string, payload?: unknown, ip = ADMIN_IP) {
  const body = await call(headers, method, url, payload, ip);
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data;
}

async function audit(headers: Headers, query = ''): Promise<{ items: AuditEntry[]; total: number }> {
  return done(headers, 'GET', `/api/audit/?page_size=100${query}`);
}

const one = (rows: AuditEntry[], action: string) => {
  const found = rows.filter((row) => row.action === action);
  expect(found.length, `rows of ${action}: ${rows.map((row) => row.action).join(', ')}`).toBeGreaterThan(0);
  return found[0]!;
};

async function startWithAdmin(env: Record<string, string> = {}) {
  test = await startTestApp(env);
  const root = await test.login();
  await test.context.users.repository.insert({ username: 'auditor', password: await hashPassword('password123'), display_name: 'auditor', role: Role.Admin });
  await test.context.users.repository.insert({ username: 'alice', password: await hashPassword('password123'), display_name: 'alice', role: Role.Common });
  const alice = await test.context.users.repository.findLiveByLogin('alice');
  const response = await test.app.inject({
    method: 'POST',
    url: '/api/user/login',
    payload: { username: 'auditor', password: 'password123' },
    remoteAddress: ADMIN_IP,
  });
  const admin = { cookie: sessionCookieOf(response), 'new-api-user': String(response.json().data.id) };
  return { root, admin, aliceId: Number(alice!.id) };
}

async function everyKindOfAction(env: Record<string, string> = {}) {
  const { root, admin, aliceId } = await startWithAdmin(env);

  // Users: created, edited, quota set and added to, disabled, enabled; promoted by root.
  const created = await done(admin, 'POST', '/api/user/', { username: 'bob', password: 'password123' });
  await done(admin, 'PUT', '/api/user/', { id: aliceId, display_name: 'Alice A', password: 'newpassword1', quota: 5000 });
  await done(admin, 'POST', '/api/user/manage', { id: aliceId, action: 'add_quota', value: 2500, mode: 'add' });
  await done(admin, 'POST', '/api/user/manage', { id: aliceId, action: 'disable' });
  await done(admin, 'POST', '/api/user/manage', { id: aliceId, action: 'enable' });
  await done(root, 'POST', '/api/user/manage', { id: created.id, action: 'promote' }, ROOT_IP);
  await done(admin, 'POST', '/api/user/manage', { id: aliceId, action: 'delete' });

  // Channels: created with a key, the key changed, deleted.
  const channel = await done(admin, 'POST', '/api/channel/', {
    type: 1,
    name: 'audited',
    key: 'sk-audit-secret-key-0123456789',
    base_url: 'http://127.0.0.1:9',
    groups: ['default'],
    models: 'gpt-4o-mini',
  });
  await done(admin, 'PUT', '/api/channel/', { id: channel.id, key: 'sk-audit-other-key-9876543210', priority: 7 });
  // Root verifies afresh and reads the channel's key.
  await done(root, 'POST', '/api/verify', { method: 'password', password: '123456' }, ROOT_IP);
  const channelKey = await done(root, 'POST', `/api/channel/${channel.id}/key`, undefined, ROOT_IP);
  expect(channelKey.key).toBe('sk-audit-other-key-9876543210');
  await done(admin, 'DELETE', `/api/channel/${channel.id}`);

  // Redemptions.
  const [code] = await done(admin, 'POST', '/api/redemption/', { name: 'gift', quota: 100, count: 1 });
  const redemption = await test.context.db.kysely.selectFrom('redemptions').select('id').where('key', '=', code).executeTakeFirstOrThrow();
  await done(admin, 'PUT', '/api/redemption/', { id: Number(redemption.id), name: 'gift2', quota: 200 });
  await done(admin, 'DELETE', `/api/redemption/${Number(redemption.id)}`);

  // Options (root): a plain one and a secret one.
  await done(root, 'PUT', '/api/option/', { key: 'Notice', value: 'maintenance tonight' }, ROOT_IP);
  await done(root, 'PUT', '/api/option/', { key: 'SMTPToken', value: 'smtp-password-very-secret' }, ROOT_IP);
  await done(root, 'PUT', '/api/option/', { key: 'GroupRatio', value: JSON.stringify({ default: 1, vip: 2, svip: 1, new: 3 }) }, ROOT_IP);

  // Root reads another user's token key.
  const bobHeaders = await test.login('bob', 'password123');
  const token = await done(bobHeaders, 'POST', '/api/token/', { name: 'bobs', remain_quota: 1, expired_time: -1 });
  const reveal = await done(root, 'POST', `/api/token/${token.id}/key`, undefined, ROOT_IP);

  // bob, an administrator now, changes his own password.
  await done(bobHeaders, 'PUT', '/api/user/self', { password: 'bobs-new-password', original_password: 'password123' });

  // A common user's sign-ins, right and wrong, are not admin actions.
  await test.context.users.repository.insert({ username: 'carol', password: await hashPassword('password123'), display_name: 'carol', role: Role.Common });
  const carol = await test.login('carol', 'password123');
  await test.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'carol', password: 'wrong-password' } });

  // A failed sign-in as the administrator; clearing the usage logs.
  const failed = await test.app.inject({
    method: 'POST',
    url: '/api/user/login',
    payload: { username: 'auditor', password: 'wrong-password' },
    remoteAddress: ADMIN_IP,
  });
  expect(failed.json().success).toBe(false);
  await done(admin, 'DELETE', `/api/log/?target_timestamp=${Math.floor(Date.now() / 1000) + 60}`);

  const { items } = await audit(root);
  const secrets = [
    'sk-audit-secret-key-0123456789',
    'sk-audit-other-key-9876543210',
    'smtp-password-very-secret',
    'newpassword1',
    'bobs-new-password',
    reveal.key,
    code,
  ];
  const text = JSON.stringify(items);
  for (const secret of secrets) expect(text, `a secret in the audit log: ${secret}`).not.toContain(secret);

  const byAdmin = (row: AuditEntry) => {
    expect(row.actor_username).toBe('auditor');
    expect(row.actor_role).toBe(Role.Admin);
    expect(row.ip).toBe(ADMIN_IP);
    expect(row.created_at).toBeGreaterThan(Math.floor(Date.now() / 1000) - 120);
  };

  const userCreate = one(items, 'user.create');
  byAdmin(userCreate);
  expect(userCreate).toMatchObject({ target_type: 'user', target_id: String(created.id), details: { after: { username: 'bob', role: Role.Common } } });
  expect(userCreate.details.before).toBeUndefined();

  const update = one(items, 'user.update');
  byAdmin(update);
  expect(update.details).toMatchObject({ before: { display_name: 'alice', password: '******' }, after: { display_name: 'Alice A', password: '******' } });
  // Only what changed.
  expect(Object.keys(update.details.after!).sort()).toEqual(['display_name', 'password']);

  const quotaRows = items.filter((row) => row.action === 'user.quota_change');
  expect(quotaRows.map((row) => [row.details.before?.quota, row.details.after?.quota]).reverse()).toEqual([
    [0, 5000],
    [5000, 7500],
  ]);
  byAdmin(quotaRows[0]!);
  expect(quotaRows[0]!.details.params).toEqual({ mode: 'add', value: 2500, target_username: 'alice' });

  expect(one(items, 'user.disable').details).toMatchObject({ before: { status: 1 }, after: { status: 2 } });
  expect(one(items, 'user.enable').details).toMatchObject({ before: { status: 2 }, after: { status: 1 } });
  expect(one(items, 'user.delete').details).toMatchObject({ before: { deleted: false }, after: { deleted: true } });
  const promote = one(items, 'user.promote');
  expect(promote).toMatchObject({
    actor_username: 'root',
    actor_role: Role.Root,
    ip: ROOT_IP,
    details: { before: { role: Role.Common }, after: { role: Role.Admin } },
  });

  const channelCreate = one(items, 'channel.create');
  byAdmin(channelCreate);
  expect(channelCreate).toMatchObject({ target_type: 'channel', target_id: String(channel.id), details: { after: { name: 'audited', key: '******' } } });
  const channelUpdate = one(items, 'channel.update');
  expect(channelUpdate.details).toMatchObject({ before: { key: '******', priority: 0 }, after: { key: '******', priority: 7 } });
  expect(channelUpdate.details.after).not.toHaveProperty('name');
  expect(one(items, 'channel.delete').details.before).toMatchObject({ name: 'audited', key: '******' });

  const redemptionCreate = one(items, 'redemption.create');
  byAdmin(redemptionCreate);
  expect(redemptionCreate.details.after).toMatchObject({ name: 'gift', quota: 100, count: 1 });
  expect(one(items, 'redemption.update').details).toMatchObject({ before: { name: 'gift', quota: 100 }, after: { name: 'gift2', quota: 200 } });
  expect(one(items, 'redemption.delete').details.before).toMatchObject({ name: 'gift2' });

  const options = items.filter((row) => row.action === 'option.update');
  const notice = options.find((row) => row.target_id === 'Notice')!;
  expect(notice).toMatchObject({ actor_username: 'root', ip: ROOT_IP, details: { before: { Notice: '' }, after: { Notice: 'maintenance tonight' } } });
  const smtp = options.find((row) => row.target_id === 'SMTPToken')!;
  // A secret cleared reads as '', a secret set as masked: never its value.
  expect(smtp.details).toEqual({ before: { SMTPToken: '' }, after: { SMTPToken: '******' } });
  // A JSON table: the entries that changed, not the table twice.
  const ratios = options.find((row) => row.target_id === 'GroupRatio')!;
  expect(ratios.details).toEqual({ before: { GroupRatio: { vip: 1 } }, after: { GroupRatio: { vip: 2, new: 3 } } });

  expect(one(items, 'channel.key_reveal')).toMatchObject({
    actor_username: 'root',
    ip: ROOT_IP,
    target_id: String(channel.id),
    details: { params: { name: 'audited', verified_with: 'password' } },
  });
  expect(one(items, 'user.security_verify')).toMatchObject({ actor_username: 'root', ip: ROOT_IP, details: { params: { method: 'password' } } });
  const passwordChange = one(items, 'user.password_change');
  expect(passwordChange).toMatchObject({ actor_username: 'bob', details: { before: { password: '******' }, after: { password: '******' } } });

  expect(one(items, 'token.key_reveal')).toMatchObject({ actor_username: 'root', ip: ROOT_IP, target_type: 'token', target_id: String(token.id) });

  const logins = items.filter((row) => row.action === 'admin.login' && row.actor_username === 'auditor');
  expect(logins.length).toBeGreaterThan(0);
  expect(logins[0]!.ip).toBe(ADMIN_IP);
  byAdmin(one(items, 'admin.login_failed'));
  expect(items.some((row) => row.action === 'admin.login' && row.actor_username === 'root')).toBe(true);
  // bob signed in after root promoted him; carol, a common user, is nobody's concern here.
  expect(items.some((row) => row.action === 'admin.login' && row.actor_username === 'bob')).toBe(true);
  expect(items.some((row) => row.actor_username === 'carol')).toBe(false);

  const clearing = one(items, 'log.delete');
  byAdmin(clearing);
  expect(clearing.details.params).toMatchObject({ deleted: expect.any(Number) });

  // Clearing the usage logs left every audit row in place (the rows above were written before it).
  expect(items.length).toBeGreaterThan(20);

  // An administrator sees the rows of actors below root only.
  const seenByAdmin = await audit(admin);
  expect(seenByAdmin.items.length).toBeGreaterThan(10);
  expect(seenByAdmin.items.every((row) => row.actor_role < Role.Root)).toBe(true);
  expect(seenByAdmin.items.some((row) => row.action === 'user.create')).toBe(true);
  expect(seenByAdmin.items.some((row) => row.action === 'option.update' || row.action === 'token.key_reveal')).toBe(false);

  // Filters: action, actor, target, time; paging.
  const quotaOnly = await audit(admin, '&action=user.quota_change');
  expect(quotaOnly.total).toBe(2);
  expect(quotaOnly.items.every((row) => row.action === 'user.quota_change')).toBe(true);
  const rootRows = await audit(root, '&actor=root');
  expect(rootRows.total).toBeGreaterThan(3);
  expect(rootRows.items.every((row) => row.actor_username === 'root')).toBe(true);
  // Renamed, an account's earlier rows still answer to its name.
  const auditorRows = (await audit(root, '&actor=auditor')).total;
  await test.context.users.repository.update(Number(admin['new-api-user']), { username: 'auditor2' });
  expect((await audit(root, '&actor=auditor2')).total).toBe(auditorRows);
  const aliceRows = await audit(root, `&target_type=user&target_id=${aliceId}`);
  expect(new Set(aliceRows.items.map((row) => row.action))).toEqual(
    new Set(['user.update', 'user.quota_change', 'user.disable', 'user.enable', 'user.delete']),
  );
  expect((await audit(root, `&ip=${ROOT_IP}`)).items.every((row) => row.ip === ROOT_IP)).toBe(true);
  expect((await audit(root, `&end_timestamp=${Math.floor(Date.now() / 1000) - 3600}`)).total).toBe(0);
  expect((await audit(root, '&action=no.such_action')).total).toBe(0);
  const page2 = await done(root, 'GET', '/api/audit/?p=2&page_size=5');
  const page1 = await done(root, 'GET', '/api/audit/?p=1&page_size=5');
  expect(page2).toMatchObject({ page: 2, page_size: 5, total: items.length });
  expect(page2.items[0].id).toBeLessThan(page1.items[4].id);

  // Normal users are refused.
  const refused = await call(carol, 'GET', '/api/audit/');
  expect(refused).toMatchObject({ success: false, message: '无权进行此操作，权限不足' });
}

describe('the audit log', () => {
  it('records each kind of admin and root action with who, when, IP and before/after, secrets masked (SQLite)', async () => {
    await everyKindOfAction();
  });

  it.each(['postgres', 'mysql'] as const)('does the same on %s', async (dialect) => {
    fresh = await createFreshDb(dialect, { migrate: false });
    await everyKindOfAction({ SQL_DSN: fresh.sqlDsn });
  });

  it('has no route that writes, edits or deletes audit rows, and DELETE /api/log/ leaves them', async () => {
    const { root, admin } = await startWithAdmin();
    const auditRoutes = routesOf(test.app).filter((route) => route.path.includes('audit'));
    expect(auditRoutes).toEqual([{ method: 'GET', path: '/api/audit/' }]);
    await done(root, 'PUT', '/api/option/', { key: 'Notice', value: 'x' }, ROOT_IP);
    const before = (await audit(root)).total;
    expect(before).toBeGreaterThan(0);
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const answer = await test.app.inject({ method, url: '/api/audit/', headers: root, payload: {} });
      expect(answer.statusCode).not.toBe(200);
    }
    await done(root, 'DELETE', `/api/log/?target_timestamp=${Math.floor(Date.now() / 1000) + 3600}`, undefined, ROOT_IP);
    await done(admin, 'DELETE', `/api/log/?target_timestamp=${Math.floor(Date.now() / 1000) + 3600}`);
    // The rows from before are all there, plus the two clearings.
    expect((await audit(root)).total).toBe(before + 2);
  });

  it('deletes rows older than AuditLogRetentionDays (an audited option); 0 keeps them', async () => {
    const { root } = await startWithAdmin();
    expect(test.context.options.number('AuditLogRetentionDays')).toBe(180);
    const now = Math.floor(Date.now() / 1000);
    const old = {
      actor_id: 1,
      actor_username: 'root',
      actor_role: Role.Root,
      ip: '',
      action: 'option.update',
      target_type: 'option',
      target_id: 'Notice',
      summary: 'old',
      details: '{}',
    };
    await test.context.db.kysely
      .insertInto('audit_logs')
      .values([
        { ...old, created_at: now - 40 * 86_400 },
        { ...old, created_at: now - 10 * 86_400 },
      ])
      .execute();
    await done(root, 'PUT', '/api/option/', { key: 'AuditLogRetentionDays', value: '180' }, ROOT_IP);
    await done(root, 'PUT', '/api/option/', { key: 'AuditLogRetentionDays', value: '0' }, ROOT_IP);
    expect(await test.context.audit.purge(test.context.options.number('AuditLogRetentionDays'))).toBe(0);
    await done(root, 'PUT', '/api/option/', { key: 'AuditLogRetentionDays', value: '30' }, ROOT_IP);
    expect(await test.context.audit.purge(test.context.options.number('AuditLogRetentionDays'))).toBe(1);
    const { items } = await audit(root);
    expect(items.map((row) => row.summary)).toContain('old');
    expect(items.filter((row) => row.summary === 'old')).toHaveLength(1);
    // Saving the value it already had recorded nothing.
    const retention = items.filter((row) => row.target_id === 'AuditLogRetentionDays').map((row) => row.details);
    expect(retention).toEqual([
      { before: { AuditLogRetentionDays: '0' }, after: { AuditLogRetentionDays: '30' } },
      { before: { AuditLogRetentionDays: '180' }, after: { AuditLogRetentionDays: '0' } },
    ]);
  });

  it('records an administrator’s 2FA changes and code-step failures, and an admin turning off another’s 2FA', async () => {
    const { root, admin, aliceId } = await startWithAdmin();
    const enrol = async (headers: Headers) => {
      await done(headers, 'POST', '/api/verify', { method: 'password', password: 'password123' });
      const setup = (await done(headers, 'POST', '/api/user/2fa/setup')) as { secret: string; backup_codes: string[] };
      await done(headers, 'POST', '/api/user/2fa/enable', { code: await generate({ secret: setup.secret, epoch: Math.floor(Date.now() / 1000) }) });
      return setup;
    };
    const setup = await enrol(admin);
    // A common user's own 2FA is no admin action.
    await enrol(await test.login('alice', 'password123'));

    // The sign-in's code step: a wrong code, then a backup code.
    const first = await test.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username: 'auditor', password: 'password123' },
      remoteAddress: ADMIN_IP,
    });
    const flowToken = (first.json() as { data: { flow_token: string } }).data.flow_token;
    const wrong = await call({}, 'POST', '/api/user/login/2fa', { code: '000000', flow_token: flowToken });
    expect(wrong.success).toBe(false);
    await done({}, 'POST', '/api/user/login/2fa', { code: setup.backup_codes[0], flow_token: flowToken });

    await done(root, 'DELETE', `/api/user/${Number(admin['new-api-user'])}/2fa`, undefined, ROOT_IP);

    const { items } = await audit(root);
    expect(one(items, 'user.2fa_enable')).toMatchObject({ actor_username: 'auditor', ip: ADMIN_IP, target_id: admin['new-api-user'] });
    expect(items.filter((row) => row.action === 'user.2fa_enable')).toHaveLength(1);
    expect(items.some((row) => row.target_id === String(aliceId) && row.action.startsWith('user.2fa'))).toBe(false);
    expect(one(items, 'admin.login_failed')).toMatchObject({ actor_username: 'auditor', ip: ADMIN_IP, details: { params: { reason: '2fa' } } });
    expect(items.filter((row) => row.action === 'admin.login' && row.actor_username === 'auditor').length).toBe(2);
    expect(one(items, 'user.2fa_admin_disable')).toMatchObject({
      actor_username: 'root',
      ip: ROOT_IP,
      target_id: admin['new-api-user'],
      details: { before: { two_factor: true }, after: { two_factor: false }, params: { target_username: 'auditor' } },
    });
    // Neither the TOTP secret nor a backup code is in any row.
    const text = JSON.stringify(items);
    for (const secret of [setup.secret, ...setup.backup_codes]) expect(text).not.toContain(secret);
  });

  it('records an administrator’s passkeys added, used and removed, and an admin resetting another’s', async () => {
    const { root, admin } = await startWithAdmin();
    const alice = await test.login('alice', 'password123');
    // The relying party is the address the console was reached at.
    const onSite = (headers: Headers) => ({ ...headers, host: 'localhost:3000' });
    const addPasskey = async (headers: Headers) => {
      const authenticator = new SoftAuthenticator('http://localhost:3000');
      await done(onSite(headers), 'POST', '/api/verify', { method: 'password', password: 'password123' });
      const begun = await done(onSite(headers), 'POST', '/api/user/passkey/register/begin', { name: 'laptop' });
      await done(onSite(headers), 'POST', '/api/user/passkey/register/finish', authenticator.register(begun.options.publicKey));
      return authenticator;
    };
    const authenticator = await addPasskey(admin);
    const verifying = await done(onSite(admin), 'POST', '/api/user/passkey/verify/begin', {});
    await done(onSite(admin), 'POST', '/api/user/passkey/verify/finish', authenticator.assert(verifying.options.publicKey, {}));
    await done(onSite(admin), 'DELETE', '/api/user/passkey');
    // A common user's passkey is no admin action; an administrator resetting it is.
    await addPasskey(alice);
    await done(admin, 'DELETE', `/api/user/${alice['new-api-user']}/reset_passkey`);

    const { items } = await audit(root);
    const adminId = admin['new-api-user'];
    expect(one(items, 'user.passkey_register')).toMatchObject({ actor_username: 'auditor', ip: ADMIN_IP, target_id: adminId });
    expect(items.filter((row) => row.action === 'user.passkey_register')).toHaveLength(1);
    expect(one(items, 'user.security_verify')).toMatchObject({ actor_username: 'auditor', details: { params: { method: 'passkey' } } });
    expect(one(items, 'user.passkey_delete')).toMatchObject({ actor_username: 'auditor', target_id: adminId, details: { params: { count: 1 } } });
    expect(one(items, 'user.passkey_admin_reset')).toMatchObject({
      actor_username: 'auditor',
      ip: ADMIN_IP,
      target_id: alice['new-api-user'],
      details: { params: { target_username: 'alice', count: 1 } },
    });
  });

  it('writes queued rows at shutdown', async () => {
    const { root } = await startWithAdmin();
    await done(root, 'PUT', '/api/option/', { key: 'Notice', value: 'queued' }, ROOT_IP);
    const count = async (db: typeof test.context.db) =>
      Number(
        (
          await db.kysely
            .selectFrom('audit_logs')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('target_id', '=', 'Notice')
            .executeTakeFirstOrThrow()
        ).n,
      );
    // Queued, not written yet: the write waits for its batch, off the request's way.
    expect(await count(test.context.db)).toBe(0);
    const { dir } = test;
    await test.app.close();
    await test.context.close();
    test = undefined as unknown as TestApp;
    // The file itself, read after the process let go of it.
    const file = new SqliteDatabase(join(dir, 'modelgate.db'), { readonly: true });
    try {
      expect(file.prepare("select count(*) as n from audit_logs where target_id = 'Notice'").get()).toEqual({ n: 1 });
    } finally {
      file.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
