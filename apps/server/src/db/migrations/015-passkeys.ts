import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../db-types.js';

/**
 * Passkeys (WebAuthn, domain/passkeys/): a user's credentials, several per user, and the
 * challenges of ceremonies begun and not yet finished. A challenge is a row rather than session
 * state so that any node can finish what another began; it is deleted when used (once) and
 * expires after five minutes.
 */
export function passkeys(dialect: DialectName): Migration {
  const idType = dialect === 'postgres' ? 'bigserial' : dialect === 'mysql' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('passkey_credentials')
        .addColumn('id', idType, (col) => (dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement()))
        .addColumn('user_id', 'bigint', (col) => col.notNull())
        // base64url of the authenticator's credential id, as the browser's JSON carries it.
        .addColumn('credential_id', sql`varchar(512)`, (col) => col.notNull())
        // base64url of the COSE public key.
        .addColumn('public_key', 'text', (col) => col.notNull())
        .addColumn('sign_count', 'bigint', (col) => col.notNull().defaultTo(0))
        .addColumn('transports', sql`varchar(255)`, (col) => col.notNull().defaultTo(''))
        .addColumn('aaguid', sql`varchar(64)`, (col) => col.notNull().defaultTo(''))
        .addColumn('attestation_type', sql`varchar(32)`, (col) => col.notNull().defaultTo(''))
        .addColumn('user_verified', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('backup_eligible', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('backup_state', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('attachment', sql`varchar(32)`, (col) => col.notNull().defaultTo(''))
        .addColumn('name', sql`varchar(64)`, (col) => col.notNull().defaultTo(''))
        .addColumn('created_at', 'bigint', (col) => col.notNull())
        .addColumn('last_used_at', 'bigint', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('idx_passkey_credentials_credential_id').unique().on('passkey_credentials').column('credential_id').execute();
      await db.schema.createIndex('idx_passkey_credentials_user_id').on('passkey_credentials').column('user_id').execute();

      await db.schema
        .createTable('passkey_challenges')
        // base64url of 32 random bytes: the key a finishing call finds its ceremony by.
        .addColumn('challenge', sql`varchar(128)`, (col) => col.primaryKey())
        .addColumn('kind', sql`varchar(16)`, (col) => col.notNull())
        // The user and session a registration or a re-verification belongs to (0 for a sign-in).
        .addColumn('user_id', 'bigint', (col) => col.notNull().defaultTo(0))
        .addColumn('session_id', 'bigint', (col) => col.notNull().defaultTo(0))
        .addColumn('name', sql`varchar(64)`, (col) => col.notNull().defaultTo(''))
        .addColumn('expires_at', 'bigint', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('idx_passkey_challenges_expires_at').on('passkey_challenges').column('expires_at').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('passkey_challenges').ifExists().execute();
      await db.schema.dropTable('passkey_credentials').ifExists().execute();
    },
  };
}
