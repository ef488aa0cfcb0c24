import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * The journal of balance a relay process holds for calls it serves (see domain/billing/README.md).
 * `relay_nodes` has one row per running process (its heartbeat); `quota_leases` one row per
 * process and balance it leased from. A lease leaves `users.quota` / `tokens.remain_quota` in the
 * same transaction as its row grows, and charges leave the row in the same transaction as their
 * logs and used_quota are written; a process that dies has its rows given back to the balances.
 */
export function quotaLeases(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const id = (builder: ReturnType<typeof db.schema.createTable>) => {
        if (dialect === 'postgres') return builder.addColumn('id', 'bigserial', (col) => col.primaryKey());
        if (dialect === 'mysql') return builder.addColumn('id', 'bigint', (col) => col.primaryKey().autoIncrement());
        return builder.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement());
      };
      await db.schema
        .createTable('relay_nodes')
        .addColumn('holder', sql`varchar(191)`, (col) => col.primaryKey())
        .addColumn('name', sql`varchar(128)`, (col) => col.notNull())
        .addColumn('started_at', 'bigint', (col) => col.notNull())
        .addColumn('heartbeat_at', 'bigint', (col) => col.notNull())
        .execute();
      await id(db.schema.createTable('quota_leases'))
        .addColumn('holder', sql`varchar(191)`, (col) => col.notNull())
        .addColumn('kind', 'bigint', (col) => col.notNull())
        .addColumn('entity_id', 'bigint', (col) => col.notNull())
        .addColumn('amount', 'bigint', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('idx_quota_leases_holder').on('quota_leases').column('holder').execute();
      await db.schema.createIndex('idx_quota_leases_entity').on('quota_leases').columns(['entity_id', 'kind']).execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('quota_leases').execute();
      await db.schema.dropTable('relay_nodes').execute();
    },
  };
}
