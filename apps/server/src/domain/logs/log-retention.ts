import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { applyLogRollups, dropRollupRange, sqliteRollupWriter } from '../../db/log-rollups.js';
import {
  ensureLogPartitions,
  ensureMysqlLogPartitions,
  listLogPartitions,
  listMysqlLogPartitions,
  MYSQL_FUTURE_PARTITION,
  MYSQL_OLD_PARTITION,
  monthPartition,
  withMysqlLockWait,
} from '../../db/log-partitions.js';
import { yieldToEventLoop } from './log-buffer.js';

/** What a deleted row takes out of the rollups, and its id. */
const ROLLUP_COLUMNS = ['id', 'created_at', 'type', 'user_id', 'username', 'token_name', 'model_name', 'channel_id', 'group', 'quota'] as const;

/**
 * Rows deleted per statement. SQLite runs each statement synchronously on the event loop: a row
 * with the nine log indexes and its seven rollup keys cost about 160 µs to delete at 10,000,000
 * logs on the 2-core VM (bench/README.md; 30 to 100 µs without the rollups), so 100 rows hold a
 * relay call up about 16 ms at most. PostgreSQL and MySQL run it on the server, so there a batch
 * only bounds how long it holds its row locks.
 */
const BATCH_ROWS = { sqlite: 100, postgres: 10_000, mysql: 10_000 } as const;

/**
 * SQLite: the write-ahead log frames the clearing aims to stay under between its waits for a
 * checkpoint (db.checkpointWal, on the worker thread). Written back to back, its batches would
 * take the log to the bound (MAX_WAL_PAGES, 10,000), where a commit on the event loop copies it
 * (stalls of up to 1.5 s at 10,000,000 logs). The frames each checkpoint found set how many batches
 * go between the next two: halved above this, doubled below half of it. Clearing 674,000 of
 * 2,000,000 logs (bench/README.md): unpaced 110 s with other requests waiting p99 122 ms; paced to
 * 2,000 frames 190 s, p99 27 ms; to 5,000 frames 137 s, p99 18 ms (a page written again within a
 * round is copied once).
 */
const CLEAR_WAL_FRAMES = 5_000;
const MAX_BATCHES_PER_CHECKPOINT = 64;

/** How long a partition drop waits for the queries reading the logs before it gives up (and throws). */
const DROP_LOCK_TIMEOUT = '5s';

/**
 * Clearing old logs without holding up the relay: the admin's DELETE /api/log/ and the master's
 * retention job (LogRetentionDays). On PostgreSQL and MySQL/MariaDB whole months below the cutoff
 * are dropped (db/log-partitions.ts: a catalogue change, whatever their size), and what is left
 * below it (the cutoff's own month, PostgreSQL's default partition, MySQL's logs_old) is deleted
 * like on SQLite: in batches, with the event loop free between them.
 */
export class LogRetention {
  /** SQLite: the rollups' statements prepared once on the connection (db/log-rollups.ts). */
  private readonly sqliteRollups;

  constructor(
    private readonly db: Db,
    private readonly batchRows: number = BATCH_ROWS[db.dialect],
  ) {
    this.sqliteRollups = db.sqlite ? sqliteRollupWriter(db.sqlite) : undefined;
  }

  /** Deletes every log with created_at below the cutoff; answers how many. */
  async deleteBefore(cutoff: number): Promise<number> {
    let removed = 0;
    if (this.db.dialect === 'postgres') removed += await this.dropMonthsBefore(cutoff);
    if (this.db.dialect === 'mysql') removed += await this.dropMysqlMonthsBefore(cutoff);
    const db = this.db.kysely;
    let batchesPerCheckpoint = 4;
    let sinceCheckpoint = 0;
    for (;;) {
      // SQLite reads the oldest rows off the created_at index, which ends where the rows to keep
      // begin: read in id order it scanned the table from its start, and the last batch (the one
      // that finds fewer rows than it asks for, or none) went through every row kept, a stall of
      // seconds at 10,000,000 logs. PostgreSQL and MySQL prune the partitions by the time condition.
      const batch = await db
        .selectFrom('logs')
        .select(ROLLUP_COLUMNS)
        .where('created_at', '<', cutoff)
        .orderBy(this.db.dialect === 'sqlite' ? 'created_at' : 'id')
        .limit(this.batchRows)
        .execute();
      if (batch.length === 0) return removed;
      // Deleted by id: with `created_at < ?` SQLite walks that index through every row left below
      // the cutoff, each batch again. PostgreSQL and MySQL keep the time condition to prune the partitions.
      // The rows' counts leave the rollups in the same transaction.
      const ids = batch.map((row) => row.id);
      removed += await db.transaction().execute(async (trx) => {
        const byId = trx.deleteFrom('logs').where('id', 'in', ids);
        const result = await (this.db.dialect === 'sqlite' ? byId : byId.where('created_at', '<', cutoff)).executeTakeFirst();
        if (this.sqliteRollups) this.sqliteRollups(batch, -1);
        else await applyLogRollups(trx, batch, -1);
        return Number(result.numDeletedRows);
      });
      if (batch.length < this.batchRows) return removed;
      if (this.db.checkpointWal && (sinceCheckpoint += 1) >= batchesPerCheckpoint) {
        sinceCheckpoint = 0;
        // The relay's flushes go on meanwhile; the worker copies the log while the clearing waits.
        const { ok, log = 0 } = await this.db.checkpointWal();
        if (ok && log > CLEAR_WAL_FRAMES) batchesPerCheckpoint = Math.max(1, batchesPerCheckpoint >> 1);
        else if (ok && log < CLEAR_WAL_FRAMES / 2) batchesPerCheckpoint = Math.min(MAX_BATCHES_PER_CHECKPOINT, batchesPerCheckpoint << 1);
        continue;
      }
      // SQLite's statements return without ever leaving the event loop: let the relay run.
      await yieldToEventLoop();
    }
  }

  /** LogRetentionDays: deletes the logs older than `days` (0 keeps them all); answers how many. */
  async apply(days: number, now = Math.floor(Date.now() / 1000)): Promise<number> {
    if (!(days > 0)) return 0;
    return this.deleteBefore(now - Math.floor(days) * 86_400);
  }

  /**
   * PostgreSQL and MySQL: creates the current month's partition and the months ahead (the master, at
   * start and hourly); MySQL first finishes a month's drop a crash interrupted.
   */
  async ensurePartitions(now?: number): Promise<string[]> {
    if (this.db.dialect === 'postgres') return ensureLogPartitions(this.db.kysely, now);
    if (this.db.dialect !== 'mysql') return [];
    await this.finishMysqlDrops();
    return ensureMysqlLogPartitions(this.db.kysely, now);
  }

  /**
   * Drops the month partitions that lie wholly below the cutoff; answers the rows they held. The
   * current month and those ahead stay (a cutoff in the future empties them row by row instead), so
   * the relay's writes always have their partition.
   */
  private async dropMonthsBefore(cutoff: number): Promise<number> {
    const keepFrom = Math.min(cutoff, monthPartition(Math.floor(Date.now() / 1000)).from);
    let removed = 0;
    for (const partition of await listLogPartitions(this.db.kysely)) {
      if (partition.to > keepFrom) break;
      removed += await this.db.kysely.transaction().execute(async (trx) => {
        const table = sql.table(partition.name);
        await sql`set local lock_timeout = ${sql.lit(DROP_LOCK_TIMEOUT)}`.execute(trx);
        // Locked first, so no row arrives between the count and the drop.
        await sql`lock table ${table} in access exclusive mode`.execute(trx);
        const { rows } = await sql<{ count: string }>`select count(*) as count from ${table}`.execute(trx);
        await sql`drop table ${table}`.execute(trx);
        await dropRollupRange(trx, partition.from, partition.to);
        return Number(rows[0]?.count ?? 0);
      });
    }
    return removed;
  }

  /**
   * MySQL/MariaDB: drops the month partitions wholly below the cutoff (not logs_old, whose rows are
   * deleted in batches; the current month and those ahead stay, as on PostgreSQL); answers the rows
   * they held. MySQL commits a DDL statement on its own, so each drop is recorded first in
   * log_partition_drops and its hours leave the rollups, with the record, in the transaction after
   * it; a crash in between leaves the record, and the next run finishes the drop from it.
   */
  private async dropMysqlMonthsBefore(cutoff: number): Promise<number> {
    await this.finishMysqlDrops();
    const db = this.db.kysely;
    const keepFrom = Math.min(cutoff, monthPartition(Math.floor(Date.now() / 1000)).from);
    let removed = 0;
    for (const partition of await listMysqlLogPartitions(db)) {
      if (partition.name === MYSQL_OLD_PARTITION || partition.name === MYSQL_FUTURE_PARTITION) continue;
      if (partition.to > keepFrom) break;
      const { rows } = await sql<{ count: number | string }>`select count(*) as count from logs partition (${sql.ref(partition.name)})`.execute(db);
      await sql`insert into log_partition_drops (name, from_at, to_at) values (${partition.name}, ${partition.from}, ${partition.to})`.execute(db);
      await this.finishMysqlDrop(partition.name, partition.from, partition.to);
      removed += Number(rows[0]?.count ?? 0);
    }
    return removed;
  }

  /** Finishes every month drop recorded in log_partition_drops (a crash came between its steps). */
  private async finishMysqlDrops(): Promise<void> {
    const { rows } = await sql<{
      name: string;
      from_at: number | string;
      to_at: number | string;
    }>`select name, from_at, to_at from log_partition_drops`.execute(this.db.kysely);
    for (const row of rows) await this.finishMysqlDrop(row.name, Number(row.from_at), Number(row.to_at));
  }

  /** Drops the partition if it is still there, then takes its range out of the rollups and the record. */
  private async finishMysqlDrop(name: string, from: number, to: number): Promise<void> {
    const db = this.db.kysely;
    if ((await listMysqlLogPartitions(db)).some((partition) => partition.name === name)) {
      await withMysqlLockWait(db, (connection) => sql`alter table logs drop partition ${sql.ref(name)}`.execute(connection));
    }
    await db.transaction().execute(async (trx) => {
      await dropRollupRange(trx, from, to);
      await sql`delete from log_partition_drops where name = ${name}`.execute(trx);
    });
  }
}
