import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test-support/test-app.js';

const REDIS_URL = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15';

/** A TCP relay in front of the real Redis, so a test can make Redis unreachable without stopping it. */
async function redisRelay(): Promise<{ url: string; stop(): Promise<void> }> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}${target.pathname}`,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let running: TestApp | undefined;
afterEach(async () => {
  await running?.close().catch(() => undefined);
  running = undefined;
});

describe('GET /healthz and /readyz', () => {
  it('answers 200 for a process that is up and a database that answers', async () => {
    running = await startTestApp();
    const health = await running.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    expect(health.headers['cache-control']).toBe('no-store');

    const ready = await running.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    const body = ready.json();
    expect(body.status).toBe('ok');
    expect(body.checks.database.ok).toBe(true);
    expect(body.checks.redis).toBeUndefined();
  });

  it('is never rate limited, while console page loads from the same address are', async () => {
    running = await startTestApp({ GLOBAL_WEB_RATE_LIMIT: '2' });
    for (let index = 0; index < 10; index += 1) {
      expect((await running.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await running.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    }
    const pages = [];
    for (let index = 0; index < 4; index += 1) pages.push((await running.app.inject({ method: 'GET', url: '/console' })).statusCode);
    expect(pages).toContain(429);
  });

  it('answers 503 naming the database when the database is closed, while /healthz stays 200', async () => {
    running = await startTestApp();
    await running.context.db.close();
    const ready = await running.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    const body = ready.json();
    expect(body.status).toBe('unavailable');
    expect(body.failed).toEqual(['database']);
    expect(body.checks.database.ok).toBe(false);
    expect(typeof body.checks.database.error).toBe('string');
    expect((await running.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('checks Redis when REDIS_CONN_STRING is set, and answers 503 naming it when Redis is unreachable', async () => {
    const relay = await redisRelay();
    try {
      running = await startTestApp({ REDIS_CONN_STRING: relay.url });
      const ready = await running.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().checks.redis.ok).toBe(true);

      await relay.stop();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      const down = await running.app.inject({ method: 'GET', url: '/readyz' });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(down.statusCode).toBe(503);
      const body = down.json();
      expect(body.failed).toEqual(['redis']);
      expect(body.checks.database.ok).toBe(true);
      expect(body.checks.redis.ok).toBe(false);
      expect(body.checks.redis.error).toMatch(/not connected|no answer|ECONNREFUSED|closed/i);
    } finally {
      await relay.stop().catch(() => undefined);
      running?.context.redis?.disconnect();
    }
  });

  it('answers 503 "draining" once the process is shutting down', async () => {
    running = await startTestApp();
    running.context.draining = true;
    const ready = await running.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'draining', failed: ['draining'] });
    expect((await running.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('keeps /api/status in its envelope', async () => {
    running = await startTestApp();
    const status = await running.app.inject({ method: 'GET', url: '/api/status' });
    expect(status.statusCode).toBe(200);
    expect(status.json().success).toBe(true);
  });
});
