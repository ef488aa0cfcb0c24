import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertReturningId } from '../../db/index.js';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { QuotaLedger } from './quota-ledger.js';
import { QuotaStore } from './quota-store.js';

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
    const user = await fresh.db.kysely.selectFrom('users').select(['quota', 'used_quota', 'request_count']).where('id', '=', payer.userId).executeTakeFirstOrThrow();
    const token = await fresh.db.kysely.selectFrom('tokens').select(['remain_quota', 'used_quota', 'accessed_time']).where('id', '=', payer.tokenId).executeTakeFirstOrThrow();
    return { quota: Number(user.quota), userUsed: Number(user.used_quota), requests: Number(user.request_count), remain: Number(token.remain_quota), tokenUsed: Number(token.used_quota), accessed: Number(token.accessed_time) };
  };

  it('takes from token and user both or neither, keeping unflushed spending covered', async () => {
    const store = new QuotaStore(fresh.db);
    const payer = await newPayer(100, 1000);
    expect(await store.take(payer, 60, { user: 0, token: 0 })).toBeUndefined();
    expect(await balances(payer)).toMatchObject({ quota: 40, remain: 940 });
    // The user has 40, but this node already spent 30 of it without writing it yet.
    expect(await store.take(payer, 20, { user: 30, token: 0 })).toBe('user');
    expect(await balances(payer)).toMatchObject({ quota: 40, remain: 940 });
    expect(await store.take({ ...payer, limitedToken: true }, 2000, { user: 0, token: 0 })).toBe('token');
    await store.give(payer, 60);
    expect(await balances(payer)).toMatchObject({ quota: 100, remain: 1000 });
  });

  it('never overdraws under concurrent takes', async () => {
    const store = new QuotaStore(fresh.db);
    const payer = await newPayer(200, 1_000_000);
    const results = await Promise.all(Array.from({ length: 50 }, () => store.take(payer, 10, { user: 0, token: 0 })));
    expect(results.filter((result) => result === undefined)).toHaveLength(20);
    expect(await balances(payer)).toMatchObject({ quota: 0, remain: 1_000_000 - 200 });
  });

  it('flushes deltas for many rows in batched statements, 64-bit amounts included', async () => {
    const ledger = new QuotaLedger(fresh.db);
    const payers = await Promise.all(Array.from({ length: 350 }, () => newPayer(10_000_000_000, 10_000_000_000)));
    payers.forEach((payer, index) => {
      ledger.addUser(payer.userId, { quota: -(index + 1), usedQuota: index + 1, requestCount: 1 });
      ledger.addToken(payer.tokenId, { remainQuota: -(index + 1), usedQuota: index + 1, accessedTime: 1_700_000_000 + index });
    });
    // One more than int4 can hold.
    ledger.addUser(payers[0]!.userId, { usedQuota: 3_000_000_000 });
    ledger.logs.push({
      user_id: payers[0]!.userId, created_at: 1, type: 2, content: '', username: 'u', token_name: 't', model_name: 'm', quota: 5,
      prompt_tokens: 0, completion_tokens: 0, use_time: 0, is_stream: 0, channel_id: 0, channel_name: '', token_id: 0, group: 'default', ip: '', other: '{}',
    });
    expect(ledger.userQuota(payers[0]!.userId)).toBe(-1);
    const result = await ledger.flush();
    expect(result).toEqual({ users: 350, tokens: 350, channels: 0, logs: 1 });
    expect(ledger.userQuota(payers[0]!.userId)).toBe(0);
    expect(await balances(payers[0]!)).toEqual({ quota: 9_999_999_999, userUsed: 3_000_000_001, requests: 1, remain: 9_999_999_999, tokenUsed: 1, accessed: 1_700_000_000 });
    expect(await balances(payers[349]!)).toEqual({ quota: 9_999_999_650, userUsed: 350, requests: 1, remain: 9_999_999_650, tokenUsed: 350, accessed: 1_700_000_349 });
    const logs = await fresh.db.kysely.selectFrom('logs').select('quota').where('user_id', '=', payers[0]!.userId).execute();
    expect(logs.map((log) => Number(log.quota))).toEqual([5]);
  });
});
