import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test-support/test-app.js';

const REDIS_URL = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15';

const started: TestApp[] = [];
afterEach(async () => {
  for (const app of started.splice(0)) await app.close();
});

describe('rate limits shared through Redis', () => {
  it('counts hits from two nodes in one window when REDIS_CONN_STRING is set', async () => {
    // A distinct IP per run keeps this test independent of earlier runs' windows in Redis.
    const ip = `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    const env = { REDIS_CONN_STRING: REDIS_URL, GLOBAL_API_RATE_LIMIT: '4' };
    const nodeA = await startTestApp(env);
    started.push(nodeA);
    const nodeB = await startTestApp({ ...env, NODE_TYPE: 'slave', SQLITE_PATH: `${nodeA.dir}/modelgate.db` });
    started.push(nodeB);
    const hit = (test: TestApp) => test.app.inject({ method: 'GET', url: '/api/status', remoteAddress: ip });
    const codes = [await hit(nodeA), await hit(nodeB), await hit(nodeA), await hit(nodeB), await hit(nodeA), await hit(nodeB)].map((r) => r.statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 429, 429]);
    // Another client is unaffected.
    expect((await nodeB.app.inject({ method: 'GET', url: '/api/status', remoteAddress: '10.255.255.254' })).statusCode).toBe(200);
  });
});
