import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';
import { rebuildLogRollups } from '../log-rollups.js';

/**
 * The logs' rollups (db/log-rollups.ts): counts and quota sums per bucket, type and grain key,
 * built here from the logs already written. The primary key leads with the id key and the grain
 * (a user's own rows, a channel; 0 for the grains keyed by a name: a token name, models, a group);
 * the second index with the grain and the names, for an administrator's username filter, whose
 * user ids are not known. (Led by the grain, SQLite took the primary key for a username and read
 * every row of the grain: 100 to 400 ms at 10,000,000 logs.)
 */
export function logRollups(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      // As long as the logs' name columns; with MySQL's utf8mb4 the key stays within InnoDB's 3,072 bytes.
      const name = sql`varchar(255)`;
      await db.schema
        .createTable('log_rollups')
        .addColumn('grain', 'smallint', (col) => col.notNull())
        .addColumn('id_key', 'bigint', (col) => col.notNull())
        .addColumn('name_key', name, (col) => col.notNull())
        .addColumn('model_key', name, (col) => col.notNull())
        .addColumn('type', 'smallint', (col) => col.notNull())
        .addColumn('bucket', 'bigint', (col) => col.notNull())
        .addColumn('log_count', 'bigint', (col) => col.notNull())
        .addColumn('quota', 'bigint', (col) => col.notNull())
        .addPrimaryKeyConstraint('log_rollups_pkey', ['id_key', 'grain', 'name_key', 'model_key', 'type', 'bucket'])
        // SQLite: the rows kept in the primary key's order (no rowid), as InnoDB keeps them.
        .$call((table) => (dialect === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table))
        .execute();
      await db.schema.createIndex('idx_log_rollups_names').on('log_rollups').columns(['grain', 'name_key', 'model_key', 'type', 'bucket']).execute();
      await rebuildLogRollups(db, dialect);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('log_rollups').execute();
    },
  };
}
