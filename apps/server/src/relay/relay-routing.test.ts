import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

let env: RelayTestEnv;

beforeAll(async () => {
  env = await startRelayTestEnv();
});
afterEach(async () => {
  env.upstream.respond();
  await setOption(env.context, 'RetryTimes', 0);
});
afterAll(async () => {
  await env.close();
});

async function chat(apiKey: string, body: Record<string, unknown> = {}) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, text, json: JSON.parse(text) as Record<string, any> };
}

/** Upstream that fails with `status` for the listed keys and answers normally otherwise. */
function failFor(keys: string[], status: number, error: object = { message: `failing with ${status}`, type: 'server_error' }) {
  env.upstream.respond(async (recorded, response) => {
    if (keys.includes(recorded.key)) sendJson(response, status, { error });
    else
      sendJson(response, 200, {
        id: 'x',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: `ok from ${recorded.key}` } }],
        usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 },
      });
  });
}

async function group() {
  const user = await seedUser(env.context);
  const token = await seedToken(env.context, user.id);
  const channel = async (options: { priority?: number; weight?: number; key?: string; baseUrl?: string } = {}) => {
    const key = options.key ?? unique('key');
    const id = await seedChannel(env.context, {
      key,
      baseUrl: options.baseUrl ?? env.upstream.url,
      models: ['gpt-4o-mini'],
      groups: [user.group],
      priority: options.priority,
      weight: options.weight,
    });
    return { id, key };
  };
  return { user, token, channel };
}

describe('retries', () => {
  it('steps down to a lower priority after a retryable failure and logs every channel tried', async () => {
    const { user, token, channel } = await group();
    const high1 = await channel({ priority: 10 });
    const high2 = await channel({ priority: 10 });
    const low = await channel({ priority: 0 });
    await setOption(env.context, 'RetryTimes', 2);
    failFor([high1.key, high2.key], 500);
    const answer = await chat(token.apiKey);
    expect(answer.status).toBe(200);
    expect(answer.json.choices[0].message.content).toBe(`ok from ${low.key}`);
    const highCalls = env.upstream.requestsWithKey(high1.key).length + env.upstream.requestsWithKey(high2.key).length;
    expect(highCalls).toBe(1);
    await env.runtime.drain();
    const { logs } = await totals(env.context, { userId: user.id, tokenId: token.id });
    const tried = JSON.parse(logs[0]!.other).admin_info.use_channel as string[];
    expect(tried).toHaveLength(2);
    expect([String(high1.id), String(high2.id)]).toContain(tried[0]);
    expect(tried[1]).toBe(String(low.id));
    expect(logs[0]!.channel_id).toBe(low.id);
  });

  it('never sends one request to the same channel twice', async () => {
    const { token, channel } = await group();
    const failing = [await channel(), await channel(), await channel()];
    const good = await channel();
    await setOption(env.context, 'RetryTimes', 5);
    failFor(
      failing.map((item) => item.key),
      429,
      { message: 'rate limited', type: 'rate_limit_error' },
    );
    for (let round = 0; round < 5; round += 1) {
      const before = env.upstream.requests.length;
      const answer = await chat(token.apiKey);
      expect(answer.status).toBe(200);
      const keys = env.upstream.requests.slice(before).map((item) => item.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.at(-1)).toBe(good.key);
    }
  });

  it('gives up after RetryTimes more attempts and returns the last upstream error', async () => {
    const { token, channel } = await group();
    const channels = [await channel(), await channel(), await channel()];
    await setOption(env.context, 'RetryTimes', 1);
    failFor(
      channels.map((item) => item.key),
      502,
      { message: 'bad gateway upstream', type: 'server_error' },
    );
    const before = env.upstream.requests.length;
    const answer = await chat(token.apiKey);
    expect(answer.status).toBe(502);
    expect(answer.json.error.message).toBe('bad gateway upstream');
    expect(env.upstream.requests.length - before).toBe(2);
  });

  it('does not retry a client error, a 504 or when RetryTimes is 0', async () => {
    const { token, channel } = await group();
    const first = await channel();
    const second = await channel();
    await setOption(env.context, 'RetryTimes', 3);
    for (const status of [400, 504]) {
      failFor([first.key, second.key], status, { message: `no retry for ${status}`, type: 'invalid_request_error', code: 'some_code' });
      const before = env.upstream.requests.length;
      const answer = await chat(token.apiKey);
      expect(answer.status).toBe(status);
      expect(answer.json.error).toMatchObject({ message: `no retry for ${status}`, code: 'some_code' });
      expect(env.upstream.requests.length - before).toBe(1);
    }
    await setOption(env.context, 'RetryTimes', 0);
    failFor([first.key, second.key], 500);
    const before = env.upstream.requests.length;
    expect((await chat(token.apiKey)).status).toBe(500);
    expect(env.upstream.requests.length - before).toBe(1);
  });

  it('retries a connection failure on another channel', async () => {
    const { token, channel } = await group();
    await channel({ priority: 5, baseUrl: 'http://127.0.0.1:9' });
    const good = await channel({ priority: 0 });
    await setOption(env.context, 'RetryTimes', 1);
    const answer = await chat(token.apiKey);
    expect(answer.status).toBe(200);
    expect(answer.json.choices[0].message.content).toBe(`Hello from ${good.key}`);
  });
});

describe('per-channel settings', () => {
  it('maps the model upstream while billing and logging the client model', async () => {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    const key = unique('key');
    await seedChannel(env.context, {
      key,
      baseUrl: env.upstream.url,
      models: ['gpt-4o-mini'],
      groups: [user.group],
      modelMapping: { 'gpt-4o-mini': 'vendor-mini-2024' },
    });
    expect((await chat(token.apiKey)).status).toBe(200);
    expect(env.upstream.requestsWithKey(key)[0]!.json!.model).toBe('vendor-mini-2024');
    await env.runtime.drain();
    const { logs } = await totals(env.context, { userId: user.id, tokenId: token.id });
    expect(logs[0]!.model_name).toBe('gpt-4o-mini');
    const other = JSON.parse(logs[0]!.other);
    expect(other).toMatchObject({ is_model_mapped: true, upstream_model_name: 'vendor-mini-2024', model_ratio: 0.075 });
  });

  it('shows the client the status of the channel status-code mapping', async () => {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    const key = unique('key');
    await seedChannel(env.context, { key, baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group], statusCodeMapping: { '400': '422' } });
    failFor([key], 400, { message: 'context too long', type: 'invalid_request_error' });
    const answer = await chat(token.apiKey);
    expect(answer.status).toBe(422);
    expect(answer.json.error.message).toBe('context too long');
  });

  it('calls Azure at its deployment URL with api-version and an api-key header', async () => {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    const key = unique('azure');
    await seedChannel(env.context, { type: 3, key, baseUrl: env.upstream.url, models: ['gpt-3.5-turbo'], groups: [user.group], other: '2024-06-01' });
    expect((await chat(token.apiKey, { model: 'gpt-3.5-turbo' })).status).toBe(200);
    const call = env.upstream.requestsWithKey(key)[0]!;
    expect(call.url).toBe('/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-06-01');
    expect(call.headers['api-key']).toBe(key);
    expect(call.headers.authorization).toBeUndefined();
  });

  it('uses a Custom channel base URL as the full URL', async () => {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    const key = unique('custom');
    await seedChannel(env.context, {
      type: 8,
      key,
      baseUrl: `${env.upstream.url}/gateway/{model}/chat/completions?tenant=7`,
      models: ['gpt-4o-mini'],
      groups: [user.group],
    });
    expect((await chat(token.apiKey)).status).toBe(200);
    expect(env.upstream.requestsWithKey(key)[0]!.url).toBe('/gateway/gpt-4o-mini/chat/completions?tenant=7');
  });

  it('builds vendor URLs: base paths, a pasted /v1, Perplexity without /v1', async () => {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    const cases = [
      { type: 20, base: `${env.upstream.url}/api`, model: 'gpt-4o-mini', url: '/api/v1/chat/completions' },
      { type: 43, base: `${env.upstream.url}/v1/`, model: 'deepseek-chat', url: '/v1/chat/completions' },
      { type: 27, base: env.upstream.url, model: 'gpt-4o', url: '/chat/completions' },
      { type: 4, base: env.upstream.url, model: 'gpt-4.1', url: '/v1/chat/completions' },
    ];
    for (const item of cases) {
      const key = unique(`type${item.type}`);
      await seedChannel(env.context, { type: item.type, key, baseUrl: item.base, models: [item.model], groups: [user.group] });
      expect((await chat(token.apiKey, { model: item.model })).status).toBe(200);
      expect(env.upstream.requestsWithKey(key)[0]!.url).toBe(item.url);
    }
  });

  it('spreads requests over the lines of a multi-key channel', async () => {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    const keys = [unique('multi'), unique('multi')];
    await seedChannel(env.context, { key: keys.join('\n'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
    for (let index = 0; index < 30; index += 1) expect((await chat(token.apiKey)).status).toBe(200);
    expect(env.upstream.requestsWithKey(keys[0]!).length).toBeGreaterThan(0);
    expect(env.upstream.requestsWithKey(keys[1]!).length).toBeGreaterThan(0);
  });
});
