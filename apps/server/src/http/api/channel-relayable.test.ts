import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

let test: TestApp;
let root: Record<string, string>;
beforeEach(async () => {
  test = await startTestApp();
  root = await test.login();
});
afterEach(async () => test.close());

const call = async (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) => {
  const response = await test.app.inject({ method, url, headers: root, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json() as { success: boolean; message: string; data?: { id: number; type: number; other: string } } };
};
const channel = (overrides: object) => ({ name: 'c', key: 'sk-saved-key-0123456789', groups: ['default'], models: 'm1', ...overrides });
const storedCount = async () =>
  Number(
    (
      await test.context.db.kysely
        .selectFrom('channels')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('saving a channel of a type this version cannot relay', () => {
  it('is refused on create with the type named, and nothing is stored', async () => {
    for (const [type, name] of [
      [15, '百度文心千帆'],
      [37, 'Dify'],
      [18, '讯飞星火认知'],
    ] as const) {
      const { status, body } = await call('POST', '/api/channel/', channel({ type }));
      expect(status).toBe(200);
      expect(body).toEqual({ success: false, message: `渠道类型 ${name} 暂不支持转发 (channel type ${type} cannot relay yet)` });
    }
    // new-api's wrapped batch form is refused the same way.
    const wrapped = await call('POST', '/api/channel/', { mode: 'batch', channel: channel({ type: 49, key: 'a\nb' }) });
    expect(wrapped.body.success).toBe(false);
    expect(wrapped.body.message).toMatch(/Coze 暂不支持转发/);
    expect(await storedCount()).toBe(0);
  });

  it('accepts the types that relay: OpenAI-compatible vendors, Cohere, and the task types Midjourney and Suno', async () => {
    for (const type of [1, 16, 17, 23, 26, 34, 45, 2, 5, 36]) {
      const { body } = await call('POST', '/api/channel/', channel({ type, name: `type-${type}` }));
      expect(body.success, `type ${type}: ${body.message}`).toBe(true);
    }
    expect(await storedCount()).toBe(10);
  });

  it('is refused on update when the type changes to one that cannot relay; a status change of such a stored channel still passes', async () => {
    const created = await call('POST', '/api/channel/', channel({ type: 1 }));
    const id = created.body.data!.id;
    const changed = await call('PUT', '/api/channel/', { id, type: 21 });
    expect(changed.body).toEqual({ success: false, message: '渠道类型 知识库：AI Proxy 暂不支持转发 (channel type 21 cannot relay yet)' });
    expect((await call('GET', `/api/channel/${id}`)).body.data!.type).toBe(1);

    // A channel stored before this check (a migrated new-api database) can still be disabled.
    await test.context.db.kysely.updateTable('channels').set({ type: 15 }).where('id', '=', id).execute();
    expect((await call('PUT', '/api/channel/', { id, status: 2 })).body.success).toBe(true);
    expect((await call('PUT', '/api/channel/', { id, name: 'renamed', type: 15 })).body.success).toBe(false);
  });
});

describe('Cloudflare channels need their account id', () => {
  it('are refused without one, on create and on an update that clears it, and accepted with one', async () => {
    const missing = await call('POST', '/api/channel/', channel({ type: 39, other: '  ' }));
    expect(missing.body.success).toBe(false);
    expect(missing.body.message).toMatch(/Account ID/);

    const created = await call('POST', '/api/channel/', channel({ type: 39, other: 'd6b5da8hk1awo8nap34ube6gh' }));
    expect(created.body.success, created.body.message).toBe(true);
    const id = created.body.data!.id;
    const cleared = await call('PUT', '/api/channel/', { id, other: '' });
    expect(cleared.body.success).toBe(false);
    expect(cleared.body.message).toMatch(/Account ID/);
    expect((await call('PUT', '/api/channel/', { id, other: 'other-account', name: 'cf' })).body.success).toBe(true);
  });
});
