import type { Kysely, Migration } from 'kysely';

/**
 * A revision per UTC day of the dashboard's rows: the usage export adds one to each day it writes
 * quota_data and quota_data_models for, in the same transaction. A node that keeps a past day's
 * chart text (domain/usage/usage-chart.ts) reads the day's revision to know whether any node has
 * written to it since, so a month of the administrator's chart is mostly read from memory.
 */
export function quotaDataDays(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('quota_data_days')
        .addColumn('day', 'bigint', (col) => col.notNull().primaryKey())
        .addColumn('revision', 'bigint', (col) => col.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('quota_data_days').execute();
    },
  };
}
