import { ChannelType, Role } from '@modelgate/contract';
import type { InjectOptions } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  code?: string;
  data?: T;
}

let test: TestApp;
beforeEach(async () => {
  test = await startTestApp();
  return () => test.close();
});
afterEach(() => vi.useRealTimers());

async function call<T = unknown>(request: InjectOptions): Promise<{ status: number; body: Envelope<T> }> {
  const response = await test.app.inject(request);
  return { status: response.statusCode, body: response.json() as Envelope<T> };
}

async function addChannel(headers: Record<string, string>, key: string): Promise<number> {
  const created = await call<{ id: number }>({
    method: 'POST',
    url: '/api/channel/',
    headers,
    payload: { mode: 'single', channel: { name: 'c1', type: ChannelType.OpenAI, key, models: 'gpt-4o', group: 'default' } },
  });
  expect(created.body.success).toBe(true);
  const row = await test.context.db.kysely.selectFrom('channels').select('id').where('name', '=', 'c1').executeTakeFirstOrThrow();
  return Number(row.id);
}

describe('re-verification before secrets', () => {
  it("reads a channel's full key only within the window after the root's password check", async () => {
    const root = await test.login();
    const id = await addChannel(root, 'sk-upstream-secret-0001');

    const before = await call({ method: 'POST', url: `/api/channel/${id}/key`, headers: root });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ success: false, code: 'VERIFICATION_REQUIRED' });
    expect(JSON.stringify(before.body)).not.toContain('sk-upstream-secret');

    const status = await call<{ verified: boolean; methods: string[] }>({ method: 'GET', url: '/api/verify/status', headers: root });
    expect(status.body.data).toMatchObject({ verified: false, methods: ['password'], window_seconds: 300 });

    const wrong = await call({ method: 'POST', url: '/api/verify', headers: root, payload: { method: 'password', password: 'nope' } });
    expect(wrong.body).toMatchObject({ success: false, message: '密码错误' });
    const stillLocked = await call({ method: 'POST', url: `/api/channel/${id}/key`, headers: root });
    expect(stillLocked.body.code).toBe('VERIFICATION_REQUIRED');

    const right = await call<{ verified: boolean; expires_at: number }>({
      method: 'POST',
      url: '/api/verify',
      headers: root,
      payload: { method: 'password', password: '123456' },
    });
    expect(right.body).toMatchObject({ success: true, data: { verified: true, method: 'password' } });
    const key = await call<{ key: string }>({ method: 'POST', url: `/api/channel/${id}/key`, headers: root });
    expect(key.body).toMatchObject({ success: true, data: { key: 'sk-upstream-secret-0001' } });

    // Past the window (300 s by default) the proof no longer counts.
    vi.useFakeTimers({ now: Date.now() + 301_000, toFake: ['Date'] });
    const expired = await call({ method: 'POST', url: `/api/channel/${id}/key`, headers: root });
    expect(expired.body.code).toBe('VERIFICATION_REQUIRED');
  });

  it('is kept per session: another browser of the same user is not verified', async () => {
    const first = await test.login();
    const second = await test.login();
    const id = await addChannel(first, 'sk-upstream-secret-0002');
    await call({ method: 'POST', url: '/api/verify', headers: first, payload: { method: 'password', password: '123456' } });
    expect((await call({ method: 'POST', url: `/api/channel/${id}/key`, headers: first })).body.success).toBe(true);
    expect((await call({ method: 'POST', url: `/api/channel/${id}/key`, headers: second })).body.code).toBe('VERIFICATION_REQUIRED');
  });

  it('lets no administrator below root and no access token read a key', async () => {
    const root = await test.login();
    const id = await addChannel(root, 'sk-upstream-secret-0003');
    await test.context.users.repository.insert({ username: 'admin1', password: await hashPassword('password123'), display_name: 'a', role: Role.Admin });
    const admin = await test.login('admin1', 'password123');
    await call({ method: 'POST', url: '/api/verify', headers: admin, payload: { method: 'password', password: 'password123' } });
    const refused = await call({ method: 'POST', url: `/api/channel/${id}/key`, headers: admin });
    expect(refused.body.success).toBe(false);
    expect(JSON.stringify(refused.body)).not.toContain('sk-upstream-secret');

    const token = (await call<string>({ method: 'GET', url: '/api/user/token', headers: root })).body.data as string;
    const byToken = { authorization: `Bearer ${token}`, 'new-api-user': root['new-api-user'] as string };
    const verify = await call({ method: 'POST', url: '/api/verify', headers: byToken, payload: { method: 'password', password: '123456' } });
    expect(verify.body).toMatchObject({ success: false });
    const read = await call({ method: 'POST', url: `/api/channel/${id}/key`, headers: byToken });
    expect(read.body.success).toBe(false);
    expect(JSON.stringify(read.body)).not.toContain('sk-upstream-secret');
  });

  it('refuses a method the user does not have and bad input with a clear message', async () => {
    const root = await test.login();
    const twoFactor = await call({ method: 'POST', url: '/api/verify', headers: root, payload: { method: '2fa', code: '123456' } });
    expect(twoFactor.body).toMatchObject({ success: false, message: '你尚未启用此验证方式' });
    const unknown = await call({ method: 'POST', url: '/api/verify', headers: root, payload: { method: 'sms' } });
    expect(unknown.status).toBe(200);
    expect(unknown.body.success).toBe(false);
    expect(unknown.body.message).toContain('不支持的验证方式');
    const empty = await call({ method: 'POST', url: '/api/verify', headers: root, payload: { method: 'password' } });
    expect(empty.body).toMatchObject({ success: false, message: '请输入密码' });
  });

  it('locks the account’s verification after repeated wrong passwords', async () => {
    const root = await test.login();
    let last: Envelope = { success: true, message: '' };
    for (let attempt = 0; attempt < 11; attempt += 1) {
      last = (await call({ method: 'POST', url: '/api/verify', headers: root, payload: { method: 'password', password: 'wrong' } })).body;
    }
    expect(last.success).toBe(false);
    expect(last.message).toMatch(/失败次数过多/);
    const right = await call({ method: 'POST', url: '/api/verify', headers: root, payload: { method: 'password', password: '123456' } });
    expect(right.body.success).toBe(false);
  });
});
