import type { AppContext } from '../../app-context.js';
import type { TaskBilling } from './task-billing.js';

/** One platform's share of a poll round (Suno, Midjourney): fetch its unfinished tasks and record what changed. */
export type PollRound = () => Promise<unknown>;

/**
 * The master's poll of unfinished asynchronous tasks, as new-api's UpdateTaskBulk and
 * UpdateMidjourneyTaskBulk run on the master only. Every TASK_POLL_INTERVAL seconds (default 15)
 * each registered platform's round runs, then the failed tasks not yet refunded are refunded
 * (TaskBilling.refundPending), so a failure recorded just before a crash is refunded after the
 * restart. Rounds never overlap: a tick that finds one still running is skipped.
 *
 * The composition root schedules tick() on the master; tests and tools run a round at once with
 * runOnce(); the browser tests shorten the interval with the TASK_POLL_INTERVAL environment
 * variable (whole seconds, at least 1).
 */
export class TaskPoller {
  private readonly rounds = new Map<string, PollRound>();
  private running: Promise<void> | undefined;

  constructor(
    private readonly context: AppContext,
    private readonly billing: TaskBilling,
  ) {}

  /** Adds a platform's round (one per name; a second add under the same name replaces it). */
  add(name: string, round: PollRound): void {
    this.rounds.set(name, round);
  }

  /** No round under way. */
  isIdle(): boolean {
    return this.running === undefined;
  }

  /** The scheduled tick: a round, unless one is still under way. */
  tick(): Promise<void> {
    return this.isIdle() ? this.runOnce() : Promise.resolve();
  }

  /** One full round now: every platform, then the pending refunds. Waits for a round already under way instead of starting another. */
  runOnce(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Waits for a round under way (at shutdown). */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private async round(): Promise<void> {
    for (const [name, round] of this.rounds) {
      try {
        await round();
      } catch (error) {
        this.context.logger.error({ err: error, platform: name }, 'task poll round failed');
      }
    }
    await this.billing.refundPending();
  }
}
