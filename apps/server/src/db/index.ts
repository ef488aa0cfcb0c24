import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { createPool as createMysqlPool } from 'mysql2';
import pg from 'pg';
import type { Db, DialectName } from './db-types.js';
import type { Database } from './schema.js';
import { migrateToLatest } from './migrate.js';
import { requireSharedKey, unlockSecrets } from './secret-key.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';

export type { Db, DialectName } from './db-types.js';

// pg hands back int8 and numeric as strings to avoid precision loss; our quota values are far
// below 2^53, so numbers are what every caller expects.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
pg.types.setTypeParser(1700, (value) => Number.parseFloat(value));

export function dialectOf(sqlDsn: string): DialectName {
  if (sqlDsn === '') return 'sqlite';
  if (sqlDsn.startsWith('mysql://')) return 'mysql';
  return 'postgres';
}

export interface OpenDbOptions {
  sqlitePath: string;
  sqlDsn: string;
  /**
   * SQLite: checkpoint the write-ahead log on a worker thread rather than inside the commit that
   * fills it (db/sqlite-checkpointer.ts). The server's connection; tools leave it off.
   */
  backgroundCheckpoints?: { onError: (message: string) => void } | undefined;
}

/** A connection before its secret key is unlocked. */
type OpenedDb = Omit<Db, 'secrets'>;

function openDb({ sqlitePath, sqlDsn, backgroundCheckpoints }: OpenDbOptions): OpenedDb {
  const dialect = dialectOf(sqlDsn);
  if (dialect === 'sqlite') {
    if (sqlitePath !== ':memory:') mkdirSync(dirname(sqlitePath), { recursive: true });
    const database = new SqliteDatabase(sqlitePath);
    database.pragma('journal_mode = WAL');
    // Several processes (a CLI, a second node) may share the file; wait instead of failing.
    database.pragma('busy_timeout = 10000');
    database.pragma('synchronous = NORMAL');
    // 32 MiB of page cache (the default is 2 MiB): the logs table's indexes stay in memory as it grows.
    database.pragma('cache_size = -32768');
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    const checkpointer =
      backgroundCheckpoints && sqlitePath !== ':memory:' ? new SqliteCheckpointer(database, sqlitePath, backgroundCheckpoints.onError) : undefined;
    const close = async () => {
      // The worker's connection first: the last one to close folds the log into the file.
      await checkpointer?.close();
      await kysely.destroy();
    };
    return { kysely, dialect, sqlite: database, checkpointWal: checkpointer && (() => checkpointer.checkpoint()), close };
  }
  if (dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: sqlDsn, max: 20 });
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { kysely, dialect, close: () => kysely.destroy() };
  }
  const pool = createMysqlPool({
    uri: sqlDsn,
    connectionLimit: 20,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    charset: 'utf8mb4',
  });
  const kysely = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  return { kysely, dialect, close: () => kysely.destroy() };
}

export interface ConnectDbOptions extends OpenDbOptions {
  migrate: boolean;
  /** MODELGATE_SECRET_KEY; unset: a SQLite file's key file (db/secret-key.ts). */
  secretKey?: Buffer | undefined;
  onKeyFileCreated?: ((path: string) => void) | undefined;
}

/**
 * Opens the database, brings its schema up to date (masters only migrate) and unlocks its
 * secrets: a key that does not open them stops the start here, with a message saying why.
 */
export async function connectDb(options: ConnectDbOptions): Promise<Db> {
  requireSharedKey(dialectOf(options.sqlDsn), options.secretKey);
  const opened = openDb(options);
  try {
    await sql`select 1`.execute(opened.kysely);
    // Migrations read only the connection and the dialect, never a secret.
    if (options.migrate) await migrateToLatest(opened as Db);
    const secrets = await unlockSecrets(opened, options);
    return { ...opened, secrets };
  } catch (error) {
    await opened.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Inserts a row and returns its generated id on every dialect (MySQL has no RETURNING).
 */
export async function insertReturningId<T extends keyof Database & string>(
  db: Db,
  table: T,
  values: Record<string, unknown>,
  executor: Kysely<Database> = db.kysely,
): Promise<number> {
  const query = executor.insertInto(table).values(values as never);
  if (db.dialect === 'mysql') {
    const result = await query.executeTakeFirstOrThrow();
    return Number(result.insertId);
  }
  const row = (await query.returning('id' as never).executeTakeFirstOrThrow()) as unknown as { id: number };
  return Number(row.id);
}
