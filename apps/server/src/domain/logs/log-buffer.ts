import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { Insertable, Kysely } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database, LogsTable } from '../../db/schema.js';

/** A log row as the batch writes it: every column given, so one prepared statement fits all. */
export type LogInsert = Required<Omit<Insertable<LogsTable>, 'id'>>;

/** The columns of a log row, in the order the writer binds them. */
export const LOG_COLUMNS = [
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_name',
  'model_name',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'use_time',
  'is_stream',
  'channel_id',
  'channel_name',
  'token_id',
  'group',
  'ip',
  'other',
] as const satisfies readonly (keyof LogInsert)[];

/** Rows per INSERT: 18 columns × 100 rows stays far below every dialect's parameter limit. */
const ROWS_PER_INSERT = 100;

/**
 * Log rows waiting for the next batch flush, written in the same transaction as the counters.
 * `onBacklog` fires when `backlogRows` are waiting, so a busy node writes smaller batches more
 * often instead of holding (and garbage-collecting) seconds of rows.
 */
export class LogBuffer {
  private rows: LogInsert[] = [];
  private backlogListener: (() => void) | undefined;

  constructor(private readonly backlogRows = 1000) {}

  push(row: LogInsert): void {
    this.rows.push(row);
    if (this.rows.length === this.backlogRows) this.backlogListener?.();
  }

  onBacklog(listener: () => void): void {
    this.backlogListener = listener;
  }

  /** Hands over everything buffered; `restore` puts it back if the write fails. */
  take(): LogInsert[] {
    const rows = this.rows;
    this.rows = [];
    return rows;
  }

  restore(rows: LogInsert[]): void {
    this.rows = rows.concat(this.rows);
  }

  get size(): number {
    return this.rows.length;
  }
}

/**
 * Lets queued I/O run. better-sqlite3 executes synchronously, so a flush of thousands of rows
 * would otherwise hold the event loop for its whole length; relayed requests that need no
 * database (most of them) go on between the chunks.
 */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Writes log rows inside the caller's transaction. */
export type LogWriter = (executor: Kysely<Database>, rows: readonly LogInsert[]) => Promise<void>;

/**
 * The batch's log writer. On SQLite the INSERT statements are prepared once and reused on the
 * transaction's own connection (compiling and preparing an 1,800-parameter statement per chunk
 * cost more than running it); the other dialects go through Kysely.
 */
export function createLogWriter(db: Db): LogWriter {
  if (db.sqlite) return sqliteLogWriter(db.sqlite);
  return async (executor, rows) => {
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      if (start > 0) await yieldToEventLoop();
      await executor.insertInto('logs').values(rows.slice(start, start + ROWS_PER_INSERT)).execute();
    }
  };
}

function sqliteLogWriter(database: SqliteDatabase): LogWriter {
  const columns = LOG_COLUMNS.map((column) => `"${column}"`).join(', ');
  const tuple = `(${LOG_COLUMNS.map(() => '?').join(', ')})`;
  const statements = new Map<number, Statement>();
  const statement = (rowCount: number): Statement => {
    let prepared = statements.get(rowCount);
    if (!prepared) {
      prepared = database.prepare(`insert into logs (${columns}) values ${Array.from({ length: rowCount }, () => tuple).join(', ')}`);
      statements.set(rowCount, prepared);
    }
    return prepared;
  };
  const width = LOG_COLUMNS.length;
  const insert = (rows: readonly LogInsert[], start: number, count: number) => {
    const params: unknown[] = new Array(count * width);
    let at = 0;
    for (let index = start; index < start + count; index += 1) {
      const row = rows[index]!;
      for (let column = 0; column < width; column += 1) params[at++] = row[LOG_COLUMNS[column]!];
    }
    statement(count).run(params);
  };
  return async (_executor, rows) => {
    let start = 0;
    for (; start + ROWS_PER_INSERT <= rows.length; start += ROWS_PER_INSERT) {
      if (start > 0) await yieldToEventLoop();
      insert(rows, start, ROWS_PER_INSERT);
    }
    // The rest in power-of-two pieces, so only a handful of statement sizes are ever prepared.
    for (let piece = 64; piece >= 1; piece /= 2) {
      if (rows.length - start < piece) continue;
      insert(rows, start, piece);
      start += piece;
    }
  };
}
