import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../db/index.js';
import { createFreshDb, DIALECTS } from '../../test-support/dialects.js';
import { UserRepository } from './user-repository.js';

/** The users table's index names and their columns, on each dialect. */
async function userIndexes(db: Db): Promise<Record<string, string[]>> {
  const query =
    db.dialect === 'sqlite'
      ? sql<{ name: string; column: string }>`select il.name as name, ii.name as "column" from pragma_index_list('users') il, pragma_index_info(il.name) ii
          where il.origin = 'c' order by il.name, ii.seqno`
      : db.dialect === 'postgres'
        ? sql<{ name: string; column: string }>`select i.relname as name, a.attname as "column" from pg_index x
            join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
            join lateral unnest(x.indkey) with ordinality as k(attnum, position) on true
            join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
            where t.relname = 'users' and not x.indisprimary order by i.relname, k.position`
        : sql<{ name: string; column: string }>`select index_name as name, column_name as \`column\` from information_schema.statistics
            where table_schema = database() and table_name = 'users' and index_name <> 'PRIMARY' order by index_name, seq_in_index`;
  const { rows } = await query.execute(db.kysely);
  const indexes: Record<string, string[]> = {};
  for (const row of rows) (indexes[row.name] ??= []).push(row.column);
  return indexes;
}

// users.oidc_id and its index come with the initial schema (new-api's column name), so OIDC
// needs no migration of its own; this pins them on every dialect the sign-in looks users up on.
describe.each(DIALECTS)('users.oidc_id on %s', (dialect) => {
  it('is an indexed column, empty by default, that finds the user bound to a sub', async () => {
    const fresh = await createFreshDb(dialect);
    try {
      expect((await userIndexes(fresh.db)).idx_users_oidc_id).toEqual(['oidc_id']);
      const repository = new UserRepository(fresh.db);
      const plain = await repository.insert({ username: 'plain', password: '', display_name: 'plain' });
      const bound = await repository.insert({ username: 'bound', password: '', display_name: 'bound' });
      expect((await repository.findById(plain))!.oidc_id).toBe('');
      const sub = 'auth0|5f7c8ec7c33c6c004bbafe82';
      await repository.update(bound, { oidc_id: sub });
      expect(Number((await repository.findByBinding('oidc_id', sub))!.id)).toBe(bound);
      // A sub is case-sensitive (OIDC Core §5.7): one differing only in case is another account,
      // also under MariaDB's case-insensitive default collation.
      expect(await repository.findByBinding('oidc_id', 'AUTH0|5F7C8EC7C33C6C004BBAFE82')).toBeUndefined();
      const upper = await repository.insert({ username: 'upper', password: '', display_name: 'upper', oidc_id: 'AUTH0|5F7C8EC7C33C6C004BBAFE82' });
      expect(Number((await repository.findByBinding('oidc_id', 'AUTH0|5F7C8EC7C33C6C004BBAFE82'))!.id)).toBe(upper);
      expect(Number((await repository.findByBinding('oidc_id', sub))!.id)).toBe(bound);
    } finally {
      await fresh.drop();
    }
  });
});
