import { CHANNEL_TYPES } from '@modelgate/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

let test: TestApp;
let root: Record<string, string>;
beforeEach(async () => {
  test = await startTestApp();
  root = await test.login();
});
afterEach(async () => test.close());

type Method = 'GET' | 'POST' | 'PUT';
const call = async (method: Method, url: string, headers: Record<string, string> = root, payload?: object) => {
  const response = await test.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json() };
};

async function registerAndLogin(username: string) {
  await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
  return test.login(username, 'password123');
}

async function createChannel(fields: object): Promise<number> {
  const { body } = await call('POST', '/api/channel/', root, { type: 1, key: 'sk-upstream-key-0123456789', groups: ['default'], ...fields });
  expect(body.success, body.message).toBe(true);
  return body.data.id;
}

describe('GET /api/models', () => {
  it('answers every channel type number with the priced models that type serves, to any signed-in user', async () => {
    const user = await registerAndLogin('modelsuser');
    const { status, body } = await call('GET', '/api/models', user);
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    const byType = body.data as Record<string, string[]>;
    expect(Object.keys(byType).sort()).toEqual(CHANNEL_TYPES.map((info) => String(info.value)).sort());
    expect(byType['1']).toContain('gpt-4o-mini');
    expect(byType['1']).not.toContain('claude-3-haiku-20240307');
    expect(byType['14']).toContain('claude-3-haiku-20240307');
    expect(byType['14']!.every((model) => model.startsWith('claude-'))).toBe(true);
    expect(byType['24']).toContain('gemini-2.5-flash');
    expect(byType['43']).toEqual(['deepseek-chat', 'deepseek-reasoner']);
    // A custom channel is offered OpenAI's list, as in new-api.
    expect(byType['8']).toEqual(byType['1']);
    expect(byType['2']).toEqual(expect.arrayContaining(['mj_imagine']));
    expect(byType['36']).toEqual(['suno_lyrics', 'suno_music']);
  });

  it('follows the prices an administrator sets', async () => {
    await test.context.options.set('ModelRatio', JSON.stringify({ 'qwen-max': 10, 'deepseek-v9': 1 }));
    await test.context.options.set('ModelPrice', JSON.stringify({ 'glm-4-plus': 0.05 }));
    const { body } = await call('GET', '/api/models');
    expect(body.data['17']).toEqual(['qwen-max']);
    expect(body.data['16']).toEqual(['glm-4-plus']);
    expect(body.data['43']).toEqual(['deepseek-v9']);
    expect(body.data['1']).toEqual([]);
  });

  it('needs a session', async () => {
    const { status, body } = await call('GET', '/api/models', {});
    expect(status).toBe(401);
    expect(body.success).toBe(false);
  });
});

describe('GET /api/channel/models_enabled', () => {
  it('lists once each model an enabled channel serves, not those only disabled channels serve', async () => {
    await createChannel({ name: 'a', models: 'gpt-4o,gpt-4o-mini', groups: ['default', 'vip'] });
    await createChannel({ name: 'b', models: 'gpt-4o,o3-mini' });
    const disabled = await createChannel({ name: 'c', models: 'only-when-enabled,gpt-4o' });
    const off = await call('PUT', '/api/channel/', root, { id: disabled, status: 2 });
    expect(off.body.success, off.body.message).toBe(true);

    const { status, body } = await call('GET', '/api/channel/models_enabled');
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, message: '', data: ['gpt-4o', 'gpt-4o-mini', 'o3-mini'] });

    await call('PUT', '/api/channel/', root, { id: disabled, status: 1 });
    expect((await call('GET', '/api/channel/models_enabled')).body.data).toEqual(['gpt-4o', 'gpt-4o-mini', 'o3-mini', 'only-when-enabled']);
  });

  it('is not taken for a channel id, and stays for administrators', async () => {
    expect((await call('GET', '/api/channel/models_enabled')).body).toEqual({ success: true, message: '', data: [] });
    // The parametric route still answers real ids.
    const id = await createChannel({ name: 'solo', models: 'gpt-4o' });
    expect((await call('GET', `/api/channel/${id}`)).body).toMatchObject({ success: true, data: { id, name: 'solo' } });

    const user = await registerAndLogin('plainuser');
    const refused = await call('GET', '/api/channel/models_enabled', user);
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
    expect((await call('GET', '/api/channel/models_enabled', {})).status).toBe(401);
  });
});

describe('/api/setup', () => {
  it('says the instance is set up, to anyone', async () => {
    const { status, body } = await call('GET', '/api/setup', {});
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, message: '', data: { status: true, root_init: true, database_type: 'sqlite' } });
  });

  it('refuses a second setup and changes nothing', async () => {
    const before = await test.context.db.kysely.selectFrom('users').select(['id', 'username', 'password']).execute();
    const { status, body } = await call(
      'POST',
      '/api/setup',
      {},
      {
        username: 'intruder',
        password: 'password123',
        confirmPassword: 'password123',
        SelfUseModeEnabled: true,
        DemoSiteEnabled: false,
      },
    );
    expect(status).toBe(200);
    expect(body).toEqual({ success: false, message: '系统已经初始化完成' });
    expect(await test.context.db.kysely.selectFrom('users').select(['id', 'username', 'password']).execute()).toEqual(before);
    // root still signs in with its own password.
    await test.login();
  });
});

describe.each(['postgres', 'mysql'] as const)('on %s', (dialect) => {
  let fresh: FreshDb;
  let other: TestApp;
  let admin: Record<string, string>;
  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
    other = await startTestApp({ SQL_DSN: fresh.sqlDsn });
    admin = await other.login();
  });
  afterAll(async () => {
    await other.close();
    await fresh.drop();
  });

  it('names the database in GET /api/setup and lists enabled models once each', async () => {
    const setup = (await other.app.inject({ method: 'GET', url: '/api/setup' })).json();
    expect(setup.data).toEqual({ status: true, root_init: true, database_type: dialect });
    for (const [name, models] of [
      ['a', 'gpt-4o-mini,gpt-4o'],
      ['b', 'gpt-4o,o3-mini'],
    ]) {
      const created = await other.app.inject({
        method: 'POST',
        url: '/api/channel/',
        headers: admin,
        payload: { type: 1, name, key: 'sk-upstream-key-0123456789', groups: ['default', 'vip'], models },
      });
      expect(created.json().success, created.body).toBe(true);
    }
    const listed = (await other.app.inject({ method: 'GET', url: '/api/channel/models_enabled', headers: admin })).json();
    expect(listed).toEqual({ success: true, message: '', data: ['gpt-4o', 'gpt-4o-mini', 'o3-mini'] });
  });
});
