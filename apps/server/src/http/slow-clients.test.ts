import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config/env.js';
import { rawExchange } from '../test-support/raw-http.js';
import { seedChannel, seedToken, seedUser, startRelayTestEnv, unique, type RelayTestEnv } from '../relay/testing/relay-fixtures.js';

/*
 * Slow-loris clients against the default limits (REQUEST_HEADERS_TIMEOUT 10 s, a body at least
 * 1 KiB/s over each 10 s window), on real sockets: a client that trickles one byte every 5 s is
 * answered 408 and cut off within 15 s, while an upload at 200 KB/s goes through. The tests run
 * side by side, so the file takes about as long as its slowest one.
 */

let env: RelayTestEnv;
let apiKey: string;
let port: number;

beforeAll(async () => {
  env = await startRelayTestEnv();
  port = Number(new URL(env.gateway).port);
  const user = await seedUser(env.context);
  await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
  apiKey = (await seedToken(env.context, user.id)).apiKey;
});
afterAll(async () => {
  await env.close();
});

/** Writes `bytes` one at a time, `everyMs` apart, while the socket is open. */
function trickle(socket: Socket, bytes: string, everyMs: number): void {
  let index = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || index >= bytes.length) {
      clearInterval(timer);
      return;
    }
    socket.write(bytes[index]!);
    index += 1;
  }, everyMs);
  socket.write(bytes[index++]!);
  socket.on('close', () => clearInterval(timer));
}

const head = (path: string, length: number, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

describe.concurrent('slow clients', () => {
  it('answers a relay body trickled one byte every 5 s with 408 in the OpenAI shape, and closes the connection', { timeout: 30_000 }, async () => {
    const answer = await rawExchange(port, (socket) => {
      socket.write(head('/v1/chat/completions', 1000, `Authorization: Bearer ${apiKey}\r\n`));
      trickle(socket, '{"model":"gpt-4o-mini"'.padEnd(1000, ' '), 5000);
    });
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({
      error: { message: expect.stringContaining('请求体传输过慢'), type: 'invalid_request_error', param: null, code: 'body_timeout' },
    });
    expect(answer.headers.connection).toBe('close');
    // One 10 s window after the headers, plus at most a second's check.
    expect(answer.answeredAfter).toBeGreaterThan(9_000);
    expect(answer.answeredAfter).toBeLessThan(15_000);
    expect(await answer.closedAfter).toBeLessThan(15_000);
  });

  it('answers a console body trickled the same way with 408 in the envelope', { timeout: 30_000 }, async () => {
    const answer = await rawExchange(port, (socket) => {
      socket.write(head('/api/user/login', 200));
      trickle(socket, '{"username":"root","password":"123456"}'.padEnd(200, ' '), 5000);
    });
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({ success: false, message: expect.stringContaining('请求体传输过慢') });
    expect(await answer.closedAfter).toBeLessThan(15_000);
  });

  it('cuts off headers trickled one byte every 5 s after REQUEST_HEADERS_TIMEOUT, with 408', { timeout: 30_000 }, async () => {
    const answer = await rawExchange(port, (socket) => trickle(socket, head('/v1/chat/completions', 2), 5000));
    expect(answer.status).toBe(408);
    // The request line may not have arrived whole: the path is not known, and OpenAI's shape is the default.
    expect(answer.body).toMatchObject({ error: { code: 'timeout', type: 'invalid_request_error' } });
    expect(answer.answeredAfter).toBeLessThan(13_000);
    expect(await answer.closedAfter).toBeLessThan(15_000);
  });

  it('relays a 2 MiB body uploaded at 200 KB/s', { timeout: 30_000 }, async () => {
    const body = Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello '.repeat(350_000) }] }));
    expect(body.length).toBeGreaterThan(2 * 1024 * 1024);
    const answer = await rawExchange(port, (socket) => {
      socket.write(head('/v1/chat/completions', body.length, `Authorization: Bearer ${apiKey}\r\n`));
      let offset = 0;
      const timer = setInterval(() => {
        if (offset >= body.length || socket.destroyed) {
          clearInterval(timer);
          return;
        }
        socket.write(body.subarray(offset, offset + 20_000));
        offset += 20_000;
      }, 100);
    });
    expect(answer.answeredAfter).toBeGreaterThan(10_000);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ object: 'chat.completion' });
  });
});

describe('the limits’ configuration', () => {
  it('defaults to the limits above and refuses a request timeout shorter than the headers’', () => {
    expect(loadConfig({}).requestLimits).toEqual({
      headersTimeoutSeconds: 10,
      requestTimeoutSeconds: 300,
      bodyMinBytesPerSecond: 1024,
      bodyRateWindowSeconds: 10,
    });
    expect(loadConfig({ REQUEST_TIMEOUT: '0', REQUEST_BODY_MIN_RATE: '0' }).requestLimits).toMatchObject({
      requestTimeoutSeconds: 0,
      bodyMinBytesPerSecond: 0,
    });
    expect(() => loadConfig({ REQUEST_TIMEOUT: '5' })).toThrow(ConfigError);
    expect(() => loadConfig({ REQUEST_BODY_RATE_WINDOW: '0' })).toThrow(/REQUEST_BODY_RATE_WINDOW/);
  });
});
