import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { TokenRepository } from './token-repository.js';

const paging = { page: 1, pageSize: 10, offset: 0 };

describe.each(DIALECTS)('token repository on %s', (dialect) => {
  let fresh: FreshDb;
  let repository: TokenRepository;
  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
    repository = new TokenRepository(fresh.db);
  });
  afterAll(async () => fresh?.drop());

  const insert = (userId: number, key: string, values: object = {}) =>
    repository.insert({ user_id: userId, key, name: key, created_time: 1, remain_quota: 10, expired_time: -1, ...values });

  it('scopes every read and write to the owner, and searches names and keys literally', async () => {
    const mine = await insert(1, 'AbCdEf_one', { name: 'My 100% token' });
    const theirs = await insert(2, 'zzzz_two', { name: 'theirs' });
    expect(await repository.findOwned(1, theirs)).toBeUndefined();
    expect((await repository.list(1, {}, paging)).items.map((row) => Number(row.id))).toEqual([mine]);
    expect((await repository.list(1, { keyword: 'my 100%' }, paging)).total).toBe(1);
    expect((await repository.list(1, { keyword: '1000' }, paging)).total).toBe(0);
    expect((await repository.list(1, { key: 'sk-AbCdEf' }, paging)).total).toBe(1);
    expect((await repository.list(1, { key: 'zzzz' }, paging)).total).toBe(0);

    await repository.update(1, theirs, { name: 'hijacked' });
    expect(await repository.delete(1, theirs)).toBe(false);
    expect((await repository.findOwned(2, theirs))?.name).toBe('theirs');
  });

  it('enables only a token that is neither expired nor used up, also when it is already enabled', async () => {
    const now = Math.floor(Date.now() / 1000);
    const usable = await insert(3, 'usable', { status: 2 });
    const expired = await insert(3, 'expired', { status: 3, expired_time: now - 1 });
    const empty = await insert(3, 'empty', { status: 4, remain_quota: 0 });
    const unlimited = await insert(3, 'unlimited', { status: 2, remain_quota: 0, unlimited_quota: 1, expired_time: now + 60 });
    // No relay leases here: what a token can spend is its column.
    const remaining = sql<number>`remain_quota`;
    expect(await repository.enableIfUsable(3, usable, now, remaining)).toBe(true);
    expect(await repository.enableIfUsable(3, usable, now, remaining)).toBe(true);
    expect(await repository.enableIfUsable(3, expired, now, remaining)).toBe(false);
    expect(await repository.enableIfUsable(3, empty, now, remaining)).toBe(false);
    expect(await repository.enableIfUsable(3, unlimited, now, remaining)).toBe(true);
    expect(await repository.enableIfUsable(4, unlimited, now, remaining)).toBe(false);
    expect(Number((await repository.findOwned(3, expired))?.status)).toBe(3);
  });
});
