import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS } from '../../test-support/dialects.js';
import { migrateToLatest } from '../migrate.js';
import { RATE_LIMIT_COLUMNS, rateLimits } from './010-rate-limits.js';

describe.each(DIALECTS)('migration 010-rate-limits on %s', (dialect) => {
  it('runs on a database that already ran 011 and 012 (it came after them), rows from before reading 0', async () => {
    const fresh = await createFreshDb(dialect);
    try {
      const { kysely } = fresh.db;
      // The database as a release with 011 and 012 but without 010 left it, holding a user and a token.
      await rateLimits().down!(kysely);
      await sql`delete from kysely_migration where name = ${'010-rate-limits'}`.execute(kysely);
      const userId = Number(
        (await kysely.insertInto('users').values({ username: 'before', password: 'x', created_at: 1 }).returning('id').executeTakeFirst())?.id ??
          (await kysely.selectFrom('users').select('id').where('username', '=', 'before').executeTakeFirstOrThrow()).id,
      );
      await kysely
        .insertInto('tokens')
        .values({ user_id: userId, key: 'k'.repeat(48), created_time: 1 })
        .execute();

      expect(await migrateToLatest(fresh.db)).toEqual(['010-rate-limits']);
      const user = await kysely.selectFrom('users').select(RATE_LIMIT_COLUMNS).where('id', '=', userId).executeTakeFirstOrThrow();
      const token = await kysely.selectFrom('tokens').select(RATE_LIMIT_COLUMNS).where('user_id', '=', userId).executeTakeFirstOrThrow();
      for (const row of [user, token]) expect(Object.values(row).map(Number)).toEqual([0, 0, 0, 0]);
      expect(await migrateToLatest(fresh.db)).toEqual([]);
    } finally {
      await fresh.drop();
    }
  });
});
