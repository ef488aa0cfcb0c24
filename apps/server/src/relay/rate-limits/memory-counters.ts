import type { CounterStore, Outcome } from './counter-store.js';
import { countsOnAdmission, type LimitCheck } from './limit-checks.js';
import { bucketOf, usedOf, weightOf } from './sliding-window.js';

/** A window counter: the fixed window `bucket` and the one before it; a gate's calls in flight in `current`. */
interface Counter {
  windowMs: number;
  bucket: number;
  current: number;
  previous: number;
}

/** How often idle counters are dropped: memory follows the users active in their windows. */
const SWEEP_MS = 60_000;

const ADMITTED: Outcome = { admitted: true, counts: [] };
/** The counters of the call being admitted (admission is synchronous: one call at a time). */
const found: Counter[] = [];

/**
 * The counters of one node, when REDIS_CONN_STRING is not set: per user, a Map of counters by the
 * checks' names (made once with the checks, so a call builds no key). A window counter is dropped
 * two windows after its last use, a gate when its last slot comes back, a user with no counter left.
 */
export class MemoryCounters implements CounterStore {
  private readonly users = new Map<number, Map<string, Counter>>();
  private lastSweep = 0;

  admit(userId: number, checks: readonly LimitCheck[], now: number): Outcome {
    if (now - this.lastSweep >= SWEEP_MS) this.sweep(now);
    let counters = this.users.get(userId);
    if (counters === undefined) {
      counters = new Map();
      this.users.set(userId, counters);
    }
    // An admitted call (nearly every call) allocates nothing here: the counters found wait in a
    // scratch array for the count, and the counts are written out only for a refusal's answer.
    let admitted = true;
    for (let index = 0; index < checks.length; index += 1) {
      const check = checks[index]!;
      const counter = counterOf(counters, check, now);
      found[index] = counter;
      const used = check.windowMs === 0 ? counter.current : usedOf(counter.current, counter.previous, weightOf(now, check.windowMs));
      if (used >= check.limit) admitted = false;
    }
    if (!admitted) {
      const counts = new Array<number>(checks.length * 2);
      for (let index = 0; index < checks.length; index += 1) {
        counts[2 * index] = found[index]!.current;
        counts[2 * index + 1] = found[index]!.previous;
      }
      found.length = 0;
      return { admitted, counts };
    }
    for (let index = 0; index < checks.length; index += 1) {
      const kind = checks[index]!.kind;
      if (kind === 'concurrency' || countsOnAdmission(kind)) found[index]!.current += 1;
    }
    found.length = 0;
    return ADMITTED;
  }

  finish(userId: number, checks: readonly LimitCheck[], _lease: string, tokens: number, succeeded: boolean, now: number): void {
    const counters = this.users.get(userId);
    if (counters === undefined) return;
    for (const check of checks) {
      if (check.kind === 'concurrency') {
        const gate = counters.get(check.key);
        if (gate === undefined) continue;
        gate.current -= 1;
        if (gate.current <= 0) counters.delete(check.key);
      } else if (check.kind === 'tpm') {
        if (tokens > 0) counterOf(counters, check, now).current += tokens;
      } else if (check.kind === 'success') {
        if (succeeded) counterOf(counters, check, now).current += 1;
      }
    }
    if (counters.size === 0) this.users.delete(userId);
  }

  settled(): Promise<void> {
    return Promise.resolve();
  }

  close(): void {
    this.users.clear();
  }

  /** Counters held (for tests). */
  get size(): number {
    let size = 0;
    for (const counters of this.users.values()) size += counters.size;
    return size;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [userId, counters] of this.users) {
      for (const [key, counter] of counters) {
        const idle = counter.windowMs === 0 ? counter.current <= 0 : counter.bucket < bucketOf(now, counter.windowMs) - 1;
        if (idle) counters.delete(key);
      }
      if (counters.size === 0) this.users.delete(userId);
    }
  }
}

/** The check's counter, a window rolled forward to `now`'s fixed window. */
function counterOf(counters: Map<string, Counter>, check: LimitCheck, now: number): Counter {
  const { windowMs } = check;
  const bucket = windowMs === 0 ? 0 : bucketOf(now, windowMs);
  let counter = counters.get(check.key);
  if (counter === undefined) {
    counter = { windowMs, bucket, current: 0, previous: 0 };
    counters.set(check.key, counter);
  } else if (counter.bucket !== bucket) {
    counter.previous = counter.bucket === bucket - 1 ? counter.current : 0;
    counter.current = 0;
    counter.bucket = bucket;
  }
  return counter;
}
