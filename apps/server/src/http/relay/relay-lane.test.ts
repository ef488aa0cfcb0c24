import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange } from '../../test-support/raw-http.js';
import { sendJson } from '../../relay/testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, startRelayTestEnv, unique, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

/*
 * The relay lane (relay-lane.ts) serves the usual relay calls without Fastify's request cycle. It
 * must answer exactly as Fastify's routes do: every case here is sent twice on real sockets, once
 * as the lane takes it and once with `Content-Encoding: identity`, which the lane leaves to
 * Fastify (it takes no body coding at all) and Fastify reads as no coding; status, headers, body,
 * the log line and what was charged must agree, and the lane's counter says which one served.
 */

let env: RelayTestEnv;
let apiKey: string;
let ipKey: string;
let userId: number;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  env = await startRelayTestEnv(
    { LOG_LEVEL: 'info', TRUSTED_PROXIES: '127.0.0.1' },
    { logDestination: { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) } },
  );
  const user = await seedUser(env.context, { quota: 1_000_000_000 });
  userId = user.id;
  await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini', 'text-embedding-3-small'], groups: [user.group] });
  apiKey = (await seedToken(env.context, user.id)).apiKey;
  ipKey = (await seedToken(env.context, user.id, { allowIps: '10.1.2.3' })).apiKey;
});
afterAll(async () => {
  await env.close();
});

const laneCalls = () => env.runtime.metrics.laneCalls;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

async function post(path: string, body: string | Buffer, headers: Record<string, string>): Promise<Answer> {
  const response = await request(`${env.gateway}${path}`, { method: 'POST', headers, body });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

/** Generated ids (a converted answer's message id) differ from call to call. */
const normalized = (text: string) => text.replace(/"(id|created)":("[^"]*"|\d+)/g, '"$1":"*"');

/** What a client sees of an answer: the headers the relay sets, and the body. */
const seen = (answer: Answer) => ({
  status: answer.status,
  type: answer.headers['content-type'],
  cors: answer.headers['access-control-allow-origin'],
  cacheControl: answer.headers['cache-control'],
  length: answer.headers['content-length'],
  body: normalized(answer.text),
});

/** One case through the lane, then through Fastify; returns both answers, checked to agree. */
async function both(path: string, body: string, headers: Record<string, string>) {
  const before = laneCalls();
  const lane = await post(path, body, { 'content-type': 'application/json', ...headers });
  expect(laneCalls(), 'the lane served the first').toBe(before + 1);
  const fastify = await post(path, body, { 'content-type': 'application/json', 'content-encoding': 'identity', ...headers });
  expect(laneCalls(), 'Fastify served the second').toBe(before + 1);
  expect(seen(lane)).toEqual(seen(fastify));
  return { lane, fastify };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const chat = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra });

async function lastLogs(count: number) {
  await env.runtime.flush();
  const rows = await env.context.db.kysely
    .selectFrom('logs')
    .select(['quota', 'prompt_tokens', 'completion_tokens', 'model_name', 'is_stream', 'token_name'])
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .limit(count)
    .execute();
  return rows.map((row) => ({ ...row, quota: Number(row.quota) }));
}

describe('the relay lane answers as Fastify’s routes do', () => {
  it('a chat completion: the upstream’s bytes, and the same charge and log', async () => {
    const { lane } = await both('/v1/chat/completions', chat(), bearer(apiKey));
    expect(lane.status).toBe(200);
    expect(JSON.parse(lane.text)).toMatchObject({ object: 'chat.completion', usage: { prompt_tokens: 11, completion_tokens: 7 } });
    const [second, first] = await lastLogs(2);
    expect(first).toEqual(second);
    expect(first!.quota).toBeGreaterThan(0);
  });

  it('a chat stream: the same events, headers and charge', async () => {
    const { lane } = await both('/v1/chat/completions', chat({ stream: true, stream_options: { include_usage: true } }), bearer(apiKey));
    expect(lane.headers['content-type']).toContain('text/event-stream');
    expect(lane.text).toContain('data: [DONE]');
    const [second, first] = await lastLogs(2);
    expect(first).toEqual(second);
    expect(first!.is_stream).toBeTruthy();
  });

  it('embeddings, completions and a converted Anthropic Messages call', async () => {
    await both('/v1/embeddings', JSON.stringify({ model: 'text-embedding-3-small', input: 'hello' }), bearer(apiKey));
    await both('/v1/completions', JSON.stringify({ model: 'gpt-4o-mini', prompt: 'hello' }), bearer(apiKey));
    const { lane } = await both('/v1/messages', JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }), {
      'x-api-key': apiKey,
      'anthropic-version': '2023-06-01',
    });
    expect(JSON.parse(lane.text), lane.text).toMatchObject({ type: 'message', role: 'assistant' });
  });

  it('refusals in each caller’s shape: a bad key, no key, a body that is not JSON or too deep, an unknown model', async () => {
    expect((await both('/v1/chat/completions', chat(), bearer('sk-nope'))).lane.status).toBe(401);
    expect((await both('/v1/chat/completions', chat(), {})).lane.status).toBe(401);
    const anthropic = await both('/v1/messages', '{"model":', { 'x-api-key': apiKey });
    expect(anthropic.lane.status).toBe(400);
    expect(JSON.parse(anthropic.lane.text)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const deep = await both('/v1/chat/completions', `${'['.repeat(200)}${']'.repeat(200)}`, bearer(apiKey));
    expect(deep.lane.status).toBe(400);
    const unknown = await both('/v1/chat/completions', JSON.stringify({ model: 'no-such-model', messages: [] }), bearer(apiKey));
    expect(unknown.lane.status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse(unknown.lane.text)).toMatchObject({ error: { message: expect.any(String) } });
  });

  it('an upstream failure relayed the same way', async () => {
    env.upstream.respond((_request, response) => sendJson(response, 429, { error: { message: 'slow down', type: 'rate_limit_error' } }));
    try {
      const { lane } = await both('/v1/chat/completions', chat(), bearer(apiKey));
      expect(lane.status).toBe(429);
    } finally {
      env.upstream.respond();
    }
  });

  it('the client address through TRUSTED_PROXIES for a token limited to an IP', async () => {
    expect((await both('/v1/chat/completions', chat(), { ...bearer(ipKey), 'x-forwarded-for': '10.1.2.3' })).lane.status).toBe(200);
    const refused = await both('/v1/chat/completions', chat(), { ...bearer(ipKey), 'x-forwarded-for': '10.9.9.9' });
    expect(refused.lane.status).toBe(403);
    expect(refused.lane.text).toContain('10.9.9.9');
  });

  it('logs a refusal as Fastify’s error handler does, with a request id', async () => {
    const from = logs.length;
    await both('/v1/chat/completions', chat(), bearer('sk-nope'));
    const refused = logs.slice(from).filter((line) => line.msg === 'request refused');
    expect(refused).toHaveLength(2);
    const [lane, fastify] = refused;
    for (const line of [lane, fastify]) expect(line).toMatchObject({ level: 30, url: '/v1/chat/completions', status: 401, reqId: expect.any(String) });
    expect(lane!.code).toBe(fastify!.code);
  });
});

describe('what the lane leaves to Fastify', () => {
  it('a query, another content type, a compressed or chunked body, another method, a preflight', async () => {
    const before = laneCalls();
    const withQuery = await post('/v1/chat/completions?x=1', chat(), { 'content-type': 'application/json', ...bearer(apiKey) });
    expect(withQuery.status).toBe(200);
    const typeless = await post('/v1/chat/completions', chat(), { 'content-type': 'text/plain', ...bearer(apiKey) });
    expect(typeless.status).toBe(200);
    const gzipped = await post('/v1/chat/completions', gzipSync(chat()), { 'content-type': 'application/json', 'content-encoding': 'gzip', ...bearer(apiKey) });
    expect(gzipped.status).toBe(200);
    const chunked = await rawExchange(Number(new URL(env.gateway).port), (socket) => {
      const body = chat();
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      );
    });
    expect(chunked.status).toBe(200);
    const wrongMethod = await request(`${env.gateway}/v1/chat/completions`, { method: 'GET', headers: bearer(apiKey) });
    await wrongMethod.body.text();
    expect(wrongMethod.statusCode).toBe(405);
    const preflight = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    await preflight.body.text();
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    const playground = await post('/pg/chat/completions', chat(), { 'content-type': 'application/json' });
    expect(playground.status).toBe(401);
    expect(laneCalls()).toBe(before);
  });

  it('serves on the HTTP server Fastify would have made, with its timeouts', () => {
    const server = env.test.app.server;
    const limits = env.context.config.requestLimits;
    expect(server.keepAliveTimeout).toBe(72_000);
    expect(server.requestTimeout).toBe(limits.requestTimeoutSeconds * 1000);
    expect(server.headersTimeout).toBe(limits.headersTimeoutSeconds * 1000);
    expect(server.timeout).toBe(0);
  });

  it('a body over the relay’s limit is refused 413 by Fastify before it is read', async () => {
    const before = laneCalls();
    const answer = await rawExchange(Number(new URL(env.gateway).port), (socket) => {
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${64 * 1024 * 1024}\r\n\r\n{"model":`,
      );
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ error: { message: expect.any(String) } });
    expect(laneCalls()).toBe(before);
  });
});
