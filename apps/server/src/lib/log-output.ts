/** Bytes of log lines held while the reader of stdout is behind; past it new lines are dropped and counted. */
export const LOG_BUFFER_LIMIT_BYTES = 1024 * 1024;
/** Largest write handed to stdout at once when it catches up after a stall. */
const BATCH_BYTES = 64 * 1024;

/** What /metrics reports of the log output. */
export interface LogOutputStats {
  /** Lines dropped since start because the reader of stdout was behind (or gone). */
  readonly droppedLines: number;
  /** Log bytes written and not yet taken by the reader (about: what stdout holds counts in characters). */
  readonly bufferedBytes: number;
}

/** The part of a Writable (process.stdout) the log output uses. */
export interface LogSink {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  readonly writableLength: number;
  on(event: 'drain', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * The gateway's log destination (pino's stream): stdout, never blocking the event loop on a reader
 * that stops reading, with a bounded buffer. Lines that do not fit are dropped and counted.
 *
 * Why not pino's own destination (sonic-boom 4, read in node_modules/sonic-boom/index.js and
 * reproduced with a child whose stdout pipe nobody reads): pino's default destination is sonic-boom
 * in async mode on fd 1, with an exit hook (on-exit-leak-free) that calls `flushSync()`. On a full
 * non-blocking pipe `flushSync()` retries EAGAIN forever, sleeping 100 ms at a time with
 * Atomics.wait: the SIGTERM handler ran, and then `process.exit()` never returned; only SIGKILL
 * ended the process. `maxLength` does bound its buffer (a line past it is dropped with a 'drop'
 * event), but the exit hook cannot be turned off through pino, and on a blocking fd 1 its async
 * `fs.write` holds a libuv threadpool thread in write(2) for as long as the pipe is full, where
 * `process.exit()` then waits forever to join that thread.
 *
 * process.stdout already writes the way a log needs: on a pipe or a socket it is a net.Socket over
 * a non-blocking fd, written from the event loop by libuv (no threadpool, no polling) and not
 * flushed at exit; on a terminal or a file Node writes synchronously, as before. What it lacks is
 * a bound: this class keeps at most LOG_BUFFER_LIMIT_BYTES waiting (in its own queue while stdout
 * is backed up, plus one batch inside stdout) and writes lines in order.
 */
export class LogOutput implements LogOutputStats {
  droppedLines = 0;
  /** Lines waiting while stdout is backed up, and their sizes in bytes. */
  private readonly queue: string[] = [];
  private readonly sizes: number[] = [];
  private queuedBytes = 0;
  /** stdout refused more (its write returned false) until its 'drain'. */
  private backedUp = false;
  /** stdout failed (EPIPE: its reader is gone): every line from now on is dropped. */
  private broken = false;
  private readonly flushWaiters: Array<() => void> = [];

  constructor(
    private readonly out: LogSink = process.stdout,
    private readonly limitBytes: number = LOG_BUFFER_LIMIT_BYTES,
  ) {
    out.on('drain', () => this.catchUp());
    out.on('error', () => {
      this.broken = true;
      this.droppedLines += this.queue.length;
      this.queue.length = 0;
      this.sizes.length = 0;
      this.queuedBytes = 0;
      this.wakeFlushWaiters();
    });
  }

  get bufferedBytes(): number {
    return this.queuedBytes + this.out.writableLength;
  }

  /** pino's stream: one serialized line. */
  write(line: string): void {
    if (this.broken) {
      this.droppedLines += 1;
      return;
    }
    if (!this.backedUp) {
      this.backedUp = !this.out.write(line);
      return;
    }
    const bytes = Buffer.byteLength(line);
    if (this.queuedBytes + this.out.writableLength + bytes > this.limitBytes) {
      this.droppedLines += 1;
      return;
    }
    this.queue.push(line);
    this.sizes.push(bytes);
    this.queuedBytes += bytes;
  }

  /**
   * pino's `logger.flush(cb)`: calls back once every line written so far has been handed to the
   * system (or stdout failed). It may never call back while the reader is stalled: bound the wait.
   */
  flush(callback: () => void = () => {}): void {
    this.flushWaiters.push(callback);
    if (!this.backedUp) this.settle();
  }

  private catchUp(): void {
    this.backedUp = false;
    while (this.queue.length > 0 && !this.backedUp) {
      let count = 0;
      let bytes = 0;
      while (count < this.queue.length && bytes < BATCH_BYTES) bytes += this.sizes[count++]!;
      const batch = this.queue.splice(0, count).join('');
      this.sizes.splice(0, count);
      this.queuedBytes -= bytes;
      this.backedUp = !this.out.write(batch);
    }
    if (!this.backedUp) this.settle();
  }

  /** Nothing queued here: an empty write calls back once what stdout holds before it is written. */
  private settle(): void {
    if (this.flushWaiters.length === 0) return;
    if (this.broken || this.out.writableLength === 0) {
      this.wakeFlushWaiters();
      return;
    }
    this.out.write('', () => {
      if (this.queue.length === 0) this.wakeFlushWaiters();
    });
  }

  private wakeFlushWaiters(): void {
    for (const waiter of this.flushWaiters.splice(0)) waiter();
  }
}
