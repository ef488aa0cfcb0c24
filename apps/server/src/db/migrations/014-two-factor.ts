import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * TOTP two-factor sign-in (domain/users/two-factor.ts), in new-api's tables: `two_fas` holds a
 * user's secret (pending until a first code enables it) and the last time step a code was
 * accepted at, so a code is never accepted twice; `two_fa_backup_codes` the SHA-256 of each
 * one-time backup code, `used_at` set when it is spent. `two_fa_logins` are sign-ins waiting for
 * their code after the right password: every node sees them and each completes once.
 */
export function twoFactor(dialect: DialectName): Migration {
  const idType = dialect === 'postgres' ? 'bigserial' : dialect === 'mysql' ? 'bigint' : 'integer';
  const id = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement());

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('two_fas')
        .addColumn('id', idType, id)
        .addColumn('user_id', 'bigint', (col) => col.notNull())
        .addColumn('secret', sql`varchar(255)`, (col) => col.notNull())
        .addColumn('is_enabled', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('last_time_step', 'bigint', (col) => col.notNull().defaultTo(0))
        .addColumn('last_used_at', 'bigint', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('updated_at', 'bigint', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('idx_two_fas_user_id').unique().on('two_fas').column('user_id').execute();

      await db.schema
        .createTable('two_fa_backup_codes')
        .addColumn('id', idType, id)
        .addColumn('user_id', 'bigint', (col) => col.notNull())
        .addColumn('code_hash', sql`varchar(64)`, (col) => col.notNull())
        .addColumn('used_at', 'bigint', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('idx_two_fa_backup_codes_user_id').on('two_fa_backup_codes').column('user_id').execute();

      await db.schema
        .createTable('two_fa_logins')
        .addColumn('id', idType, id)
        .addColumn('token_hash', sql`varchar(64)`, (col) => col.notNull())
        .addColumn('user_id', 'bigint', (col) => col.notNull())
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('expires_at', 'bigint', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('idx_two_fa_logins_token_hash').unique().on('two_fa_logins').column('token_hash').execute();
      await db.schema.createIndex('idx_two_fa_logins_expires_at').on('two_fa_logins').column('expires_at').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('two_fa_logins').ifExists().execute();
      await db.schema.dropTable('two_fa_backup_codes').ifExists().execute();
      await db.schema.dropTable('two_fas').ifExists().execute();
    },
  };
}
