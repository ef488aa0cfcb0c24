import { ChannelStatus } from '@modelgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { seedChannel, seedUser } from '../../relay/testing/relay-fixtures.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

let test: TestApp;
beforeAll(async () => {
  test = await startTestApp();
  const { options } = test.context;
  await options.set(
    'ModelRatio',
    JSON.stringify({
      'p-ratio': 2.5,
      'p-unserved': 1,
      'p-disabled': 1,
      'p-vip': 0.5,
      'p-secret': 1,
      'gpt-4o': 1.25,
      'claude-sonnet-4-20250514': 1.5,
      'text-embedding-3-small': 0.01,
      'qwen-max': 1,
    }),
  );
  await options.set('CompletionRatio', JSON.stringify({ 'p-ratio': 3 }));
  await options.set('ModelPrice', JSON.stringify({ 'p-fixed': 0.05 }));
  await options.set('GroupRatio', JSON.stringify({ default: 1, vip: 1.5, secret: 0.8 }));
  const base = { baseUrl: 'http://127.0.0.1:9' };
  await seedChannel(test.context, { ...base, key: 'k1', models: ['p-ratio', 'p-fixed'], groups: ['default'] });
  await seedChannel(test.context, { ...base, key: 'k2', models: ['p-vip', 'p-ratio'], groups: ['vip'] });
  await seedChannel(test.context, { ...base, key: 'k3', models: ['p-disabled'], groups: ['default'], status: ChannelStatus.ManuallyDisabled });
  await seedChannel(test.context, { ...base, key: 'k4', models: ['p-secret'], groups: ['secret'] });
  await seedChannel(test.context, {
    ...base,
    key: 'k5',
    models: ['gpt-4o', 'claude-sonnet-4-20250514', 'text-embedding-3-small', 'qwen-max'],
    groups: ['vip'],
  });
});
afterAll(async () => test.close());

const pricing = async (headers: Record<string, string> = {}) => {
  const response = await test.app.inject({ method: 'GET', url: '/api/pricing', headers });
  expect(response.statusCode).toBe(200);
  return response.json();
};

describe('GET /api/pricing', () => {
  it('lists, without login, the models an enabled channel serves with their prices and groups', async () => {
    const body = await pricing();
    expect(body).toMatchObject({ success: true, group_ratio: { default: 1, vip: 1.5 }, usable_group: { default: '默认分组', vip: 'vip分组' } });
    expect(body.data.filter((item: { model_name: string }) => item.model_name.startsWith('p-'))).toEqual([
      { model_name: 'p-fixed', quota_type: 1, model_ratio: 0, model_price: 0.05, completion_ratio: 0, enable_groups: ['default'], owner_by: '' },
      { model_name: 'p-ratio', quota_type: 0, model_ratio: 2.5, model_price: 0, completion_ratio: 3, enable_groups: ['default', 'vip'], owner_by: '' },
      { model_name: 'p-vip', quota_type: 0, model_ratio: 0.5, model_price: 0, completion_ratio: 1, enable_groups: ['vip'], owner_by: '' },
    ]);
  });

  it("names each model's vendor (new-api's vendors and vendor_id) and capability tags from its name", async () => {
    const body = await pricing();
    const byName = new Map(body.data.map((item: { model_name: string }) => [item.model_name, item]));
    expect(body.vendors).toEqual([
      { id: 1, name: 'OpenAI', icon: 'OpenAI' },
      { id: 2, name: 'Anthropic', icon: 'Claude.Color' },
      { id: 5, name: '阿里巴巴', icon: 'Qwen.Color' },
    ]);
    expect(byName.get('gpt-4o')).toMatchObject({ vendor_id: 1, tags: 'vision' });
    expect(byName.get('claude-sonnet-4-20250514')).toMatchObject({ vendor_id: 2, tags: 'reasoning,vision' });
    expect(byName.get('text-embedding-3-small')).toMatchObject({ vendor_id: 1, tags: 'embedding' });
    expect(byName.get('qwen-max')).toMatchObject({ vendor_id: 5 });
    expect(byName.get('qwen-max')).not.toHaveProperty('tags');
    // A name no rule knows has neither (new-api's omitempty), as the p-* models above show.
    expect(byName.get('p-ratio')).not.toHaveProperty('vendor_id');
  });

  it('leaves out a model no channel serves and one served only by a disabled channel', async () => {
    const names = (await pricing()).data.map((item: { model_name: string }) => item.model_name);
    expect(names).not.toContain('p-unserved');
    expect(names).not.toContain('p-disabled');
  });

  it('adds a signed-in user’s own group, with its ratio and the models served there', async () => {
    const user = await seedUser(test.context, { group: 'secret' });
    await test.context.db.kysely
      .updateTable('users')
      .set({ password: await hashPassword('password123') })
      .where('id', '=', user.id)
      .execute();
    const headers = await test.login(user.username, 'password123');
    const body = await pricing(headers);
    expect(body.usable_group).toEqual({ default: '默认分组', vip: 'vip分组', secret: '用户分组' });
    expect(body.group_ratio).toEqual({ default: 1, vip: 1.5, secret: 0.8 });
    expect(body.data.find((item: { model_name: string }) => item.model_name === 'p-secret')).toMatchObject({ enable_groups: ['secret'] });
    // Anonymous callers do not see it: nobody may use that group without being in it.
    expect((await pricing()).data.map((item: { model_name: string }) => item.model_name)).not.toContain('p-secret');
  });
});
