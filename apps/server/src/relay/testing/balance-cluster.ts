import { Role } from '@modelgate/contract';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { expect } from 'vitest';
import type { Db } from '../../db/index.js';
import { hashPassword } from '../../domain/users/password.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { insertChannel, insertToken, insertUser } from '../../test-support/seed-rows.js';
import { startServerProcess, type ServerProcess } from '../../test-support/server-process.js';
import { chatCompletionBody, MockUpstream, sendJson } from './mock-upstream.js';
import { startRelayTestEnv, unique, type RelayTestEnv } from './relay-fixtures.js';

/**
 * Balances changed while relay calls are in flight: relay nodes on one database, a mock upstream
 * that holds the calls until the test lets them answer, and console calls over HTTP.
 */

const PROMPT = 3 + countTokens('hi') + 3;
/** Model ratio 0.1, completion ratio 1: an answer of 20 tokens in all costs exactly 2. */
const USAGE = { prompt_tokens: PROMPT, completion_tokens: 20 - PROMPT, total_tokens: 20 };
export const COST = 2;
export const CALLS = 30;
/** Each call reserves about 0.1 × 100,000: the leases hold far more than the calls cost. */
const MAX_TOKENS = 100_000;
export const START = 5_000_000;
const PASSWORD = 'balance-pass';

export interface Cluster {
  db: Db;
  /** The nodes' base URLs; the console calls go to the first. */
  urls: string[];
  upstream: MockUpstream;
  model: string;
  /** The root-role user who sets balances. */
  admin: string;
  /** The first node, when it runs in this process (its relay cache and leases are read directly). */
  firstEnv: RelayTestEnv | undefined;
  /** Waits until `calls` consume logs are written and every node has given back what it leased for the user and its token. */
  settle(userId: number, tokenId: number, calls: number): Promise<void>;
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
    await db.kysely
      .insertInto('options')
      .values({ key, value: JSON.stringify(value) })
      .execute();
  }
  await insertChannel(db, { key: 'sk-upstream', name: 'held', baseUrl: upstreamUrl, models: [model], groups: ['default'] });
  const admin = unique('root').slice(0, 12);
  await insertUser(db, { username: admin, password: await hashPassword(PASSWORD), role: Role.Root });
  return { model, admin };
}

/**
 * Relay apps in this process on one database, each with its own leases: two on PostgreSQL or
 * MariaDB, or one (any dialect) with `BATCH_UPDATE_INTERVAL` long enough that no flush gives its
 * leases back before the test drains it.
 */
export async function inProcessCluster(dialect: 'sqlite' | 'postgres' | 'mysql', { nodes = 2, batchInterval = 1 } = {}): Promise<Cluster> {
  if (dialect === 'sqlite' && nodes > 1) throw new Error('two SQLite apps in one process block each other: use sqliteCluster');
  const fresh: FreshDb = await createFreshDb(dialect);
  const upstream = await new MockUpstream().start();
  const { model, admin } = await seedShared(fresh.db, upstream.url);
  const database: Record<string, string> = dialect === 'sqlite' ? { SQLITE_PATH: fresh.sqlitePath } : { SQL_DSN: fresh.sqlDsn };
  const envs: RelayTestEnv[] = [];
  for (let index = 0; index < nodes; index += 1) {
    const role: Record<string, string> = index > 0 ? { NODE_TYPE: 'slave' } : {};
    envs.push(await startRelayTestEnv({ BATCH_UPDATE_INTERVAL: String(batchInterval), ...database, ...role }));
  }
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
export async function sqliteCluster(): Promise<Cluster> {
  const fresh: FreshDb = await createFreshDb('sqlite');
  const upstream = await new MockUpstream().start();
  const { model, admin } = await seedShared(fresh.db, upstream.url);
  const env = {
    SQLITE_PATH: fresh.sqlitePath,
    SESSION_SECRET: 'balance-set',
    BATCH_UPDATE_INTERVAL: '1',
    GLOBAL_API_RATE_LIMIT: '0',
    GLOBAL_WEB_RATE_LIMIT: '0',
    CRITICAL_RATE_LIMIT: '0',
  };
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
    async settle(userId, tokenId, calls) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const held = await fresh.db.kysely
          .selectFrom('quota_leases')
          .select('amount')
          .where((eb) => eb.or([eb.and([eb('kind', '=', 1), eb('entity_id', '=', userId)]), eb.and([eb('kind', '=', 2), eb('entity_id', '=', tokenId)])]))
          .execute();
        const logs = await fresh.db.kysely.selectFrom('logs').select('id').where('user_id', '=', userId).where('type', '=', 2).execute();
        if (logs.length === calls && held.every((row) => Number(row.amount) === 0)) return;
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
export async function login(url: string, username: string): Promise<Record<string, string>> {
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

/** A console call's envelope, refusals included. */
export async function consoleAnswer<T>(url: string, headers: Record<string, string>, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as { success: boolean; message: string; data: T };
}

/** A console call that must succeed: its data. */
export async function consoleCall<T>(url: string, headers: Record<string, string>, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await consoleAnswer<T>(url, headers, method, path, body);
  if (!answer.success) throw new Error(`${method} ${path}: ${answer.message}`);
  return answer.data;
}

export interface TestPayer {
  username: string;
  userId: number;
  tokenId: number;
  key: string;
}

/** A user with START quota who can sign in, with a token (limited when `tokenQuota` is given). */
export async function seedPayer(cluster: Cluster, tokenQuota?: number): Promise<TestPayer> {
  const username = unique('p').slice(0, 12);
  const userId = await insertUser(cluster.db, { username, password: await hashPassword(PASSWORD), role: Role.Common, quota: START });
  const token = await insertToken(cluster.db, userId, tokenQuota === undefined ? {} : { remainQuota: tokenQuota });
  return { username, userId, tokenId: token.id, key: token.key };
}

export interface HeldCalls {
  /** Resolves once every call has reached the upstream, so holds its reservation on its node. */
  arrived: Promise<void>;
  /** Lets the upstream answer them (each costs COST). */
  release(): void;
  /** The calls' HTTP statuses, once answered. */
  statuses: Promise<number[]>;
}

/** `count` calls spread over the nodes, held by the upstream until `release()`. */
export function holdCalls(cluster: Cluster, payerOf: TestPayer, count: number): HeldCalls {
  let arrivedCount = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  cluster.upstream.respond(async (_request, response) => {
    arrivedCount += 1;
    await released;
    sendJson(response, 200, chatCompletionBody('ok', USAGE));
  });
  const statuses = Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const response = await fetch(`${cluster.urls[index % cluster.urls.length]}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${payerOf.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: cluster.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: MAX_TOKENS }),
      });
      await response.text();
      return response.status;
    }),
  );
  const arrived = (async () => {
    const deadline = Date.now() + 10_000;
    while (arrivedCount < count) {
      if (Date.now() > deadline) throw new Error(`only ${arrivedCount} calls reached the upstream`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return { arrived, release, statuses };
}

/** The payer's books as the database holds them. */
export async function books(cluster: Cluster, payerOf: TestPayer) {
  const user = await cluster.db.kysely.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', payerOf.userId).executeTakeFirstOrThrow();
  const token = await cluster.db.kysely
    .selectFrom('tokens')
    .select(['remain_quota', 'used_quota', 'status'])
    .where('id', '=', payerOf.tokenId)
    .executeTakeFirstOrThrow();
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

/**
 * CALLS calls spread over the nodes, held by the upstream until `whileHeld` has run; then all are
 * answered (each costs COST), every node gives its leases back, and the books are read.
 */
export async function callsAround(cluster: Cluster, payerOf: TestPayer, whileHeld: () => Promise<void>) {
  const calls = holdCalls(cluster, payerOf, CALLS);
  try {
    await calls.arrived;
    await whileHeld();
  } finally {
    calls.release();
    // Answered before the test goes on, or fails and closes the nodes under them.
    await calls.statuses;
  }
  expect(await calls.statuses).toEqual(Array(CALLS).fill(200));
  await cluster.settle(payerOf.userId, payerOf.tokenId, CALLS);
  return books(cluster, payerOf);
}
