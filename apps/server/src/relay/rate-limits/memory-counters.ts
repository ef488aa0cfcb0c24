import type { CounterStore, Outcome } from './counter-store.js';
import { counterLetter, countsOnAdmission, type LimitCheck } from './limit-checks.js';
import { bucketOf, usedOf, weightOf } from './sliding-window.js';

/** A window counter: the fixed window `bucket` and the one before it. */
interface WindowCount {
  windowMs: number;
  bucket: number;
  current: number;
  previous: number;
}

/** How often idle counters are dropped: memory follows the users active in their windows. */
const SWEEP_MS = 60_000;

/**
 * The counters of one node, when REDIS_CONN_STRING is not set: a Map of window counters and one of
 * slots in use, keyed by user, scope and kind. A window counter is dropped two windows after its
 * last use; a gate's entry when its last slot is given back.
 */
export class MemoryCounters implements CounterStore {
  private readonly windows = new Map<string, WindowCount>();
  private readonly slots = new Map<string, number>();
  private lastSweep = 0;

  admit(userId: number, checks: readonly LimitCheck[], now: number): Outcome {
    if (now - this.lastSweep >= SWEEP_MS) this.sweep(now);
    const counts = new Array<number>(checks.length * 2);
    const found: (WindowCount | undefined)[] = new Array(checks.length);
    let admitted = true;
    for (let index = 0; index < checks.length; index += 1) {
      const check = checks[index]!;
      if (check.kind === 'concurrency') {
        const inFlight = this.slots.get(slotKey(userId, check)) ?? 0;
        counts[2 * index] = inFlight;
        counts[2 * index + 1] = 0;
        if (inFlight >= check.limit) admitted = false;
        continue;
      }
      const window = this.window(userId, check, now);
      found[index] = window;
      counts[2 * index] = window.current;
      counts[2 * index + 1] = window.previous;
      if (usedOf(window.current, window.previous, weightOf(now, check.windowMs)) >= check.limit) admitted = false;
    }
    if (!admitted) return { admitted, counts };
    for (let index = 0; index < checks.length; index += 1) {
      const check = checks[index]!;
      if (check.kind === 'concurrency') {
        const key = slotKey(userId, check);
        this.slots.set(key, (this.slots.get(key) ?? 0) + 1);
      } else if (countsOnAdmission(check.kind)) {
        found[index]!.current += 1;
      }
    }
    return { admitted, counts };
  }

  add(userId: number, checks: readonly LimitCheck[], kind: 'tpm' | 'success', amount: number, now: number): void {
    for (const check of checks) if (check.kind === kind) this.window(userId, check, now).current += amount;
  }

  release(userId: number, checks: readonly LimitCheck[]): void {
    for (const check of checks) {
      if (check.kind !== 'concurrency') continue;
      const key = slotKey(userId, check);
      const inFlight = (this.slots.get(key) ?? 0) - 1;
      if (inFlight > 0) this.slots.set(key, inFlight);
      else this.slots.delete(key);
    }
  }

  settled(): Promise<void> {
    return Promise.resolve();
  }

  close(): void {
    this.windows.clear();
    this.slots.clear();
  }

  /** Counters held (for tests). */
  get size(): number {
    return this.windows.size + this.slots.size;
  }

  /** The check's counter, rolled forward to `now`'s window. */
  private window(userId: number, check: LimitCheck, now: number): WindowCount {
    const key = `${userId}:${check.scope}:${counterLetter(check.kind)}${check.windowMs}`;
    const bucket = bucketOf(now, check.windowMs);
    let window = this.windows.get(key);
    if (window === undefined) {
      window = { windowMs: check.windowMs, bucket, current: 0, previous: 0 };
      this.windows.set(key, window);
    } else if (window.bucket !== bucket) {
      window.previous = window.bucket === bucket - 1 ? window.current : 0;
      window.current = 0;
      window.bucket = bucket;
    }
    return window;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.bucket < bucketOf(now, window.windowMs) - 1) this.windows.delete(key);
  }
}

const slotKey = (userId: number, check: LimitCheck): string => `${userId}:${check.scope}:c`;
