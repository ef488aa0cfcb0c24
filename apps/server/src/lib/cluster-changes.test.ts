import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId, type Db } from '../db/index.js';
import { LeaseKind } from '../domain/billing/lease-book.js';
import { randomAlphanumeric } from '../domain/users/user-service.js';
import { MockUpstream } from '../relay/testing/mock-upstream.js';
import { createFreshDb, type FreshDb } from '../test-support/dialects.js';
import { startServerProcess, type ServerProcess } from '../test-support/server-process.js';

/**
 * Two real modelgate processes on one database and one Redis, as a cluster runs behind a load
 * balancer: a change made through node A (a token disabled, a user banned, an option written)
 * reaches node B within a second although B would poll only every 60 s, and calls split over both
 * nodes keep every balance, counter and log in agreement with no balance below zero.
 */

/**
 * A Redis database of the cluster's own: the nodes keep their sign-in limits there, which other
 * tests' failed logins on the shared test database must not count against (changes travel by
 * publish/subscribe, which spans databases).
 */
const REDIS_URL = (process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15').replace(/\/\d+$/, '/14');
const MODEL = 'gpt-4o-mini';

/** A console session on one node: the login cookie and new-api's user header. */
async function signIn(node: ServerProcess, username: string, password: string) {
  const response = await fetch(`${node.url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = (await response.json()) as { success: boolean; data: { id: number } };
  expect(body.success, JSON.stringify(body)).toBe(true);
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const headers = { cookie, 'new-api-user': String(body.data.id), 'content-type': 'application/json' };
  return async (method: string, path: string, data?: unknown) => {
    const answer = await fetch(`${node.url}${path}`, { method, headers, body: data === undefined ? undefined : JSON.stringify(data) });
    return (await answer.json()) as { success: boolean; message: string; data?: unknown };
  };
}

const chat = (node: ServerProcess, key: string) =>
  fetch(`${node.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
  });

/** Polls `check` every 25 ms; resolves with the milliseconds it took to hold, or fails after `limitMs`. */
async function within(limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function seedToken(db: Db, userId: number, remainQuota: number, unlimited: boolean): Promise<{ id: number; key: string }> {
  const key = randomAlphanumeric(48);
  const id = await insertReturningId(db, 'tokens', {
    user_id: userId,
    key,
    name: 'cluster',
    status: 1,
    created_time: 0,
    expired_time: -1,
    remain_quota: remainQuota,
    unlimited_quota: unlimited ? 1 : 0,
  });
  return { id, key: `sk-${key}` };
}

for (const dialect of ['postgres', 'mysql'] as const) {
  describe(`two nodes on ${dialect} and Redis`, () => {
    let fresh: FreshDb;
    let upstream: MockUpstream;
    let a: ServerProcess;
    let b: ServerProcess;
    let channelId: number;

    beforeAll(async () => {
      fresh = await createFreshDb(dialect);
      upstream = await new MockUpstream().start();
      const env = {
        SQL_DSN: fresh.sqlDsn,
        REDIS_CONN_STRING: REDIS_URL,
        SYNC_FREQUENCY: '60',
        BATCH_UPDATE_INTERVAL: '1',
        SESSION_SECRET: `cluster-${dialect}`,
        QUOTA_WAIT_SECONDS: '1',
        CRITICAL_RATE_LIMIT: '0',
      };
      a = await startServerProcess({ ...env, NODE_TYPE: 'master', NODE_NAME: `${dialect}-a` });
      b = await startServerProcess({ ...env, NODE_TYPE: 'slave', NODE_NAME: `${dialect}-b` });
      channelId = await insertReturningId(fresh.db, 'channels', {
        type: 1,
        key: 'sk-upstream',
        status: 1,
        name: 'cluster',
        base_url: upstream.url,
        models: MODEL,
        group: 'default',
        created_time: 0,
      });
      await fresh.db.kysely
        .insertInto('abilities')
        .values({ group: 'default', model: MODEL, channel_id: channelId, enabled: 1, priority: 0, weight: 0, tag: '' })
        .execute();
      // Written straight into the database: only a change event makes the nodes see the channel before their next poll.
      const root = await signIn(a, 'root', '123456');
      const touched = await root('PUT', '/api/channel/', { id: channelId, priority: 0 });
      expect(touched.success, touched.message).toBe(true);
    }, 120_000);
    afterAll(async () => {
      await a?.stop();
      await b?.stop();
      await upstream?.close();
      await fresh?.drop();
    });

    it('refuses on node B, within a second, a token disabled through node A', async () => {
      const root = await signIn(a, 'root', '123456');
      const rootId = Number((await fresh.db.kysely.selectFrom('users').select('id').where('username', '=', 'root').executeTakeFirstOrThrow()).id);
      const token = await seedToken(fresh.db, rootId, 0, true);
      await within(5_000, async () => (await chat(b, token.key)).status === 200);
      const disabled = await root('PUT', '/api/token/?status_only=true', { id: token.id, status: 2 });
      expect(disabled.success, disabled.message).toBe(true);
      const took = await within(1_000, async () => (await chat(b, token.key)).status === 401);
      expect(took).toBeLessThan(1_000);
    });

    it('refuses on node B, within a second, a user banned through node A', async () => {
      const root = await signIn(a, 'root', '123456');
      const userId = await insertReturningId(fresh.db, 'users', {
        username: `ban${dialect}`.slice(0, 12),
        password: 'x',
        quota: 1_000_000,
        group: 'default',
        created_at: 0,
      });
      const token = await seedToken(fresh.db, userId, 0, true);
      await within(5_000, async () => (await chat(b, token.key)).status === 200);
      const banned = await root('POST', '/api/user/manage', { id: userId, action: 'disable' });
      expect(banned.success, banned.message).toBe(true);
      await within(1_000, async () => (await chat(b, token.key)).status === 403);
    });

    it('applies on node B, within a second, an option written through node A', async () => {
      const root = await signIn(a, 'root', '123456');
      const name = `Cluster ${dialect} ${Date.now()}`;
      const written = await root('PUT', '/api/option/', { key: 'SystemName', value: name });
      expect(written.success, written.message).toBe(true);
      await within(1_000, async () => ((await (await fetch(`${b.url}/api/status`)).json()) as { data: { system_name: string } }).data.system_name === name);
    });

    it('keeps balances, counters and logs in agreement under 200 concurrent calls split over both nodes', async () => {
      // Each call costs the same (the mock reports fixed usage); the balance covers only some of them.
      const userId = await insertReturningId(fresh.db, 'users', {
        username: `load${dialect}`.slice(0, 12),
        password: 'x',
        quota: 300_000,
        group: 'default',
        created_at: 0,
      });
      const limited = await seedToken(fresh.db, userId, 200_000, false);
      const unlimited = await seedToken(fresh.db, userId, 0, true);
      const statuses = await Promise.all(
        Array.from({ length: 200 }, async (_, index) => {
          const response = await chat(index % 2 === 0 ? a : b, index % 4 < 2 ? limited.key : unlimited.key);
          await response.arrayBuffer();
          return response.status;
        }),
      );
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);
      expect(statuses.every((status) => status === 200 || status === 403)).toBe(true);
      // Both nodes flush every second.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const db = fresh.db.kysely;
      const user = await db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', userId).executeTakeFirstOrThrow();
      // What the two nodes still hold of the balance as leases (given back at their next flushes).
      const leases = await db.selectFrom('quota_leases').select(['amount']).where('kind', '=', LeaseKind.User).where('entity_id', '=', userId).execute();
      const held = leases.reduce((sum, lease) => sum + Number(lease.amount), 0);
      const logs = await db.selectFrom('logs').select(['quota', 'token_id']).where('user_id', '=', userId).where('type', '=', 2).execute();
      const logged = logs.reduce((sum, log) => sum + Number(log.quota), 0);
      expect(logs).toHaveLength(statuses.filter((status) => status === 200).length);
      expect(Number(user.used_quota)).toBe(logged);
      expect(Number(user.quota) + held + Number(user.used_quota)).toBe(300_000);
      expect(Number(user.quota)).toBeGreaterThanOrEqual(0);
      const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('id', '=', limited.id).executeTakeFirstOrThrow();
      const loggedOnLimited = logs.filter((log) => Number(log.token_id) === limited.id).reduce((sum, log) => sum + Number(log.quota), 0);
      expect(Number(token.used_quota)).toBe(loggedOnLimited);
      expect(Number(token.remain_quota)).toBeGreaterThanOrEqual(0);
    });
  });
}
