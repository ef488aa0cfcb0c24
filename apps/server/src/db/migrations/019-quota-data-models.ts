import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * The dashboard at scale. An administrator's chart sums every user's quota_data per model and
 * hour: with thousands of users that is hundreds of thousands of rows a week. quota_data_models
 * holds those sums (the usage export adds to both tables in one transaction), so the chart reads
 * a row per model and hour. One user's rows (the admin's username filter, a user's own chart)
 * are read from quota_data by (username, created_at) and (user_id, created_at) ranges instead of
 * every row of the user (the old user_id index, which the second replaces) or of the range.
 */
export function quotaDataModels(dialect: DialectName): Migration {
  const dropIndex = (db: Kysely<any>, name: string) => {
    const statement = db.schema.dropIndex(name);
    return (dialect === 'mysql' ? statement.on('quota_data') : statement).execute();
  };
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('quota_data_models')
        .addColumn('model_name', sql`varchar(255)`, (col) => col.notNull())
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('token_used', 'bigint', (col) => col.notNull())
        .addColumn('count', 'bigint', (col) => col.notNull())
        .addColumn('quota', 'bigint', (col) => col.notNull())
        .addPrimaryKeyConstraint('quota_data_models_pkey', ['created_at', 'model_name'])
        .$call((table) => (dialect === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table))
        .execute();
      const sum = (column: string) => (dialect === 'postgres' ? sql`coalesce(sum(${sql.ref(column)}), 0)::bigint` : sql`coalesce(sum(${sql.ref(column)}), 0)`);
      await sql`insert into quota_data_models (model_name, created_at, token_used, count, quota)
        select model_name, created_at, ${sum('token_used')}, ${sum('count')}, ${sum('quota')} from quota_data group by model_name, created_at`.execute(db);
      await db.schema.createIndex('idx_quota_data_user_time').on('quota_data').columns(['user_id', 'created_at']).execute();
      await db.schema.createIndex('idx_quota_data_username_time').on('quota_data').columns(['username', 'created_at']).execute();
      await dropIndex(db, 'idx_quota_data_user_id');
    },
    async down(db: Kysely<any>) {
      await db.schema.createIndex('idx_quota_data_user_id').on('quota_data').column('user_id').execute();
      await dropIndex(db, 'idx_quota_data_username_time');
      await dropIndex(db, 'idx_quota_data_user_time');
      await db.schema.dropTable('quota_data_models').execute();
    },
  };
}
