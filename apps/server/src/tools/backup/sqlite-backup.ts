import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { keyFilePath } from '../../db/secret-key.js';

/** Bad input or a state the command must not touch; the CLI exits 2 with the message. */
export class BackupError extends Error {}

export interface RowCounts {
  users: number;
  tokens: number;
  logs: number;
}

export interface BackupResult {
  file: string;
  bytes: number;
  counts: RowCounts;
  /** The key file copied beside the backup; undefined when the key comes from MODELGATE_SECRET_KEY (or there is none). */
  keyFile: string | undefined;
}

export const stamp = (now: Date) => now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

/** `<data dir>/backups/modelgate-YYYYMMDD-HHMMSS.db`, beside the live database. */
export const defaultBackupPath = (sqlitePath: string, now = new Date()): string => join(dirname(sqlitePath), 'backups', `modelgate-${stamp(now)}.db`);

function countRows(file: string): RowCounts {
  const database = new SqliteDatabase(file, { fileMustExist: true });
  try {
    const count = (table: string) => (database.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    return { users: count('users'), tokens: count('tokens'), logs: count('logs') };
  } finally {
    database.close();
  }
}

/**
 * SQLite's online backup API: a consistent copy of the database as of one moment, taken page by
 * page while the gateway keeps writing (WAL readers never block it); the key file goes beside it,
 * since the sealed secrets are unreadable without it.
 */
export async function backupSqlite(sqlitePath: string, out: string, options: { keyFromEnv: boolean }): Promise<BackupResult> {
  if (sqlitePath === '' || sqlitePath === ':memory:') throw new BackupError('SQLITE_PATH names an in-memory database: there is nothing to back up');
  if (!existsSync(sqlitePath)) throw new BackupError(`no database at ${sqlitePath} (set SQLITE_PATH to the gateway's database file)`);
  if (existsSync(out)) throw new BackupError(`${out} already exists: give another --out`);
  try {
    mkdirSync(dirname(out), { recursive: true });
  } catch (error) {
    throw new BackupError(`cannot create the directory of ${out}: ${(error as Error).message}`);
  }
  const source = new SqliteDatabase(sqlitePath, { fileMustExist: true });
  const partial = `${out}.partial`;
  try {
    source.pragma('busy_timeout = 10000');
    if (!source.prepare("select 1 from sqlite_master where type = 'table' and name = 'users'").get()) {
      throw new BackupError(`${sqlitePath} is not a modelgate database (no users table)`);
    }
    try {
      await source.backup(partial);
    } catch (error) {
      throw new BackupError(`cannot write ${out}: ${(error as Error).message}`);
    }
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
  renameSync(partial, out);
  const counts = countRows(out);
  const sourceKey = keyFilePath(sqlitePath);
  let keyFile: string | undefined;
  if (!options.keyFromEnv && existsSync(sourceKey)) {
    keyFile = keyFilePath(out);
    copyFileSync(sourceKey, keyFile);
  }
  return { file: out, bytes: statSync(out).size, counts, keyFile };
}

export interface RestoreResult {
  target: string;
  counts: RowCounts;
  keyFile: string | undefined;
}

/**
 * Copies a backup (and its key file) to `target`, for a gateway that is not running on it. An
 * existing database there is kept unless `force`: a restore over live data is never an accident.
 */
export function restoreSqlite(backup: string, target: string, force: boolean): RestoreResult {
  if (!existsSync(backup)) throw new BackupError(`no backup file at ${backup}`);
  let counts: RowCounts;
  try {
    const check = new SqliteDatabase(backup, { fileMustExist: true, readonly: true });
    try {
      const result = check.pragma('quick_check', { simple: true });
      if (result !== 'ok') throw new BackupError(`${backup} is damaged: ${String(result)}`);
    } finally {
      check.close();
    }
    counts = countRows(backup);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${backup} is not a modelgate backup: ${(error as Error).message}`);
  }
  const leftovers = [target, `${target}-wal`, `${target}-shm`];
  if (!force && leftovers.some((path) => existsSync(path))) {
    throw new BackupError(`a database already exists at ${target}: stop the gateway and add --force to replace it`);
  }
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  copyFileSync(backup, partial);
  // A stale WAL beside the new file would be replayed into it.
  for (const path of leftovers) rmSync(path, { force: true });
  renameSync(partial, target);
  const backupKey = keyFilePath(backup);
  let keyFile: string | undefined;
  if (existsSync(backupKey)) {
    keyFile = keyFilePath(target);
    copyFileSync(backupKey, keyFile);
  }
  return { target, counts, keyFile };
}
