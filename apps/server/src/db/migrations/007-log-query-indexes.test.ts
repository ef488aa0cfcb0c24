import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../index.js';
import { createFreshDb, DIALECTS } from '../../test-support/dialects.js';
import { logQueryIndexes } from './007-log-query-indexes.js';

/** The logs table's index names and their columns in order, on each dialect. */
async function logIndexes(db: Db): Promise<Record<string, string[]>> {
  const query =
    db.dialect === 'sqlite'
      ? sql<{ name: string; column: string }>`select il.name as name, ii.name as "column" from pragma_index_list('logs') il, pragma_index_info(il.name) ii
          where il.origin = 'c' order by il.name, ii.seqno`
      : db.dialect === 'postgres'
        ? sql<{ name: string; column: string }>`select i.relname as name, a.attname as "column" from pg_index x
            join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
            join lateral unnest(x.indkey) with ordinality as k(attnum, position) on true
            join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
            where t.relname = 'logs' and not x.indisprimary order by i.relname, k.position`
        : sql<{ name: string; column: string }>`select index_name as name, column_name as \`column\` from information_schema.statistics
            where table_schema = database() and table_name = 'logs' and index_name <> 'PRIMARY' order by index_name, seq_in_index`;
  const { rows } = await query.execute(db.kysely);
  const indexes: Record<string, string[]> = {};
  for (const row of rows) (indexes[row.name] ??= []).push(row.column);
  return indexes;
}

describe.each(DIALECTS)('migration 007-log-query-indexes on %s', (dialect) => {
  it('gives every log filter an index with type, created_at, quota and user_id, and down() brings back 004', async () => {
    const fresh = await createFreshDb(dialect);
    try {
      const { kysely } = fresh.db;
      const after = await logIndexes(fresh.db);
      const payload = ['id', 'type', 'created_at', 'quota', 'user_id'];
      for (const column of ['username', 'token_name', 'model_name', 'channel_id', 'group']) {
        expect(after[`idx_logs_${column}_covering`]).toEqual([column, ...payload]);
        expect(after[`idx_logs_${column}_id`]).toBeUndefined();
      }
      expect(after.idx_logs_type_covering).toEqual(['type', 'id', 'created_at', 'quota']);
      expect(after.idx_logs_user_id_covering).toEqual(['user_id', 'id', 'type', 'created_at', 'quota']);
      expect(after.idx_logs_created_at_covering).toEqual(['created_at', 'type', 'quota']);
      expect(Object.keys(after).sort()).toEqual([
        'idx_logs_channel_id_covering',
        'idx_logs_created_at_covering',
        'idx_logs_group_covering',
        'idx_logs_model_name_covering',
        'idx_logs_token_id',
        'idx_logs_token_name_covering',
        'idx_logs_type_covering',
        'idx_logs_user_id_covering',
        'idx_logs_username_covering',
      ]);

      await logQueryIndexes(dialect).down!(kysely);
      const before = await logIndexes(fresh.db);
      expect(before).toMatchObject({
        idx_logs_model_name_id: ['model_name', 'id'],
        idx_logs_type_id: ['type', 'id'],
        idx_logs_user_type_id: ['user_id', 'type', 'id'],
        idx_user_id_id: ['user_id', 'id'],
        idx_created_at_type: ['created_at', 'type'],
      });
      expect(Object.keys(before).filter((name) => name.endsWith('_covering'))).toEqual([]);
      await logQueryIndexes(dialect).up(kysely);
      expect(await logIndexes(fresh.db)).toEqual(after);
    } finally {
      await fresh.drop();
    }
  });
});
