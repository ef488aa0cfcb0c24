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
 * The batch's log writer. On SQLite one single-row INSERT is prepared once and run per row
 * inside the batch's transaction, on the transaction's own connection: SQLite pays no round trip
 * per statement, and the multi-row form (an 1,800-value parameter array per hundred rows, built
 * through Kysely or by hand) made the garbage collector promote several kilobytes per relayed
 * request; `npm run bench` showed the relay's GC pauses fall from about 50 to 9 µs per request.
 * The other dialects insert a hundred rows per statement through Kysely.
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
  let insert: Statement | undefined;
  const writeRollups = sqliteRollupWriter(database);
  return async (_executor, rows) => {
    insert ??= database.prepare(
      `insert into logs (${LOG_COLUMNS.map((column) => `"${column}"`).join(', ')}) values (${LOG_COLUMNS.map(() => '?').join(', ')})`,
    );
    for (let index = 0; index < rows.length; index += 1) {
      if (index > 0 && index % ROWS_PER_INSERT === 0) await yieldToEventLoop();
      const row = rows[index]!;
      // In LOG_COLUMNS order.
      insert.run(
        row.user_id,
        row.created_at,
        row.type,
        row.content,
        row.username,
        row.token_name,
        row.model_name,
        row.quota,
        row.prompt_tokens,
        row.completion_tokens,
        row.use_time,
        row.is_stream,
        row.channel_id,
        row.channel_name,
        row.token_id,
        row.group,
        row.ip,
        row.other,
      );
    }
    writeRollups(rows);
  };
}
