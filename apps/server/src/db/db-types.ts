import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { SecretBox } from '../lib/secret-box.js';
import type { Database } from './schema.js';

/** Apart from index.ts, so the migrations it runs can name the database without importing it back. */
export type DialectName = 'sqlite' | 'postgres' | 'mysql';

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** The SQLite connection under Kysely, for the few hot statements prepared once and reused. */
  sqlite?: SqliteDatabase.Database;
  /**
   * Seals the secrets written to this database and opens those read from it (channel keys, secret
   * options, webhook secrets), with the key unlocked at connect (secret-key.ts).
   */
  secrets: SecretBox;
  close(): Promise<void>;
}
