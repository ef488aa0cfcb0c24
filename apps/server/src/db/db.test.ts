import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptionService } from '../domain/options/option-service.js';
import { readKeyCheck } from './secret-key.js';
import { UserService } from '../domain/users/user-service.js';
import { createFreshDb, DIALECTS, type FreshDb } from '../test-support/dialects.js';
import { insertReturningId } from './index.js';
import { migrateToLatest } from './migrate.js';

const TABLES = ['users', 'tokens', 'channels', 'abilities', 'options', 'redemptions', 'logs', 'top_ups', 'midjourneys', 'tasks', 'quota_data'];

describe.each(DIALECTS)('database on %s', (dialect) => {
  let fresh: FreshDb;
  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
  });
  afterAll(async () => {
    await fresh?.drop();
  });

  it('creates every table with new-api’s names, and a second migration run changes nothing', async () => {
    const { db } = fresh;
    for (const table of TABLES) {
      const row = await sql<{ total: number }>`select count(*) as total from ${sql.table(table)}`.execute(db.kysely);
      // options holds one row from the start: the secret key's check (db/secret-key.ts).
      expect(Number(row.rows[0]!.total), table).toBe(table === 'options' ? 1 : 0);
    }
    expect(await readKeyCheck(db)).toMatch(/^enc:v1:/);
    expect(await migrateToLatest(db)).toEqual([]);
    const columns = await db.kysely.introspection.getTables();
    const logs = columns.find((table) => table.name === 'logs')!;
    expect(logs.columns.map((column) => column.name)).toEqual(
      expect.arrayContaining([
        'created_at',
        'type',
        'channel_id',
        'token_name',
        'model_name',
        'prompt_tokens',
        'completion_tokens',
        'use_time',
        'is_stream',
        'group',
        'other',
      ]),
    );
    const users = columns.find((table) => table.name === 'users')!;
    expect(users.columns.map((column) => column.name)).toEqual(
      expect.arrayContaining(['aff_history', 'access_token', 'deleted_at', 'group', 'quota', 'used_quota']),
    );
  });

  it('inserts with generated ids, reads text defaults as empty strings and integers as numbers', async () => {
    const { db } = fresh;
    const first = await insertReturningId(db, 'channels', { key: 'k1', name: 'one', created_time: 1 });
    const second = await insertReturningId(db, 'channels', { key: 'k2', name: 'two', created_time: 2 });
    expect(second).toBe(first + 1);
    const row = await db.kysely.selectFrom('channels').selectAll().where('id', '=', first).executeTakeFirstOrThrow();
    expect(row.models).toBe('');
    expect(row.group).toBe('default');
    expect(row.status).toBe(1);
    expect(row.auto_ban).toBe(1);
    expect(typeof row.used_quota).toBe('number');
    expect(row.balance).toBe(0);
  });

  it('creates root once and finds users by login and access token', async () => {
    const users = new UserService(fresh.db);
    expect(await users.ensureRootUser()).toBe(true);
    expect(await users.ensureRootUser()).toBe(false);
    const root = await users.repository.findLiveByLogin('root');
    expect(root?.role).toBe(100);
    expect(root?.quota).toBe(100_000_000);
    const token = await users.resetAccessToken(Number(root!.id));
    expect((await users.repository.findByAccessToken(token))?.username).toBe('root');
  });

  it('stores options with an upsert and reads them back on another service', async () => {
    const writer = new OptionService(fresh.db);
    await writer.set('QuotaPerUnit', '1000');
    await writer.set('QuotaPerUnit', '2000');
    await writer.set('GroupRatio', '{"default":1,"vip":0.5}');
    const reader = new OptionService(fresh.db);
    await reader.refresh();
    expect(reader.number('QuotaPerUnit')).toBe(2000);
    expect(reader.json<Record<string, number>>('GroupRatio')).toEqual({ default: 1, vip: 0.5 });
  });

  it('a conditional decrement never overspends under 60 concurrent attempts', async () => {
    const { db } = fresh;
    const id = await insertReturningId(db, 'users', { username: `spender_${dialect}`, password: 'x', quota: 250 });
    const attempts = Array.from({ length: 60 }, () =>
      db.kysely
        .updateTable('users')
        .set((eb) => ({ quota: eb('quota', '-', 10), used_quota: eb('used_quota', '+', 10) }))
        .where('id', '=', id)
        .where('quota', '>=', 10)
        .executeTakeFirst(),
    );
    const results = await Promise.all(attempts);
    const succeeded = results.filter((result) => Number(result.numUpdatedRows) === 1).length;
    const row = await db.kysely.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(succeeded).toBe(25);
    expect(row.quota).toBe(0);
    expect(row.used_quota).toBe(250);
  });
});
