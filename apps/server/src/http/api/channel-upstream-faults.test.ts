import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

/**
 * Providers that fail without an HTTP answer: one that takes the connection and never says a
 * word, one that sends its headers and then stalls, one that hangs up at once. The console's
 * channel test, balance and model-list calls must say so in words, within CHANNEL_TEST_TIMEOUT.
 */
const TIMEOUT_SECONDS = 1;

interface Fault {
  server: Server;
  url: string;
  sockets: Set<Socket>;
}

async function startFault(onRequest: ConstructorParameters<typeof Server>[1]): Promise<Fault> {
  const sockets = new Set<Socket>();
  const server = createServer(onRequest);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, sockets, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let silent: Fault;
let stalled: Fault;
let reset: Fault;
let test: TestApp;
let admin: Record<string, string>;

beforeAll(async () => {
  silent = await startFault(() => undefined);
  stalled = await startFault((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    response.write('{"data":[');
  });
  reset = await startFault((request) => request.socket.destroy());
  test = await startTestApp({ CHANNEL_TEST_TIMEOUT: String(TIMEOUT_SECONDS) });
  admin = await test.login();
});
afterAll(async () => {
  await test.close();
  for (const fault of [silent, stalled, reset]) {
    for (const socket of fault.sockets) socket.destroy();
    await new Promise<void>((resolve) => fault.server.close(() => resolve()));
  }
});

const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const started = performance.now();
  const response = await test.app.inject({ method, url, headers: admin, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json() as { success: boolean; message: string }, seconds: (performance.now() - started) / 1000 };
};

async function channelAt(baseUrl: string): Promise<number> {
  const response = await test.app.inject({
    method: 'POST',
    url: '/api/channel/',
    headers: admin,
    payload: { type: 1, name: 'faulty', key: 'sk-faultyUpstreamKey0123456789', base_url: baseUrl, group: 'default', models: 'gpt-4o-mini' },
  });
  return response.json().data.id as number;
}

/** The four console calls that reach a channel's upstream. */
const upstreamCalls = (id: number, baseUrl: string) =>
  [
    ['GET', `/api/channel/test/${id}`],
    ['GET', `/api/channel/update_balance/${id}`],
    ['GET', `/api/channel/fetch_models/${id}`],
    ['POST', '/api/channel/fetch_models', { type: 1, base_url: baseUrl, key: 'sk-faultyUpstreamKey0123456789' }],
  ] as const;

describe('console calls to an upstream that does not answer', () => {
  for (const [name, fault] of [
    ['stays silent', () => silent],
    ['sends headers, then stalls', () => stalled],
  ] as const) {
    it(`say it timed out, after CHANNEL_TEST_TIMEOUT, when the upstream ${name}`, async () => {
      const id = await channelAt(fault().url);
      for (const [method, url, payload] of upstreamCalls(id, fault().url)) {
        const answer = await call(method, url, payload);
        expect(answer.status, url).toBe(200);
        expect(answer.body.success, url).toBe(false);
        expect(answer.body.message, url).toContain(`上游响应超时 (upstream timed out after ${TIMEOUT_SECONDS} s)`);
        expect(answer.seconds, url).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 0.9);
        expect(answer.seconds, url).toBeLessThan(TIMEOUT_SECONDS + 2);
      }
    });
  }

  it('say the connection was reset when the upstream hangs up', async () => {
    const id = await channelAt(reset.url);
    for (const [method, url, payload] of upstreamCalls(id, reset.url)) {
      const answer = await call(method, url, payload);
      expect(answer.status, url).toBe(200);
      expect(answer.body.success, url).toBe(false);
      expect(answer.body.message, url).toMatch(/无法连接上游.*\(connection reset\)/);
      expect(answer.seconds, url).toBeLessThan(1);
    }
  });
});
