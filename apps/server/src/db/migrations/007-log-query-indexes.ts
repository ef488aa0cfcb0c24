import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * Log indexes that answer the console's counts and sums from the index alone (measured on
 * 1,000,000 logs with `npm run bench -- --only logs`; bench/README.md has the figures).
 *
 * 004 left each filter as (column, id): a page walks it and stops after ten rows, but the page's
 * COUNT and the stat's SUM(quota) read the table for every matching row to see type, created_at
 * and quota (SQLite: 0.3 to 1 s for a popular model or the whole table). Each index now carries
 * those columns (and user_id, for a user's own rows with one more filter) after its keys, so the
 * same walk, every count and every sum stay inside the index: index-only scans on PostgreSQL (the
 * visibility map is kept by autovacuum) and covering indexes on SQLite and InnoDB. Their key order
 * is unchanged, so each replaces the one before it at one index write per row as before; the
 * user's (user_id, type, id) index goes, since (user_id, id, type, ...) serves its pages too.
 * (created_at, type) gains quota so a time range's sum reads only that range.
 */
const PAYLOAD = ['type', 'created_at', 'quota', 'user_id'];

const REPLACED: { old: string; name: string; columns: string[] }[] = [
  ...(['username', 'token_name', 'model_name', 'channel_id', 'group'] as const).map((column) => ({
    old: `idx_logs_${column}_id`,
    name: `idx_logs_${column}_covering`,
    columns: [column, 'id', ...PAYLOAD],
  })),
  { old: 'idx_logs_type_id', name: 'idx_logs_type_covering', columns: ['type', 'id', 'created_at', 'quota'] },
  { old: 'idx_user_id_id', name: 'idx_logs_user_id_covering', columns: ['user_id', 'id', 'type', 'created_at', 'quota'] },
  { old: 'idx_created_at_type', name: 'idx_logs_created_at_covering', columns: ['created_at', 'type', 'quota'] },
];

/** What 004 and 001 had, for down(). */
const RESTORED: Record<string, string[]> = {
  idx_logs_username_id: ['username', 'id'],
  idx_logs_token_name_id: ['token_name', 'id'],
  idx_logs_model_name_id: ['model_name', 'id'],
  idx_logs_channel_id_id: ['channel_id', 'id'],
  idx_logs_group_id: ['group', 'id'],
  idx_logs_type_id: ['type', 'id'],
  idx_user_id_id: ['user_id', 'id'],
  idx_created_at_type: ['created_at', 'type'],
};

export function logQueryIndexes(dialect: DialectName): Migration {
  const drop = (db: Kysely<any>, name: string) => {
    const statement = db.schema.dropIndex(name);
    return (dialect === 'mysql' ? statement.on('logs') : statement).execute();
  };
  return {
    async up(db: Kysely<any>) {
      for (const { old, name, columns } of REPLACED) {
        await db.schema.createIndex(name).on('logs').columns(columns).execute();
        await drop(db, old);
      }
      await drop(db, 'idx_logs_user_type_id');
    },
    async down(db: Kysely<any>) {
      await db.schema.createIndex('idx_logs_user_type_id').on('logs').columns(['user_id', 'type', 'id']).execute();
      for (const { old, name } of REPLACED) {
        await db.schema.createIndex(old).on('logs').columns(RESTORED[old]!).execute();
        await drop(db, name);
      }
    },
  };
}
