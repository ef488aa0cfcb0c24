import { Role, UserStatus } from '@modelgate/contract';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId, type Db } from '../db/index.js';
import { hashPassword } from '../domain/users/password.js';
import { randomAlphanumeric } from '../domain/users/user-service.js';
import { createFreshDb, type FreshDb } from '../test-support/dialects.js';
import { startServerProcess, type ServerProcess } from '../test-support/server-process.js';
import { chatCompletionBody, MockUpstream, sendJson } from './testing/mock-upstream.js';
import { startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * Setting a balance while calls are under way (issue 10, point 5). Calls in flight hold part of the
 * balance in the relay's leases, outside `users.quota` / `tokens.remain_quota`; a balance that is set
 * must be what the payer can spend from then on, so once the calls settle and the leases go back the
 * balance is the value set minus what those calls cost, whichever node served them.
 */

const PROMPT = 3 + countTokens('hi') + 3;
/** Model ratio 0.1, completion ratio 1: an answer of 20 tokens in all costs exactly 2. */
const USAGE = { prompt_tokens: PROMPT, completion_tokens: 20 - PROMPT, total_tokens: 20 };
const COST = 2;
const CALLS = 30;
/** Each call reserves about 0.1 × 100,000: the leases hold far more than the calls cost. */
const MAX_TOKENS = 100_000;
const START = 5_000_000;
const PASSWORD = 'balance-pass';

interface Cluster {
  db: Db;
  /** The two nodes' base URLs; the console calls go to the first. */
  urls: string[];
  upstream: MockUpstream;
  model: string;
  /** The root-role user who sets balances. */
  admin: string;
  /** The first node, when it runs in this process (its relay cache is read directly). */
  firstEnv: RelayTestEnv | undefined;
  /** Waits until every node has given back what it leased for the user and its token. */
  settle(userId: number, tokenId: number): Promise<void>;
  close(): Promise<void>;
}

/** Prices, one channel to the mock upstream and an administrator, written before the nodes start. */
async function seedShared(db: Db, upstreamUrl: string): Promise<{ model: string; admin: string }> {
  const model = unique('set-model');
  for (const [key, value] of [
    ['ModelRatio', { [model]: 0.1 }],
    ['CompletionRatio', { [model]: 1 }],
  ] as const) {
    await db.kysely.deleteFrom('options').where('key', '=', key).execute();
    await db.kysely.insertInto('options').values({ key, value: JSON.stringify(value) }).execute();
  }
  const channelId = await insertReturningId(db, 'channels', {
    type: 1, key: 'sk-upstream', status: 1, name: 'held', base_url: upstreamUrl, models: model, group: 'default', created_time: 0,
  });
  await db.kysely.insertInto('abilities').values({ group: 'default', model, channel_id: channelId, enabled: 1, priority: 0, weight: 0, tag: '' }).execute();
  const admin = unique('root').slice(0, 12);
  await insertReturningId(db, 'users', { username: admin, password: await hashPassword(PASSWORD), role: Role.Root, status: UserStatus.Enabled, group: 'default', created_at: 0 });
  return { model, admin };
}

/** PostgreSQL or MariaDB: two relay apps in this process on one database, each with its own leases. */
async function serverCluster(dialect: 'postgres' | 'mysql'): Promise<Cluster> {
  const fresh: FreshDb = await createFreshDb(dialect);
  const upstream = await new MockUpstream().start();
  const { model, admin } = await seedShared(fresh.db, upstream.url);
  const envs = [
    await startRelayTestEnv({ BATCH_UPDATE_INTERVAL: '1', SQL_DSN: fresh.sqlDsn }),
    await startRelayTestEnv({ BATCH_UPDATE_INTERVAL: '1', SQL_DSN: fresh.sqlDsn, NODE_TYPE: 'slave' }),
  ];
  return {
    db: fresh.db,
    urls: envs.map((env) => env.gateway),
    upstream,
    model,
    admin,
    firstEnv: envs[0],
    async settle() {
      for (const env of envs) await env.runtime.drain();
    },
    async close() {
      for (const env of envs) await env.close();
      await upstream.close();
      await fresh.drop();
    },
  };
}

/** SQLite: two real server processes on one database file (two in one process would block each other). */
async function sqliteCluster(): Promise<Cluster> {
  const fresh: FreshDb = await createFreshDb('sqlite');
  const upstream = await new MockUpstream().start();
  const { model, admin } = await seedShared(fresh.db, upstream.url);
  const env = { SQLITE_PATH: fresh.sqlitePath, SESSION_SECRET: 'balance-set', BATCH_UPDATE_INTERVAL: '1', GLOBAL_API_RATE_LIMIT: '0', GLOBAL_WEB_RATE_LIMIT: '0', CRITICAL_RATE_LIMIT: '0' };
  const processes: ServerProcess[] = await Promise.all([
    startServerProcess({ ...env, NODE_NAME: 'set-a' }),
    startServerProcess({ ...env, NODE_NAME: 'set-b', NODE_TYPE: 'slave' }),
  ]);
  return {
    db: fresh.db,
    urls: processes.map((process) => process.url),
    upstream,
    model,
    admin,
    firstEnv: undefined,
    // An idle payer's lease goes back whole at the node's next flush (every second here).
    async settle(userId, tokenId) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const held = await fresh.db.kysely
          .selectFrom('quota_leases')
          .select('amount')
          .where((eb) => eb.or([eb.and([eb('kind', '=', 1), eb('entity_id', '=', userId)]), eb.and([eb('kind', '=', 2), eb('entity_id', '=', tokenId)])]))
          .execute();
        const logs = await fresh.db.kysely.selectFrom('logs').select('id').where('user_id', '=', userId).where('type', '=', 2).execute();
        if (logs.length === CALLS && held.every((row) => Number(row.amount) === 0)) return;
        if (Date.now() > deadline) throw new Error(`the nodes did not settle: ${logs.length} logs, leases ${held.map((row) => row.amount).join(',')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      await Promise.all(processes.map((process) => process.stop()));
      await upstream.close();
      await fresh.drop();
    },
  };
}

/** Signs in over HTTP; the headers for console calls as that user. */
async function login(url: string, username: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  const body = (await response.json()) as { success: boolean; message: string; data: { id: number } };
  if (!body.success) throw new Error(`login as ${username} failed: ${body.message}`);
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('session='))!;
  return { cookie: cookie.split(';')[0]!, 'new-api-user': String(body.data.id) };
}

async function consoleCall<T>(url: string, headers: Record<string, string>, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as { success: boolean; message: string; data: T };
  if (!answer.success) throw new Error(`${method} ${path}: ${answer.message}`);
  return answer.data;
}

function balanceSetSuite(start: () => Promise<Cluster>) {
  let cluster: Cluster;
  let root: Record<string, string>;

  beforeAll(async () => {
    cluster = await start();
    root = await login(cluster.urls[0]!, cluster.admin);
  });
  afterAll(() => cluster.close());

  /** A user who can sign in, with a token (limited when `tokenQuota` is given). */
  async function payer(tokenQuota?: number) {
    const username = unique('p').slice(0, 12);
    const userId = await insertReturningId(cluster.db, 'users', {
      username, password: await hashPassword(PASSWORD), role: Role.Common, status: UserStatus.Enabled, quota: START, group: 'default', created_at: 0,
    });
    const key = randomAlphanumeric(48);
    const tokenId = await insertReturningId(cluster.db, 'tokens', {
      user_id: userId, key, name: 't', status: 1, created_time: 0, expired_time: -1, remain_quota: tokenQuota ?? 0, unlimited_quota: tokenQuota === undefined ? 1 : 0,
    });
    return { username, userId, tokenId, key };
  }

  /**
   * CALLS calls spread over both nodes, held by the upstream until `whileHeld` has run; then all
   * are answered (each costs COST) and every node gives its leases back.
   */
  async function callsAround(payerOf: { userId: number; tokenId: number; key: string }, whileHeld: () => Promise<void>) {
    let arrived = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    cluster.upstream.respond(async (_request, response) => {
      arrived += 1;
      await released;
      sendJson(response, 200, chatCompletionBody('ok', USAGE));
    });
    const calls = Array.from({ length: CALLS }, async (_, index) => {
      const response = await fetch(`${cluster.urls[index % 2]}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${payerOf.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: cluster.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: MAX_TOKENS }),
      });
      await response.text();
      return response.status;
    });
    try {
      const deadline = Date.now() + 10_000;
      while (arrived < CALLS) {
        if (Date.now() > deadline) throw new Error(`only ${arrived} calls reached the upstream`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await whileHeld();
    } finally {
      release();
    }
    expect(await Promise.all(calls)).toEqual(Array(CALLS).fill(200));
    await cluster.settle(payerOf.userId, payerOf.tokenId);
    const user = await cluster.db.kysely.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', payerOf.userId).executeTakeFirstOrThrow();
    const token = await cluster.db.kysely.selectFrom('tokens').select(['remain_quota', 'used_quota', 'status']).where('id', '=', payerOf.tokenId).executeTakeFirstOrThrow();
    const logs = await cluster.db.kysely.selectFrom('logs').select('quota').where('user_id', '=', payerOf.userId).where('type', '=', 2).execute();
    return {
      userQuota: Number(user.quota),
      userUsed: Number(user.used_quota),
      tokenRemain: Number(token.remain_quota),
      tokenUsed: Number(token.used_quota),
      tokenStatus: Number(token.status),
      logQuotaSum: logs.reduce((sum, log) => sum + Number(log.quota), 0),
    };
  }

  it.each([
    ['POST /api/user/manage (override)', 'POST', '/api/user/manage', (id: number) => ({ id, action: 'add_quota', mode: 'override', value: 1_000_000 })],
    ['PUT /api/user/', 'PUT', '/api/user/', (id: number) => ({ id, quota: 1_000_000 })],
  ] as const)('a user quota set by %s while calls are in flight ends as the value set minus their cost', async (_route, method, path, body) => {
    const payerOf = await payer();
    const books = await callsAround(payerOf, async () => {
      await consoleCall(cluster.urls[0]!, root, method, path, body(payerOf.userId));
      // What the console and the relay show at once on the node that made the change.
      const shown = await consoleCall<{ quota: number }>(cluster.urls[0]!, root, 'GET', `/api/user/${payerOf.userId}`);
      expect.soft(shown.quota).toBe(1_000_000);
      if (cluster.firstEnv) expect.soft((await cluster.firstEnv.runtime.cache.users.load(payerOf.userId))?.quota).toBe(1_000_000);
    });
    expect(books).toMatchObject({ userQuota: 1_000_000 - CALLS * COST, userUsed: CALLS * COST, logQuotaSum: CALLS * COST });
  });

  it('an amount added (manage, mode add) while calls are in flight is an increment: the start plus it, minus their cost', async () => {
    const payerOf = await payer();
    const books = await callsAround(payerOf, async () => {
      await consoleCall(cluster.urls[0]!, root, 'POST', '/api/user/manage', { id: payerOf.userId, action: 'add_quota', mode: 'add', value: 1_000_000 });
    });
    expect(books).toMatchObject({ userQuota: START + 1_000_000 - CALLS * COST, userUsed: CALLS * COST, logQuotaSum: CALLS * COST });
  });

  it('a limited token remain_quota set by its owner (PUT /api/token/) while calls are in flight ends as the value set minus their cost', async () => {
    const payerOf = await payer(START);
    const owner = await login(cluster.urls[0]!, payerOf.username);
    const books = await callsAround(payerOf, async () => {
      const edited = await consoleCall<{ remain_quota: number }>(cluster.urls[0]!, owner, 'PUT', '/api/token/', { id: payerOf.tokenId, remain_quota: 1_000 });
      expect.soft(edited.remain_quota).toBe(1_000);
      const shown = await consoleCall<{ remain_quota: number }>(cluster.urls[0]!, owner, 'GET', `/api/token/${payerOf.tokenId}`);
      expect.soft(shown.remain_quota).toBe(1_000);
      if (cluster.firstEnv) expect.soft((await cluster.firstEnv.runtime.cache.tokens.load(payerOf.key))?.remainQuota).toBe(1_000);
    });
    expect(books).toMatchObject({ tokenRemain: 1_000 - CALLS * COST, tokenUsed: CALLS * COST, logQuotaSum: CALLS * COST, userQuota: START - CALLS * COST, tokenStatus: 1 });
  });

  it('an unlimited token edited while calls are in flight keeps remain_quota as written and the user pays', async () => {
    const payerOf = await payer();
    const owner = await login(cluster.urls[0]!, payerOf.username);
    const books = await callsAround(payerOf, async () => {
      await consoleCall(cluster.urls[0]!, owner, 'PUT', '/api/token/', { id: payerOf.tokenId, remain_quota: 1_000 });
    });
    expect(books).toMatchObject({ tokenRemain: 1_000, tokenUsed: CALLS * COST, userQuota: START - CALLS * COST, userUsed: CALLS * COST, logQuotaSum: CALLS * COST });
  });
}

describe.each([
  ['sqlite (two server processes on one file)', sqliteCluster],
  ['postgres (two nodes on one database)', () => serverCluster('postgres')],
  ['mysql (two nodes on one database)', () => serverCluster('mysql')],
] as const)('setting a balance while calls are in flight on %s', (_name, start) => balanceSetSuite(start));
