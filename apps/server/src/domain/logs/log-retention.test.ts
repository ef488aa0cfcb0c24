import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, SqliteDialect, sql, type CompiledQuery } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import {
  createLogPartition,
  listLogPartitions,
  listMysqlLogPartitions,
  LOG_PARTITION_MONTHS_AHEAD,
  MYSQL_FUTURE_PARTITION,
  MYSQL_OLD_PARTITION,
  monthPartition,
} from '../../db/log-partitions.js';
import { connectDb } from '../../db/index.js';
import { MAX_WAL_PAGES } from '../../db/sqlite-checkpointer.js';
import { rebuildLogRollups } from '../../db/log-rollups.js';
import { migrateToLatest, migrationsFor } from '../../db/migrate.js';
import { createFreshDb, DIALECTS, testSecretKey } from '../../test-support/dialects.js';
import { consumeLogRow } from './consume-log.js';
import { createLogWriter, type LogInsert } from './log-buffer.js';
import { LogQuery } from './log-query.js';
import { LogRetention } from './log-retention.js';

const DAY = 86_400;
/** Enough logs that clearing them writes several times MAX_WAL_PAGES of log. */
const CLEAR_ROWS = 30_000;
const NOW = Math.floor(Date.now() / 1000);

const row = (createdAt: number, quota: number): LogInsert =>
  consumeLogRow({
    createdAt,
    userId: 1,
    username: 'alice',
    tokenId: 7,
    tokenName: 'key-7',
    model: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    channelId: 3,
    channelName: 'mock',
    group: 'default',
    quota,
    promptTokens: 10,
    completionTokens: 20,
    useTimeSeconds: 1,
    isStream: false,
    pricing: { modelRatio: 0.075, completionRatio: 4, groupRatio: 1, modelPrice: -1 },
    firstResponseMs: 12,
    triedChannelIds: [3],
    unpaidQuota: 0,
  });

async function write(db: Db, rows: LogInsert[]): Promise<void> {
  const writer = createLogWriter(db);
  await db.kysely.transaction().execute((trx) => writer(trx, rows));
}

const allRows = async (db: Db) =>
  (await db.kysely.selectFrom('logs').select(['id', 'created_at', 'quota']).orderBy('id').execute()).map((r) => ({
    id: Number(r.id),
    created_at: Number(r.created_at),
    quota: Number(r.quota),
  }));

const monthsAhead = (now = NOW) => {
  const names: string[] = [];
  let month = monthPartition(now);
  for (let index = 0; index <= LOG_PARTITION_MONTHS_AHEAD; index += 1) {
    names.push(month.name);
    month = monthPartition(month.to);
  }
  return names;
};

/** One row on each of these days before now (every one in a month before the current one for the first four). */
const AGES_IN_DAYS = [400, 100, 70, 40, 0];

describe.each(DIALECTS)('log partitions and retention on %s', (dialect) => {
  it('migration 017 upgrades a logs table with rows: the rows, their ids and the next id kept; months partitioned', async () => {
    const fresh = await createFreshDb(dialect, { migrate: false });
    try {
      const { db } = fresh;
      const before = Object.fromEntries(Object.entries(migrationsFor(db)).filter(([name]) => name < '017'));
      const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => before }, allowUnorderedMigrations: true });
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      // Written as the version before 017 wrote them: the rows alone (the rollups came with 018).
      await db.kysely
        .insertInto('logs')
        .values(AGES_IN_DAYS.map((age, index) => row(NOW - age * DAY, index + 1)))
        .execute();
      // A gap in the ids, as deleted rows leave.
      await db.kysely.deleteFrom('logs').where('quota', '=', 2).execute();
      const old = await allRows(db);
      expect(old).toHaveLength(4);

      // 017 and every migration after it.
      expect(await migrateToLatest(db)).toEqual(
        Object.keys(migrationsFor(db))
          .filter((name) => name >= '017')
          .sort(),
      );
      expect(await allRows(db)).toEqual(old);
      // 018 counted the rows already there: the screen's total and sum without reading them.
      const query = new LogQuery(db);
      const everything = { type: 0, username: '', tokenName: '', modelName: '', startTimestamp: 0, endTimestamp: 0, channel: 0, group: '' };
      expect((await query.page(everything, { page: 1, pageSize: 10, offset: 0 })).total).toBe(4);
      expect((await query.stat({ ...everything, username: 'alice' })).quota).toBe(old.reduce((sum, r) => sum + r.quota, 0));
      await write(db, [row(NOW, 99)]);
      const newest = (await allRows(db)).at(-1)!;
      expect(newest.quota).toBe(99);
      expect(newest.id).toBeGreaterThan(old.at(-1)!.id);
      if (dialect === 'postgres') {
        const names = (await listLogPartitions(db.kysely)).map((partition) => partition.name);
        const expected = new Set([...old.map((r) => monthPartition(r.created_at).name), ...monthsAhead()]);
        expect(names).toEqual([...expected].sort());
      }
      if (dialect === 'mysql') {
        // 020: a partition per month the rows fall in and the months ahead, between logs_old and logs_future.
        const names = (await listMysqlLogPartitions(db.kysely)).map((partition) => partition.name);
        const expected = [...new Set([...old.map((r) => monthPartition(r.created_at).name), ...monthsAhead()])].sort();
        expect(names).toEqual([MYSQL_OLD_PARTITION, ...expected, MYSQL_FUTURE_PARTITION]);
      }
    } finally {
      await fresh.drop();
    }
  });

  it('a row far in the past or the future still lands; the next partition run gives its month a partition that takes it over', async () => {
    const fresh = await createFreshDb(dialect);
    try {
      const { db } = fresh;
      const past = 1_000_000;
      const future = NOW + 3 * 365 * DAY;
      await write(db, [row(past, 1), row(future, 2), row(NOW, 3)]);
      expect((await allRows(db)).map((r) => r.quota)).toEqual([1, 2, 3]);
      const retention = new LogRetention(db);
      if (dialect === 'postgres') {
        expect(await sqlCount(db, 'logs_default')).toEqual({ rows: 2 });
        expect((await retention.ensurePartitions(NOW)).sort()).toEqual([monthPartition(past).name, monthPartition(future).name].sort());
        expect(await sqlCount(db, monthPartition(future).name)).toEqual({ rows: 1 });
        expect(await sqlCount(db, monthPartition(past).name)).toEqual({ rows: 1 });
        expect(await sqlCount(db, 'logs_default')).toEqual({ rows: 0 });
        expect(await retention.ensurePartitions(NOW)).toEqual([]);
      } else if (dialect === 'mysql') {
        // The far past lands in logs_old, the far future in logs_future; the months ahead exist.
        expect(await sqlCount(db, `logs partition (${MYSQL_OLD_PARTITION})`)).toEqual({ rows: 1 });
        expect(await sqlCount(db, `logs partition (${MYSQL_FUTURE_PARTITION})`)).toEqual({ rows: 1 });
        expect(await retention.ensurePartitions(NOW)).toEqual([]);
        // Five months on, the master splits logs_future for the months then ahead; the far future row stays there.
        const later = monthPartition(monthPartition(NOW).to + 4 * 31 * DAY).from + DAY;
        const created = await retention.ensurePartitions(later);
        expect(created).toEqual(monthsAhead(later).filter((name) => !monthsAhead().includes(name)));
        const names = (await listMysqlLogPartitions(db.kysely)).map((partition) => partition.name);
        expect(names.slice(-1 - LOG_PARTITION_MONTHS_AHEAD - 1)).toEqual([...monthsAhead(later), MYSQL_FUTURE_PARTITION]);
        expect(await sqlCount(db, `logs partition (${MYSQL_FUTURE_PARTITION})`)).toEqual({ rows: 1 });
        expect(await retention.ensurePartitions(later)).toEqual([]);
      } else {
        expect(await retention.ensurePartitions(NOW)).toEqual([]);
      }
      expect((await allRows(db)).map((r) => r.quota)).toEqual([1, 2, 3]);
    } finally {
      await fresh.drop();
    }
  });

  it('retention deletes what is older than its days (whole months dropped on PostgreSQL) and keeps the rest; 0 keeps all', async () => {
    const fresh = await createFreshDb(dialect);
    try {
      const { db } = fresh;
      // Three rows a day around each age, so batches of two split them.
      const rows = AGES_IN_DAYS.flatMap((age, index) => [0, 1, 2].map((hour) => row(NOW - age * DAY + hour * 3600, 10 * index + hour)));
      // The months the master created ahead while these rows were written.
      if (dialect === 'postgres') for (const age of AGES_IN_DAYS) await createLogPartition(db.kysely, monthPartition(NOW - age * DAY));
      await write(db, rows);
      const retention = new LogRetention(db, 2);
      expect(await retention.apply(0)).toBe(0);
      const cutoff = NOW - 55 * DAY;
      expect(await retention.apply(55, NOW)).toBe(rows.filter((r) => r.created_at < cutoff).length);
      const left = await allRows(db);
      expect(left.map((r) => r.created_at)).toEqual(rows.filter((r) => r.created_at >= cutoff).map((r) => r.created_at));
      if (dialect === 'postgres') {
        const names = (await listLogPartitions(db.kysely)).map((partition) => partition.name);
        for (const age of [400, 100, 70]) {
          const month = monthPartition(NOW - age * DAY);
          expect(names.includes(month.name)).toBe(month.to > cutoff);
        }
        expect(await sqlCount(db, 'logs_default')).toEqual({ rows: 0 });
        expect(names).toContain(monthPartition(cutoff).name);
        for (const name of monthsAhead()) expect(names).toContain(name);
      }
      // The clearing keeps working on what is left, and answers 0 when nothing is below the cutoff.
      expect(await retention.deleteBefore(cutoff)).toBe(0);
      expect(await retention.deleteBefore(NOW + 4 * 3600)).toBe(left.length);
      expect(await allRows(db)).toEqual([]);
      await write(db, [row(NOW, 1)]);
      expect(await allRows(db)).toHaveLength(1);
    } finally {
      await fresh.drop();
    }
  });
});

async function sqlCount(db: Db, table: string): Promise<{ rows: number }> {
  // A table's name, or (MySQL) `logs partition (name)`.
  const from = table.includes(' ') ? sql.raw(table) : sql.table(table);
  const { rows } = await sql<{ count: string }>`select count(*) as count from ${from}`.execute(db.kysely);
  return { rows: Number(rows[0]!.count) };
}

describe('MySQL/MariaDB month partitions (migration 020)', () => {
  /** The rollup table as sorted rows, to compare with a rebuild from the logs left. */
  async function rollupTable(db: Db): Promise<string[]> {
    const stored = await db.kysely.selectFrom('log_rollups').selectAll().execute();
    return stored
      .map((row) => [row.grain, row.bucket, row.type, row.id_key, row.name_key, row.model_key, row.log_count, row.quota].map(String).join('|'))
      .sort();
  }
  async function expectRollupsExact(db: Db): Promise<void> {
    const maintained = await rollupTable(db);
    await db.kysely.transaction().execute((trx) => rebuildLogRollups(trx, 'mysql'));
    expect(maintained).toEqual(await rollupTable(db));
  }
  const monthNames = async (db: Db) => (await listMysqlLogPartitions(db.kysely)).map((partition) => partition.name);

  it('a table with rows is partitioned by the months they fall in; retention drops whole months, the rollups exact; a drop a crash cut short is finished', async () => {
    const fresh = await createFreshDb('mysql', { migrate: false });
    try {
      const { db } = fresh;
      const before = Object.fromEntries(Object.entries(migrationsFor(db)).filter(([name]) => name < '020'));
      const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => before }, allowUnorderedMigrations: true });
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      // Three rows a day around each age, written (with their rollups) before 020.
      const rows = AGES_IN_DAYS.flatMap((age, index) => [0, 1, 2].map((hour) => row(NOW - age * DAY + hour * 3600, 10 * index + hour)));
      await write(db, rows);
      const old = await allRows(db);
      expect(await migrateToLatest(db)).toEqual(
        Object.keys(migrationsFor(db))
          .filter((name) => name >= '020')
          .sort(),
      );
      expect(await allRows(db)).toEqual(old);
      const held = [...new Set([...rows.map((r) => monthPartition(r.created_at).name), ...monthsAhead()])].sort();
      expect(await monthNames(db)).toEqual([MYSQL_OLD_PARTITION, ...held, MYSQL_FUTURE_PARTITION]);
      await write(db, [row(NOW, 7)]);
      expect((await allRows(db)).at(-1)!.id).toBeGreaterThan(old.at(-1)!.id);
      await expectRollupsExact(db);

      // Retention at 55 days: the months wholly older are dropped, the rest deleted in batches of 2.
      const retention = new LogRetention(db, 2);
      const cutoff = NOW - 55 * DAY;
      const everything = await allRows(db);
      expect(await retention.apply(55, NOW)).toBe(everything.filter((r) => r.created_at < cutoff).length);
      expect(await allRows(db)).toEqual(everything.filter((r) => r.created_at >= cutoff));
      const names = await monthNames(db);
      for (const age of [400, 100, 70]) {
        const month = monthPartition(NOW - age * DAY);
        expect(names.includes(month.name), month.name).toBe(month.to > cutoff);
      }
      expect(names).toContain(monthPartition(cutoff).name);
      await expectRollupsExact(db);
      const query = new LogQuery(db);
      const all = { type: 0, username: '', tokenName: '', modelName: '', startTimestamp: 0, endTimestamp: 0, channel: 0, group: '' };
      expect((await query.page(all, { page: 1, pageSize: 10, offset: 0 })).total).toBe((await allRows(db)).length);

      // A crash after a month's drop was recorded: before the drop, and between the drop and the rollups.
      const months = (await listMysqlLogPartitions(db.kysely)).filter((p) => p.name.startsWith('logs_p'));
      const [first, second] = months;
      await write(db, [row(first!.from + 3600, 1), row(second!.from + 3600, 2)]);
      await sql`insert into log_partition_drops (name, from_at, to_at) values (${first!.name}, ${first!.from}, ${first!.to})`.execute(db.kysely);
      await sql`insert into log_partition_drops (name, from_at, to_at) values (${second!.name}, ${second!.from}, ${second!.to})`.execute(db.kysely);
      await sql`alter table logs drop partition ${sql.ref(second!.name)}`.execute(db.kysely);
      // The master's next partition run finishes both.
      await retention.ensurePartitions(NOW);
      expect(await monthNames(db)).not.toContain(first!.name);
      expect(await sqlCount(db, 'log_partition_drops')).toEqual({ rows: 0 });
      expect((await allRows(db)).filter((r) => r.created_at < second!.to)).toEqual([]);
      await expectRollupsExact(db);

      // 020 down and up again: the rows stay, the partitions go and come back.
      const kept = await allRows(db);
      const migration = migrationsFor(db)['020-mysql-log-partitions']!;
      await migration.down!(db.kysely);
      expect(await listMysqlLogPartitions(db.kysely)).toEqual([]);
      expect(await allRows(db)).toEqual(kept);
      await migration.up(db.kysely);
      expect((await monthNames(db)).slice(-2 - LOG_PARTITION_MONTHS_AHEAD)).toEqual([...monthsAhead(), MYSQL_FUTURE_PARTITION]);
      expect(await allRows(db)).toEqual(kept);
    } finally {
      await fresh.drop();
    }
  });
});

describe("SQLite: a long clear and the server's write-ahead log", () => {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-clear-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Clears ROWS logs on the server's kind of connection; answers the largest size the log file reached. */
  async function clearAndWatch(name: string, paced: boolean): Promise<number> {
    const sqlitePath = join(dir, `${name}.db`);
    const db = await connectDb({ sqlitePath, sqlDsn: '', migrate: true, secretKey: testSecretKey, backgroundCheckpoints: { onError: () => undefined } });
    try {
      const users = ['alice', 'bob', 'carol', 'dave', 'erin'];
      for (let start = 0; start < CLEAR_ROWS; start += 5_000) {
        await write(
          db,
          Array.from({ length: 5_000 }, (_, index) => ({
            ...row(NOW - DAY + ((start + index) % 3600), 1),
            username: users[(start + index) % users.length]!,
            model_name: `model-${(start + index) % 7}`,
            token_name: `key-${(start + index) % 11}`,
          })),
        );
      }
      // From an empty log file: what the clearing writes, not the seeding.
      db.sqlite!.pragma('wal_checkpoint(TRUNCATE)');
      await write(db, [row(NOW, 1)]);
      let largest = 0;
      const watch = setInterval(() => {
        largest = Math.max(largest, statSync(`${sqlitePath}-wal`, { throwIfNoEntry: false })?.size ?? 0);
      }, 1);
      try {
        const retention = new LogRetention(paced ? db : { ...db, checkpointWal: undefined });
        expect(await retention.deleteBefore(NOW - 1)).toBe(CLEAR_ROWS);
      } finally {
        clearInterval(watch);
      }
      expect(await allRows(db)).toHaveLength(1);
      return largest;
    } finally {
      await db.close();
    }
  }

  it('reads each batch off the created_at index, so that the last one does not scan the logs it keeps', async () => {
    const db = await connectDb({ sqlitePath: join(dir, 'plan.db'), sqlDsn: '', migrate: true, secretKey: testSecretKey });
    try {
      await write(db, [
        ...Array.from({ length: 300 }, (_, index) => row(NOW - 2 * DAY + index, 1)),
        ...Array.from({ length: 200 }, (_, index) => row(NOW + index, 1)),
      ]);
      const selects: CompiledQuery[] = [];
      const kysely = new Kysely<Database>({
        dialect: new SqliteDialect({ database: db.sqlite! }),
        log: (event) => {
          if (event.level === 'query' && event.query.sql.startsWith('select')) selects.push(event.query);
        },
      });
      expect(await new LogRetention({ ...db, kysely }, 100).deleteBefore(NOW - DAY)).toBe(300);
      // Three full batches, then the one that finds nothing.
      expect(selects).toHaveLength(4);
      for (const query of selects) {
        const plan = (db.sqlite!.prepare(`explain query plan ${query.sql}`).all(...(query.parameters as unknown[])) as { detail: string }[]).map(
          (step) => step.detail,
        );
        expect(plan.join('; ')).toMatch(/^SEARCH logs USING (COVERING )?INDEX idx_logs_created_at_covering \(created_at<\?\)$/);
      }
      expect(await allRows(db)).toHaveLength(200);
    } finally {
      await db.close();
    }
  });

  it('waits for the worker thread’s checkpoints between its batches, so no commit has to copy the log', async () => {
    const unpaced = await clearAndWatch('unpaced', false);
    const paced = await clearAndWatch('paced', true);
    // Unpaced, the clearing's back-to-back batches take the log to the bound, where a commit on
    // the event loop copies it (MAX_WAL_PAGES, 10,000 pages of 4 KiB); paced, each wait for the
    // worker's checkpoint lets the log start again after a few thousand pages (41 and 17 MB here).
    expect(unpaced).toBeGreaterThan(0.75 * MAX_WAL_PAGES * 4096);
    expect(paced).toBeLessThan(0.6 * MAX_WAL_PAGES * 4096);
  }, 120_000);
});
