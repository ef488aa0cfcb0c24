import { AppError } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';
import { describeQuota } from './quota-format.js';
import type { QuotaLedger } from './quota-ledger.js';
import type { Payer, QuotaStore } from './quota-store.js';

/** The in-memory balances the relay keeps (database value + this node's unflushed changes). */
export interface QuotaViews {
  userQuota(userId: number): number | undefined;
  tokenQuota(tokenId: number): number | undefined;
  adjust(payer: Payer, delta: number): void;
  /** Drops the cached user and token so the next request reads their balances afresh. */
  invalidate(payer: Payer): void;
}

export interface Reservation {
  payer: Payer;
  /** Taken from the database before the call; 0 when the 100× rule skipped the pre-consume. */
  preConsumed: number;
}

export interface Settlement {
  /** What the user and token paid for the call, and what its log records. */
  charged: number;
  /** Cost beyond the pre-consumption that the balances could not cover (forgiven). */
  unpaid: number;
}

/** A balance holding more than this many times the estimate skips the pre-consume. */
const RICH_FACTOR = 100;

/**
 * The money path of a relayed call.
 *
 * 1. reserve: unless user and token each hold more than 100× the estimate, the estimate is taken
 *    at once with a conditional UPDATE; a balance that cannot cover it refuses the call (403) and
 *    nothing moves.
 * 2. settle: the difference between the actual cost and the reservation. A refund is given back
 *    at once. An extra charge is conditional: it lands in full or not at all. When it cannot land,
 *    the call costs what was reserved and the shortfall is recorded as unpaid (admin_info) — the
 *    logged quota is always exactly what the balances paid, and no balance goes below zero.
 *    Calls that skipped the reservation (rich payers) are charged through the batch when this
 *    node's view of both balances covers the cost, else by the same conditional UPDATE.
 * 3. release: a failed call gets its whole reservation back.
 */
export class ChargeService {
  constructor(
    private readonly store: QuotaStore,
    private readonly ledger: QuotaLedger,
    private readonly views: QuotaViews,
    private readonly options: OptionService,
  ) {}

  /** The payer's user and token each hold more than 100× the estimate (or it is free). */
  skipsReservation(payer: Payer, estimate: number): boolean {
    if (estimate <= 0) return true;
    const threshold = RICH_FACTOR * estimate;
    const userQuota = this.views.userQuota(payer.userId) ?? 0;
    const tokenQuota = payer.limitedToken ? (this.views.tokenQuota(payer.tokenId) ?? 0) : Number.POSITIVE_INFINITY;
    return userQuota > threshold && tokenQuota > threshold;
  }

  /** Takes the estimate from the balances, unless the payer is rich enough to skip it (then at once). */
  reserve(payer: Payer, estimate: number): Reservation | Promise<Reservation> {
    if (this.skipsReservation(payer, estimate)) return { payer, preConsumed: 0 };
    return this.reserveInDatabase(payer, estimate);
  }

  private async reserveInDatabase(payer: Payer, estimate: number): Promise<Reservation> {
    const shortfall = await this.store.take(payer, estimate, this.outstanding(payer));
    if (shortfall !== undefined) {
      this.views.invalidate(payer);
      throw this.shortfallError(shortfall, estimate);
    }
    this.views.adjust(payer, -estimate);
    return { payer, preConsumed: estimate };
  }

  /**
   * Settles a call. Synchronous when nothing has to reach the database first (the cost matches the
   * reservation, or a rich payer's charge goes through the batch), which is nearly every call.
   */
  settle(reservation: Reservation, actual: number, channelId: number): Settlement | Promise<Settlement> {
    const { payer, preConsumed } = reservation;
    const extra = actual - preConsumed;
    if (extra === 0) return this.record(payer, actual, 0, channelId);
    if (extra > 0 && preConsumed === 0 && this.viewsCover(payer, extra)) {
      this.ledger.addUser(payer.userId, { quota: -extra });
      if (payer.limitedToken) this.ledger.addToken(payer.tokenId, { remainQuota: -extra });
      this.views.adjust(payer, -extra);
      return this.record(payer, actual, 0, channelId);
    }
    return this.settleInDatabase(reservation, actual, channelId);
  }

  private async settleInDatabase(reservation: Reservation, actual: number, channelId: number): Promise<Settlement> {
    const { payer, preConsumed } = reservation;
    const extra = actual - preConsumed;
    if (extra < 0) {
      await this.store.give(payer, -extra);
      this.views.adjust(payer, -extra);
      return this.record(payer, actual, 0, channelId);
    }
    if ((await this.store.take(payer, extra, this.outstanding(payer))) === undefined) {
      this.views.adjust(payer, -extra);
      return this.record(payer, actual, 0, channelId);
    }
    this.views.invalidate(payer);
    return this.record(payer, preConsumed, extra, channelId);
  }

  /** The batched counters of a settled call: what it was charged, and what it could not be. */
  private record(payer: Payer, charged: number, unpaid: number, channelId: number): Settlement {
    this.ledger.addUser(payer.userId, { usedQuota: charged, requestCount: 1 });
    this.ledger.addToken(payer.tokenId, { usedQuota: charged, accessedTime: Math.floor(Date.now() / 1000) });
    this.ledger.addChannel(channelId, charged);
    return { charged, unpaid };
  }

  async release(reservation: Reservation): Promise<void> {
    if (reservation.preConsumed <= 0) return;
    await this.store.give(reservation.payer, reservation.preConsumed);
    this.views.adjust(reservation.payer, reservation.preConsumed);
  }

  private viewsCover(payer: Payer, amount: number): boolean {
    const userQuota = this.views.userQuota(payer.userId);
    if (userQuota === undefined || userQuota < amount) return false;
    if (!payer.limitedToken) return true;
    const tokenQuota = this.views.tokenQuota(payer.tokenId);
    return tokenQuota !== undefined && tokenQuota >= amount;
  }

  private outstanding(payer: Payer): { user: number; token: number } {
    return { user: this.ledger.userOutstanding(payer.userId), token: this.ledger.tokenOutstanding(payer.tokenId) };
  }

  private shortfallError(side: 'user' | 'token', estimate: number): AppError {
    const needed = describeQuota(this.options, estimate);
    if (side === 'user') {
      return new AppError(
        'quota:insufficient_user_quota',
        `用户额度不足，本次请求需要预扣 ${needed}，请充值后重试 (insufficient user quota: this request needs ${needed})`,
        { status: 403 },
      );
    }
    return new AppError(
      'quota:insufficient_token_quota',
      `令牌额度不足，本次请求需要预扣 ${needed}，请提高令牌额度或换用其他令牌 (insufficient token quota: this request needs ${needed})`,
      { status: 403 },
    );
  }
}
