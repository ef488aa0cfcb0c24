import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database as SqliteDatabase } from 'better-sqlite3';

/**
 * WAL checkpoints of the server's SQLite file, on a worker thread.
 *
 * By default SQLite checkpoints inside the commit that takes the write-ahead log past 1,000 pages:
 * that commit copies the log into the database file and syncs it, synchronously, on the thread
 * that committed. Under load that is a batch flush on the relay's event loop, and every third or
 * fourth flush took 11 to 19 ms instead of 1.5 (measured at 10,000 calls a second): a stall every
 * call in flight waited out. Here the server's connection checkpoints only as a bound (below); a
 * timer looks at the log's size once a second and, past the same
 * 1,000 pages, asks a worker thread with its own connection for a PASSIVE checkpoint, which waits
 * for no reader or writer: the relay's commits go on while it copies.
 *
 * The worker starts the first time the log is that large, so a process that writes little (a test,
 * a small deployment) never starts one. Closing stops the worker first; the server's connection,
 * closed last, then checkpoints what is left and removes the log, as SQLite does.
 *
 * A bound. SQLite writes the log from its start again only when a write begins after a checkpoint
 * copied all of it; under writes that never pause (clearing a month of logs: a batch every few
 * milliseconds for minutes) each of the worker's checkpoints ends behind the newest frames, and
 * the log grew without end (72 GB while 3.4 million logs were cleared, until the disk was full).
 * So the server's connection still checkpoints in its commit past MAX_WAL_PAGES (ten times the
 * worker's trigger): the rare commit that gets there copies the rest while no write can come
 * between, and the next write starts the log again. journal_size_limit then cuts the file back.
 */

/** The log size that asks for a checkpoint: SQLite's own default (1,000 pages of 4 KiB). */
export const CHECKPOINT_WAL_BYTES = 1000 * 4096;
/** Past this many pages a commit of the server's connection checkpoints the log itself. */
export const MAX_WAL_PAGES = 10_000;
/** The log file is cut back to this size when it starts again. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
const CHECK_INTERVAL_MS = 1000;

/** The worker, as CommonJS source (no separate file to ship beside the bundle). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.path, { fileMustExist: true });
database.pragma('busy_timeout = 1000');
parentPort.on('message', (message) => {
  if (message === 'stop') {
    database.close();
    parentPort.close();
    return;
  }
  try {
    const [result] = database.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, log: result.log, checkpointed: result.checkpointed });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String(error && error.message || error) });
  }
});
`;

export interface CheckpointResult {
  ok: boolean;
  /** Frames in the log, and how many of them are in the database file now. */
  log?: number;
  checkpointed?: number;
  message?: string;
}

export class SqliteCheckpointer {
  private worker: Worker | undefined;
  private running = false;
  /** The checkpoint asked for last: the next one starts after it. */
  private latest: Promise<unknown> = Promise.resolve();
  /** Checkpoints the worker has done (each PASSIVE: as far as readers allowed). */
  completed = 0;
  private readonly timer: NodeJS.Timeout;
  private lastError: string | undefined;

  constructor(
    database: SqliteDatabase,
    private readonly path: string,
    private readonly onError: (message: string) => void = () => undefined,
    maxWalPages = MAX_WAL_PAGES,
  ) {
    database.pragma(`wal_autocheckpoint = ${Math.floor(maxWalPages)}`);
    database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    this.timer = setInterval(() => this.check(), CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** Bytes in the write-ahead log file (0 when there is none). */
  walBytes(): number {
    try {
      return statSync(`${this.path}-wal`).size;
    } catch {
      return 0;
    }
  }

  private check(): void {
    if (this.running || this.walBytes() < CHECKPOINT_WAL_BYTES) return;
    void this.checkpoint();
  }

  /** One PASSIVE checkpoint on the worker (started if need be), after the one under way if any. */
  checkpoint(): Promise<CheckpointResult> {
    const next = this.latest.then(() => this.runOne());
    this.latest = next;
    return next;
  }

  private runOne(): Promise<CheckpointResult> {
    const worker = this.ensureWorker();
    this.running = true;
    return new Promise<CheckpointResult>((resolve) => {
      const done = (result: CheckpointResult) => {
        worker.off('message', done);
        worker.off('exit', gone);
        this.running = false;
        if (result.ok) this.completed += 1;
        if (!result.ok && result.message !== this.lastError) this.onError(result.message ?? 'unknown error');
        this.lastError = result.ok ? undefined : result.message;
        resolve(result);
      };
      const gone = () => done({ ok: false, message: 'the checkpoint worker exited' });
      worker.on('message', done);
      worker.once('exit', gone);
      worker.postMessage('checkpoint');
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path: this.path } });
    worker.unref();
    worker.on('error', (error) => this.onError(error.message));
    worker.once('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    this.worker = worker;
    return worker;
  }

  /** Stops the timer and the worker (its connection closed), before the server's connection closes. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    const timeout = setTimeout(() => void worker.terminate(), 5000);
    await exited;
    clearTimeout(timeout);
  }
}
