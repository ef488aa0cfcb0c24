import { Migrator } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { insertReturningId } from '../index.js';
import { migrateToLatest } from '../migrate.js';
import { initialSchema } from './001-initial-schema.js';

let fresh: FreshDb | undefined;
afterEach(async () => {
  await fresh?.drop();
  fresh = undefined;
});

describe.each(DIALECTS)('migration 002 on %s', (dialect) => {
  it('backfills username keys, keeping names that already collide by suffixing the later key, then guards them', async () => {
    fresh = await createFreshDb(dialect, { migrate: false });
    const { db } = fresh;
    // A database as it stood before 002: only the initial schema.
    const before = new Migrator({ db: db.kysely, provider: { getMigrations: async () => ({ '001-initial-schema': initialSchema(dialect) }) } });
    expect((await before.migrateToLatest()).error).toBeUndefined();
    const ids: Record<string, number> = {};
    // MySQL's case-insensitive collation never let Root in beside root; the other dialects did.
    const names = ['root', ...(dialect === 'mysql' ? [] : ['Root']), 'r\u043eot', 'bob', 'ＢＯＢ', 'carol'];
    for (const username of names) {
      ids[username] = await insertReturningId(db, 'users', { username, password: 'x' });
    }

    expect(await migrateToLatest(db)).toContain('002-sessions');
    const rows = await db.kysely.selectFrom('users').select(['username', 'username_key']).orderBy('id').execute();
    expect(rows).toEqual([
      { username: 'root', username_key: 'root' },
      ...(dialect === 'mysql' ? [] : [{ username: 'Root', username_key: `root#${ids.Root}` }]),
      { username: 'r\u043eot', username_key: `root#${ids['r\u043eot']}` },
      { username: 'bob', username_key: 'bob' },
      { username: 'ＢＯＢ', username_key: `bob#${ids['ＢＯＢ']}` },
      { username: 'carol', username_key: 'carol' },
    ]);
    await expect(db.kysely.insertInto('users').values({ username: 'CAROL', username_key: 'carol', password: 'x' }).execute()).rejects.toThrow();
    // Rows written without a key (imports, raw inserts) do not collide with each other.
    await insertReturningId(db, 'users', { username: 'dave', password: 'x' });
    await insertReturningId(db, 'users', { username: 'erin', password: 'x' });

    const sessionId = await insertReturningId(db, 'sessions', {
      token_hash: 'a'.repeat(64),
      user_id: ids.root!,
      created_at: 1,
      last_seen_at: 1,
      expires_at: 2,
    });
    expect(await db.kysely.selectFrom('sessions').selectAll().where('id', '=', sessionId).executeTakeFirst()).toMatchObject({
      ip: '',
      user_agent: '',
      expires_at: 2,
    });
    await expect(
      db.kysely
        .insertInto('sessions')
        .values({ token_hash: 'a'.repeat(64), user_id: 2, created_at: 1, last_seen_at: 1, expires_at: 2 })
        .execute(),
    ).rejects.toThrow();
  });
});
