import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { Db } from '../../db/index.js';
import { createLogWriter, LogBuffer, yieldToEventLoop, type LogWriter } from '../logs/log-buffer.js';
import { updateRowsById } from './batched-updates.js';
import type { UnflushedQuota } from '../relay-cache/relay-cache.js';

interface UserDelta {
  quota: number;
  usedQuota: number;
  requestCount: number;
}
interface TokenDelta {
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

export interface FlushResult {
  users: number;
  tokens: number;
  channels: number;
  logs: number;
}

/**
 * Counter changes and consume logs held in memory and written every BATCH_UPDATE_INTERVAL
 * seconds (sooner when 1,000 log rows wait, see LogBuffer) in one transaction of `col = col + delta` updates (batched-updates.ts), so the hot path does no write a
 * batch can absorb. A clean shutdown flushes; a crash loses at most the last interval.
 *
 * While a flush is being written its deltas stay counted as unflushed, so balance checks made
 * meanwhile keep covering them (counting them twice for a moment only makes a check stricter).
 */
export class QuotaLedger implements UnflushedQuota {
  private pending = emptyBatch();
  private inflight = emptyBatch();
  readonly logs = new LogBuffer();
  private readonly writeLogs: LogWriter;

  /** On SQLite: the counters written by statements prepared once, on the transaction's connection. */
  private readonly sqliteCounters: ((batch: Batch) => Promise<void>) | undefined;

  constructor(private readonly db: Db) {
    this.writeLogs = createLogWriter(db);
    this.sqliteCounters = db.sqlite ? sqliteCounterWriter(db.sqlite) : undefined;
  }

  userQuota(userId: number): number {
    return (this.pending.users.get(userId)?.quota ?? 0) + (this.inflight.users.get(userId)?.quota ?? 0);
  }

  tokenQuota(tokenId: number): number {
    return (this.pending.tokens.get(tokenId)?.remainQuota ?? 0) + (this.inflight.tokens.get(tokenId)?.remainQuota ?? 0);
  }

  /** used_quota this node has added to a user or token that the database does not show yet. */
  unflushedUsed(kind: 'user' | 'token', id: number): number {
    const batches = [this.pending, this.inflight];
    let total = 0;
    for (const batch of batches) total += (kind === 'user' ? batch.users.get(id) : batch.tokens.get(id))?.usedQuota ?? 0;
    return total;
  }

  /** Quota this node has spent from the user's balance that the database does not show yet. */
  userOutstanding(userId: number): number {
    return Math.max(0, -this.userQuota(userId));
  }

  tokenOutstanding(tokenId: number): number {
    return Math.max(0, -this.tokenQuota(tokenId));
  }

  addUser(userId: number, change: Partial<UserDelta>): void {
    let delta = this.pending.users.get(userId);
    if (!delta) this.pending.users.set(userId, (delta = { quota: 0, usedQuota: 0, requestCount: 0 }));
    delta.quota += change.quota ?? 0;
    delta.usedQuota += change.usedQuota ?? 0;
    delta.requestCount += change.requestCount ?? 0;
  }

  addToken(tokenId: number, change: Partial<TokenDelta>): void {
    let delta = this.pending.tokens.get(tokenId);
    if (!delta) this.pending.tokens.set(tokenId, (delta = { remainQuota: 0, usedQuota: 0, accessedTime: 0 }));
    delta.remainQuota += change.remainQuota ?? 0;
    delta.usedQuota += change.usedQuota ?? 0;
    delta.accessedTime = Math.max(delta.accessedTime, change.accessedTime ?? 0);
  }

  addChannel(channelId: number, usedQuota: number): void {
    this.pending.channels.set(channelId, (this.pending.channels.get(channelId) ?? 0) + usedQuota);
  }

  get isEmpty(): boolean {
    const { users, tokens, channels } = this.pending;
    return users.size === 0 && tokens.size === 0 && channels.size === 0 && this.logs.size === 0;
  }

  /**
   * Writes everything pending in one transaction. On failure nothing is lost: the deltas and rows
   * go back into the pending set for the next flush. Callers serialise flushes (the sync lock).
   */
  async flush(): Promise<FlushResult> {
    if (this.isEmpty) return { users: 0, tokens: 0, channels: 0, logs: 0 };
    const batch = this.pending;
    const rows = this.logs.take();
    this.pending = emptyBatch();
    this.inflight = batch;
    try {
      const { dialect } = this.db;
      await this.db.kysely.transaction().execute(async (trx) => {
        if (this.sqliteCounters) {
          await this.sqliteCounters(batch);
        } else {
          const users = batch.users;
          await updateRowsById(trx, dialect, 'users', [...users.keys()], [
            { column: 'quota', kind: 'add', valueOf: (id) => users.get(id)?.quota },
            { column: 'used_quota', kind: 'add', valueOf: (id) => users.get(id)?.usedQuota },
            { column: 'request_count', kind: 'add', valueOf: (id) => users.get(id)?.requestCount },
          ], yieldToEventLoop);
          const tokens = batch.tokens;
          await updateRowsById(trx, dialect, 'tokens', [...tokens.keys()], [
            { column: 'remain_quota', kind: 'add', valueOf: (id) => tokens.get(id)?.remainQuota },
            { column: 'used_quota', kind: 'add', valueOf: (id) => tokens.get(id)?.usedQuota },
            { column: 'accessed_time', kind: 'set', valueOf: (id) => tokens.get(id)?.accessedTime || undefined },
          ], yieldToEventLoop);
          const channels = batch.channels;
          await updateRowsById(trx, dialect, 'channels', [...channels.keys()], [
            { column: 'used_quota', kind: 'add', valueOf: (id) => channels.get(id) },
          ], yieldToEventLoop);
        }
        await yieldToEventLoop();
        await this.writeLogs(trx, rows);
      });
    } catch (error) {
      this.restore(batch);
      this.logs.restore(rows);
      throw error;
    } finally {
      this.inflight = emptyBatch();
    }
    return { users: batch.users.size, tokens: batch.tokens.size, channels: batch.channels.size, logs: rows.length };
  }

  private restore(batch: Batch): void {
    for (const [id, delta] of batch.users) this.addUser(id, delta);
    for (const [id, delta] of batch.tokens) this.addToken(id, delta);
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
