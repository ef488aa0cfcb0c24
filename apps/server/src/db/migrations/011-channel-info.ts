import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * new-api's `channel_info` column on `channels`: a multi-key channel's per-key state (each key's
 * status, why and when it was disabled) and how a request picks its key (domain/channels/multi-key.ts).
 */
export function channelInfo(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      // MySQL 8 only accepts a TEXT default as an expression; MariaDB takes either form.
      await db.schema
        .alterTable('channels')
        .addColumn('channel_info', 'text', (col) => col.notNull().defaultTo(dialect === 'mysql' ? sql`('')` : ''))
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('channels').dropColumn('channel_info').execute();
    },
  };
}
