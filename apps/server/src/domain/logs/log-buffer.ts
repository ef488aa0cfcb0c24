import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { Insertable, Kysely } from 'kysely';
import { applyLogRollups, sqliteRollupWriter } from '../../db/log-rollups.js';
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

/** Rows per INSERT (and, on SQLite, between yields): 18 columns × 100 rows stays far below every dialect's parameter limit. */
const ROWS_PER_INSERT = 100;

/** Rows that make a flush start before the interval ends (see LogBuffer). */
export const LOG_BACKLOG_ROWS = 3000;

/**
 * Log rows waiting for the next batch flush, written in the same transaction as the counters.
 * `onBacklog` fires when `backlogRows` are waiting, so a busy node writes batches of that size
 * instead of holding (and garbage-collecting) seconds of rows. Each flush commits every page it
 * touched, so batches much smaller cost a busy node more: with calls spread over 10,000 channels
 * nearly every page of the channels table and of the logs' channel index is written again at each
 * flush (on SQLite, 1,000 rows per flush gave 4 to 6 % less throughput there than 3,000).
 */
export class LogBuffer {
  private rows: LogInsert[] = [];
  private backlogListener: (() => void) | undefined;
  private pushListener: ((row: LogInsert) => void) | undefined;

  constructor(private readonly backlogRows = LOG_BACKLOG_ROWS) {}

  push(row: LogInsert): void {
    this.rows.push(row);
    this.pushListener?.(row);
    if (this.rows.length === this.backlogRows) this.backlogListener?.();
  }

  onBacklog(listener: () => void): void {
    this.backlogListener = listener;
  }

  /** Sees each row once as it is queued (a failed write's `restore` does not replay it): the usage export sums them. */
  onPush(listener: (row: LogInsert) => void): void {
    this.pushListener = listener;
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
 * The batch's log writer. On SQLite, inside the batch's transaction on the transaction's own
 * connection, each full hundred rows is one prepared 100-row INSERT bound from one array refilled
 * in place, and the rest one prepared single-row INSERT per row: a statement's own cost (its reset,
 * the AUTOINCREMENT counter's update, the call into the driver) is then paid once a hundred rows,
 * 14 to 10 µs a row on the bench VM with the logs' nine indexes. (A multi-row form that built a
 * fresh 1,800-value array per chunk, through Kysely or by hand, once made the garbage collector
 * promote kilobytes per relayed request: nothing here is allocated per chunk.) The other dialects
 * insert a hundred rows per statement through Kysely.
 */
export function createLogWriter(db: Db): LogWriter {
  if (db.sqlite) return sqliteLogWriter(db.sqlite);
  return async (executor, rows) => {
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      if (start > 0) await yieldToEventLoop();
      await executor
        .insertInto('logs')
        .values(rows.slice(start, start + ROWS_PER_INSERT))
        .execute();
    }
    await applyLogRollups(executor, rows);
  };
}

/** A log row as written outside the batch: the columns it has, the rest their defaults. */
export type LogRowInsert = Insertable<LogsTable> & { user_id: number; created_at: number; type: number };

/**
 * Log rows written outside the batch (an account event, a key view), with their rollups, in the
 * caller's transaction or in one of their own. Every other insert into logs goes through the batch
 * writer above.
 */
export async function insertLogRows(executor: Kysely<Database>, rows: readonly LogRowInsert[]): Promise<void> {
  const write = async (trx: Kysely<Database>) => {
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      await trx
        .insertInto('logs')
        .values(rows.slice(start, start + ROWS_PER_INSERT))
        .execute();
    }
    await applyLogRollups(
      trx,
      rows.map((row) => ({
        created_at: row.created_at,
        type: row.type,
        user_id: row.user_id,
        username: row.username ?? '',
        token_name: row.token_name ?? '',
        model_name: row.model_name ?? '',
        channel_id: Number(row.channel_id ?? 0),
        group: row.group ?? '',
        quota: Number(row.quota ?? 0),
      })),
    );
  };
  if (executor.isTransaction) await write(executor);
  else await executor.transaction().execute(write);
}

export const insertLogRow = (executor: Kysely<Database>, row: LogRowInsert): Promise<void> => insertLogRows(executor, [row]);

function sqliteLogWriter(database: SqliteDatabase): LogWriter {
  const columns = LOG_COLUMNS.map((column) => `"${column}"`).join(', ');
  const placeholders = `(${LOG_COLUMNS.map(() => '?').join(', ')})`;
  let insertOne: Statement | undefined;
  let insertChunk: Statement | undefined;
  // One array bound for every full chunk, refilled in place: a chunk allocates nothing of its own.
  const chunkValues: unknown[] = new Array(ROWS_PER_INSERT * LOG_COLUMNS.length);
  const writeRollups = sqliteRollupWriter(database);
  return async (_executor, rows) => {
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      if (start > 0) await yieldToEventLoop();
      const end = Math.min(start + ROWS_PER_INSERT, rows.length);
      if (end - start === ROWS_PER_INSERT) {
        insertChunk ??= database.prepare(`insert into logs (${columns}) values ${Array(ROWS_PER_INSERT).fill(placeholders).join(', ')}`);
        let at = 0;
        for (let index = start; index < end; index += 1) at = bindLogRow(chunkValues, at, rows[index]!);
        insertChunk.run(chunkValues);
        continue;
      }
      insertOne ??= database.prepare(`insert into logs (${columns}) values ${placeholders}`);
      const values: unknown[] = new Array(LOG_COLUMNS.length);
      for (let index = start; index < end; index += 1) {
        bindLogRow(values, 0, rows[index]!);
        insertOne.run(values);
      }
    }
    // The last chunk's strings are not kept alive until the next batch.
    if (rows.length >= ROWS_PER_INSERT) chunkValues.fill(undefined);
    writeRollups(rows);
  };
}

/** Puts a row's values into `values` from `at`, in LOG_COLUMNS order; gives the index after them. */
function bindLogRow(values: unknown[], at: number, row: LogInsert): number {
  values[at] = row.user_id;
  values[at + 1] = row.created_at;
  values[at + 2] = row.type;
  values[at + 3] = row.content;
  values[at + 4] = row.username;
  values[at + 5] = row.token_name;
  values[at + 6] = row.model_name;
  values[at + 7] = row.quota;
  values[at + 8] = row.prompt_tokens;
  values[at + 9] = row.completion_tokens;
  values[at + 10] = row.use_time;
  values[at + 11] = row.is_stream;
  values[at + 12] = row.channel_id;
  values[at + 13] = row.channel_name;
  values[at + 14] = row.token_id;
  values[at + 15] = row.group;
  values[at + 16] = row.ip;
  values[at + 17] = row.other;
  return at + LOG_COLUMNS.length;
}
