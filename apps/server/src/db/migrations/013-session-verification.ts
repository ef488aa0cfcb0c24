import type { Kysely, Migration } from 'kysely';

/**
 * When a session last proved its user again (a 2FA code, a passkey or the password) and how:
 * reading a channel's key and changing the password, 2FA or passkeys need a proof within the
 * last few minutes (domain/users/fresh-verification.ts). 0 is never.
 */
export function sessionVerification(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('sessions')
        .addColumn('verified_at', 'bigint', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('sessions')
        .addColumn('verified_method', 'varchar(16)', (col) => col.notNull().defaultTo(''))
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('sessions').dropColumn('verified_method').execute();
      await db.schema.alterTable('sessions').dropColumn('verified_at').execute();
    },
  };
}
