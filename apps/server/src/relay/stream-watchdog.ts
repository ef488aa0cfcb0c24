/** One watched stream: when it last saw upstream bytes, and what to do once it has been silent too long. */
export interface WatchedStream {
  lastActivity: number;
  /** The silence allowed now: the first-byte limit until `started`, then `idleMs`. */
  silenceLimitMs: number;
  readonly onSilent: () => void;
  /**
   * The relay itself holds the upstream back (the client's socket is full): its silence is ours,
   * not the upstream's, and is not counted.
   */
  held: boolean;
  /** Its place in the watchdog's list; -1 once unwatched. */
  index: number;
}

/**
 * Ends streams whose upstream has been silent for `idleMs` (STREAMING_TIMEOUT), or for
 * `firstByteMs` before their first byte (then nothing has reached the client, and the relay tries
 * another channel instead). One shared check runs every quarter of the shorter limit (at most every
 * second) instead of a timer per stream that every chunk would have to re-arm: a thousand live
 * streams then cost one timer, and a chunk only a timestamp. A stream is ended between its limit
 * and its limit plus one check interval after its last bytes.
 */
export class StreamWatchdog {
  /**
   * An array with each stream's index in it, removed by moving the last one into its place: a Set
   * rehashed or shrank its table every few dozen streams as they came and went (a new table each
   * time, seen in `perf` on every busy relay).
   */
  private readonly streams: WatchedStream[] = [];
  private timer: NodeJS.Timeout | undefined;
  readonly checkIntervalMs: number;

  constructor(
    readonly idleMs: number,
    readonly firstByteMs: number = idleMs,
  ) {
    this.checkIntervalMs = Math.max(10, Math.min(1000, Math.floor(Math.min(idleMs, firstByteMs) / 4)));
  }

  watch(onSilent: () => void): WatchedStream {
    const stream: WatchedStream = { lastActivity: performance.now(), silenceLimitMs: this.firstByteMs, onSilent, held: false, index: this.streams.length };
    this.streams.push(stream);
    // The check keeps running once started; it does not keep the process alive.
    this.timer ??= setInterval(() => this.check(), this.checkIntervalMs).unref();
    return stream;
  }

  /** The stream's first bytes arrived: from now on it may be silent for `idleMs`. */
  started(stream: WatchedStream): void {
    stream.silenceLimitMs = this.idleMs;
  }

  unwatch(stream: WatchedStream): void {
    const index = stream.index;
    if (index < 0) return;
    stream.index = -1;
    const last = this.streams.pop()!;
    if (last === stream) return;
    this.streams[index] = last;
    last.index = index;
  }

  /** Streams watched now. */
  get size(): number {
    return this.streams.length;
  }

  /** Stops the check (shutdown); streams still watched are left to end on their own. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    const now = performance.now();
    // Backwards: an unwatched stream's place goes to the last one, which has been checked already.
    for (let index = this.streams.length - 1; index >= 0; index -= 1) {
      const stream = this.streams[index];
      // An onSilent may have ended other streams too.
      if (stream === undefined || stream.held || now - stream.lastActivity < stream.silenceLimitMs) continue;
      this.unwatch(stream);
      stream.onSilent();
    }
  }
}
