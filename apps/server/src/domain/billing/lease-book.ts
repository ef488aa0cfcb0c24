/** Which balance a lease was taken from. The numbers are the `quota_leases.kind` column. */
export const LeaseKind = { User: 1, Token: 2 } as const;
export type LeaseKind = (typeof LeaseKind)[keyof typeof LeaseKind];

/**
 * One balance (a user's quota or a limited token's remain_quota) as this process holds it.
 *
 *   granted  taken from the database into this process's lease row and not yet spent or given back
 *   held     reserved by calls in flight (never more than granted)
 *   free     granted - held: what the next call may reserve without going to the database
 */
export class LeaseAccount {
  granted = 0;
  held = 0;
  /** Charged since the last flush: leaves the lease row in the flush's transaction. */
  charged = 0;
  /**
   * The most charged in an interval lately: the last interval's charges, or the larger ones before
   * it, halved for each second since (flushes come at uneven times: a timer's flush just after a
   * full buffer's sees little). How much headroom a top-up takes, and what a busy payer keeps.
   */
  previousCharged = 0;
  /** The lease row, once created. */
  rowId: number | undefined;
  rowCreating: Promise<number> | undefined;
  /** The database take under way for this balance: other calls wait for it instead of queueing on its row lock. */
  topUp: Promise<unknown> | undefined;
  /** Top-ups, settlements and waiters under way: the account must stay in the book. */
  busy = 0;
  /** A database take of at least this much failed at `failedAt` (ms): smaller needs may still succeed. */
  failedNeed = Number.POSITIVE_INFINITY;
  failedAt = 0;
  /** Whether other processes held part of this balance, and when (ms) that was read. */
  othersHold: Promise<boolean> | undefined;
  othersHoldReadAt = 0;
  /** Given back by a flush of this process that has not committed yet: in neither the lease nor the balance. */
  returning = 0;
  /** The balance column as last read for a capped call, and when (ms); 0: read it afresh. */
  balanceRead: Promise<number> | undefined;
  balanceReadAt = 0;
  private waiters: (() => void)[] = [];

  constructor(
    readonly kind: LeaseKind,
    readonly entityId: number,
  ) {}

  get free(): number {
    return this.granted - this.held;
  }

  /**
   * What a top-up takes beyond its need, so that a steady payer goes to the database about once an
   * interval, and a burst of calls once rather than once a call.
   */
  get headroom(): number {
    return 2 * Math.max(this.charged, this.previousCharged) + this.held;
  }

  /**
   * Below this much free balance a busy payer's lease is topped up before it runs out
   * (ChargeService's early refill): half of what it keeps at a flush. 0 for a payer with no
   * spending yet, whose first take is waited for.
   */
  get lowWater(): number {
    return this.charged === 0 && this.previousCharged === 0 ? 0 : Math.floor((Math.max(this.charged, this.previousCharged) + this.held) / 2);
  }

  get idle(): boolean {
    return this.granted === 0 && this.held === 0 && this.charged === 0 && this.busy === 0;
  }

  /** Resolves at the next settlement or release on this balance, or after `ms`. */
  changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        // Gone already when notify() woke it: notify swaps the list before calling.
        const index = this.waiters.indexOf(wake);
        if (index !== -1) this.waiters.splice(index, 1);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.push(wake);
    });
  }

  notify(): void {
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** What one flush moves for one account: charges and give-backs leave the lease row. */
export interface LeaseFlushEntry {
  account: LeaseAccount;
  rowId: number;
  charged: number;
  returned: number;
}

/**
 * This process's leases, by balance. The relay's hot path reads and writes only these numbers; the
 * database sees a lease when it is taken (LeaseStore.take) and when a flush settles it.
 */
export class LeaseBook {
  private readonly users = new Map<number, LeaseAccount>();
  private readonly tokens = new Map<number, LeaseAccount>();
  /** When the last flush began (ms). */
  private lastFlushAt = Date.now();

  account(kind: LeaseKind, entityId: number): LeaseAccount {
    const map = kind === LeaseKind.User ? this.users : this.tokens;
    let account = map.get(entityId);
    if (!account) map.set(entityId, (account = new LeaseAccount(kind, entityId)));
    return account;
  }

  peek(kind: LeaseKind, entityId: number): LeaseAccount | undefined {
    return (kind === LeaseKind.User ? this.users : this.tokens).get(entityId);
  }

  /** Balance this process holds for a user or token (the relay cache adds it to the database value). */
  granted(kind: LeaseKind, entityId: number): number {
    return this.peek(kind, entityId)?.granted ?? 0;
  }

  get size(): number {
    return this.users.size + this.tokens.size;
  }

  /** Every account with charges or free balance to settle. */
  *accounts(): IterableIterator<LeaseAccount> {
    yield* this.users.values();
    yield* this.tokens.values();
  }

  /**
   * Starts a flush: takes every account's charges and gives back its free balance beyond what a
   * busy payer needs to go on (an idle payer's lease goes back whole; what calls in flight hold
   * stays), all at once so calls admitted while the flush is written see the smaller grant. A busy
   * payer keeps an interval's spending (`previousCharged`) plus twice what its calls in flight hold
   * and is not sent back to the database (and the tokenizer) by every flush, which come every
   * 0.3 s at 10,000 calls a second (3,000 logs each). What it keeps must last while the flush is
   * written: a take then waits for the flush's transaction (tens of milliseconds under load), and
   * so would every call of the payer. `returnAll` (a drain, a shutdown) gives back every free unit.
   */
  beginFlush(returnAll: boolean, now = Date.now()): LeaseFlushEntry[] {
    const entries: LeaseFlushEntry[] = [];
    const decay = 0.5 ** (Math.max(0, now - this.lastFlushAt) / 1000);
    this.lastFlushAt = now;
    for (const account of this.accounts()) {
      if (account.rowId === undefined) continue;
      const charged = account.charged;
      const recent = Math.max(charged, Math.floor(account.previousCharged * decay));
      // What calls in flight hold counts too: a hold is a call's bound, many times its cost, and
      // under load more calls are in flight while the flush is written than when it began.
      const resting = charged === 0 && account.held === 0;
      const keep = returnAll || resting ? 0 : Math.min(account.free, recent + 2 * account.held);
      const returned = Math.max(0, account.free - keep);
      if (charged === 0 && returned === 0) continue;
      account.granted -= returned;
      account.returning += returned;
      account.previousCharged = resting ? 0 : recent;
      account.charged = 0;
      entries.push({ account, rowId: account.rowId, charged, returned });
    }
    return entries;
  }

  /** The flush failed: everything goes back as it was, for the next flush. */
  abortFlush(entries: readonly LeaseFlushEntry[]): void {
    for (const { account, charged, returned } of entries) {
      account.granted += returned;
      account.charged += charged;
    }
  }

  /**
   * The flush committed or failed (abortFlush put its give-backs back into the leases): what it
   * gave back is in the balances or the leases again; calls waiting on them look again.
   */
  endFlush(entries: readonly LeaseFlushEntry[]): void {
    for (const { account, returned } of entries) {
      if (returned === 0) continue;
      account.returning -= returned;
      account.balanceReadAt = 0;
      account.notify();
    }
  }

  /** Accounts that hold nothing: the flush deletes their (empty) rows, then `drop` forgets them. */
  idleAccounts(): LeaseAccount[] {
    const idle: LeaseAccount[] = [];
    for (const account of this.accounts()) if (account.idle) idle.push(account);
    return idle;
  }

  /**
   * After the flush committed. An account a call reached meanwhile stays: if its row was deleted,
   * its next take finds no row and makes a new one.
   */
  drop(accounts: readonly LeaseAccount[]): void {
    for (const account of accounts) {
      if (!account.idle) continue;
      const map = account.kind === LeaseKind.User ? this.users : this.tokens;
      if (map.get(account.entityId) === account) map.delete(account.entityId);
    }
  }

  /** After this process's leases were given back by another (it was thought dead). */
  forgetRows(): void {
    for (const account of this.accounts()) account.rowId = undefined;
  }
}
