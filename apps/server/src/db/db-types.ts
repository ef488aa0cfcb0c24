import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { SecretBox } from '../lib/secret-box.js';
import type { Database } from './schema.js';
import type { CheckpointResult } from './sqlite-checkpointer.js';

/** Apart from index.ts, so the migrations it runs can name the database without importing it back. */
export type DialectName = 'sqlite' | 'postgres' | 'mysql';

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** The SQLite connection under Kysely, for the few hot statements prepared once and reused. */
  sqlite?: SqliteDatabase.Database;
  /**
   * SQLite with background checkpoints (the server's connection): one PASSIVE checkpoint on the
   * worker thread. A writer that never pauses (clearing logs) waits for one now and then, so the
   * write-ahead log starts again and no commit of the event loop has to copy it.
   */
  checkpointWal?: () => Promise<CheckpointResult>;
  /**
   * Seals the secrets written to this database and opens those read from it (channel keys, secret
   * options, webhook secrets), with the key unlocked at connect (secret-key.ts).
   */
  secrets: SecretBox;
  close(): Promise<void>;
}
