import { ChannelStatus } from '@modelgate/contract';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatCompletionBody, sendJson } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/** Circuit breakers seen from outside: which channel the relay calls, and what the channel list says. */

// Long enough for the requests made while a breaker is open to finish on a busy machine.
const COOLDOWN_SECONDS = 2;
let env: RelayTestEnv;
let admin: Record<string, string>;

beforeAll(async () => {
  env = await startRelayTestEnv();
  admin = await env.test.login();
});
beforeEach(async () => {
  await setOption(env.context, 'ChannelBreakerFailureThreshold', 3);
  await setOption(env.context, 'ChannelBreakerWindowSeconds', 60);
  await setOption(env.context, 'ChannelBreakerCooldownSeconds', COOLDOWN_SECONDS);
  await setOption(env.context, 'RetryTimes', 1);
});
afterEach(async () => {
  env.upstream.respond();
  await setOption(env.context, 'AutomaticDisableChannelEnabled', false);
  await setOption(env.context, 'RetryTimes', 0);
});
afterAll(async () => {
  await env.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function chat(apiKey: string) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: JSON.parse(text) as Record<string, any> };
}

interface BreakerFields {
  status: number;
  breaker_state: string;
  breaker_reason: string;
  breaker_until: number;
  breaker_open_keys: number;
}

async function listed(id: number, name: string): Promise<{ single: BreakerFields; inList: BreakerFields }> {
  const single = (await env.test.app.inject({ method: 'GET', url: `/api/channel/${id}`, headers: admin })).json();
  const page = (await env.test.app.inject({ method: 'GET', url: `/api/channel/search?keyword=${name}`, headers: admin })).json();
  expect(single.success).toBe(true);
  return { single: single.data, inList: page.data.items.find((item: { id: number }) => item.id === id) };
}

/** An upstream answering `status` for the listed keys (after `delayMs`) and normally otherwise. */
function failFor(keys: string[], status: number, delayMs = 0) {
  env.upstream.respond(async (recorded, response) => {
    if (!keys.includes(recorded.key)) return sendJson(response, 200, chatCompletionBody(`ok from ${recorded.key}`));
    if (delayMs > 0) await sleep(delayMs);
    sendJson(response, status, {
      error: {
        message: `failing with ${status}`,
        type: status === 401 ? 'invalid_request_error' : 'server_error',
        code: status === 401 ? 'invalid_api_key' : null,
      },
    });
  });
}

async function setup(channels: { priority: number; key?: string; baseUrl?: string }[]) {
  const user = await seedUser(env.context);
  const token = await seedToken(env.context, user.id);
  const seeded = [];
  for (const options of channels) {
    const key = options.key ?? unique('sk-breaker');
    const name = unique('breaker');
    const id = await seedChannel(env.context, {
      key,
      name,
      baseUrl: options.baseUrl ?? env.upstream.url,
      models: ['gpt-4o-mini'],
      groups: [user.group],
      priority: options.priority,
    });
    seeded.push({ id, key, name });
  }
  return { token, channels: seeded };
}

const callsTo = (key: string) => env.upstream.requestsWithKey(key).length;

describe('circuit breakers in the relay', () => {
  it('after N failures sends requests only to the healthy channel, then lets one probe reach the bad one', async () => {
    const { token, channels } = await setup([{ priority: 10 }, { priority: 0 }]);
    const [bad, good] = channels as [(typeof channels)[0], (typeof channels)[0]];
    failFor([bad.key], 500);
    // Each of these tries the bad channel first (higher priority), then the healthy one.
    for (let round = 0; round < 3; round += 1) expect((await chat(token.apiKey)).status).toBe(200);
    expect(callsTo(bad.key)).toBe(3);

    const before = env.upstream.requests.length;
    for (let round = 0; round < 10; round += 1) {
      const answer = await chat(token.apiKey);
      expect(answer.status).toBe(200);
      expect(answer.json.choices[0].message.content).toBe(`ok from ${good.key}`);
    }
    // One upstream call per request: no failed attempt on the open channel first.
    expect(env.upstream.requests.length - before).toBe(10);
    expect(callsTo(bad.key)).toBe(3);

    const { single, inList } = await listed(bad.id, bad.name);
    for (const view of [single, inList]) {
      expect(view).toMatchObject({ status: ChannelStatus.Enabled, breaker_state: 'open', breaker_open_keys: 1 });
      expect(view.breaker_reason).toContain('failing with 500');
      expect(view.breaker_reason).toContain('HTTP 500');
      expect(view.breaker_until).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
      expect(view.breaker_until).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000 + COOLDOWN_SECONDS) + 1);
    }
    expect((await listed(good.id, good.name)).single.breaker_state).toBe('closed');

    // After the cool-down, among many requests at once exactly one probes the bad channel, and fails.
    await sleep(COOLDOWN_SECONDS * 1000 + 50);
    expect((await listed(bad.id, bad.name)).single.breaker_state).toBe('half_open');
    failFor([bad.key], 500, 150);
    const answers = await Promise.all(Array.from({ length: 8 }, () => chat(token.apiKey)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(callsTo(bad.key)).toBe(4);
    expect((await listed(bad.id, bad.name)).single.breaker_state).toBe('open');

    // The next probe succeeds: the channel is closed and serves again.
    await sleep(COOLDOWN_SECONDS * 1000 + 50);
    failFor([], 500);
    expect((await chat(token.apiKey)).json.choices[0].message.content).toBe(`ok from ${bad.key}`);
    expect((await listed(bad.id, bad.name)).single).toMatchObject({ breaker_state: 'closed', breaker_reason: '', breaker_until: 0 });
    expect((await chat(token.apiKey)).json.choices[0].message.content).toBe(`ok from ${bad.key}`);
  });

  it("counts 429 and unreachable upstreams, but not the caller's own 4xx", async () => {
    const closedPort = await unusedPort();
    const { token, channels } = await setup([{ priority: 30 }, { priority: 20, baseUrl: `http://127.0.0.1:${closedPort}` }, { priority: 10 }, { priority: 0 }]);
    const [limited, unreachable, refusing, good] = channels as [(typeof channels)[0], (typeof channels)[0], (typeof channels)[0], (typeof channels)[0]];
    await setOption(env.context, 'RetryTimes', 3);
    env.upstream.respond((recorded, response) => {
      if (recorded.key === limited.key) return sendJson(response, 429, { error: { message: 'rate limited', type: 'rate_limit_error' } });
      if (recorded.key === refusing.key) return sendJson(response, 400, { error: { message: 'bad request from the caller', type: 'invalid_request_error' } });
      sendJson(response, 200, chatCompletionBody(`ok from ${recorded.key}`));
    });
    // A 400 is not retried: each request stops at the refusing channel once the others are open.
    for (let round = 0; round < 5; round += 1) await chat(token.apiKey);
    expect(callsTo(limited.key)).toBe(3);
    expect((await listed(limited.id, limited.name)).single).toMatchObject({ breaker_state: 'open', breaker_reason: expect.stringContaining('HTTP 429') });
    expect((await listed(unreachable.id, unreachable.name)).single).toMatchObject({
      breaker_state: 'open',
      breaker_reason: expect.stringContaining('upstream'),
    });
    expect(callsTo(refusing.key)).toBe(5);
    expect((await listed(refusing.id, refusing.name)).single.breaker_state).toBe('closed');
    expect(callsTo(good.key)).toBe(0);
  });

  it('opens on a channel whose 200 answers are unusable: a success is an answer delivered, not a status line', async () => {
    const { token, channels } = await setup([{ priority: 10 }, { priority: 0 }]);
    const [bad, good] = channels as [(typeof channels)[0], (typeof channels)[0]];
    env.upstream.respond((recorded, response) => {
      if (recorded.key !== bad.key) return sendJson(response, 200, chatCompletionBody(`ok from ${recorded.key}`));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('<html>gateway error</html>');
    });
    for (let round = 0; round < 3; round += 1) expect((await chat(token.apiKey)).json.choices[0].message.content).toBe(`ok from ${good.key}`);
    expect(callsTo(bad.key)).toBe(3);
    for (let round = 0; round < 3; round += 1) expect((await chat(token.apiKey)).status).toBe(200);
    expect(callsTo(bad.key)).toBe(3);
    expect((await listed(bad.id, bad.name)).single.breaker_state).toBe('open');
  });

  it('still tries a request when every channel of the model is open, rather than refusing it', async () => {
    await setOption(env.context, 'ChannelBreakerCooldownSeconds', 30);
    await setOption(env.context, 'RetryTimes', 0);
    const { token, channels } = await setup([{ priority: 0 }]);
    const only = channels[0]!;
    failFor([only.key], 503);
    for (let round = 0; round < 3; round += 1) expect((await chat(token.apiKey)).status).toBe(503);
    expect((await listed(only.id, only.name)).single.breaker_state).toBe('open');
    // Still the upstream's own answer, not "no available channel".
    const during = await chat(token.apiKey);
    expect(during.status).toBe(503);
    expect(during.json.error.message).toContain('failing with 503');
    expect(callsTo(only.key)).toBe(4);
    // Such a forced try that succeeds closes the breaker.
    failFor([], 503);
    expect((await chat(token.apiKey)).status).toBe(200);
    expect((await listed(only.id, only.name)).single.breaker_state).toBe('closed');
  });

  it('skips only the failing key of a multi-key channel', async () => {
    await setOption(env.context, 'ChannelBreakerCooldownSeconds', 30);
    await setOption(env.context, 'RetryTimes', 0);
    const badKey = unique('sk-badkey');
    const goodKey = unique('sk-goodkey');
    const { token, channels } = await setup([{ priority: 0, key: `${badKey}\n${goodKey}` }]);
    const channel = channels[0]!;
    failFor([badKey], 429);
    for (let round = 0; round < 200 && callsTo(badKey) < 3; round += 1) await chat(token.apiKey);
    expect(callsTo(badKey)).toBe(3);
    for (let round = 0; round < 10; round += 1) expect((await chat(token.apiKey)).status).toBe(200);
    expect(callsTo(badKey)).toBe(3);
    expect((await listed(channel.id, channel.name)).single).toMatchObject({ breaker_state: 'closed', breaker_open_keys: 1 });
  });

  it('disables a channel whose key is rejected at the first failure, as before', async () => {
    await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
    const { token, channels } = await setup([{ priority: 10 }, { priority: 0 }]);
    const [rejected] = channels as [(typeof channels)[0]];
    failFor([rejected.key], 401);
    expect((await chat(token.apiKey)).status).toBe(200);
    await expect.poll(async () => (await listed(rejected.id, rejected.name)).single.status).toBe(ChannelStatus.AutoDisabled);
    const row = await env.context.db.kysely.selectFrom('channels').select('other_info').where('id', '=', rejected.id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.other_info).status_reason).toContain('failing with 401');
  });

  it("never undoes an administrator's disable, whatever the breaker sees", async () => {
    await setOption(env.context, 'AutomaticEnableChannelEnabled', true);
    const { token, channels } = await setup([{ priority: 10 }, { priority: 0 }]);
    const [disabled, good] = channels as [(typeof channels)[0], (typeof channels)[0]];
    failFor([disabled.key], 500);
    for (let round = 0; round < 3; round += 1) await chat(token.apiKey);
    expect((await listed(disabled.id, disabled.name)).single.breaker_state).toBe('open');
    const put = await env.test.app.inject({
      method: 'PUT',
      url: '/api/channel/',
      headers: admin,
      payload: { id: disabled.id, status: ChannelStatus.ManuallyDisabled },
    });
    expect(put.json().success).toBe(true);
    // The upstream recovers and the cool-down passes: no probe, no test, brings it back.
    failFor([], 500);
    await sleep(COOLDOWN_SECONDS * 1000 + 50);
    for (let round = 0; round < 5; round += 1) expect((await chat(token.apiKey)).json.choices[0].message.content).toBe(`ok from ${good.key}`);
    await env.runtime.health.runTestAll();
    expect((await listed(disabled.id, disabled.name)).single.status).toBe(ChannelStatus.ManuallyDisabled);
    expect(callsTo(disabled.key)).toBe(3);
    await setOption(env.context, 'AutomaticEnableChannelEnabled', false);
  });
});

/** A loopback port nothing listens on: connections to it are refused. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
