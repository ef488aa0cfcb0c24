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
  held?: boolean;
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
  private readonly streams = new Set<WatchedStream>();
  private timer: NodeJS.Timeout | undefined;
  readonly checkIntervalMs: number;

  constructor(
    readonly idleMs: number,
    readonly firstByteMs: number = idleMs,
  ) {
    this.checkIntervalMs = Math.max(10, Math.min(1000, Math.floor(Math.min(idleMs, firstByteMs) / 4)));
  }

  watch(onSilent: () => void): WatchedStream {
    const stream: WatchedStream = { lastActivity: performance.now(), silenceLimitMs: this.firstByteMs, onSilent };
    this.streams.add(stream);
    // The check keeps running once started; it does not keep the process alive.
    this.timer ??= setInterval(() => this.check(), this.checkIntervalMs).unref();
    return stream;
  }

  /** The stream's first bytes arrived: from now on it may be silent for `idleMs`. */
  started(stream: WatchedStream): void {
    stream.silenceLimitMs = this.idleMs;
  }

  unwatch(stream: WatchedStream): void {
    this.streams.delete(stream);
  }

  /** Stops the check (shutdown); streams still watched are left to end on their own. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    const now = performance.now();
    for (const stream of this.streams) {
      if (stream.held || now - stream.lastActivity < stream.silenceLimitMs) continue;
      this.streams.delete(stream);
      stream.onSilent();
    }
  }
}
