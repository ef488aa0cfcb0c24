import { AppError } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';
import { LeaseKind, type LeaseAccount } from './lease-book.js';
import type { LeasePart, LeaseStore, Shortfall } from './lease-store.js';
import { describeQuota } from './quota-format.js';
import type { QuotaLedger } from './quota-ledger.js';
import type { Payer } from './payer.js';

/** The relay's cached balances: the database value plus this process's lease. */
export interface QuotaViews {
  /** A charge left the lease: the cached balances drop by it at once. */
  charged(payer: Payer, amount: number): void;
  /** Drops the cached user and token so the next request reads their balances afresh. */
  invalidate(payer: Payer): void;
}

export interface Reservation {
  payer: Payer;
  /** Held from this process's leases for the call while it runs. */
  held: number;
}

export interface Settlement {
  /** What the user and token paid for the call, and what its log records. */
  charged: number;
  /** Cost beyond the reservation that the balances could not cover (forgiven, noted for admins). */
  unpaid: number;
}

/**
 * A database take of a need this size or more failed this recently: waiting calls skip the
 * database. Also how often calls waiting for other processes' leases look again.
 */
const RETRY_MS = 200;
/** Headroom is taken only from a balance that keeps this many times it for the payer's calls elsewhere. */
const HEADROOM_LEAVES = 3;

/**
 * The money path of a relayed call, against this process's leases (lease-book.ts):
 *
 * 1. reserve: the call's estimate is held from the free part of the payer's user and token leases,
 *    in memory, counting every call in flight on this process. When the leases cannot cover it, the
 *    shortfall (plus headroom: what the payer spent last interval) is taken from the database by a
 *    conditional UPDATE into the lease row. A balance that cannot cover it either refuses the call
 *    with 403, after waiting up to QUOTA_WAIT_SECONDS for this process's calls in flight on that
 *    balance to settle (they give back what they held beyond their cost, and the completion
 *    estimate follows what the model really returned).
 * 2. settle: the hold is released and the actual cost charged from the lease; a cost above the lease
 *    is topped up conditionally, and what no balance can cover is recorded as unpaid.
 * 3. release: a failed call's hold goes back to the lease.
 *
 * Every node leases from the database, so no node serves a call its payer's balance does not cover,
 * whatever the others do. Free lease goes back to the balance at the next flush.
 */
export class ChargeService {
  constructor(
    private readonly store: LeaseStore,
    private readonly ledger: QuotaLedger,
    private readonly views: QuotaViews,
    private readonly options: OptionService,
    /** How long a call the balance cannot cover yet waits for calls in flight to settle. */
    private readonly waitMs: number,
  ) {}

  /**
   * The hot path: holds `quick`, a cheap upper bound of the call's cost, when this process's leases
   * cover it, synchronously and without the database. Undefined: `reserve` must decide.
   */
  reserveFromLease(payer: Payer, quick: number): Reservation | undefined {
    const { user, token } = this.accountsOf(payer);
    if (quick > user.free || (token !== undefined && quick > token.free)) return undefined;
    hold(user, token, quick);
    return { payer, held: quick };
  }

  /**
   * Holds the call's cost when the leases could not cover `quick` at once. A payer whose balance
   * is comfortably above it gets `quick` plus headroom taken into the lease (no tokenizer); for the
   * others `estimate` (counted prompt tokens and the completion estimate, asked again after every
   * wait) decides what is held.
   */
  async reserve(payer: Payer, quick: number | undefined, estimate: () => number | Promise<number>): Promise<Reservation> {
    const { user, token } = this.accountsOf(payer);
    user.busy += 1;
    if (token) token.busy += 1;
    try {
      if (quick !== undefined) {
        const underWay = user.topUp ?? token?.topUp;
        if (underWay) await underWay;
        if (!covers(user, token, quick)) await this.topUp(user, token, quick, { generousOnly: true });
        if (covers(user, token, quick)) {
          hold(user, token, quick);
          return { payer, held: quick };
        }
      }
      return await this.reserveEstimated(payer, user, token, estimate);
    } finally {
      user.busy -= 1;
      if (token) token.busy -= 1;
    }
  }

  private async reserveEstimated(payer: Payer, user: LeaseAccount, token: LeaseAccount | undefined, estimate: () => number | Promise<number>): Promise<Reservation> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const estimated = estimate();
      const need = estimated instanceof Promise ? await estimated : estimated;
      if (covers(user, token, need)) {
        hold(user, token, need);
        return { payer, held: need };
      }
      const underWay = user.topUp ?? token?.topUp;
      if (underWay) {
        await underWay;
        continue;
      }
      const shortfall = await this.topUp(user, token, need, { skipRecentFailures: true });
      if (shortfall === undefined) {
        // The headroom taken may cover calls waiting on these balances too.
        notify(user, token);
        if (covers(user, token, need)) {
          hold(user, token, need);
          return { payer, held: need };
        }
        // Calls admitted while the take was written used what it brought: try again.
        continue;
      }
      const short = shortfall === 'user' ? user : token!;
      const remaining = deadline - Date.now();
      if (remaining > 0 && short.held > 0) {
        // This process's calls on the balance will settle and give back what they held beyond their cost.
        await short.changed(remaining);
      } else if (remaining > 0 && (await this.othersHold(short))) {
        // Another node holds part of it for its calls; its next flush gives back what they did not use.
        await short.changed(Math.min(remaining, RETRY_MS));
      } else {
        this.views.invalidate(payer);
        throw this.shortfallError(shortfall, need);
      }
    }
  }

  /**
   * Takes what the leases lack from the database: with headroom first (so a busy payer goes there
   * about once an interval), then exactly the lack.
   */
  private topUp(user: LeaseAccount, token: LeaseAccount | undefined, need: number, mode: TakeMode = {}): Promise<Shortfall | undefined> {
    const taking = this.take(user, token, need, mode);
    const settled = taking.then(
      () => undefined,
      () => undefined,
    );
    user.topUp = settled;
    if (token) token.topUp = settled;
    void settled.then(() => {
      if (user.topUp === settled) user.topUp = undefined;
      if (token && token.topUp === settled) token.topUp = undefined;
    });
    return taking;
  }

  private async take(user: LeaseAccount, token: LeaseAccount | undefined, need: number, { skipRecentFailures = false, generousOnly = false }: TakeMode): Promise<Shortfall | undefined> {
    const exact: LeasePart[] = [];
    // The token first: its shortfall is the one to report when both fall short.
    if (token && token.free < need) exact.push({ account: token, amount: need - token.free });
    if (user.free < need) exact.push({ account: user, amount: need - user.free });
    if (exact.length === 0) return undefined;
    if (skipRecentFailures) {
      const now = Date.now();
      for (const { account, amount } of exact) {
        if (amount >= account.failedNeed && now - account.failedAt < RETRY_MS) return sideOf(account);
      }
    }
    const generous = exact.map(({ account, amount }) => ({ account, amount: amount + account.headroom, leaving: HEADROOM_LEAVES * account.headroom }));
    let taken: LeasePart[] = generous;
    let shortfall = generous.some((part, index) => part.amount !== exact[index]!.amount) ? await this.store.take(generous) : 'user';
    if (shortfall !== undefined && generousOnly) return shortfall;
    if (shortfall !== undefined) {
      taken = exact;
      shortfall = await this.store.take(exact);
    }
    if (shortfall === undefined) {
      for (const { account, amount } of taken) account.granted += amount;
      return undefined;
    }
    const failed = exact.find((part) => sideOf(part.account) === shortfall);
    if (failed) {
      failed.account.failedNeed = failed.amount;
      failed.account.failedAt = Date.now();
    }
    return shortfall;
  }

  /**
   * Settles a call: releases its hold and charges the actual cost from the leases. Synchronous
   * when the leases cover the cost, which is every call whose cost is within its reservation.
   */
  settle(reservation: Reservation, actual: number, channelId: number): Settlement | Promise<Settlement> {
    const { payer, held } = reservation;
    const { user, token } = this.accountsOf(payer);
    unhold(user, token, held);
    if (covers(user, token, actual)) {
      this.charge(payer, user, token, actual);
      notify(user, token);
      return this.record(payer, actual, 0, channelId);
    }
    return this.settleBeyondLease(payer, user, token, actual, channelId);
  }

  private async settleBeyondLease(payer: Payer, user: LeaseAccount, token: LeaseAccount | undefined, actual: number, channelId: number): Promise<Settlement> {
    user.busy += 1;
    if (token) token.busy += 1;
    try {
      await this.topUp(user, token, actual);
      const charged = Math.min(actual, user.free, token ? token.free : Number.POSITIVE_INFINITY);
      if (charged < actual) this.views.invalidate(payer);
      this.charge(payer, user, token, charged);
      return this.record(payer, charged, actual - charged, channelId);
    } finally {
      user.busy -= 1;
      if (token) token.busy -= 1;
      notify(user, token);
    }
  }

  /** Other processes' leases on the balance, read at most every RETRY_MS for all the calls waiting on it. */
  private async othersHold(account: LeaseAccount): Promise<boolean> {
    if (account.othersHold === undefined || Date.now() - account.othersHoldReadAt >= RETRY_MS) {
      account.othersHoldReadAt = Date.now();
      account.othersHold = this.store.othersHold(account);
    }
    return account.othersHold;
  }

  /** A failed call: its hold goes back to the leases. */
  release(reservation: Reservation): void {
    const { user, token } = this.accountsOf(reservation.payer);
    unhold(user, token, reservation.held);
    notify(user, token);
  }

  private charge(payer: Payer, user: LeaseAccount, token: LeaseAccount | undefined, amount: number): void {
    if (amount === 0) return;
    user.granted -= amount;
    user.charged += amount;
    if (token) {
      token.granted -= amount;
      token.charged += amount;
    }
    this.views.charged(payer, amount);
  }

  /** The batched counters of a settled call: what it was charged, and what it could not be. */
  private record(payer: Payer, charged: number, unpaid: number, channelId: number): Settlement {
    this.ledger.addUser(payer.userId, { usedQuota: charged, requestCount: 1 });
    // Token 0: the playground, billed to the user alone (payer.ts).
    if (payer.tokenId !== 0) this.ledger.addToken(payer.tokenId, { usedQuota: charged, accessedTime: Math.floor(Date.now() / 1000) });
    this.ledger.addChannel(channelId, charged);
    return { charged, unpaid };
  }

  private accountsOf(payer: Payer): { user: LeaseAccount; token: LeaseAccount | undefined } {
    const book = this.ledger.leases;
    return { user: book.account(LeaseKind.User, payer.userId), token: payer.limitedToken ? book.account(LeaseKind.Token, payer.tokenId) : undefined };
  }

  private shortfallError(side: Shortfall, estimate: number): AppError {
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

interface TakeMode {
  /** Skip the database when a take this large failed a moment ago (calls waiting in a crowd). */
  skipRecentFailures?: boolean;
  /** Only the take with headroom, from a comfortable balance: the caller has a cheaper way out. */
  generousOnly?: boolean;
}

const sideOf = (account: LeaseAccount): Shortfall => (account.kind === LeaseKind.User ? 'user' : 'token');

const covers = (user: LeaseAccount, token: LeaseAccount | undefined, amount: number): boolean =>
  amount <= user.free && (token === undefined || amount <= token.free);

function hold(user: LeaseAccount, token: LeaseAccount | undefined, amount: number): void {
  user.held += amount;
  if (token) token.held += amount;
}

function unhold(user: LeaseAccount, token: LeaseAccount | undefined, amount: number): void {
  user.held -= amount;
  if (token) token.held -= amount;
}

function notify(user: LeaseAccount, token: LeaseAccount | undefined): void {
  user.notify();
  token?.notify();
}
