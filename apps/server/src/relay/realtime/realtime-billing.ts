import type { Settlement } from '../../domain/billing/charge-service.js';
import type { RealtimeSessionParts } from './realtime-deps.js';
import { realtimeLogRow } from './realtime-log.js';
import { realtimeQuota, type RealtimeUsage } from './realtime-pricing.js';

/** A response under way in a session. */
export interface OpenResponse {
  /** Date.now() at its response.created. */
  createdWall: number;
  /** Milliseconds from response.created to its first delta; -1 until then. */
  firstMs: number;
}

/**
 * The money of a session's responses: each response.done is settled from its hold at new-api's
 * realtime price (realtime-pricing.ts), counted in /metrics and logged once. Settlements that go
 * to the database (a cost above the hold) are awaited before the session counts as ended.
 */
export class RealtimeBilling {
  private readonly settlements = new Set<Promise<void>>();
  /** Tokens the session's responses reported (prompt and completion), for its rate limits. */
  tokens = 0;

  constructor(private readonly parts: RealtimeSessionParts) {}

  bill(id: string, usage: RealtimeUsage | undefined, open: OpenResponse | undefined): void {
    const { holds, pricing, channel, deps, model } = this.parts;
    const quotaPerUnit = deps.context.options.number('QuotaPerUnit');
    if (!holds.has(id)) {
      // Cancelled unserved (it started without a hold): what the upstream counted is not charged.
      if (usage) {
        const cost = realtimeQuota(pricing, usage, quotaPerUnit);
        deps.metrics.overrun(channel.id, cost);
        deps.context.logger.warn({ channelId: channel.id, model, cost }, 'a realtime response started without a hold was cancelled unserved');
      }
      return;
    }
    if (usage === undefined) {
      holds.release(id);
      deps.context.logger.warn({ channelId: channel.id, model, responseId: id }, 'a realtime response ended without usage: not billed');
      return;
    }
    this.tokens += usage.inputTokens + usage.outputTokens;
    const settled = holds.settle(id, realtimeQuota(pricing, usage, quotaPerUnit), channel.id)!;
    if (!(settled instanceof Promise)) {
      this.log(id, usage, settled, open);
      return;
    }
    const logged = settled.then(
      (settlement) => this.log(id, usage, settlement, open),
      (error: unknown) => deps.context.logger.error({ err: error, channelId: channel.id }, 'a realtime response could not be settled'),
    );
    this.settlements.add(logged);
    void logged.finally(() => this.settlements.delete(logged));
  }

  /** Resolves when the settlements under way are done. */
  async settled(): Promise<void> {
    while (this.settlements.size > 0) await Promise.all([...this.settlements]);
  }

  private log(id: string, usage: RealtimeUsage, settlement: Settlement, open: OpenResponse | undefined): void {
    const { deps, channel, model } = this.parts;
    deps.metrics.charged(model, channel.id, settlement.charged);
    if (settlement.unpaid > 0) {
      deps.metrics.unpaid(settlement.unpaid);
      deps.context.logger.error(
        { model, channelId: channel.id, unpaid: settlement.unpaid },
        'a realtime response was charged less than it held: the ledger is wrong',
      );
    }
    if (settlement.overrun > 0) {
      deps.metrics.overrun(channel.id, settlement.overrun);
      deps.health.noteOverrun(channel, settlement.overrun);
      deps.context.logger.warn(
        { model, channelId: channel.id, overrun: settlement.overrun },
        'a realtime response cost more than it held: the excess is not charged',
      );
    }
    if (!deps.context.options.bool('LogConsumeEnabled')) return;
    const createdWall = open?.createdWall ?? Date.now();
    const firstResponseMs = open && open.firstMs >= 0 ? open.firstMs : Date.now() - createdWall;
    deps.ledger.logs.push(realtimeLogRow({ parts: this.parts, responseId: id, usage, settlement, createdWall, firstResponseMs }));
  }
}
