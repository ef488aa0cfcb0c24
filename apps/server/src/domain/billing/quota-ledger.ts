import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { Db } from '../../db/index.js';
import { createLogWriter, LogBuffer, yieldToEventLoop, type LogWriter } from '../logs/log-buffer.js';
import { lockRowsInIdOrder, updateRowsById } from './batched-updates.js';
import { LeaseBook, LeaseKind, type LeaseAccount } from './lease-book.js';
import type { LeaseStore } from './lease-store.js';

interface UserDelta {
  /** Lease give-backs (charges leave the lease row, not the balance). */
  quota: number;
  usedQuota: number;
  requestCount: number;
}
interface TokenDelta {
  /** Lease give-backs. */
  remainQuota: number;
  usedQuota: number;
  /** Latest use, unix seconds. */
  accessedTime: number;
}

interface Batch {
  users: Map<number, UserDelta>;
  tokens: Map<number, TokenDelta>;
  channels: Map<number, number>;
}

const emptyBatch = (): Batch => ({ users: new Map(), tokens: new Map(), channels: new Map() });

function addUserTo(batch: Batch, userId: number, change: Partial<UserDelta>): void {
  let delta = batch.users.get(userId);
  if (!delta) batch.users.set(userId, (delta = { quota: 0, usedQuota: 0, requestCount: 0 }));
  delta.quota += change.quota ?? 0;
  delta.usedQuota += change.usedQuota ?? 0;
  delta.requestCount += change.requestCount ?? 0;
}

function addTokenTo(batch: Batch, tokenId: number, change: Partial<TokenDelta>): void {
  let delta = batch.tokens.get(tokenId);
  if (!delta) batch.tokens.set(tokenId, (delta = { remainQuota: 0, usedQuota: 0, accessedTime: 0 }));
  delta.remainQuota += change.remainQuota ?? 0;
  delta.usedQuota += change.usedQuota ?? 0;
  delta.accessedTime = Math.max(delta.accessedTime, change.accessedTime ?? 0);
}

export interface FlushResult {
  users: number;
  tokens: number;
  channels: number;
  logs: number;
}

/** This node's quota changes not yet in the database, by entity (negative = spent). */
export interface UnflushedQuota {
  userQuota(userId: number): number;
  tokenQuota(tokenId: number): number;
}

/**
 * Counter changes and consume logs held in memory and written every BATCH_UPDATE_INTERVAL
 * seconds (sooner when 1,000 log rows wait, see LogBuffer) in one transaction of `col = col + delta`
 * updates (batched-updates.ts), so the hot path does no write a batch can absorb.
 *
 * The same transaction moves the calls' charges out of this process's lease rows (lease-store.ts)
 * and gives back the free balance a payer did not use, so at every commit
 * `balance + Σ lease rows + used_quota` is what it was: a crash loses the unflushed logs and
 * counters together with the charges, whose balance is still in the lease rows and goes back to
 * the payer when the process is found dead (at its restart, or by another node).
 */
export class QuotaLedger implements UnflushedQuota {
  private pending = emptyBatch();
  /** The batch being written: its used_quota still counts as unflushed until it commits. */
  private inflight = emptyBatch();
  readonly logs = new LogBuffer();
  readonly leases = new LeaseBook();
  private readonly writeLogs: LogWriter;

  /** On SQLite: the counters written by statements prepared once, on the transaction's connection. */
  private readonly sqliteCounters: ((batch: Batch) => Promise<void>) | undefined;

  constructor(
    private readonly db: Db,
    private readonly leaseStore: LeaseStore,
    private readonly onLeasesLost: (error: Error) => void = () => undefined,
  ) {
    this.writeLogs = createLogWriter(db);
    this.sqliteCounters = db.sqlite ? sqliteCounterWriter(db.sqlite) : undefined;
  }

  /** Balance this process holds for the user beyond the database's `quota` (its lease). */
  userQuota(userId: number): number {
    return this.leases.granted(LeaseKind.User, userId);
  }

  tokenQuota(tokenId: number): number {
    return this.leases.granted(LeaseKind.Token, tokenId);
  }

  /** used_quota this node has added to a user or token that the database does not show yet. */
  unflushedUsed(kind: 'user' | 'token', id: number): number {
    let total = 0;
    for (const batch of [this.pending, this.inflight]) total += (kind === 'user' ? batch.users.get(id) : batch.tokens.get(id))?.usedQuota ?? 0;
    return total;
  }

  addUser(userId: number, change: Partial<Omit<UserDelta, 'quota'>>): void {
    addUserTo(this.pending, userId, change);
  }

  addToken(tokenId: number, change: Partial<Omit<TokenDelta, 'remainQuota'>>): void {
    addTokenTo(this.pending, tokenId, change);
  }

  addChannel(channelId: number, usedQuota: number): void {
    this.pending.channels.set(channelId, (this.pending.channels.get(channelId) ?? 0) + usedQuota);
  }

  get isEmpty(): boolean {
    const { users, tokens, channels } = this.pending;
    return users.size === 0 && tokens.size === 0 && channels.size === 0 && this.logs.size === 0;
  }

  /**
   * Writes everything pending in one transaction, with the heartbeat and the lease moves
   * (`returnAll`: every lease's free balance goes back, not only what the payer did not use). On
   * failure nothing is lost: the deltas, rows and lease moves go back for the next flush. Callers
   * serialise flushes (the sync lock).
   */
  async flush(returnAll = false): Promise<FlushResult> {
    const entries = this.leases.beginFlush(returnAll);
    const idle = this.leases.idleAccounts();
    const emptied = idle.flatMap((account) => (account.rowId === undefined ? [] : [account.rowId]));
    const batch = this.pending;
    const rows = this.logs.take();
    this.pending = emptyBatch();
    this.inflight = batch;
    for (const { account, returned } of entries) {
      if (returned === 0) continue;
      if (account.kind === LeaseKind.User) addUserTo(batch, account.entityId, { quota: returned });
      else addTokenTo(batch, account.entityId, { remainQuota: returned });
    }
    let readopted: Map<LeaseAccount, number> | undefined;
    try {
      const { dialect } = this.db;
      await this.db.kysely.transaction().execute(async (trx) => {
        if (!(await this.leaseStore.flushLeases(trx, entries, emptied, yieldToEventLoop))) {
          // Another node gave this process's leases back: the give-backs are done, the rest is re-taken.
          for (const delta of batch.users.values()) delta.quota = 0;
          for (const delta of batch.tokens.values()) delta.remainQuota = 0;
          const held = [...this.leases.accounts()].filter((account) => account.granted > 0);
          readopted = await this.leaseStore.readopt(trx, entries, held);
        }
        if (this.sqliteCounters) {
          await this.sqliteCounters(batch);
        } else {
          const users = batch.users;
          const tokens = batch.tokens;
          const channels = batch.channels;
          // Locked in id order first, table by table, so flushes on two nodes never deadlock.
          await lockRowsInIdOrder(trx, dialect, 'users', users.keys());
          await lockRowsInIdOrder(trx, dialect, 'tokens', tokens.keys());
          await lockRowsInIdOrder(trx, dialect, 'channels', channels.keys());
          await updateRowsById(
            trx,
            dialect,
            'users',
            [...users.keys()],
            [
              { column: 'quota', kind: 'add', valueOf: (id) => users.get(id)?.quota },
              { column: 'used_quota', kind: 'add', valueOf: (id) => users.get(id)?.usedQuota },
              { column: 'request_count', kind: 'add', valueOf: (id) => users.get(id)?.requestCount },
            ],
            yieldToEventLoop,
          );
          await updateRowsById(
            trx,
            dialect,
            'tokens',
            [...tokens.keys()],
            [
              { column: 'remain_quota', kind: 'add', valueOf: (id) => tokens.get(id)?.remainQuota },
              { column: 'used_quota', kind: 'add', valueOf: (id) => tokens.get(id)?.usedQuota },
              { column: 'accessed_time', kind: 'set', valueOf: (id) => tokens.get(id)?.accessedTime || undefined },
            ],
            yieldToEventLoop,
          );
          await updateRowsById(
            trx,
            dialect,
            'channels',
            [...channels.keys()],
            [{ column: 'used_quota', kind: 'add', valueOf: (id) => channels.get(id) }],
            yieldToEventLoop,
          );
        }
        await yieldToEventLoop();
        await this.writeLogs(trx, rows);
      });
    } catch (error) {
      for (const delta of batch.users.values()) delta.quota = 0;
      for (const delta of batch.tokens.values()) delta.remainQuota = 0;
      this.restore(batch);
      this.logs.restore(rows);
      this.leases.abortFlush(entries);
      throw error;
    } finally {
      this.inflight = emptyBatch();
      this.leases.endFlush(entries);
    }
    if (readopted) {
      this.leases.forgetRows();
      for (const [account, rowId] of readopted) account.rowId = rowId;
      this.onLeasesLost(new Error('this process was taken for dead and its leases given back; they were taken again'));
    } else {
      this.leases.drop(idle);
    }
    return { users: batch.users.size, tokens: batch.tokens.size, channels: batch.channels.size, logs: rows.length };
  }

  private restore(batch: Batch): void {
    for (const [id, delta] of batch.users) addUserTo(this.pending, id, delta);
    for (const [id, delta] of batch.tokens) addTokenTo(this.pending, id, delta);
    for (const [id, usedQuota] of batch.channels) this.addChannel(id, usedQuota);
  }
}

/** Rows updated between yields to the event loop. */
const ROWS_PER_YIELD = 300;

/**
 * The batch's counter updates on SQLite: one prepared single-row UPDATE per table, run per row.
 * SQLite has no round trip to save, and the CASE form (built and parsed anew each flush, with a
 * WHEN per row) cost more the more channels a batch touched: a flush after traffic spread over
 * 10,000 channels updates about a thousand of them.
 */
function sqliteCounterWriter(database: SqliteDatabase): (batch: Batch) => Promise<void> {
  let statements: { users: Statement; tokens: Statement; channels: Statement } | undefined;
  return async (batch) => {
    statements ??= {
      users: database.prepare('update users set quota = quota + ?, used_quota = used_quota + ?, request_count = request_count + ? where id = ?'),
      tokens: database.prepare(
        'update tokens set remain_quota = remain_quota + ?, used_quota = used_quota + ?, accessed_time = case when ? > 0 then ? else accessed_time end where id = ?',
      ),
      channels: database.prepare('update channels set used_quota = used_quota + ? where id = ?'),
    };
    const { users, tokens, channels } = statements;
    let count = 0;
    const pace = async () => {
      count += 1;
      if (count % ROWS_PER_YIELD === 0) await yieldToEventLoop();
    };
    for (const [id, delta] of batch.users) {
      users.run(delta.quota, delta.usedQuota, delta.requestCount, id);
      await pace();
    }
    for (const [id, delta] of batch.tokens) {
      tokens.run(delta.remainQuota, delta.usedQuota, delta.accessedTime, delta.accessedTime, id);
      await pace();
    }
    for (const [id, usedQuota] of batch.channels) {
      if (usedQuota !== 0) channels.run(usedQuota, id);
      await pace();
    }
  };
}
