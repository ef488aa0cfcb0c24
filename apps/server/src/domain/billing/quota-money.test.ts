import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../../db/index.js';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { ChargeService } from './charge-service.js';
import { QuotaLedger } from './quota-ledger.js';
import { LeaseBook, LeaseKind } from './lease-book.js';
import { LeaseStore } from './lease-store.js';

/** The money path's SQL on every dialect: conditional takes, batched flushes. */
describe.each(DIALECTS)('quota SQL on %s', (dialect) => {
  let fresh: FreshDb;
  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
  });
  afterAll(async () => {
    await fresh.drop();
  });

  const newPayer = async (quota: number, remain: number) => {
    const { db } = fresh;
    const suffix = Math.random().toString(36).slice(2, 10);
    const userId = await insertReturningId(db, 'users', { username: `u${suffix}`, password: 'x', quota, created_at: 0 });
    const tokenId = await insertReturningId(db, 'tokens', { user_id: userId, key: `k${suffix}`, created_time: 0, remain_quota: remain });
    return { userId, tokenId, limitedToken: true };
  };
  const balances = async (payer: { userId: number; tokenId: number }) => {
    const user = await fresh.db.kysely
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', payer.userId)
      .executeTakeFirstOrThrow();
    const token = await fresh.db.kysely
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota', 'accessed_time'])
      .where('id', '=', payer.tokenId)
      .executeTakeFirstOrThrow();
    return {
      quota: Number(user.quota),
      userUsed: Number(user.used_quota),
      requests: Number(user.request_count),
      remain: Number(token.remain_quota),
      tokenUsed: Number(token.used_quota),
      accessed: Number(token.accessed_time),
    };
  };

  const storeFor = (name: string) => new LeaseStore(fresh.db, `${name}/${Math.random().toString(36).slice(2, 8)}`, name);
  const leaseRows = async (holder: string) =>
    (await fresh.db.kysely.selectFrom('quota_leases').select(['kind', 'entity_id', 'amount']).where('holder', '=', holder).execute()).map((row) => ({
      kind: Number(row.kind),
      entity: Number(row.entity_id),
      amount: Number(row.amount),
    }));

  it('takes from token and user into the lease rows, both or neither', async () => {
    const store = storeFor('node-a');
    await store.register();
    const book = new LeaseBook();
    const payer = await newPayer(100, 1000);
    const user = book.account(LeaseKind.User, payer.userId);
    const token = book.account(LeaseKind.Token, payer.tokenId);
    expect(
      await store.take([
        { account: token, amount: 60 },
        { account: user, amount: 60 },
      ]),
    ).toBeUndefined();
    expect(await balances(payer)).toMatchObject({ quota: 40, remain: 940 });
    expect(await leaseRows(store.holder)).toEqual(
      expect.arrayContaining([
        { kind: 1, entity: payer.userId, amount: 60 },
        { kind: 2, entity: payer.tokenId, amount: 60 },
      ]),
    );
    // The user cannot cover 50: the token's part is not taken either.
    expect(
      await store.take([
        { account: token, amount: 50 },
        { account: user, amount: 50 },
      ]),
    ).toBe('user');
    expect(await store.take([{ account: token, amount: 2000 }])).toBe('token');
    expect(await balances(payer)).toMatchObject({ quota: 40, remain: 940 });
  });

  it('never overdraws under concurrent takes', async () => {
    const store = storeFor('node-b');
    await store.register();
    const book = new LeaseBook();
    const payer = await newPayer(200, 1_000_000);
    const user = book.account(LeaseKind.User, payer.userId);
    const results = await Promise.all(Array.from({ length: 50 }, () => store.take([{ account: user, amount: 10 }])));
    expect(results.filter((result) => result === undefined)).toHaveLength(20);
    expect(await balances(payer)).toMatchObject({ quota: 0 });
    expect(await leaseRows(store.holder)).toEqual([{ kind: 1, entity: payer.userId, amount: 200 }]);
  });

  it('gives back the leases of a dead process once, however many nodes reclaim at the same time', async () => {
    const dead = storeFor('node-dead');
    await dead.register();
    const book = new LeaseBook();
    const payer = await newPayer(1000, 1000);
    expect(
      await dead.take([
        { account: book.account(LeaseKind.Token, payer.tokenId), amount: 300 },
        { account: book.account(LeaseKind.User, payer.userId), amount: 300 },
      ]),
    ).toBeUndefined();
    // A live neighbour does not take a fresh process's leases.
    expect((await storeFor('node-c').reclaimDead(60)).holders).toBe(0);
    expect(await balances(payer)).toMatchObject({ quota: 700, remain: 700 });
    // The process under the same name restarted: three reclaimers at once, one give-back.
    const restarted = [storeFor('node-dead'), storeFor('node-dead'), storeFor('node-dead')];
    const results = await Promise.all(restarted.map((store) => store.reclaimDead(60)));
    expect(results.reduce((sum, result) => sum + result.amount, 0)).toBe(600);
    expect(await balances(payer)).toMatchObject({ quota: 1000, remain: 1000 });
    expect(await leaseRows(dead.holder)).toEqual([]);
  });

  it('flushes charges out of the lease rows with the logs, and gives back what the payer does not use', async () => {
    const store = storeFor('node-d');
    await store.register();
    const ledger = new QuotaLedger(fresh.db, store);
    const payer = await newPayer(1000, 1000);
    const user = ledger.leases.account(LeaseKind.User, payer.userId);
    const token = ledger.leases.account(LeaseKind.Token, payer.tokenId);
    expect(
      await store.take([
        { account: token, amount: 400 },
        { account: user, amount: 400 },
      ]),
    ).toBeUndefined();
    user.granted += 400;
    token.granted += 400;
    // A call charged 150 from both leases; its counters wait in the batch.
    for (const account of [user, token]) {
      account.granted -= 150;
      account.charged += 150;
    }
    ledger.addUser(payer.userId, { usedQuota: 150, requestCount: 1 });
    ledger.addToken(payer.tokenId, { usedQuota: 150 });
    // A second call holds 100 while the flush is written; the payer spent 150 this interval, so
    // the lease keeps that much free for the next calls and gives nothing back yet.
    user.held += 100;
    token.held += 100;
    await ledger.flush();
    expect(await balances(payer)).toMatchObject({ quota: 600, userUsed: 150, remain: 600, tokenUsed: 150 });
    expect((await leaseRows(store.holder)).map((row) => row.amount)).toEqual([250, 250]);
    // An interval without charges: every free unit goes back, and the emptied rows go.
    user.held -= 100;
    token.held -= 100;
    await ledger.flush();
    expect(await balances(payer)).toMatchObject({ quota: 850, userUsed: 150, remain: 850, tokenUsed: 150 });
    expect(await leaseRows(store.holder)).toEqual([]);
    expect(ledger.leases.size).toBe(0);
  });

  it('a process taken for dead takes back what its calls were charged and what it still holds, keeping the books exact', async () => {
    const store = storeFor('node-slow');
    await store.register();
    const lost: Error[] = [];
    const ledger = new QuotaLedger(fresh.db, store, (error) => lost.push(error));
    const payer = await newPayer(1000, 1000);
    const user = ledger.leases.account(LeaseKind.User, payer.userId);
    const token = ledger.leases.account(LeaseKind.Token, payer.tokenId);
    expect(
      await store.take([
        { account: token, amount: 400 },
        { account: user, amount: 400 },
      ]),
    ).toBeUndefined();
    for (const account of [user, token]) {
      account.granted += 250;
      account.charged += 150;
      account.held += 100;
    }
    ledger.addUser(payer.userId, { usedQuota: 150, requestCount: 1 });
    ledger.addToken(payer.tokenId, { usedQuota: 150 });
    // Its heartbeat stalled: a neighbour gives its leases back.
    await fresh.db.kysely.updateTable('relay_nodes').set({ heartbeat_at: 0 }).where('holder', '=', store.holder).execute();
    expect(await storeFor('node-neighbour').reclaimDead(60)).toEqual({ holders: 1, amount: 800 });
    expect(await balances(payer)).toMatchObject({ quota: 1000, remain: 1000 });
    await ledger.flush();
    expect(lost).toHaveLength(1);
    const rows = await leaseRows(store.holder);
    const heldIn = (kind: LeaseKind) => rows.filter((row) => row.kind === kind).reduce((sum, row) => sum + row.amount, 0);
    const after = await balances(payer);
    // The 150 charged left the balance for good; what the process still holds sits in its new rows.
    expect([after.quota + heldIn(LeaseKind.User), after.remain + heldIn(LeaseKind.Token), after.userUsed, after.tokenUsed]).toEqual([850, 850, 150, 150]);
    expect([heldIn(LeaseKind.User), heldIn(LeaseKind.Token)]).toEqual([user.granted, token.granted]);
    expect(user.granted).toBeGreaterThanOrEqual(user.held);
    // The process is registered again and its next flush goes through as usual.
    for (const account of [user, token]) account.held -= 100;
    await ledger.flush(true);
    expect(await balances(payer)).toMatchObject({ quota: 850, remain: 850 });
    expect(await leaseRows(store.holder)).toEqual([]);
  });

  it('a process taken for dead that takes again before its next flush keeps the books exact', async () => {
    const store = storeFor('node-stalled');
    await store.register();
    const lost: Error[] = [];
    const ledger = new QuotaLedger(fresh.db, store, (error) => lost.push(error));
    const payer = await newPayer(1000, 1000);
    const user = ledger.leases.account(LeaseKind.User, payer.userId);
    const token = ledger.leases.account(LeaseKind.Token, payer.tokenId);
    const take = async (amount: number) => {
      expect(
        await store.take([
          { account: token, amount },
          { account: user, amount },
        ]),
      ).toBeUndefined();
      for (const account of [user, token]) account.granted += amount;
    };
    await take(400);
    for (const account of [user, token]) {
      account.charged += 150;
      account.held += 100;
    }
    ledger.addUser(payer.userId, { usedQuota: 150, requestCount: 1 });
    ledger.addToken(payer.tokenId, { usedQuota: 150 });
    await fresh.db.kysely.updateTable('relay_nodes').set({ heartbeat_at: 0 }).where('holder', '=', store.holder).execute();
    expect(await storeFor('node-neighbour').reclaimDead(60)).toEqual({ holders: 1, amount: 800 });
    // A call arrives before the process's next flush: its lease rows are gone, so the take makes new ones.
    await take(100);
    for (const account of [user, token]) account.held += 100;
    await ledger.flush();
    expect(lost).toHaveLength(1);
    const rows = await leaseRows(store.holder);
    const heldIn = (kind: LeaseKind) => rows.filter((row) => row.kind === kind).reduce((sum, row) => sum + row.amount, 0);
    const after = await balances(payer);
    expect([after.quota + heldIn(LeaseKind.User), after.remain + heldIn(LeaseKind.Token), after.userUsed, after.tokenUsed]).toEqual([850, 850, 150, 150]);
    expect([heldIn(LeaseKind.User), heldIn(LeaseKind.Token)]).toEqual([user.granted, token.granted]);
    for (const account of [user, token]) account.held -= 200;
    await ledger.flush(true);
    expect(await balances(payer)).toMatchObject({ quota: 850, remain: 850 });
    expect(await leaseRows(store.holder)).toEqual([]);
  });

  it('a call that costs more than it held, settling while a flush runs: a crash after that flush leaves the books exact', async () => {
    const store = storeFor('node-settling');
    await store.register();
    const ledger = new QuotaLedger(fresh.db, store, () => undefined);
    const views = { charged: () => undefined, invalidate: () => undefined };
    const charges = new ChargeService(store, ledger, views as never, undefined as never, 0);
    const payer = await newPayer(1000, 1000);
    const user = ledger.leases.account(LeaseKind.User, payer.userId);
    const token = ledger.leases.account(LeaseKind.Token, payer.tokenId);
    expect(
      await store.take([
        { account: token, amount: 100 },
        { account: user, amount: 100 },
      ]),
    ).toBeUndefined();
    for (const account of [user, token]) {
      account.granted += 100;
      account.held += 100;
    }
    // The call held 100 and cost 150: its settlement takes the rest from the database, and a
    // flush starts meanwhile. Then the process dies: no later flush writes the call's counters.
    const settling = charges.settle({ payer: { userId: payer.userId, tokenId: payer.tokenId, limitedToken: true } as never, held: 100 }, 150, 0);
    expect(settling).toBeInstanceOf(Promise);
    await Promise.all([ledger.flush(), settling]);
    const rows = await leaseRows(store.holder);
    const heldIn = (kind: LeaseKind) => rows.filter((row) => row.kind === kind).reduce((sum, row) => sum + row.amount, 0);
    const after = await balances(payer);
    // Balance + leases + used is what it was: the charge the flush did not write is still in the lease.
    expect(after.quota + heldIn(LeaseKind.User) + after.userUsed).toBe(1000);
    expect(after.remain + heldIn(LeaseKind.Token) + after.tokenUsed).toBe(1000);
  });

  it('flushes deltas for many rows in batched statements, 64-bit amounts included', async () => {
    const store = storeFor('node-e');
    await store.register();
    const ledger = new QuotaLedger(fresh.db, store);
    const payers = await Promise.all(Array.from({ length: 350 }, () => newPayer(10_000_000_000, 10_000_000_000)));
    payers.forEach((payer, index) => {
      ledger.addUser(payer.userId, { usedQuota: index + 1, requestCount: 1 });
      ledger.addToken(payer.tokenId, { usedQuota: index + 1, accessedTime: 1_700_000_000 + index });
    });
    // One more than int4 can hold.
    ledger.addUser(payers[0]!.userId, { usedQuota: 3_000_000_000 });
    ledger.logs.push({
      user_id: payers[0]!.userId,
      created_at: 1,
      type: 2,
      content: '',
      username: 'u',
      token_name: 't',
      model_name: 'm',
      quota: 5,
      prompt_tokens: 0,
      completion_tokens: 0,
      use_time: 0,
      is_stream: 0,
      channel_id: 0,
      channel_name: '',
      token_id: 0,
      group: 'default',
      ip: '',
      other: '{}',
    });
    const result = await ledger.flush();
    expect(result).toEqual({ users: 350, tokens: 350, channels: 0, logs: 1 });
    expect(await balances(payers[0]!)).toEqual({
      quota: 10_000_000_000,
      userUsed: 3_000_000_001,
      requests: 1,
      remain: 10_000_000_000,
      tokenUsed: 1,
      accessed: 1_700_000_000,
    });
    expect(await balances(payers[349]!)).toEqual({
      quota: 10_000_000_000,
      userUsed: 350,
      requests: 1,
      remain: 10_000_000_000,
      tokenUsed: 350,
      accessed: 1_700_000_349,
    });
    const logs = await fresh.db.kysely.selectFrom('logs').select('quota').where('user_id', '=', payers[0]!.userId).execute();
    expect(logs.map((log) => Number(log.quota))).toEqual([5]);
  });
});

/** A transaction on its own connection, standing for a take on another node, step by step. */
async function outsideTransaction(dialect: 'postgres' | 'mysql', dsn: string) {
  if (dialect === 'postgres') {
    const client = new pg.Client({ connectionString: dsn });
    await client.connect();
    await client.query('BEGIN');
    return {
      run: async (text: string) => void (await client.query(text)),
      end: async () => {
        await client.query('COMMIT');
        await client.end();
      },
    };
  }
  const connection = await createConnection(dsn);
  await connection.query('BEGIN');
  return {
    run: async (text: string) => void (await connection.query(text)),
    end: async () => {
      await connection.query('COMMIT');
      await connection.end();
    },
  };
}

describe.each(['postgres', 'mysql'] as const)('row lock order of flushes on %s', (dialect) => {
  let fresh: FreshDb;
  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
  });
  afterAll(async () => {
    await fresh.drop();
  });

  it('a flush locks its lease rows in id order, as takes do, so a take and a flush never deadlock', async () => {
    const { db } = fresh;
    const store = new LeaseStore(db, 'node-f/lock', 'node-f');
    await store.register();
    const ledger = new QuotaLedger(db, store);
    const userId = await insertReturningId(db, 'users', { username: 'lock-order', password: 'x', quota: 1000, created_at: 0 });
    const tokenId = await insertReturningId(db, 'tokens', { user_id: userId, key: 'lock-order', created_time: 0, remain_quota: 1000 });
    const user = ledger.leases.account(LeaseKind.User, userId);
    const token = ledger.leases.account(LeaseKind.Token, tokenId);
    expect(
      await store.take([
        { account: token, amount: 400 },
        { account: user, amount: 400 },
      ]),
    ).toBeUndefined();
    for (const account of [user, token]) {
      account.granted += 250;
      account.charged += 150;
    }
    ledger.addUser(userId, { usedQuota: 150, requestCount: 1 });
    ledger.addToken(tokenId, { usedQuota: 150 });
    const [low, high] = [user.rowId!, token.rowId!].sort((a, b) => a - b);
    // The lower row's live version now sits after the higher one in the table, where a plain
    // multi-row UPDATE meets it second.
    await db.kysely
      .updateTable('quota_leases')
      .set((eb) => ({ amount: eb('amount', '+', 0) }))
      .where('id', '=', low!)
      .execute();

    // A take elsewhere has locked the lower row; the flush starts and must wait for it with the
    // higher row still free, so the take can lock that one next and finish.
    const take = await outsideTransaction(dialect, fresh.sqlDsn);
    await take.run(`SELECT id FROM quota_leases WHERE id = ${low} FOR UPDATE`);
    const flushed = ledger.flush().then(
      () => 'flushed',
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await take.run(`SELECT id FROM quota_leases WHERE id = ${high} FOR UPDATE`).then(
      () => 'locked',
      (error: Error) => error.message,
    );
    await take.end();
    expect([second, await flushed]).toEqual(['locked', 'flushed']);
    // Nothing lost: the charges left the lease rows, the rest stayed there or went back.
    const rows = await db.kysely.selectFrom('quota_leases').select(['entity_id', 'kind', 'amount']).where('holder', '=', store.holder).execute();
    const heldBy = (kind: LeaseKind) => rows.filter((row) => Number(row.kind) === kind).reduce((sum, row) => sum + Number(row.amount), 0);
    const balance = await db.kysely
      .selectFrom('users')
      .innerJoin('tokens', 'tokens.user_id', 'users.id')
      .select(['users.quota', 'tokens.remain_quota'])
      .where('users.id', '=', userId)
      .executeTakeFirstOrThrow();
    expect([Number(balance.quota) + heldBy(LeaseKind.User), Number(balance.remain_quota) + heldBy(LeaseKind.Token)]).toEqual([850, 850]);
  });

  it('a flush locks the users it updates in id order, so flushes on two nodes never deadlock', async () => {
    const { db } = fresh;
    const store = new LeaseStore(db, 'node-g/lock', 'node-g');
    await store.register();
    const ledger = new QuotaLedger(db, store);
    const [low, high] = [
      await insertReturningId(db, 'users', { username: 'lock-low', password: 'x', quota: 0, created_at: 0 }),
      await insertReturningId(db, 'users', { username: 'lock-high', password: 'x', quota: 0, created_at: 0 }),
    ];
    await db.kysely
      .updateTable('users')
      .set((eb) => ({ used_quota: eb('used_quota', '+', 0) }))
      .where('id', '=', low!)
      .execute();
    ledger.addUser(high!, { usedQuota: 5, requestCount: 1 });
    ledger.addUser(low!, { usedQuota: 7, requestCount: 1 });
    // Another node's flush has locked the lower user and goes on to the higher one.
    const other = await outsideTransaction(dialect, fresh.sqlDsn);
    await other.run(`UPDATE users SET used_quota = used_quota + 1 WHERE id = ${low}`);
    const flushed = ledger.flush().then(
      () => 'flushed',
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await other.run(`UPDATE users SET used_quota = used_quota + 1 WHERE id = ${high}`).then(
      () => 'locked',
      (error: Error) => error.message,
    );
    await other.end();
    expect([second, await flushed]).toEqual(['locked', 'flushed']);
    const used = await db.kysely.selectFrom('users').select(['id', 'used_quota']).where('id', 'in', [low!, high!]).orderBy('id').execute();
    expect(used.map((row) => Number(row.used_quota))).toEqual([8, 6]);
  });
});
