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
  /**
   * The output tokens the balance pays for, when it cannot pay for the call's full bound: the
   * upstream is asked for no more (relay/completion-cap.ts). Undefined: not capped.
   */
  cap?: number | undefined;
  /** The prompt as the relay counted it, when the reservation counted it (the prompt margins learn from it). */
  countedPrompt?: number | undefined;
}

/** What a call must hold, from its counted prompt. */
export interface ReservationNeed {
  /** The call's cost at its full output bound. */
  full: number;
  /**
   * The reservation of the call capped to what `available` pays for, or undefined when that is
   * less than a useful answer. Absent for calls whose output cannot be capped.
   */
  capped?: ((available: number) => { amount: number; outputTokens: number } | undefined) | undefined;
}

export interface Settlement {
  /** What the user and token paid for the call, and what its log records. */
  charged: number;
  /**
   * Cost within the reservation that went uncharged. Always 0: what a call holds pays for it. An
   * alarm (admin_info.unpaid_quota, modelgate_relay_unpaid_quota_total) should that ever break.
   */
  unpaid: number;
  /**
   * Cost beyond the reservation that the balances could not cover: the upstream returned more
   * than the bound the call was held for (an output past the limit it was sent, a prompt counted
   * past every earlier ratio). Not charged; recorded against the channel.
   */
  overrun: number;
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
 * 1. reserve: the call's bound (the most it can cost) is held from the free part of the payer's user
 *    and token leases, in memory, counting every call in flight on this process. When the leases
 *    cannot cover it, the shortfall (plus headroom: what the payer spent last interval) is taken from
 *    the database by a conditional UPDATE into the lease row. A balance that cannot cover it waits
 *    for this process's calls in flight on it to settle (they give back what they held beyond their
 *    cost), then holds what it can reach for a call capped at the output that pays for, or, below a
 *    useful answer, refuses with 403 once QUOTA_WAIT_SECONDS have passed.
 * 2. settle: the hold is released and the actual cost charged from the lease; a cost above the hold
 *    is topped up conditionally, and what no balance can cover is an upstream overrun, not charged.
 * 3. release: a failed call's hold goes back to the lease.
 *
 * Every node leases from the database, so no node serves a call its payer's balance does not cover,
 * whatever the others do. Free lease goes back to the balance at the next flush.
 */
export class ChargeService {
  /** Give-backs of capped calls' unused leases and early refills, scheduled or under way. */
  private readonly givingBack = new Set<Promise<void>>();

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
    if (user.free < user.lowWater || (token !== undefined && token.free < token.lowWater)) this.refillEarly(user, token);
    return { payer, held: quick };
  }

  /**
   * A busy payer's lease is running low: it is topped up now, in the background, while calls go on
   * spending what is left. Otherwise the take would come when the lease is empty, and every call
   * of the payer would wait for it, and for whatever holds the database then: on SQLite, a batch
   * flush's transaction (tens of milliseconds under load), which put every call of a busy payer in
   * the relay's p99. Only from a comfortable balance (the take with headroom); a payer near the end
   * of its balance goes on through `reserve`, which takes exactly what a call needs.
   */
  private refillEarly(user: LeaseAccount, token: LeaseAccount | undefined): void {
    if (user.topUp !== undefined || token?.topUp !== undefined) return;
    const need = Math.max(user.lowWater, token?.lowWater ?? 0);
    const now = Date.now();
    if (need >= user.failedNeed && now - user.failedAt < RETRY_MS) return;
    if (token && need >= token.failedNeed && now - token.failedAt < RETRY_MS) return;
    user.busy += 1;
    if (token) token.busy += 1;
    const refill = this.topUp(user, token, need, { generousOnly: true })
      .catch(() => undefined)
      .then(() => {
        user.busy -= 1;
        if (token) token.busy -= 1;
        notify(user, token);
      });
    this.givingBack.add(refill);
    void refill.then(() => this.givingBack.delete(refill));
  }

  /**
   * Holds the call's cost when the leases could not cover `quick` at once. A payer whose balance
   * is comfortably above it gets `quick` plus headroom taken into the lease (no tokenizer); for the
   * others `estimate` (the counted prompt's bound and the output bound, asked again after every
   * wait: the prompt margin may have learned) decides what is held, or what a capped call holds.
   */
  async reserve(payer: Payer, quick: number | undefined, estimate: () => ReservationNeed | Promise<ReservationNeed>): Promise<Reservation> {
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

  private async reserveEstimated(
    payer: Payer,
    user: LeaseAccount,
    token: LeaseAccount | undefined,
    estimate: () => ReservationNeed | Promise<ReservationNeed>,
  ): Promise<Reservation> {
    const deadline = Date.now() + this.waitMs;
    let balanceRechecked = false;
    for (;;) {
      const estimated = estimate();
      const need = estimated instanceof Promise ? await estimated : estimated;
      if (covers(user, token, need.full)) {
        hold(user, token, need.full);
        return { payer, held: need.full };
      }
      const underWay = user.topUp ?? token?.topUp;
      if (underWay) {
        await underWay;
        continue;
      }
      const shortfall = await this.topUp(user, token, need.full, { skipRecentFailures: true });
      if (shortfall === undefined) {
        // The headroom taken may cover calls waiting on these balances too.
        notify(user, token);
        if (covers(user, token, need.full)) {
          hold(user, token, need.full);
          return { payer, held: need.full };
        }
        // Calls admitted while the take was written used what it brought: try again.
        continue;
      }
      const short = shortfall === 'user' ? user : token!;
      const remaining = deadline - Date.now();
      if (remaining > 0 && short.held > 0) {
        // This process's calls on the balance will settle and give back what they held beyond
        // their cost: wait for them rather than cap this call at what they left.
        await short.changed(remaining);
        balanceRechecked = false;
        continue;
      }
      if (need.capped) {
        // A capped call is better than a refusal: the output the balance does pay for.
        const capped = await this.reserveCapped(payer, user, token, need.capped);
        if (capped) return capped;
        // A call admitted meanwhile holds it now: wait for that one (above) rather than refuse.
        if (remaining > 0 && short.held > 0) continue;
      }
      if (remaining > 0 && (short.returning > 0 || (await this.othersHold(short)))) {
        // A flush of this process is giving part of it back to the balance, or another node holds
        // part of it for its calls (its next flush gives back what they did not use).
        await short.changed(Math.min(remaining, RETRY_MS));
        balanceRechecked = false;
      } else if (need.capped && !balanceRechecked) {
        // The capped call read the balance up to RETRY_MS ago: both reads afresh before refusing
        // (another node's take moves the balance into its lease between them).
        balanceRechecked = true;
        user.balanceReadAt = 0;
        if (token) token.balanceReadAt = 0;
        short.othersHoldReadAt = 0;
      } else {
        this.views.invalidate(payer);
        throw this.shortfallError(shortfall, need.full);
      }
    }
  }

  /**
   * A call the balance cannot pay in full at its output bound: held for the output the balance
   * does pay for (everything free in the leases and the balances), when that is a useful answer.
   * Undefined: not even that, or another call took it first; the caller waits or refuses.
   */
  private async reserveCapped(
    payer: Payer,
    user: LeaseAccount,
    token: LeaseAccount | undefined,
    capped: NonNullable<ReservationNeed['capped']>,
  ): Promise<Reservation | undefined> {
    const userBalance = await this.balance(user);
    const tokenBalance = token ? await this.balance(token) : Number.POSITIVE_INFINITY;
    // After the reads: calls may have held or given back meanwhile.
    const available = Math.min(user.free + userBalance, token ? token.free + tokenBalance : Number.POSITIVE_INFINITY);
    const plan = capped(available);
    if (plan === undefined) return undefined;
    if (!covers(user, token, plan.amount)) {
      // Another call's take is under way: what it leaves is read again on the next round.
      const underWay = user.topUp ?? token?.topUp;
      if (underWay) {
        await underWay;
        return undefined;
      }
      const shortfall = await this.topUp(user, token, plan.amount, { exactOnly: true });
      if (shortfall !== undefined) {
        // The balance read was out of date: read it afresh next time.
        user.balanceReadAt = 0;
        if (token) token.balanceReadAt = 0;
        return undefined;
      }
      notify(user, token);
      if (!covers(user, token, plan.amount)) return undefined;
    }
    hold(user, token, plan.amount);
    return { payer, held: plan.amount, cap: plan.outputTokens };
  }

  /** The balance column, read at most every RETRY_MS for all the calls capped on it. */
  private balance(account: LeaseAccount): Promise<number> {
    if (account.balanceRead === undefined || Date.now() - account.balanceReadAt >= RETRY_MS) {
      account.balanceReadAt = Date.now();
      account.balanceRead = this.store.balance(account).then((value) => Math.max(0, value));
    }
    return account.balanceRead;
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

  private async take(
    user: LeaseAccount,
    token: LeaseAccount | undefined,
    need: number,
    { skipRecentFailures = false, generousOnly = false, exactOnly = false }: TakeMode,
  ): Promise<Shortfall | undefined> {
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
    let shortfall = !exactOnly && generous.some((part, index) => part.amount !== exact[index]!.amount) ? await this.store.take(generous) : 'user';
    if (shortfall !== undefined && generousOnly) return shortfall;
    if (shortfall !== undefined) {
      taken = exact;
      shortfall = await this.store.take(exact);
    }
    if (shortfall === undefined) {
      for (const { account, amount } of taken) {
        account.granted += amount;
        account.balanceReadAt = 0;
      }
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
    if (reservation.cap !== undefined) this.giveBackUnused(user, token);
    if (covers(user, token, actual)) {
      this.charge(payer, user, token, actual);
      notify(user, token);
      return this.record(payer, actual, 0, 0, channelId);
    }
    // The hold pays its part. It stays held across the await below, so no other call takes it, and
    // is charged only with the rest, in the same tick as the call's counters and log: a flush in
    // between must not move a charge out of the lease whose counters come only in the next flush
    // (a crash before that would keep the charge and lose its log and used quota).
    const paid = Math.min(actual, held, user.free, token ? token.free : Number.POSITIVE_INFINITY);
    user.held += paid;
    if (token) token.held += paid;
    return this.settleBeyondLease(payer, user, token, actual, paid, held, channelId);
  }

  /**
   * A cost above the call's hold: the excess is topped up from the balances when they can cover
   * it. What they cannot lies beyond the call's reservation: an overrun of the upstream's (an
   * output past the limit it was sent, a prompt past every ratio seen), never charged.
   */
  private async settleBeyondLease(
    payer: Payer,
    user: LeaseAccount,
    token: LeaseAccount | undefined,
    actual: number,
    paid: number,
    held: number,
    channelId: number,
  ): Promise<Settlement> {
    user.busy += 1;
    if (token) token.busy += 1;
    try {
      const excess = actual - paid;
      let extra: number;
      try {
        await this.topUp(user, token, excess);
        // Read while `paid` is still held: the leases beyond it.
        extra = Math.min(excess, user.free, token ? token.free : Number.POSITIVE_INFINITY);
      } finally {
        unhold(user, token, paid);
      }
      if (extra < excess) this.views.invalidate(payer);
      this.charge(payer, user, token, paid + extra);
      const charged = paid + extra;
      const unpaid = Math.max(0, Math.min(actual, held) - charged);
      return this.record(payer, charged, unpaid, actual - charged - unpaid, channelId);
    } finally {
      user.busy -= 1;
      if (token) token.busy -= 1;
      notify(user, token);
    }
  }

  /**
   * After a capped call, which held all the balance this process could reach: what it left goes
   * back to the balance at once, unless a call here took it up meanwhile, so that calls waiting
   * on other nodes need not wait for this node's next flush.
   */
  private giveBackUnused(user: LeaseAccount, token: LeaseAccount | undefined): void {
    const done = new Promise<void>((resolve) => {
      setImmediate(() => {
        const backs: Promise<void>[] = [];
        for (const account of token ? [user, token] : [user]) {
          if (account.held === 0 && account.free > 0 && account.topUp === undefined && account.rowId !== undefined) backs.push(this.giveBack(account));
        }
        void Promise.all(backs).then(() => resolve());
      });
    });
    this.givingBack.add(done);
    void done.then(() => this.givingBack.delete(done));
  }

  /**
   * Resolves once no give-back is under way: a drain or shutdown flushes after it, so the money a
   * give-back moves is never in neither place when the books are read or the process leaves.
   */
  async settled(): Promise<void> {
    while (this.givingBack.size > 0) await Promise.all([...this.givingBack]);
  }

  /**
   * The free part of this process's lease on a balance (what no call here holds) back to the
   * balance at once: an admin's subtract can take only what the column has.
   */
  async giveBackFree(kind: LeaseKind, entityId: number): Promise<void> {
    const account = this.ledger.leases.peek(kind, entityId);
    if (account && account.free > 0 && account.topUp === undefined && account.rowId !== undefined) await this.giveBack(account);
  }

  private async giveBack(account: LeaseAccount): Promise<void> {
    const amount = account.free;
    account.granted -= amount;
    account.returning += amount;
    account.busy += 1;
    try {
      await this.store.giveBack(account, amount);
    } catch {
      // Still in the lease row: the next flush gives it back.
      account.granted += amount;
    } finally {
      account.returning -= amount;
      account.busy -= 1;
      account.balanceReadAt = 0;
      account.notify();
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
  private record(payer: Payer, charged: number, unpaid: number, overrun: number, channelId: number): Settlement {
    this.ledger.addUser(payer.userId, { usedQuota: charged, requestCount: 1 });
    // Token 0: the playground, billed to the user alone (payer.ts).
    if (payer.tokenId !== 0) this.ledger.addToken(payer.tokenId, { usedQuota: charged, accessedTime: Math.floor(Date.now() / 1000) });
    this.ledger.addChannel(channelId, charged);
    return { charged, unpaid, overrun };
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
  /** Only the exact lack: a capped call takes what the balance has left, there is no headroom. */
  exactOnly?: boolean;
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
