/** One watched stream: when it last saw upstream bytes, and what to do once it has been silent too long. */
export interface WatchedStream {
  lastActivity: number;
  readonly onSilent: () => void;
}

/**
 * Ends streams whose upstream has been silent for `idleMs` (STREAMING_TIMEOUT). One shared check
 * runs every quarter of the timeout (at most every second) instead of a timer per stream that
 * every chunk would have to re-arm: a thousand live streams then cost one timer, and a chunk only
 * a timestamp. A stream is ended between `idleMs` and `idleMs` plus one check interval after its
 * last bytes.
 */
export class StreamWatchdog {
  private readonly streams = new Set<WatchedStream>();
  private timer: NodeJS.Timeout | undefined;
  readonly checkIntervalMs: number;

  constructor(readonly idleMs: number) {
    this.checkIntervalMs = Math.max(10, Math.min(1000, Math.floor(idleMs / 4)));
  }

  watch(onSilent: () => void): WatchedStream {
    const stream: WatchedStream = { lastActivity: performance.now(), onSilent };
    this.streams.add(stream);
    // The check keeps running once started; it does not keep the process alive.
    this.timer ??= setInterval(() => this.check(), this.checkIntervalMs).unref();
    return stream;
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
    const silentSince = performance.now() - this.idleMs;
    for (const stream of this.streams) {
      if (stream.lastActivity > silentSince) continue;
      this.streams.delete(stream);
      stream.onSilent();
    }
  }
}
