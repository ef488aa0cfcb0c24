import type { Insertable, Kysely } from 'kysely';
import type { Database, LogsTable } from '../../db/schema.js';

export type LogInsert = Insertable<LogsTable>;

/** Rows per INSERT: 19 columns × 100 rows stays far below every dialect's parameter limit. */
const ROWS_PER_INSERT = 100;

/** Log rows waiting for the next batch flush, written in the same transaction as the counters. */
export class LogBuffer {
  private rows: LogInsert[] = [];

  push(row: LogInsert): void {
    this.rows.push(row);
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

export async function insertLogs(executor: Kysely<Database>, rows: readonly LogInsert[]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    if (start > 0) await yieldToEventLoop();
    await executor.insertInto('logs').values(rows.slice(start, start + ROWS_PER_INSERT)).execute();
  }
}
