import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../../db/index.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { OptionService } from '../options/option-service.js';
import { ChargeService } from './charge-service.js';
import { LeaseBook, LeaseKind } from './lease-book.js';
import { LeaseStore } from './lease-store.js';
import type { Payer } from './payer.js';
import { QuotaLedger } from './quota-ledger.js';

/**
 * What a busy payer keeps in this process's lease across flushes, and the early refill: a payer's
 * calls must not find its lease empty while a flush holds the database (issue 30, tail latency).
 */
describe('what a flush leaves in a lease', () => {
  const busyAccount = (book: LeaseBook, granted: number, charged: number, held: number) => {
    const account = book.account(LeaseKind.User, 1);
    account.rowId = 1;
    account.granted = granted;
    account.charged = charged;
    account.held = held;
    return account;
  };

  it('keeps an interval of spending plus twice what calls in flight hold, and gives back the rest', () => {
    const book = new LeaseBook();
    const start = Date.now();
    const account = busyAccount(book, 20_000, 900, 3_000);
    const [entry] = book.beginFlush(false, start + 300);
    // free 17,000: keeps 900 + 2 × 3,000.
    expect(entry).toMatchObject({ charged: 900, returned: 17_000 - 6_900 });
    expect(account.free).toBe(6_900);
    expect(account.previousCharged).toBe(900);
  });

  it("a flush just after another does not take the few charges between them for the payer's pace", () => {
    const book = new LeaseBook();
    const start = Date.now();
    const account = busyAccount(book, 20_000, 900, 0);
    book.beginFlush(false, start + 300);
    // 50 ms later (a timer's flush after a full buffer's): 30 charged, 10 calls holding 100 each.
    account.granted += 30_000;
    account.charged = 30;
    account.held = 1_000;
    const free = account.free;
    book.beginFlush(false, start + 350);
    const recent = Math.floor(900 * 0.5 ** 0.05);
    expect(account.free).toBe(Math.min(free, recent + 2_000));
    expect(account.previousCharged).toBe(recent);
    // A busy payer's low-water mark follows: half of what the flush kept.
    expect(account.lowWater).toBe(Math.floor((recent + 1_000) / 2));
  });

  it('an idle payer (nothing charged, nothing in flight) gets every free unit back, and the pace is forgotten', () => {
    const book = new LeaseBook();
    const start = Date.now();
    const account = busyAccount(book, 20_000, 900, 0);
    book.beginFlush(false, start + 300);
    book.beginFlush(false, start + 600);
    expect(account.free).toBe(0);
    expect(account.previousCharged).toBe(0);
    expect(account.lowWater).toBe(0);
  });

  it('the pace fades by half a second: a payer that slowed down keeps less', () => {
    const book = new LeaseBook();
    const start = Date.now();
    const account = busyAccount(book, 100_000, 8_000, 0);
    book.beginFlush(false, start + 1_000);
    account.charged = 10;
    book.beginFlush(false, start + 4_000);
    expect(account.previousCharged).toBe(1_000);
    expect(account.free).toBe(1_000);
  });

  it('a drain gives everything back', () => {
    const book = new LeaseBook();
    const account = busyAccount(book, 20_000, 900, 3_000);
    book.beginFlush(true);
    expect(account.free).toBe(0);
    expect(account.held).toBe(3_000);
  });
});

describe('the early refill (SQLite)', () => {
  let fresh: FreshDb;
  beforeAll(async () => {
    fresh = await createFreshDb('sqlite');
  });
  afterAll(async () => {
    await fresh.drop();
  });

  it("tops up a busy payer's lease before it runs out, while a flush holds the database, without a call waiting", async () => {
    const { db } = fresh;
    const store = new LeaseStore(db, 'refill/1', 'refill');
    await store.register();
    const ledger = new QuotaLedger(db, store);
    const charged: number[] = [];
    const charges = new ChargeService(
      store,
      ledger,
      { charged: (_payer, amount) => charged.push(amount), invalidate: () => undefined },
      new OptionService(db),
      1000,
    );
    const userId = await insertReturningId(db, 'users', { username: 'refill', password: 'x', quota: 10_000_000, created_at: 0 });
    const payer: Payer = { userId, tokenId: 0, limitedToken: false } as Payer;
    const quota = async () => Number((await db.kysely.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota);

    // An interval of calls: each holds 500 and costs 10.
    const call = () => {
      const reservation = charges.reserveFromLease(payer, 500);
      if (!reservation) return false;
      charges.settle(reservation, 10, 1);
      return true;
    };
    // 200 calls: from the lease when it covers them, else through a take (reserve).
    for (let index = 0; index < 200; index += 1) {
      if (call()) continue;
      const reservation = await charges.reserve(payer, 500, () => ({ full: 500 }));
      charges.settle(reservation, 10, 1);
    }
    await charges.settled();
    await ledger.flush();
    const user = ledger.leases.account(LeaseKind.User, userId);
    // The interval's 2,000 spent: the lease keeps that much.
    expect(user.previousCharged).toBe(2_000);
    expect(user.free).toBe(2_000);

    // Calls go on while a flush writes (its transaction yields to the event loop between slices):
    // none finds the lease empty, and the refill they start is written after the flush.
    for (let index = 0; index < 3_000; index += 1) ledger.logs.push(logRow(userId));
    for (let index = 0; index < 10; index += 1) expect(call()).toBe(true);
    const flushing = ledger.flush();
    const takesBefore = await quota();
    let servedFromLease = 0;
    let refillStartedDuringFlush = false;
    for (let round = 0; round < 60; round += 1) {
      for (let index = 0; index < 2; index += 1) if (call()) servedFromLease += 1;
      if (user.topUp !== undefined) refillStartedDuringFlush = true;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.race([flushing.then(() => 'flushed'), Promise.resolve('flushing')])).toBe('flushing');
    await flushing;
    await charges.settled();
    // 120 calls while the flush was written, every one from the lease; below half of what it
    // kept, a refill started (and waited for the flush's transaction, not the calls).
    expect(servedFromLease).toBe(120);
    expect(refillStartedDuringFlush).toBe(true);
    // The refill took more balance into the lease in the background.
    expect(await quota()).toBeLessThan(takesBefore);
    expect(user.free).toBeGreaterThanOrEqual(user.lowWater);

    // The books: balance + lease row + used = the start.
    await ledger.flush(true);
    const row = await db.kysely.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', userId).executeTakeFirstOrThrow();
    const leases = await db.kysely.selectFrom('quota_leases').select('amount').where('holder', '=', store.holder).execute();
    const leased = leases.reduce((sum, lease) => sum + Number(lease.amount), 0);
    expect(Number(row.quota) + leased + Number(row.used_quota)).toBe(10_000_000);
    expect(Number(row.used_quota)).toBe(charged.reduce((sum, amount) => sum + amount, 0));
  });
});

function logRow(userId: number) {
  return {
    user_id: userId,
    created_at: Math.floor(Date.now() / 1000),
    type: 2,
    content: '',
    username: 'refill',
    token_name: '',
    model_name: 'm',
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: 0,
    is_stream: 0,
    channel_id: 1,
    channel_name: '',
    token_id: 0,
    group: '',
    ip: '',
    other: '',
  };
}
