import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAILikeHandler, sendJson } from '../relay/testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, startRelayTestEnv, totals, unique, type RelayTestEnv } from '../relay/testing/relay-fixtures.js';
import { MockMidjourney } from '../providers/midjourney/testing/mock-midjourney.js';
import { seedSunoPayer, sunoCall } from '../providers/suno/testing/suno-test-kit.js';
import { startMockSuno } from '../providers/suno/testing/mock-suno.js';
import { mjCall, QUIET, seedMjPayer } from './relay/midjourney-testing.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The one sample named `name` whose labels include `labels`; 0 when there is none. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

async function scrape(relay: RelayTestEnv, headers: Record<string, string> = {}) {
  const response = await request(`${relay.gateway}/metrics`, { headers });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

async function chat(relay: RelayTestEnv, apiKey: string, body: Record<string, unknown>) {
  const response = await request(`${relay.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.body.text();
  return response.statusCode;
}

describe('GET /metrics without METRICS_TOKEN', () => {
  let relay: RelayTestEnv;
  beforeAll(async () => {
    // No flush during the test (the log queue is read), and a web limit /metrics must not hit.
    relay = await startRelayTestEnv({ BATCH_UPDATE_INTERVAL: '3600', GLOBAL_WEB_RATE_LIMIT: '2' });
  });
  afterAll(async () => relay.close());

  it('counts relayed calls by route, model, channel and status, with their quota, latency, upstream errors, caches and log queue', async () => {
    const { context, upstream } = relay;
    const user = await seedUser(context);
    const token = await seedToken(context, user.id);
    const goodKey = unique('good');
    const badKey = unique('bad');
    const good = await seedChannel(context, { key: goodKey, baseUrl: upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
    const bad = await seedChannel(context, { key: badKey, baseUrl: upstream.url, models: ['gpt-4o'], groups: [user.group] });
    upstream.respond(async (recorded, response) => {
      if (recorded.key === badKey) {
        // OpenAI's documented error shape (platform.openai.com/docs/guides/error-codes).
        sendJson(response, 500, { error: { message: 'The server had an error while processing your request.', type: 'server_error', code: null } });
        return;
      }
      await openAILikeHandler(recorded, response);
    });

    const messages = [{ role: 'user', content: 'hi' }];
    for (let call = 0; call < 3; call += 1) expect(await chat(relay, token.apiKey, { model: 'gpt-4o-mini', messages })).toBe(200);
    for (let call = 0; call < 2; call += 1) {
      expect(await chat(relay, token.apiKey, { model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } })).toBe(200);
    }
    const failedStatus = await chat(relay, token.apiKey, { model: 'gpt-4o', messages });
    expect(failedStatus).toBeGreaterThanOrEqual(500);
    expect(await chat(relay, 'sk-not-a-key', { model: 'gpt-4o-mini', messages })).toBe(401);
    upstream.respond();

    const before = await scrape(relay);
    expect(before.status).toBe(200);
    expect(String(before.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseMetrics(before.text);
    const route = '/v1/chat/completions';
    const served = { route, model: 'gpt-4o-mini', channel: String(good), status: '200' };
    expect(valueOf(samples, 'modelgate_relay_requests_total', served)).toBe(5);
    expect(valueOf(samples, 'modelgate_relay_requests_total', { route, model: 'gpt-4o', channel: '', status: String(failedStatus) })).toBe(1);
    expect(valueOf(samples, 'modelgate_relay_requests_total', { route, model: '', channel: '', status: '401' })).toBe(1);
    expect(valueOf(samples, 'modelgate_relay_upstream_errors_total', { channel: String(bad), kind: 'status' })).toBe(1);
    expect(valueOf(samples, 'modelgate_relay_upstream_errors_total', { channel: String(good), kind: 'status' })).toBe(0);

    // Histograms: cumulative buckets ending in +Inf = count, a sum, for the served calls and their first tokens.
    for (const name of ['modelgate_relay_request_duration_seconds', 'modelgate_relay_first_token_seconds']) {
      const buckets = samples.filter((sample) => sample.name === `${name}_bucket` && sample.labels.channel === String(good));
      expect(buckets.length).toBeGreaterThan(5);
      expect(buckets.at(-1)!.labels.le).toBe('+Inf');
      expect(buckets.at(-1)!.value).toBe(5);
      for (let index = 1; index < buckets.length; index += 1) expect(buckets[index]!.value).toBeGreaterThanOrEqual(buckets[index - 1]!.value);
      expect(valueOf(samples, `${name}_count`, served)).toBe(5);
      expect(valueOf(samples, `${name}_sum`, served)).toBeGreaterThan(0);
    }
    // A failed call has a duration but no first token.
    expect(valueOf(samples, 'modelgate_relay_request_duration_seconds_count', { route, model: 'gpt-4o', status: String(failedStatus) })).toBe(1);
    expect(valueOf(samples, 'modelgate_relay_first_token_seconds_count', { route, model: 'gpt-4o', status: String(failedStatus) })).toBe(0);

    expect(valueOf(samples, 'modelgate_relay_cache_entries', { cache: 'channels' })).toBe(2);
    expect(valueOf(samples, 'modelgate_relay_cache_entries', { cache: 'tokens' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'modelgate_relay_cache_entries', { cache: 'users' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'modelgate_relay_log_queue_rows')).toBe(5);
    // prom-client's default process metrics, event-loop lag among them.
    expect(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
    expect(samples.some((sample) => sample.name === 'process_cpu_user_seconds_total')).toBe(true);

    // The quota counter is what the consume logs record.
    await relay.runtime.flush();
    const written = await totals(context, { userId: user.id, tokenId: token.id });
    expect(written.logs).toHaveLength(5);
    expect(written.logQuotaSum).toBeGreaterThan(0);
    const after = parseMetrics((await scrape(relay)).text);
    expect(valueOf(after, 'modelgate_relay_quota_charged_total', { model: 'gpt-4o-mini', channel: String(good) })).toBe(written.logQuotaSum);
    expect(valueOf(after, 'modelgate_relay_charged_calls_total', { model: 'gpt-4o-mini', channel: String(good) })).toBe(5);
    expect(valueOf(after, 'modelgate_relay_log_queue_rows')).toBe(0);
  });

  it("counts calls refused while their body was read, under their route, and still answers in the caller's protocol", async () => {
    const post = async (path: string, body: string) => {
      const response = await request(`${relay.gateway}${path}`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-whoever', 'content-type': 'application/json' },
        body,
      });
      return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
    };
    const count = async (route: string, status: string) =>
      valueOf(parseMetrics((await scrape(relay)).text), 'modelgate_relay_requests_total', { route, model: '', channel: '', status });
    const chatRoute = '/v1/chat/completions';
    const before = await count(chatRoute, '400');
    const notJson = await post(chatRoute, '{"model": "gpt-4o-mini", "messages": [');
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject({ error: { type: expect.any(String), message: expect.stringContaining('JSON') } });
    const tooDeep = await post(chatRoute, `${'['.repeat(200)}${']'.repeat(200)}`);
    expect(tooDeep.status).toBe(400);
    expect(await count(chatRoute, '400')).toBe(before + 2);
    // A body declared past the relay's 32 MiB limit: Fastify refuses it before reading a byte.
    const { port } = new URL(relay.gateway);
    const tooLarge = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST ${chatRoute} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${40 * 1024 * 1024}\r\nConnection: close\r\n\r\n{`,
        );
      });
      let answer = '';
      socket.on('data', (part) => {
        answer += part.toString();
        if (answer.includes('\r\n\r\n')) socket.destroy();
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
    expect(tooLarge.startsWith('HTTP/1.1 413')).toBe(true);
    expect(await count(chatRoute, '413')).toBe(1);
    // Anthropic's route: counted under its own pattern, answered in Anthropic's error shape.
    const messages = await post('/v1/messages', 'not json');
    expect(messages.status).toBe(400);
    expect(messages.json).toMatchObject({ type: 'error', error: { type: expect.any(String) } });
    expect(await count('/v1/messages', '400')).toBe(1);
  });

  it('is never rate limited, while other pages are', async () => {
    for (let scrapeNumber = 0; scrapeNumber < 5; scrapeNumber += 1) expect((await scrape(relay)).status).toBe(200);
    const pages = [];
    for (let load = 0; load < 4; load += 1) pages.push((await request(`${relay.gateway}/some-console-page`)).statusCode);
    expect(pages).toContain(429);
  });
});

describe('GET /metrics counts Midjourney and Suno calls', () => {
  it('by route pattern, price key and channel, with their charges, refusals and upstream errors', async () => {
    const relay = await startRelayTestEnv({ ...QUIET, BATCH_UPDATE_INTERVAL: '3600' });
    const mj = await new MockMidjourney().start();
    const suno = await startMockSuno();
    try {
      const drawer = await seedMjPayer(relay.context, mj);
      const submitted = await mjCall(relay.gateway, drawer.token.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'a fox' });
      expect(submitted.status).toBe(200);
      const fetched = await mjCall(relay.gateway, drawer.token.apiKey, 'GET', `/mj/task/${String(submitted.json.result)}/fetch`);
      expect(fetched.status).toBe(200);
      // Refused before any channel: a body that is not an imagine request.
      expect((await mjCall(relay.gateway, drawer.token.apiKey, 'POST', '/mj/submit/imagine', [])).status).toBe(400);
      // A proxy that cannot be reached: an upstream error of the channel it was routed to.
      const unreachable = await seedMjPayer(relay.context, { secret: mj.secret, url: 'http://127.0.0.1:9' } as unknown as MockMidjourney, {
        group: 'unreachable',
      });
      const failed = await mjCall(relay.gateway, unreachable.token.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'a fox' });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      const singer = await seedSunoPayer(relay, suno);
      expect((await sunoCall(relay.gateway, singer.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'la la' })).status).toBe(200);

      const samples = parseMetrics((await scrape(relay)).text);
      const imagine = { route: '/mj/submit/imagine', model: 'mj_imagine', channel: String(drawer.channelId), status: '200' };
      expect(valueOf(samples, 'modelgate_relay_requests_total', imagine)).toBe(1);
      expect(valueOf(samples, 'modelgate_relay_request_duration_seconds_count', imagine)).toBe(1);
      // A whole answer: no first token to observe.
      expect(valueOf(samples, 'modelgate_relay_first_token_seconds_count', imagine)).toBe(0);
      expect(valueOf(samples, 'modelgate_relay_requests_total', { route: '/mj/task/:id/fetch', model: '', channel: '', status: '200' })).toBe(1);
      expect(valueOf(samples, 'modelgate_relay_requests_total', { route: '/mj/submit/imagine', model: '', channel: '', status: '400' })).toBe(1);
      expect(
        valueOf(samples, 'modelgate_relay_requests_total', { route: '/mj/submit/imagine', model: 'mj_imagine', channel: '', status: String(failed.status) }),
      ).toBe(1);
      expect(valueOf(samples, 'modelgate_relay_upstream_errors_total', { channel: String(unreachable.channelId), kind: 'connection' })).toBe(1);
      const music = { route: '/suno/submit/:action', model: 'suno_music', channel: String(singer.channelId), status: '200' };
      expect(valueOf(samples, 'modelgate_relay_requests_total', music)).toBe(1);

      // Charges as the consume logs record them.
      await relay.runtime.flush();
      const logs = await relay.context.db.kysely.selectFrom('logs').select(['model_name', 'channel_id', 'quota']).where('type', '=', 2).execute();
      const logged = (model: string) => logs.filter((row) => row.model_name === model).reduce((sum, row) => sum + Number(row.quota), 0);
      expect(logged('mj_imagine')).toBeGreaterThan(0);
      expect(valueOf(samples, 'modelgate_relay_quota_charged_total', { model: 'mj_imagine', channel: String(drawer.channelId) })).toBe(logged('mj_imagine'));
      expect(logged('suno_music')).toBeGreaterThan(0);
      expect(valueOf(samples, 'modelgate_relay_quota_charged_total', { model: 'suno_music', channel: String(singer.channelId) })).toBe(logged('suno_music'));
    } finally {
      await suno.close();
      await mj.close();
      await relay.close();
    }
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let relay: RelayTestEnv;
  const metricsToken = 'metrics-secret-7f3a';
  beforeAll(async () => {
    relay = await startRelayTestEnv({ METRICS_TOKEN: metricsToken });
  });
  afterAll(async () => relay.close());

  it('refuses without the bearer token, in plain text outside the /api envelope', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong' }, { authorization: metricsToken }];
    for (const headers of attempts) {
      const refused = await scrape(relay, headers);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(refused.text).toContain('METRICS_TOKEN');
      expect(refused.text).not.toContain(metricsToken);
      expect(refused.text).not.toContain('modelgate_relay');
    }
  });

  it("answers with the token, from this app's own registry", async () => {
    const answered = await scrape(relay, { authorization: `Bearer ${metricsToken}` });
    expect(answered.status).toBe(200);
    const samples = parseMetrics(answered.text);
    // A second app in the same process: its own registry, none of the other app's calls.
    expect(samples.filter((sample) => sample.name === 'modelgate_relay_requests_total')).toEqual([]);
    expect(valueOf(samples, 'modelgate_relay_cache_entries', { cache: 'channels' })).toBe(0);
  });
});
