import { ChannelStatus } from '@modelgate/contract';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletionBody, sendJson } from '../../relay/testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

/**
 * The option keys and /api/status fields new-api's own console reads and saves (issue 13): each
 * round-trips through PUT/GET /api/option/ and does what it does in new-api.
 */

let env: RelayTestEnv;
let root: Record<string, string>;

beforeAll(async () => {
  env = await startRelayTestEnv();
  root = await env.test.login();
});
afterEach(() => env.upstream.respond());
afterAll(async () => env.close());

const put = (key: string, value?: unknown) =>
  env.test.app.inject({ method: 'PUT', url: '/api/option/', headers: root, payload: value === undefined ? { key } : { key, value } });
async function stored(key: string): Promise<string | undefined> {
  const response = await env.test.app.inject({ method: 'GET', url: '/api/option/', headers: root });
  return (response.json().data as { key: string; value: string }[]).find((entry) => entry.key === key)?.value;
}
async function status(): Promise<Record<string, unknown>> {
  const response = await env.test.app.inject({ method: 'GET', url: '/api/status' });
  return response.json().data as Record<string, unknown>;
}
async function chat(apiKey: string, model: string) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

const NEW_API_DEFAULT_KEYWORDS = [
  'Your credit balance is too low',
  'This organization has been disabled.',
  'You exceeded your current quota',
  'Permission denied',
  'The security token included in the request is invalid',
  'Operation not allowed',
  'Your account is not authorized',
].join('\n');

describe('the keys round-trip through PUT/GET /api/option/ with new-api defaults', () => {
  it.each([
    ['general_setting.docs_link', '', 'https://docs.example.com/guide/', 'https://docs.example.com/guide'],
    ['DemoSiteEnabled', 'false', true, 'true'],
    ['SelfUseModeEnabled', 'false', 'true', 'true'],
    ['AutomaticDisableKeywords', NEW_API_DEFAULT_KEYWORDS, 'quota of this key\nBilling hard limit', 'quota of this key\nBilling hard limit'],
    ['ModelRequestRateLimitEnabled', 'false', 'true', 'true'],
    ['ModelRequestRateLimitCount', '0', 30, '30'],
    ['ModelRequestRateLimitSuccessCount', '1000', '500', '500'],
    ['ModelRequestRateLimitDurationMinutes', '1', '5', '5'],
  ])('%s', async (key, fallback, sent, expected) => {
    expect(await stored(key)).toBe(fallback);
    expect((await put(key, sent)).json()).toEqual({ success: true, message: '保存成功' });
    expect(await stored(key)).toBe(expected);
    const row = await env.context.db.kysely.selectFrom('options').select('value').where('key', '=', key).executeTakeFirstOrThrow();
    expect(row.value).toBe(expected);
    expect((await put(key, fallback)).json().success).toBe(true);
    expect(await stored(key)).toBe(fallback);
  });

  it('refuses values new-api would not take, and keeps the old one', async () => {
    for (const [key, value] of [
      ['ModelRequestRateLimitCount', -1],
      ['ModelRequestRateLimitSuccessCount', 'many'],
      ['ModelRequestRateLimitDurationMinutes', 1.5],
      ['DemoSiteEnabled', 'yes'],
    ] as const) {
      const body = (await put(key, value)).json() as { success: boolean; message: string };
      expect(body.success, key).toBe(false);
      expect(body.message, key).toContain(key);
    }
    expect(await stored('ModelRequestRateLimitCount')).toBe('0');
    expect(await stored('DemoSiteEnabled')).toBe('false');
  });
});

describe('/api/status', () => {
  it('answers setup, docs_link, demo_site_enabled, self_use_mode_enabled and enable_batch_update', async () => {
    expect(await status()).toMatchObject({ setup: true, docs_link: '', demo_site_enabled: false, self_use_mode_enabled: false, enable_batch_update: true });
    await put('general_setting.docs_link', 'https://docs.example.com');
    await put('DemoSiteEnabled', 'true');
    await put('SelfUseModeEnabled', 'true');
    expect(await status()).toMatchObject({ docs_link: 'https://docs.example.com', demo_site_enabled: true, self_use_mode_enabled: true });
    await put('general_setting.docs_link', '');
    await put('DemoSiteEnabled', 'false');
    await put('SelfUseModeEnabled', 'false');
    expect(await status()).toMatchObject({ docs_link: '', demo_site_enabled: false, self_use_mode_enabled: false });
  });
});

describe('SelfUseModeEnabled', () => {
  it('serves a model with neither ratio nor price at ratio 37.5 instead of refusing it', async () => {
    const model = unique('unpriced');
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    const channelId = await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: [model], groups: [user.group] });
    env.upstream.respond((_request, response) =>
      sendJson(response, 200, chatCompletionBody('ok', { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 })),
    );
    const refused = await chat(token.apiKey, model);
    expect(refused.status).not.toBe(200);
    expect(JSON.parse(refused.text).error.message).toContain(`模型 ${model} 的倍率或价格未设置`);
    await setOption(env.context, 'SelfUseModeEnabled', true);
    try {
      expect((await chat(token.apiKey, model)).status).toBe(200);
      await env.runtime.flush();
      const after = await totals(env.context, { userId: user.id, tokenId: token.id, channelIds: [channelId] });
      // round(groupRatio 1 × 37.5 × (10 + 4 × completionRatio 1))
      expect(after.logs.map((log) => Number(log.quota))).toEqual([525]);
      expect(after.userUsed).toBe(525);
    } finally {
      await setOption(env.context, 'SelfUseModeEnabled', false);
    }
    expect((await chat(token.apiKey, model)).status).not.toBe(200);
  });
});

describe('AutomaticDisableKeywords', () => {
  const channelRow = (id: number) =>
    env.context.db.kysely.selectFrom('channels').select(['status', 'other_info']).where('id', '=', id).executeTakeFirstOrThrow();

  beforeAll(async () => {
    await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
  });
  afterAll(async () => {
    await setOption(env.context, 'AutomaticDisableChannelEnabled', false);
    await setOption(env.context, 'AutomaticDisableKeywords', NEW_API_DEFAULT_KEYWORDS);
  });

  /** A caller and a channel whose upstream answers every call with HTTP `status` and `message`. */
  async function failingChannel(status: number, message: string) {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    const key = unique('key');
    const id = await seedChannel(env.context, { key, baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
    env.upstream.respond((recorded, response) => {
      if (recorded.key === key) sendJson(response, status, { error: { message, type: 'invalid_request_error', code: null } });
      else sendJson(response, 200, chatCompletionBody('ok'));
    });
    return { token, id };
  }

  it('disables a channel whose relayed error holds a default keyword, ignoring case, with the reason', async () => {
    const { token, id } = await failingChannel(400, 'YOUR CREDIT BALANCE IS TOO LOW to access the API.');
    expect((await chat(token.apiKey, 'gpt-4o-mini')).status).toBe(400);
    await expect.poll(async () => Number((await channelRow(id)).status)).toBe(ChannelStatus.AutoDisabled);
    expect(JSON.parse((await channelRow(id)).other_info).status_reason).toContain('YOUR CREDIT BALANCE IS TOO LOW');
  });

  it('uses the list as saved: a new keyword disables, a removed one no longer does', async () => {
    expect((await put('AutomaticDisableKeywords', 'Billing hard limit has been reached\n  quota of this key ran out  ')).json().success).toBe(true);
    const added = await failingChannel(400, 'The quota of this key ran out yesterday');
    await chat(added.token.apiKey, 'gpt-4o-mini');
    await expect.poll(async () => Number((await channelRow(added.id)).status)).toBe(ChannelStatus.AutoDisabled);

    const removed = await failingChannel(400, 'Your credit balance is too low');
    await chat(removed.token.apiKey, 'gpt-4o-mini');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(Number((await channelRow(removed.id)).status)).toBe(ChannelStatus.Enabled);

    // An empty list disables nothing by keyword.
    expect((await put('AutomaticDisableKeywords', '')).json().success).toBe(true);
    const none = await failingChannel(400, 'quota of this key ran out');
    await chat(none.token.apiKey, 'gpt-4o-mini');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(Number((await channelRow(none.id)).status)).toBe(ChannelStatus.Enabled);
    await put('AutomaticDisableKeywords', NEW_API_DEFAULT_KEYWORDS);
  });

  it('applies to channel tests too, and never while AutomaticDisableChannelEnabled is off', async () => {
    const tested = await failingChannel(403, 'Operation not allowed for this project');
    const answer = await env.test.app.inject({ method: 'GET', url: `/api/channel/test/${tested.id}`, headers: root });
    expect(answer.json()).toMatchObject({ success: false });
    expect(Number((await channelRow(tested.id)).status)).toBe(ChannelStatus.AutoDisabled);

    await setOption(env.context, 'AutomaticDisableChannelEnabled', false);
    try {
      const kept = await failingChannel(400, 'Permission denied');
      await chat(kept.token.apiKey, 'gpt-4o-mini');
      await env.test.app.inject({ method: 'GET', url: `/api/channel/test/${kept.id}`, headers: root });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(Number((await channelRow(kept.id)).status)).toBe(ChannelStatus.Enabled);
    } finally {
      await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
    }
  });
});
