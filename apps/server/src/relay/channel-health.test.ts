import { ChannelStatus } from '@modelgate/contract';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

let env: RelayTestEnv;
let admin: Record<string, string>;

beforeAll(async () => {
  env = await startRelayTestEnv();
  admin = await env.test.login();
  await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
  await setOption(env.context, 'AutomaticEnableChannelEnabled', true);
});
afterEach(async () => {
  env.upstream.respond();
  await setOption(env.context, 'ChannelDisableThreshold', 5);
  await setOption(env.context, 'RetryTimes', 0);
});
afterAll(async () => {
  await env.close();
});

const channelRow = (id: number) =>
  env.context.db.kysely.selectFrom('channels').select(['status', 'other_info', 'response_time', 'test_time']).where('id', '=', id).executeTakeFirstOrThrow();
const abilitiesEnabled = async (id: number) =>
  (await env.context.db.kysely.selectFrom('abilities').select('enabled').where('channel_id', '=', id).execute()).map((row) => Number(row.enabled));

async function testChannel(id: number, model?: string) {
  const response = await env.test.app.inject({ method: 'GET', url: `/api/channel/test/${id}${model ? `?model=${model}` : ''}`, headers: admin });
  return response.json() as { success: boolean; message: string; time: number };
}

const rejectKeys = (keys: string[]) =>
  env.upstream.respond((recorded, response) => {
    if (keys.includes(recorded.key))
      sendJson(response, 401, { error: { message: 'Incorrect API key provided: sk-abc***xyz.', type: 'invalid_request_error', code: 'invalid_api_key' } });
    else
      sendJson(response, 200, {
        id: 'x',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }],
        usage: { prompt_tokens: 1, completion_tokens: 1 },
      });
  });

async function channelFor(options: { autoBan?: boolean; status?: number; models?: string[]; testModel?: string } = {}) {
  const user = await seedUser(env.context);
  const token = await seedToken(env.context, user.id);
  const key = unique('key');
  const id = await seedChannel(env.context, { key, baseUrl: env.upstream.url, models: options.models ?? ['gpt-4o-mini'], groups: [user.group], ...options });
  return { user, token, key, id };
}

describe('channel tests', () => {
  it('sends a small real request and records response_time and test_time', async () => {
    const { id, key } = await channelFor({ models: ['gpt-4o-mini', 'gpt-4.1'] });
    env.upstream.respond(async (_recorded, response) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      sendJson(response, 200, { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hello' } }] });
    });
    const result = await testChannel(id, 'gpt-4.1');
    expect(result.success).toBe(true);
    expect(result.time).toBeGreaterThanOrEqual(0.03);
    const sent = env.upstream.requestsWithKey(key)[0]!;
    expect(sent.json).toMatchObject({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    const row = await channelRow(id);
    expect(Number(row.response_time)).toBeGreaterThanOrEqual(30);
    expect(Math.abs(Number(row.test_time) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('requires an administrator', async () => {
    const { id } = await channelFor();
    const response = await env.test.app.inject({ method: 'GET', url: `/api/channel/test/${id}` });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ success: false });
  });

  it('disables a channel whose key the upstream rejects, with the reason and time', async () => {
    const { id, key, token } = await channelFor();
    rejectKeys([key]);
    const result = await testChannel(id);
    expect(result.success).toBe(false);
    expect(result.message).toContain('Incorrect API key');
    const row = await channelRow(id);
    expect(Number(row.status)).toBe(ChannelStatus.AutoDisabled);
    const info = JSON.parse(row.other_info) as { status_reason: string; status_time: number };
    expect(info.status_reason).toContain('Incorrect API key');
    expect(Math.abs(info.status_time - Date.now() / 1000)).toBeLessThan(5);
    expect(await abilitiesEnabled(id)).toEqual([0]);
    // The relay stops using it at once.
    const answer = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(answer.statusCode).toBe(503);
    await answer.body.dump();
  });

  it('disables a channel slower than ChannelDisableThreshold', async () => {
    const { id } = await channelFor();
    await setOption(env.context, 'ChannelDisableThreshold', 0.05);
    env.upstream.respond(async (_recorded, response) => {
      await new Promise((resolve) => setTimeout(resolve, 120));
      sendJson(response, 200, { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'slow' } }] });
    });
    expect((await testChannel(id)).success).toBe(true);
    const row = await channelRow(id);
    expect(Number(row.status)).toBe(ChannelStatus.AutoDisabled);
    expect(JSON.parse(row.other_info).status_reason).toContain('超过阈值');
  });

  it('leaves a channel with auto_ban = 0 alone', async () => {
    const { id, key } = await channelFor({ autoBan: false });
    rejectKeys([key]);
    expect((await testChannel(id)).success).toBe(false);
    expect(Number((await channelRow(id)).status)).toBe(ChannelStatus.Enabled);
  });

  it('disables a channel whose key fails during relaying, while the request retries elsewhere', async () => {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    const badKey = unique('bad');
    const bad = await seedChannel(env.context, { key: badKey, baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group], priority: 10 });
    await seedChannel(env.context, { key: unique('good'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group], priority: 0 });
    await setOption(env.context, 'RetryTimes', 1);
    rejectKeys([badKey]);
    const answer = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(answer.statusCode).toBe(200);
    await answer.body.dump();
    await expect.poll(async () => Number((await channelRow(bad)).status)).toBe(ChannelStatus.AutoDisabled);
  });

  it('brings back an auto-disabled channel that passes the scheduled test, and only those', async () => {
    const revived = await channelFor({ status: ChannelStatus.AutoDisabled });
    const manual = await channelFor({ status: ChannelStatus.ManuallyDisabled });
    const stillBroken = await channelFor({ status: ChannelStatus.AutoDisabled });
    rejectKeys([stillBroken.key]);
    // What CHANNEL_TEST_FREQUENCY runs on masters.
    await env.runtime.health.runTestAll();
    expect(Number((await channelRow(revived.id)).status)).toBe(ChannelStatus.Enabled);
    expect(await abilitiesEnabled(revived.id)).toEqual([1]);
    expect(Number((await channelRow(manual.id)).status)).toBe(ChannelStatus.ManuallyDisabled);
    expect(env.upstream.requestsWithKey(manual.key)).toHaveLength(0);
    expect(Number((await channelRow(stillBroken.id)).status)).toBe(ChannelStatus.AutoDisabled);
    const answer = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${revived.token.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(answer.statusCode).toBe(200);
    await answer.body.dump();
  });

  it('tests all channels in the background, answering at once', async () => {
    const slow = await channelFor({ status: ChannelStatus.AutoDisabled });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    env.upstream.respond(async (_recorded, response) => {
      await gate;
      sendJson(response, 200, { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' } }] });
    });
    const first = await env.test.app.inject({ method: 'GET', url: '/api/channel/test', headers: admin });
    expect(first.json()).toEqual({ success: true, message: '' });
    const second = await env.test.app.inject({ method: 'GET', url: '/api/channel/test', headers: admin });
    expect(second.json()).toMatchObject({ success: false, message: expect.stringContaining('测试已在运行中') });
    release();
    await expect.poll(async () => Number((await channelRow(slow.id)).status), { timeout: 10_000 }).toBe(ChannelStatus.Enabled);
  });
});
