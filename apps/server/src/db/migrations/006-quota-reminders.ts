import type { Kysely, Migration } from 'kysely';

/**
 * users.quota_reminded_at: unix seconds of the last "quota running low" mail to the user (0: never).
 * Every node claims the right to send with one conditional UPDATE on it, so a user gets at most one
 * mail per window whichever process charged them, and after a restart too.
 */
export function quotaReminders(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('users')
        .addColumn('quota_reminded_at', 'bigint', (col) => col.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('users').dropColumn('quota_reminded_at').execute();
    },
  };
}
