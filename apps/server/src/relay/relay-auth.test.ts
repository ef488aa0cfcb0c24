import { Role, TokenStatus, UserStatus } from '@modelgate/contract';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

let env: RelayTestEnv;

beforeAll(async () => {
  // The test client is the proxy here, so X-Forwarded-For names the caller (see the IP rules).
  env = await startRelayTestEnv({ TRUSTED_PROXIES: '127.0.0.1' });
});
afterAll(async () => {
  await env.close();
});

async function chat(authorization: string | undefined, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }), ...headers },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: JSON.parse(text) as { error?: { message: string; type: string; code: string } } };
}

async function userWithChannel(options: { quota?: number; role?: number; models?: string[] } = {}) {
  const user = await seedUser(env.context, { quota: options.quota, role: options.role });
  const channelId = await seedChannel(env.context, {
    key: unique('key'),
    baseUrl: env.upstream.url,
    models: options.models ?? ['gpt-4o-mini'],
    groups: [user.group],
  });
  return { user, channelId };
}

const tokenRow = (id: number) => env.context.db.kysely.selectFrom('tokens').select(['status']).where('id', '=', id).executeTakeFirstOrThrow();

describe('token authentication', () => {
  it('accepts Bearer sk-<key>, Bearer <key> and the bare key', async () => {
    const { user } = await userWithChannel();
    const token = await seedToken(env.context, user.id);
    expect((await chat(`Bearer ${token.apiKey}`)).status).toBe(200);
    expect((await chat(`Bearer ${token.key}`)).status).toBe(200);
    expect((await chat(token.apiKey)).status).toBe(200);
  });

  it('refuses a missing or unknown key with 401 in the OpenAI error shape', async () => {
    const missing = await chat(undefined);
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ code: 'missing_api_key' });
    expect(missing.body.error!.message).toContain('Authorization');
    const unknown = await chat('Bearer sk-thisKeyDoesNotExist000000000000000000000000000000');
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_api_key', type: 'invalid_request_error' });
  });

  it('refuses a disabled token', async () => {
    const { user } = await userWithChannel();
    const token = await seedToken(env.context, user.id, { status: TokenStatus.Disabled });
    const answer = await chat(`Bearer ${token.apiKey}`);
    expect(answer.status).toBe(401);
    expect(answer.body.error!.code).toBe('token_disabled');
  });

  it('refuses an expired token and moves it to status expired', async () => {
    const { user } = await userWithChannel();
    const token = await seedToken(env.context, user.id, { expiredTime: Math.floor(Date.now() / 1000) - 60 });
    const answer = await chat(`Bearer ${token.apiKey}`);
    expect(answer.status).toBe(401);
    expect(answer.body.error!.code).toBe('token_expired');
    await expect.poll(async () => Number((await tokenRow(token.id)).status)).toBe(TokenStatus.Expired);
    expect((await chat(`Bearer ${token.apiKey}`)).body.error!.code).toBe('token_expired');
  });

  it('refuses a token with no quota left and moves it to status exhausted', async () => {
    const { user } = await userWithChannel();
    const token = await seedToken(env.context, user.id, { remainQuota: 0, unlimited: false });
    const answer = await chat(`Bearer ${token.apiKey}`);
    expect(answer.status).toBe(403);
    expect(answer.body.error!.code).toBe('token_exhausted');
    await expect.poll(async () => Number((await tokenRow(token.id)).status)).toBe(TokenStatus.Exhausted);
  });

  it('refuses the tokens of a banned user, and sees the ban at once through the user change event', async () => {
    const { user } = await userWithChannel();
    const token = await seedToken(env.context, user.id);
    expect((await chat(`Bearer ${token.apiKey}`)).status).toBe(200);
    await env.context.db.kysely.updateTable('users').set({ status: UserStatus.Disabled }).where('id', '=', user.id).execute();
    env.context.changes.emit('user', user.id);
    const answer = await chat(`Bearer ${token.apiKey}`);
    expect(answer.status).toBe(403);
    expect(answer.body.error!.code).toBe('user_banned');
  });

  it('sees a token change at once through the token change event', async () => {
    const { user } = await userWithChannel();
    const token = await seedToken(env.context, user.id);
    expect((await chat(`Bearer ${token.apiKey}`)).status).toBe(200);
    await env.context.db.kysely.updateTable('tokens').set({ status: TokenStatus.Disabled }).where('id', '=', token.id).execute();
    env.context.changes.emit('token', token.key);
    expect((await chat(`Bearer ${token.apiKey}`)).status).toBe(401);
  });
});

describe('model limits and IP rules', () => {
  it('lets a limited token use only its listed models', async () => {
    const { user } = await userWithChannel({ models: ['gpt-4o-mini', 'gpt-4o'] });
    const token = await seedToken(env.context, user.id, { modelLimits: ['gpt-4o-mini'] });
    expect((await chat(`Bearer ${token.apiKey}`, { model: 'gpt-4o-mini' })).status).toBe(200);
    const denied = await chat(`Bearer ${token.apiKey}`, { model: 'gpt-4o' });
    expect(denied.status).toBe(403);
    expect(denied.body.error!.code).toBe('model_not_allowed');
    expect(denied.body.error!.message).toContain('gpt-4o');
  });

  it('admits only the IPs and CIDR ranges of allow_ips', async () => {
    const { user } = await userWithChannel();
    const exact = await seedToken(env.context, user.id, { allowIps: '127.0.0.1' });
    const range = await seedToken(env.context, user.id, { allowIps: '10.0.0.0/8\n192.168.1.0/24' });
    const elsewhere = await seedToken(env.context, user.id, { allowIps: '10.1.2.3' });
    expect((await chat(`Bearer ${exact.apiKey}`)).status).toBe(200);
    // Behind a trusted proxy the client address is what X-Forwarded-For names.
    expect((await chat(`Bearer ${range.apiKey}`, {}, { 'x-forwarded-for': '192.168.1.77' })).status).toBe(200);
    const outside = await chat(`Bearer ${range.apiKey}`, {}, { 'x-forwarded-for': '192.168.2.1' });
    expect(outside.status).toBe(403);
    expect(outside.body.error!.code).toBe('ip_not_allowed');
    expect(outside.body.error!.message).toContain('192.168.2.1');
    expect((await chat(`Bearer ${elsewhere.apiKey}`)).status).toBe(403);
  });
});

describe('groups, channels and prices', () => {
  it('routes a token with its own group to that group, if the user may use it', async () => {
    const user = await seedUser(env.context);
    const group = unique('vipgroup');
    await setOption(env.context, 'UserUsableGroups', JSON.stringify({ default: '默认分组', [group]: 'test group' }));
    await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [group] });
    const token = await seedToken(env.context, user.id, { group });
    expect((await chat(`Bearer ${token.apiKey}`)).status).toBe(200);
    const stranger = await seedToken(env.context, user.id, { group: unique('secret') });
    const refused = await chat(`Bearer ${stranger.apiKey}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error!.code).toBe('group_forbidden');
  });

  it('answers 503 naming the group and model when no channel serves them', async () => {
    const { user } = await userWithChannel();
    const token = await seedToken(env.context, user.id);
    const answer = await chat(`Bearer ${token.apiKey}`, { model: 'gpt-4.1' });
    expect(answer.status).toBe(503);
    expect(answer.body.error!.message).toContain(user.group);
    expect(answer.body.error!.message).toContain('gpt-4.1');
  });

  it('refuses a model with neither a ratio nor a price, telling the admin to price it', async () => {
    const { user } = await userWithChannel({ models: ['unpriced-model-x'] });
    const token = await seedToken(env.context, user.id);
    const answer = await chat(`Bearer ${token.apiKey}`, { model: 'unpriced-model-x' });
    expect(answer.status).toBe(403);
    expect(answer.body.error!.code).toBe('model_price_error');
    expect(answer.body.error!.message).toMatch(/ModelRatio|ModelPrice/);
  });

  it('lets an administrator pin a channel with sk-<key>-<id>, and no one else', async () => {
    const admin = await userWithChannel({ role: Role.Admin });
    const adminToken = await seedToken(env.context, admin.user.id);
    // A channel outside the admin's group, reachable only when pinned.
    const pinnedKey = unique('pinned');
    const pinned = await seedChannel(env.context, { key: pinnedKey, baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [unique('other')] });
    const answer = await chat(`Bearer ${adminToken.apiKey}-${pinned}`);
    expect(answer.status).toBe(200);
    expect(env.upstream.requestsWithKey(pinnedKey)).toHaveLength(1);

    const common = await userWithChannel();
    const commonToken = await seedToken(env.context, common.user.id);
    const refused = await chat(`Bearer ${commonToken.apiKey}-${pinned}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error!.code).toBe('channel_pin_forbidden');
  });
});

describe('other /v1 paths', () => {
  it('answers 501 in the OpenAI shape for unknown /v1 paths', async () => {
    const response = await request(`${env.gateway}/v1/fine_tuning/jobs`, { method: 'GET' });
    expect(response.statusCode).toBe(501);
    expect(await response.body.json()).toMatchObject({ error: { code: 'api_not_implemented' } });
  });

  it('lets browsers call the relay (CORS preflight and headers)', async () => {
    const preflight = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://chat.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-headers']).toBe('authorization, content-type');
    const refused = await chat(undefined, {}, { origin: 'https://chat.example.com' });
    expect(refused.status).toBe(401);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const { user } = await userWithChannel();
    const token = await seedToken(env.context, user.id);
    const response = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.statusCode).toBe(400);
    expect(await response.body.json()).toMatchObject({ error: { code: 'invalid_json' } });
  });
});
