import { TokenStatus } from '@modelgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../db/index.js';
import { LeaseKind } from '../domain/billing/lease-book.js';
import {
  books,
  CALLS,
  callsAround,
  consoleAnswer,
  consoleCall,
  COST,
  holdCalls,
  inProcessCluster,
  login,
  seedPayer,
  sqliteCluster,
  START,
  type Cluster,
} from './testing/balance-cluster.js';

/**
 * Every balance the console and the billing endpoints show or decide on is what the payer can
 * spend: the column plus every node's leases (billing/spendable-quota.ts). While calls are in flight
 * the leases hold part of it, and after a balance set the column reads below zero; a subtract takes
 * only what no call in flight holds, so no balance goes below zero.
 */

const HELD_MESSAGE = '正被进行中的请求占用';
const SHORT_MESSAGE = '用户额度不足，无法扣减';
/** A value set while the calls' leases hold more than it (30 calls reserve about 10,000 each). */
const SET_TO = 100_000;
/** QuotaPerUnit: the billing endpoints answer in dollars by default. */
const PER_DOLLAR = 500_000;

const subtract = (id: number, value: number) => ({ id, action: 'add_quota', mode: 'subtract', value });

function twoNodeSuite(start: () => Promise<Cluster>) {
  let cluster: Cluster;
  let root: Record<string, string>;
  let console0: string;

  beforeAll(async () => {
    cluster = await start();
    console0 = cluster.urls[0]!;
    root = await login(console0, cluster.admin);
  });
  afterAll(() => cluster.close());

  it('a subtract the calls in flight hold is refused with a retry message, and once they settle it is taken, never below zero', async () => {
    const payerOf = await seedPayer(cluster);
    const manage = (value: number) => consoleAnswer<{ quota: number }>(console0, root, 'POST', '/api/user/manage', subtract(payerOf.userId, value));
    const after = await callsAround(cluster, payerOf, async () => {
      // The leases hold more than this: the column reads below zero, the user can spend SET_TO.
      await consoleCall(console0, root, 'POST', '/api/user/manage', { id: payerOf.userId, action: 'add_quota', mode: 'override', value: SET_TO });
      const beyond = await manage(SET_TO + 1);
      expect(beyond).toMatchObject({ success: false, message: expect.stringContaining(SHORT_MESSAGE) });
      const held = await manage(SET_TO / 2);
      expect(held).toMatchObject({ success: false, message: expect.stringContaining(HELD_MESSAGE) });
      const shown = await consoleCall<{ quota: number }>(console0, root, 'GET', `/api/user/${payerOf.userId}`);
      expect(shown.quota).toBe(SET_TO);
    });
    expect(after).toMatchObject({ userQuota: SET_TO - CALLS * COST, userUsed: CALLS * COST, logQuotaSum: CALLS * COST });

    const retried = await manage(SET_TO / 2);
    expect(retried).toMatchObject({ success: true, data: { quota: SET_TO / 2 - CALLS * COST } });
    expect(await manage(SET_TO / 2 - CALLS * COST + 1)).toMatchObject({ success: false, message: expect.stringContaining(SHORT_MESSAGE) });
    expect(await books(cluster, payerOf)).toMatchObject({ userQuota: SET_TO / 2 - CALLS * COST });
  });

  it('the manage answer to an add or a subtract while calls are in flight is what the user can spend, every node counted', async () => {
    const payerOf = await seedPayer(cluster);
    const after = await callsAround(cluster, payerOf, async () => {
      const added = await consoleCall<{ quota: number }>(console0, root, 'POST', '/api/user/manage', {
        id: payerOf.userId,
        action: 'add_quota',
        mode: 'add',
        value: 1_000_000,
      });
      expect(added.quota).toBe(START + 1_000_000);
      const taken = await consoleCall<{ quota: number }>(console0, root, 'POST', '/api/user/manage', subtract(payerOf.userId, 1_000));
      expect(taken.quota).toBe(START + 1_000_000 - 1_000);
    });
    expect(after).toMatchObject({ userQuota: START + 1_000_000 - 1_000 - CALLS * COST, userUsed: CALLS * COST });
  });

  it("the billing endpoints show the token's and the user's balance with every node's leases, right after a set too", async () => {
    const payerOf = await seedPayer(cluster, START);
    const owner = await login(console0, payerOf.username);
    const subscription = async () => {
      const response = await fetch(`${console0}/v1/dashboard/billing/subscription`, { headers: { authorization: `Bearer sk-${payerOf.key}` } });
      return ((await response.json()) as { hard_limit_usd: number }).hard_limit_usd;
    };
    await callsAround(cluster, payerOf, async () => {
      // DisplayTokenStatEnabled (the default): the token's figures. Nothing is used until the calls settle.
      expect(await subscription()).toBe(START / PER_DOLLAR);
      await consoleCall(console0, owner, 'PUT', '/api/token/', { id: payerOf.tokenId, remain_quota: 1_000 });
      expect(await subscription()).toBe(1_000 / PER_DOLLAR);

      await consoleCall(console0, root, 'PUT', '/api/option/', { key: 'DisplayTokenStatEnabled', value: 'false' });
      try {
        expect(await subscription()).toBe(START / PER_DOLLAR);
        await consoleCall(console0, root, 'POST', '/api/user/manage', { id: payerOf.userId, action: 'add_quota', mode: 'override', value: SET_TO });
        expect(await subscription()).toBe(SET_TO / PER_DOLLAR);
      } finally {
        await consoleCall(console0, root, 'PUT', '/api/option/', { key: 'DisplayTokenStatEnabled', value: 'true' });
      }
    });
  });

  it('a limited token whose balance the leases hold is switched back on, by its switch and by an edit', async () => {
    const payerOf = await seedPayer(cluster, START);
    const owner = await login(console0, payerOf.username);
    const after = await callsAround(cluster, payerOf, async () => {
      // The leases hold more than 1,000: the column reads below zero, the token can spend 1,000.
      await consoleCall(console0, owner, 'PUT', '/api/token/', { id: payerOf.tokenId, remain_quota: 1_000 });
      await consoleCall(console0, owner, 'PUT', '/api/token/?status_only=true', { id: payerOf.tokenId, status: TokenStatus.Disabled });
      const switchedOn = await consoleAnswer<{ status: number; remain_quota: number }>(console0, owner, 'PUT', '/api/token/?status_only=true', {
        id: payerOf.tokenId,
        status: TokenStatus.Enabled,
      });
      expect(switchedOn).toMatchObject({ success: true, data: { status: TokenStatus.Enabled, remain_quota: 1_000 } });

      // Marked exhausted (as a relay that read a stale balance would); an edit of another field repairs it.
      await cluster.db.kysely.updateTable('tokens').set({ status: TokenStatus.Exhausted }).where('id', '=', payerOf.tokenId).execute();
      const edited = await consoleCall<{ status: number }>(console0, owner, 'PUT', '/api/token/', { id: payerOf.tokenId, name: 'renamed' });
      expect(edited.status).toBe(TokenStatus.Enabled);
    });
    expect(after).toMatchObject({ tokenRemain: 1_000 - CALLS * COST, tokenStatus: TokenStatus.Enabled });
  });
}

describe.each([
  ['sqlite (two server processes on one file)', sqliteCluster],
  ['postgres (two nodes on one database)', () => inProcessCluster('postgres')],
  ['mysql (two nodes on one database)', () => inProcessCluster('mysql')],
] as const)('balances shown and decided on while calls are in flight on %s', (_name, start) => twoNodeSuite(start));

/** One node that flushes only when drained: what it leased stays in its lease between calls. */
describe.each(['sqlite', 'postgres', 'mysql'] as const)('one node that keeps its leases between calls, on %s', (dialect) => {
  let cluster: Cluster;
  let root: Record<string, string>;

  beforeAll(async () => {
    cluster = await inProcessCluster(dialect, { nodes: 1, batchInterval: 3600 });
    root = await login(cluster.urls[0]!, cluster.admin);
  });
  afterAll(() => cluster.close());

  it('a subtract takes what its lease holds free and leaves what its calls in flight hold', async () => {
    const payerOf = await seedPayer(cluster);
    const manage = (value: number) => consoleAnswer<{ quota: number }>(cluster.urls[0]!, root, 'POST', '/api/user/manage', subtract(payerOf.userId, value));
    const settled = holdCalls(cluster, payerOf, 10);
    await settled.arrived;
    settled.release();
    expect(await settled.statuses).toEqual(Array(10).fill(200));

    const inFlight = holdCalls(cluster, payerOf, 3);
    let held = 0;
    try {
      await inFlight.arrived;
      const lease = cluster.firstEnv!.runtime.ledger.leases.peek(LeaseKind.User, payerOf.userId)!;
      const free = lease.free;
      held = lease.held;
      expect(free).toBeGreaterThan(0);
      const column = Number((await cluster.db.kysely.selectFrom('users').select('quota').where('id', '=', payerOf.userId).executeTakeFirstOrThrow()).quota);
      expect(column + free + held).toBe(START - 10 * COST);

      // Everything but what the calls in flight hold: the column and the free part of the lease.
      const taken = await manage(column + free);
      expect(taken).toMatchObject({ success: true, data: { quota: held } });
      expect(await manage(1)).toMatchObject({ success: false, message: expect.stringContaining(HELD_MESSAGE) });
    } finally {
      inFlight.release();
      await inFlight.statuses;
    }
    expect(await inFlight.statuses).toEqual(Array(3).fill(200));
    await cluster.settle(payerOf.userId, payerOf.tokenId, 13);
    // What the calls in flight held, less what they cost: never below zero.
    expect(await books(cluster, payerOf)).toMatchObject({ userQuota: held - 3 * COST, userUsed: 13 * COST, logQuotaSum: 13 * COST });
    expect(await manage(held - 3 * COST + 1)).toMatchObject({ success: false, message: expect.stringContaining(SHORT_MESSAGE) });
  });

  it('a failed task refunded to an exhausted token switches it back on when the token, its leases counted, has something to spend', async () => {
    const payerOf = await seedPayer(cluster, START);
    const owner = await login(cluster.urls[0]!, payerOf.username);
    const tokenStatus = async () =>
      Number((await cluster.db.kysely.selectFrom('tokens').select('status').where('id', '=', payerOf.tokenId).executeTakeFirstOrThrow()).status);
    const refundQuota = 1_000;
    const inFlight = holdCalls(cluster, payerOf, 3);
    try {
      await inFlight.arrived;
      // Nothing left to spend; the column reads below zero by what the calls in flight hold.
      await consoleCall(cluster.urls[0]!, owner, 'PUT', '/api/token/', { id: payerOf.tokenId, remain_quota: 0 });
      const next = await fetch(`${cluster.urls[0]}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${payerOf.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: cluster.model, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(next.status).toBe(403);
      // The relay marks the token exhausted as it refuses the call (written in the background).
      await expect.poll(tokenStatus).toBe(TokenStatus.Exhausted);

      const now = Math.floor(Date.now() / 1000);
      const taskId = await insertReturningId(cluster.db, 'tasks', {
        created_at: now,
        updated_at: now,
        task_id: `refund-${payerOf.tokenId}`,
        platform: 'suno',
        user_id: payerOf.userId,
        token_id: payerOf.tokenId,
        channel_id: 0,
        quota: refundQuota,
        action: 'MUSIC',
        status: 'FAILURE',
        fail_reason: 'upstream failed',
        submit_time: now,
      });
      expect(await cluster.firstEnv!.tasks.billing.refund('tasks', taskId)).toMatchObject({ quota: refundQuota });
      expect(await tokenStatus()).toBe(TokenStatus.Enabled);
    } finally {
      inFlight.release();
      await inFlight.statuses;
    }
    expect(await inFlight.statuses).toEqual(Array(3).fill(200));
    await cluster.settle(payerOf.userId, payerOf.tokenId, 3);
    expect(await books(cluster, payerOf)).toMatchObject({ tokenRemain: refundQuota - 3 * COST, tokenStatus: TokenStatus.Enabled });
  });
});
