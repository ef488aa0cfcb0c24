import type { LimitCheck } from './limit-checks.js';

/** What a store found for a call's checks. */
export interface Outcome {
  /** False when a check is at its limit: then nothing was counted. */
  admitted: boolean;
  /**
   * Per check, as found before this call counted: [current, previous] of its window, [in flight, 0]
   * of a gate. Only a refusal's answer reads them; an admitted call's may be left empty.
   */
  counts: number[];
}

/**
 * Where counters live: this process's memory (memory-counters.ts) or Redis (redis-counters.ts).
 * Every counter belongs to one user (a token's too), so a call's counters sit together.
 */
export interface CounterStore {
  /**
   * Checks every one of `checks` and, only when all pass, counts the call: a request in each
   * request window, a slot named `lease` in each gate. Undefined when the counters could not be
   * read (Redis down): the call goes unchecked.
   */
  admit(userId: number, checks: readonly LimitCheck[], now: number, lease: string): Outcome | undefined | Promise<Outcome | undefined>;
  /**
   * The call has ended: `tokens` (prompt + completion) go into the current window of its tpm
   * checks, its success (an answer was delivered) into its success checks, and the slot `lease`
   * holds in each gate is given back. One write (one round trip with Redis).
   */
  finish(userId: number, checks: readonly LimitCheck[], lease: string, tokens: number, succeeded: boolean, now: number): void;
  /** Resolves once the writes sent so far are done (at once in memory): for tests of several nodes. */
  settled(): Promise<void>;
  close(): void;
}
