import type { AppContext } from '../../app-context.js';
import { type ChannelSeed, insertChannel, insertToken, insertUser, type SeededToken, type TokenSeed } from '../../test-support/seed-rows.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../../test-support/test-app.js';
import type { RelayRuntime } from '../relay-runtime.js';
import type { TaskRuntime } from '../tasks/task-runtime.js';
import { MockUpstream } from './mock-upstream.js';

export type { ChannelSeed, SeededToken } from '../../test-support/seed-rows.js';

/**
 * Whole-app relay tests: the app listening on a real port, a real mock upstream, and rows
 * written straight into the database (with the change events the admin API emits), so the
 * relay is tested without depending on the management routes.
 */
export interface RelayTestEnv {
  test: TestApp;
  context: AppContext;
  runtime: RelayRuntime;
  /** The task relays (Midjourney, Suno): their poll rounds, refunds and rows. */
  tasks: TaskRuntime;
  upstream: MockUpstream;
  /** The gateway's base URL, e.g. http://127.0.0.1:1234 */
  gateway: string;
  close(): Promise<void>;
}

export async function startRelayTestEnv(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<RelayTestEnv> {
  const upstream = await new MockUpstream().start();
  const test = await startTestApp(env, options);
  const address = await test.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    test,
    context: test.context,
    runtime: test.relay,
    tasks: test.tasks,
    upstream,
    gateway: address,
    async close() {
      // Keep-alive sockets left by aborted test requests would hold the listener open for the
      // clients' own keep-alive timeout; every request is over by now.
      test.app.server.closeAllConnections();
      await test.close();
      await upstream.close();
    },
  };
}

let sequence = 0;
/** A name no other test in the process uses (groups and models keep tests apart). */
export const unique = (prefix: string): string => `${prefix}-${process.pid}-${(sequence += 1)}`;

export interface SeededUser {
  id: number;
  username: string;
  group: string;
}

export async function seedUser(context: AppContext, options: { quota?: number; group?: string; role?: number; status?: number } = {}): Promise<SeededUser> {
  const username = unique('u').slice(0, 12);
  const group = options.group ?? unique('g');
  const id = await insertUser(context.db, { ...options, username, group });
  return { id, username, group };
}

/** A token, then the change event the admin API emits. */
export async function seedToken(context: AppContext, userId: number, options: TokenSeed = {}): Promise<SeededToken> {
  const token = await insertToken(context.db, userId, options);
  context.changes.emit('token', token.key);
  return token;
}

/** A channel and its abilities rows, then the change event the admin API emits. */
export async function seedChannel(context: AppContext, seed: ChannelSeed): Promise<number> {
  const id = await insertChannel(context.db, seed);
  context.changes.emit('channels');
  return id;
}

export async function setOption(context: AppContext, key: string, value: string | number | boolean): Promise<void> {
  await context.options.set(key, value);
}

/** Prices `model` by tokens (ModelRatio, CompletionRatio), keeping every other model's price. */
export async function priceModel(context: AppContext, model: string, ratio: number, completionRatio: number): Promise<void> {
  await setOption(context, 'ModelRatio', JSON.stringify({ ...context.options.json<Record<string, number>>('ModelRatio'), [model]: ratio }));
  await setOption(context, 'CompletionRatio', JSON.stringify({ ...context.options.json<Record<string, number>>('CompletionRatio'), [model]: completionRatio }));
}

/** Balances and counters as the database holds them after a flush. */
export async function totals(context: AppContext, ids: { userId: number; tokenId: number; channelIds?: number[] }) {
  const db = context.db.kysely;
  const user = await db.selectFrom('users').select(['quota', 'used_quota', 'request_count']).where('id', '=', ids.userId).executeTakeFirstOrThrow();
  const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota', 'status']).where('id', '=', ids.tokenId).executeTakeFirstOrThrow();
  const logs = await db.selectFrom('logs').selectAll().where('user_id', '=', ids.userId).where('type', '=', 2).orderBy('id').execute();
  // Failed tasks' refunds (relay/tasks/task-billing.ts): system logs whose quota went back.
  const refundLogs = (await db.selectFrom('logs').selectAll().where('user_id', '=', ids.userId).where('type', '=', 4).orderBy('id').execute()).filter((log) =>
    String(log.other).includes('"task_refund":true'),
  );
  const channels = ids.channelIds?.length ? await db.selectFrom('channels').select(['id', 'used_quota']).where('id', 'in', ids.channelIds).execute() : [];
  return {
    userQuota: Number(user.quota),
    userUsed: Number(user.used_quota),
    requestCount: Number(user.request_count),
    tokenRemain: Number(token.remain_quota),
    tokenUsed: Number(token.used_quota),
    tokenStatus: Number(token.status),
    logs,
    logQuotaSum: logs.reduce((sum, log) => sum + Number(log.quota), 0),
    refundLogs,
    /** What refunds gave back: the payer was charged logQuotaSum − refundQuotaSum. */
    refundQuotaSum: refundLogs.reduce((sum, log) => sum + Number(log.quota), 0),
    channelUsed: new Map(channels.map((channel) => [Number(channel.id), Number(channel.used_quota)])),
  };
}
