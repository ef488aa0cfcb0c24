import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * The audit log (issue 28): one row per admin or root action, kept apart from the usage logs so
 * that clearing those (DELETE /api/log/) never touches it. Pages read newest first, by time, by
 * actor or by action, each served by its own index.
 */
export function auditLogs(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const details = dialect === 'mysql' ? sql`mediumtext` : sql`text`;
      const idType = dialect === 'postgres' ? 'bigserial' : dialect === 'mysql' ? 'bigint' : 'integer';
      await db.schema
        .createTable('audit_logs')
        .addColumn('id', idType, (col) => (dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement()))
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('actor_id', 'bigint', (col) => col.notNull().defaultTo(0))
        .addColumn('actor_username', sql`varchar(191)`, (col) => col.notNull().defaultTo(''))
        .addColumn('actor_role', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('ip', sql`varchar(64)`, (col) => col.notNull().defaultTo(''))
        .addColumn('action', sql`varchar(64)`, (col) => col.notNull())
        .addColumn('target_type', sql`varchar(32)`, (col) => col.notNull().defaultTo(''))
        .addColumn('target_id', sql`varchar(191)`, (col) => col.notNull().defaultTo(''))
        .addColumn('summary', sql`varchar(1024)`, (col) => col.notNull().defaultTo(''))
        .addColumn('details', details, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('idx_audit_logs_created_at').on('audit_logs').column('created_at').execute();
      await db.schema.createIndex('idx_audit_logs_actor').on('audit_logs').columns(['actor_id', 'id']).execute();
      await db.schema.createIndex('idx_audit_logs_action').on('audit_logs').columns(['action', 'id']).execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('audit_logs').execute();
    },
  };
}
