import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * Responses the relay answered on a channel without OpenAI's Responses API, kept so that a later
 * call may name one as `previous_response_id` (domain/responses/response-store.ts). A row holds
 * one turn (its input items and the answer's output items) and the id of the turn before it; a
 * conversation is read by following the ids back. Rows expire (`expires_at`, the retention option)
 * and a job deletes them; only their owner (`user_id`) may continue them.
 */
export function storedResponses(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      // A long turn (a tool's whole output) outgrows MySQL's 64 KB TEXT.
      const body = dialect === 'mysql' ? sql`mediumtext` : sql`text`;
      await db.schema
        .createTable('stored_responses')
        .addColumn('id', sql`varchar(96)`, (col) => col.primaryKey())
        .addColumn('user_id', 'bigint', (col) => col.notNull())
        .addColumn('previous_id', sql`varchar(96)`, (col) => col.notNull().defaultTo(''))
        .addColumn('model', sql`varchar(191)`, (col) => col.notNull().defaultTo(''))
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('expires_at', 'bigint', (col) => col.notNull())
        .addColumn('items', body, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('idx_stored_responses_expires').on('stored_responses').column('expires_at').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('stored_responses').execute();
    },
  };
}
