import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';
import { partitionMysqlLogs } from '../log-partitions.js';

/**
 * MySQL/MariaDB: the logs table becomes partitioned by month, as PostgreSQL's did in 017
 * (db/log-partitions.ts: logs_old, a partition per month, logs_future), so retention and clearing
 * drop whole months instead of deleting their rows one by one. The ALTER copies the table (about a
 * minute per few million rows; the master migrates before it serves). `log_partition_drops` records
 * a month being dropped: MySQL commits each DDL statement on its own, so the drop and the rollups'
 * matching hours cannot share a transaction; a drop interrupted by a crash is finished from it
 * (domain/logs/log-retention.ts).
 *
 * SQLite and PostgreSQL: nothing (PostgreSQL was partitioned by 017).
 */
export function mysqlLogPartitions(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'mysql') return;
      await db.schema
        .createTable('log_partition_drops')
        .addColumn('name', sql`varchar(64)`, (col) => col.primaryKey())
        .addColumn('from_at', 'bigint', (col) => col.notNull())
        .addColumn('to_at', 'bigint', (col) => col.notNull())
        .execute();
      await partitionMysqlLogs(db);
    },
    async down(db: Kysely<any>) {
      if (dialect !== 'mysql') return;
      await sql`alter table logs remove partitioning`.execute(db);
      await sql`alter table logs drop primary key, add primary key (id)`.execute(db);
      await db.schema.dropTable('log_partition_drops').execute();
    },
  };
}
