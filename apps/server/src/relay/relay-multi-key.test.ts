import { ChannelStatus } from '@modelgate/contract';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openAILikeHandler, sendJson } from './testing/mock-upstream.js';
import { priceModel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * Multi-key channels (new-api's multi-key mode) through the whole app: a channel of three keys,
 * one of them revoked upstream. Calls succeed (the channel's other keys serve the call the revoked
 * one failed), the revoked key is disabled alone with its reason and the channel stays enabled;
 * in polling mode calls take the good keys in turn; a scheduled test re-enables the key once the
 * upstream accepts it again, and a channel whose every key was disabled comes back with it. The
 * admin API lists the keys masked with their states and enables, disables and deletes them.
 */

const GOOD_A = 'sk-multi-good-a-0123456789';
const GOOD_B = 'sk-multi-good-b-0123456789';
const REVOKED = 'sk-multi-revoked-0123456789';

describe('multi-key channels', () => {
  let env: RelayTestEnv;
  let apiKey: string;
  let userId: number;
  let tokenId: number;
  let root: Record<string, string>;
  const revoked = new Set<string>();
  // Each test's channel serves a model of its own.
  let model = '';
  let group: string;

  beforeAll(async () => {
    env = await startRelayTestEnv();
    group = unique('multi');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: 1 }));
    await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
    await setOption(env.context, 'AutomaticEnableChannelEnabled', true);
    const user = await seedUser(env.context, { quota: 100_000_000, group });
    userId = user.id;
    const token = await seedToken(env.context, user.id, { remainQuota: 50_000_000, unlimited: false });
    apiKey = token.apiKey;
    tokenId = token.id;
    root = await env.test.login();
    env.upstream.respond((request, response) => {
      if (revoked.has(request.key)) {
        sendJson(response, 401, { error: { message: `Incorrect API key provided: ${request.key}`, type: 'invalid_request_error', code: 'invalid_api_key' } });
        return;
      }
      return openAILikeHandler(request, response);
    });
  });
  beforeEach(async () => {
    revoked.clear();
    model = unique('gpt-multi');
    await priceModel(env.context, model, 1, 1);
  });
  afterAll(async () => env?.close());

  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const response = await env.test.app.inject({ method, url, headers: root, ...(payload ? { payload } : {}) });
    return response.json() as { success: boolean; message: string; data: any };
  };
  const createChannel = async (keys: string[], mode: 'random' | 'polling') => {
    const created = await api('POST', '/api/channel/', {
      mode: 'multi_to_single',
      multi_key_mode: mode,
      channel: { type: 1, name: unique('multi'), key: keys.join('\n'), base_url: env.upstream.url, models: model, groups: [group], auto_ban: 1 },
    });
    expect(created.success, created.message).toBe(true);
    return created.data.id as number;
  };
  const keyStatus = (channelId: number) => api('POST', '/api/channel/multi_key/manage', { channel_id: channelId, action: 'get_key_status', page_size: 100 });
  const chat = () =>
    new OpenAI({ apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 }).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  const keyCounts = (since: number) => {
    const counts = new Map<string, number>();
    for (const request of env.upstream.requests.slice(since)) counts.set(request.key, (counts.get(request.key) ?? 0) + 1);
    return counts;
  };

  it('serves every call with one key revoked, disables that key alone, and takes the good keys in turn', async () => {
    const channelId = await createChannel([GOOD_A, REVOKED, GOOD_B], 'polling');
    revoked.add(REVOKED);
    const since = env.upstream.requests.length;
    for (let call = 0; call < 10; call += 1) expect((await chat()).choices[0]!.message.content).toMatch(/^Hello from sk-multi-good-/);
    await env.runtime.drain();
    // The revoked key was asked once: the call it failed went on to the next key; then it was left out.
    expect(keyCounts(since).get(REVOKED)).toBe(1);

    const status = await keyStatus(channelId);
    expect(status.success).toBe(true);
    expect(status.data).toMatchObject({ total: 3, enabled_count: 2, auto_disabled_count: 1, multi_key_mode: 'polling' });
    expect(status.data.keys[1]).toMatchObject({ index: 1, status: ChannelStatus.AutoDisabled, reason: expect.stringContaining('HTTP 401') });
    expect(status.data.keys[1].reason).not.toContain(REVOKED);
    expect(JSON.stringify(status.data)).not.toContain(GOOD_A);
    expect(status.data.keys.map((key: { key_preview: string }) => key.key_preview)).toEqual(['sk-mul****6789', 'sk-mul****6789', 'sk-mul****6789']);
    const channel = await api('GET', `/api/channel/${channelId}`);
    expect(channel.data.status).toBe(ChannelStatus.Enabled);
    expect(channel.data.key).toBe('');
    expect(channel.data.channel_info).toMatchObject({ is_multi_key: true, multi_key_size: 3, multi_key_status_list: { '1': 3 } });

    // 200 calls in turn over the two good keys.
    const before = env.upstream.requests.length;
    for (let call = 0; call < 200; call += 1) await chat();
    const counts = keyCounts(before);
    expect([counts.get(GOOD_A), counts.get(GOOD_B), counts.get(REVOKED) ?? 0]).toEqual([100, 100, 0]);
    // The key list counts each key's calls on this node: what each good key served, the revoked key's one failure.
    const all = keyCounts(since);
    const used = (await keyStatus(channelId)).data.keys;
    expect(used.map((key: { served_count: number; failed_count: number }) => [key.served_count, key.failed_count])).toEqual([
      [all.get(GOOD_A), 0],
      [0, 1],
      [all.get(GOOD_B), 0],
    ]);
    expect(all.get(GOOD_A)! + all.get(GOOD_B)!).toBe(210);
    await env.runtime.drain();
    const logs = (await totals(env.context, { userId, tokenId })).logs.slice(-200);
    const indexes = logs.map((log) => JSON.parse(log.other).admin_info.multi_key_index as number);
    expect(new Set(indexes)).toEqual(new Set([0, 2]));
  });

  it('re-enables a recovered key by the scheduled test, and a channel whose every key was disabled comes back with it', async () => {
    const channelId = await createChannel([GOOD_A, REVOKED], 'random');
    revoked.add(REVOKED);
    revoked.add(GOOD_A);
    // Both keys refused: each disabled, then the channel (status 3, for want of keys).
    await expect(chat()).rejects.toBeInstanceOf(OpenAI.APIError);
    await env.runtime.drain();
    await expect.poll(async () => (await api('GET', `/api/channel/${channelId}`)).data.status).toBe(ChannelStatus.AutoDisabled);
    expect((await keyStatus(channelId)).data).toMatchObject({ enabled_count: 0, auto_disabled_count: 2 });

    // The upstream accepts one key again: the periodic test finds it and brings the channel back.
    revoked.delete(GOOD_A);
    await env.runtime.health.runTestAll();
    const status = await keyStatus(channelId);
    expect(status.data).toMatchObject({ enabled_count: 1, auto_disabled_count: 1 });
    expect(status.data.keys[0]).toMatchObject({ index: 0, status: ChannelStatus.Enabled });
    expect((await api('GET', `/api/channel/${channelId}`)).data.status).toBe(ChannelStatus.Enabled);
    expect((await chat()).choices[0]!.message.content).toBe(`Hello from ${GOOD_A}`);
  });

  it('lets an admin disable, enable and delete keys, delete the disabled ones, append keys and switch the mode', async () => {
    const channelId = await createChannel([GOOD_A, GOOD_B, REVOKED], 'random');
    const manage = (action: string, extra: object = {}) => api('POST', '/api/channel/multi_key/manage', { channel_id: channelId, action, ...extra });
    expect(await manage('disable_key', { key_index: 0 })).toMatchObject({ success: true, message: '密钥已禁用' });
    expect((await keyStatus(channelId)).data.keys[0]).toMatchObject({ status: ChannelStatus.ManuallyDisabled });
    // Only the enabled key B serves now (the revoked one is refused and disabled on the way).
    revoked.add(REVOKED);
    for (let call = 0; call < 6; call += 1) expect((await chat()).choices[0]!.message.content).toBe(`Hello from ${GOOD_B}`);
    await env.runtime.drain();
    await expect.poll(async () => (await keyStatus(channelId)).data.auto_disabled_count).toBe(1);

    expect(await manage('enable_key', { key_index: 0 })).toMatchObject({ success: true, message: '密钥已启用' });
    expect(await manage('delete_disabled_keys')).toMatchObject({ success: true, message: '已删除 1 个自动禁用的密钥', data: 1 });
    expect((await keyStatus(channelId)).data).toMatchObject({ total: 2, enabled_count: 2 });
    expect(await manage('delete_disabled_keys')).toMatchObject({ success: false, message: '没有需要删除的自动禁用密钥' });
    expect(await manage('delete_key', { key_index: 5 })).toMatchObject({ success: false, message: '密钥索引超出范围 (no key at that index)' });
    expect(await manage('delete_key', { key_index: 1 })).toMatchObject({ success: true, message: '密钥已删除' });
    expect(await manage('delete_key', { key_index: 0 })).toMatchObject({ success: false, message: '不能删除最后一个密钥' });
    expect(await manage('explode')).toMatchObject({ success: false, message: '不支持的操作' });

    // The edit form appends keys explicitly (or replaces them); the mode changes with it.
    const appended = await api('PUT', '/api/channel/', { id: channelId, key: `${GOOD_B}\n${GOOD_A}`, key_mode: 'append', multi_key_mode: 'polling' });
    expect(appended.success, appended.message).toBe(true);
    expect((await keyStatus(channelId)).data).toMatchObject({ total: 2, enabled_count: 2, multi_key_mode: 'polling' });
    const row = await env.context.db.kysely.selectFrom('channels').select('key').where('id', '=', channelId).executeTakeFirstOrThrow();
    expect(env.context.db.secrets.open(row.key)).toBe(`${GOOD_A}\n${GOOD_B}`);
    await manage('disable_all_keys');
    expect((await api('GET', `/api/channel/${channelId}`)).data.status).toBe(ChannelStatus.ManuallyDisabled);
    const replaced = await api('PUT', '/api/channel/', { id: channelId, key: REVOKED, key_mode: 'replace' });
    expect(replaced.success).toBe(true);
    expect((await keyStatus(channelId)).data).toMatchObject({ total: 1, enabled_count: 1 });
  });
});
