import { LogType } from '@modelgate/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogPartition, listLogPartitions, monthPartition } from '../../db/log-partitions.js';
import { RollupGrain, rebuildLogRollups } from '../../db/log-rollups.js';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { recordUserLog } from '../users/user-logs.js';
import { createLogWriter, type LogInsert } from './log-buffer.js';
import { grainFor } from './log-counts.js';
import { LogQuery, type LogFilter } from './log-query.js';
import { LogRetention } from './log-retention.js';

/**
 * The rollups behind the log screen's totals and the stat's quota (db/log-rollups.ts): after every
 * way logs are written and removed, each filter's total and sum equal what counting the rows gives,
 * whatever the time range's edges, and the rollup table equals one rebuilt from the logs.
 */

const HOUR = 3_600;
const DAY = 86_400;
// A Monday 00:00 UTC, so buckets, days and months have edges the ranges below cross.
const START = Date.UTC(2027, 0, 25) / 1000;
const SPAN = 12 * DAY;
const noFilter: LogFilter = { type: 0, username: '', tokenName: '', modelName: '', startTimestamp: 0, endTimestamp: 0, channel: 0, group: '' };
const paging = { page: 1, pageSize: 5, offset: 0 };

function next(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}

/** Rows over 12 days, clustered at bucket edges (hh:00:00, hh:59:59, midnight) as well as spread. */
function rows(count: number, seed: number): LogInsert[] {
  const random = next(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  return Array.from({ length: count }, (): LogInsert => {
    const user = 1 + Math.floor(random() * 5);
    const edge = random();
    const base = START + Math.floor(random() * SPAN);
    const createdAt = edge < 0.2 ? base - (base % HOUR) : edge < 0.4 ? base - (base % HOUR) + HOUR - 1 : edge < 0.5 ? base - (base % DAY) : base;
    return {
      user_id: user,
      created_at: createdAt,
      type: pick([LogType.Consume, LogType.Consume, LogType.Consume, LogType.TopUp, LogType.Manage, LogType.Error]),
      content: '',
      username: `user${user}`,
      token_name: pick(['default', 'ci', 'laptop']),
      model_name: pick(['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'claude-sonnet-4', 'gemini-2.5-pro']),
      quota: Math.floor(random() * 5_000),
      prompt_tokens: 10,
      completion_tokens: 5,
      use_time: 1,
      is_stream: 0,
      channel_id: 1 + Math.floor(random() * 3),
      channel_name: '',
      token_id: 1,
      group: pick(['default', 'vip']),
      ip: '',
      other: '{}',
    };
  });
}

/** Which rows a filter selects, as new-api's list does (stat: consume rows whatever the type). */
function selects(filter: LogFilter, row: LogInsert, type = filter.type): boolean {
  if (type !== 0 && row.type !== type) return false;
  if (filter.userId !== undefined && row.user_id !== filter.userId) return false;
  if (filter.username !== '' && row.username !== filter.username) return false;
  if (filter.tokenName !== '' && row.token_name !== filter.tokenName) return false;
  if (filter.modelName !== '') {
    const pattern = filter.modelName.endsWith('%') ? filter.modelName.slice(0, -1) : undefined;
    if (pattern !== undefined ? !row.model_name.startsWith(pattern) : row.model_name !== filter.modelName) return false;
  }
  if (filter.channel !== 0 && row.channel_id !== filter.channel) return false;
  if (filter.group !== '' && row.group !== filter.group) return false;
  if (filter.startTimestamp !== 0 && row.created_at < filter.startTimestamp) return false;
  if (filter.endTimestamp !== 0 && row.created_at > filter.endTimestamp) return false;
  return true;
}

const dimensions: Partial<LogFilter>[] = [
  {},
  { type: LogType.Consume },
  { type: LogType.TopUp },
  { username: 'user2' },
  { userId: 3 },
  { userId: 3, type: LogType.Consume },
  { tokenName: 'ci' },
  { modelName: 'gpt-4o' },
  { modelName: 'gpt-4%' },
  { modelName: 'nothing%' },
  { channel: 2 },
  { group: 'vip' },
  { userId: 1, modelName: 'gpt-4o-mini' },
  { username: 'user4', modelName: 'gpt-4%' },
  // Not covered by a grain: counted from the logs.
  { userId: 2, tokenName: 'laptop' },
  { modelName: 'gpt-4.1', channel: 1 },
];

/** Time ranges: none, open on either side, on and off bucket edges, inside one hour, across days. */
const ranges: [number, number][] = [
  [0, 0],
  [START + 3 * DAY, 0],
  [0, START + 5 * DAY - 1],
  [START + 2 * DAY + 1_234, START + 7 * DAY + 40_000],
  [START + 4 * HOUR, START + 9 * HOUR - 1],
  [START + 4 * HOUR + 59, START + 4 * HOUR + 3_000],
  [START + DAY - 1, START + DAY],
  [START + 6 * DAY, START + 6 * DAY],
];

async function expectExact(query: LogQuery, seeded: LogInsert[]): Promise<void> {
  for (const dimension of dimensions) {
    for (const [startTimestamp, endTimestamp] of ranges) {
      const filter: LogFilter = { ...noFilter, ...dimension, startTimestamp, endTimestamp };
      const label = JSON.stringify(filter);
      const page = await query.page(filter, paging);
      expect(page.total, label).toBe(seeded.filter((row) => selects(filter, row)).length);
      const stat = await query.stat(filter, START + SPAN + DAY);
      const consumed = seeded.filter((row) => selects(filter, row, LogType.Consume));
      expect(stat.quota, label).toBe(consumed.reduce((sum, row) => sum + row.quota, 0));
    }
  }
}

describe('which grain counts a filter', () => {
  it('one grain per covered set of filters; two filters besides a user and a model are counted from the logs', () => {
    expect(grainFor(noFilter)).toBe(RollupGrain.All);
    expect(grainFor({ ...noFilter, type: 2, startTimestamp: 5 })).toBe(RollupGrain.All);
    expect(grainFor({ ...noFilter, userId: 4 })).toBe(RollupGrain.User);
    expect(grainFor({ ...noFilter, username: 'a' })).toBe(RollupGrain.User);
    expect(grainFor({ ...noFilter, tokenName: 'a' })).toBe(RollupGrain.Token);
    expect(grainFor({ ...noFilter, modelName: 'a' })).toBe(RollupGrain.Model);
    expect(grainFor({ ...noFilter, modelName: 'a%', modelNames: ['ab'] })).toBe(RollupGrain.Model);
    expect(grainFor({ ...noFilter, modelName: 'a%' })).toBeUndefined();
    expect(grainFor({ ...noFilter, channel: 3 })).toBe(RollupGrain.Channel);
    expect(grainFor({ ...noFilter, group: 'vip' })).toBe(RollupGrain.Group);
    expect(grainFor({ ...noFilter, userId: 4, modelName: 'a' })).toBe(RollupGrain.UserModel);
    expect(grainFor({ ...noFilter, userId: 4, tokenName: 'a' })).toBeUndefined();
    expect(grainFor({ ...noFilter, channel: 1, group: 'vip' })).toBeUndefined();
  });
});

describe.each(DIALECTS)('log rollups on %s', (dialect) => {
  let fresh: FreshDb;
  const seeded: LogInsert[] = [];

  /** The rollup table as rows, sorted, for comparing with a rebuild. */
  async function rollupTable(): Promise<string[]> {
    const stored = await fresh.db.kysely.selectFrom('log_rollups').selectAll().execute();
    return stored
      .map((row) => [row.grain, row.bucket, row.type, row.id_key, row.name_key, row.model_key, row.log_count, row.quota].map(String).join('|'))
      .sort();
  }

  async function expectRebuildEqual(): Promise<void> {
    const maintained = await rollupTable();
    await fresh.db.kysely.transaction().execute((trx) => rebuildLogRollups(trx, dialect));
    expect(maintained).toEqual(await rollupTable());
  }

  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
  });
  afterAll(async () => {
    await fresh.drop();
  });

  it('rows from the batch writer and the account events are counted exactly, on every edge', async () => {
    const write = createLogWriter(fresh.db);
    const batch = rows(900, 7);
    for (let start = 0; start < batch.length; start += 300) {
      await fresh.db.kysely.transaction().execute((trx) => write(trx, batch.slice(start, start + 300)));
    }
    seeded.push(...batch);
    // An account event written alone (recordUserLog stamps the current time).
    const before = Math.floor(Date.now() / 1000);
    await recordUserLog(fresh.db.kysely, { userId: 2, username: 'user2', type: LogType.TopUp, content: 'top-up', quota: 777 });
    const event = await fresh.db.kysely.selectFrom('logs').select('created_at').where('content', '=', 'top-up').executeTakeFirstOrThrow();
    expect(Number(event.created_at)).toBeGreaterThanOrEqual(before);
    seeded.push({
      ...batch[0]!,
      user_id: 2,
      username: 'user2',
      type: LogType.TopUp,
      quota: 777,
      token_name: '',
      model_name: '',
      channel_id: 0,
      group: '',
      created_at: Number(event.created_at),
    });
    await expectExact(new LogQuery(fresh.db), seeded);
    await expectRebuildEqual();
  });

  it('a failed flush leaves no count behind', async () => {
    const write = createLogWriter(fresh.db);
    const before = await rollupTable();
    await expect(
      fresh.db.kysely.transaction().execute(async (trx) => {
        await write(trx, rows(50, 11));
        throw new Error('flush failed');
      }),
    ).rejects.toThrow('flush failed');
    expect(await rollupTable()).toEqual(before);
  });

  it('clearing up to a time inside an hour takes exactly those rows out of the counts, and empty keys go', async () => {
    const cutoff = START + 5 * DAY + 1_800;
    const removed = await new LogRetention(fresh.db, 97).deleteBefore(cutoff);
    const kept = seeded.filter((row) => row.created_at >= cutoff);
    expect(removed).toBe(seeded.length - kept.length);
    seeded.splice(0, seeded.length, ...kept);
    await expectExact(new LogQuery(fresh.db), seeded);
    await expectRebuildEqual();
    const { rows: empty } = await sql<{ n: number }>`select count(*) as n from log_rollups where log_count <= 0`.execute(fresh.db.kysely);
    expect(Number(empty[0]!.n)).toBe(0);
    const { rows: early } = await sql<{ n: number }>`select count(*) as n from log_rollups where bucket < ${cutoff - DAY}`.execute(fresh.db.kysely);
    expect(Number(early[0]!.n)).toBe(0);
  });
});

describe('log rollups when PostgreSQL drops a month partition', () => {
  let fresh: FreshDb;
  afterAll(async () => {
    await fresh.drop();
  });

  it('the dropped month leaves the counts with its rows; the month the cutoff falls in loses only the rows below it', async () => {
    fresh = await createFreshDb('postgres');
    // August and September 2026: months before today's, so retention may drop them whole.
    const august = Date.UTC(2026, 7, 1) / 1000;
    for (const at of [august, Date.UTC(2026, 8, 1) / 1000]) await createLogPartition(fresh.db.kysely, monthPartition(at));
    const seeded = rows(600, 23).map((row) => ({ ...row, created_at: august + Math.floor(((row.created_at - START) * 45) / 12) }));
    const write = createLogWriter(fresh.db);
    await fresh.db.kysely.transaction().execute((trx) => write(trx, seeded));
    expect(seeded.some((row) => row.created_at < Date.UTC(2026, 8, 1) / 1000)).toBe(true);

    const cutoff = Date.UTC(2026, 8, 14, 10, 30) / 1000;
    const removed = await new LogRetention(fresh.db).deleteBefore(cutoff);
    const kept = seeded.filter((row) => row.created_at >= cutoff);
    expect(removed).toBe(seeded.length - kept.length);
    expect((await listLogPartitions(fresh.db.kysely)).map((partition) => partition.name)).not.toContain('logs_p202608');

    const query = new LogQuery(fresh.db);
    for (const dimension of dimensions) {
      const filter: LogFilter = { ...noFilter, ...dimension };
      expect((await query.page(filter, paging)).total, JSON.stringify(filter)).toBe(kept.filter((row) => selects(filter, row)).length);
      const consumed = kept.filter((row) => selects(filter, row, LogType.Consume));
      expect((await query.stat(filter)).quota, JSON.stringify(filter)).toBe(consumed.reduce((sum, row) => sum + row.quota, 0));
    }
    const { rows: left } = await sql<{ n: string }>`select count(*) as n from log_rollups where bucket < ${Date.UTC(2026, 8, 1) / 1000}`.execute(
      fresh.db.kysely,
    );
    expect(Number(left[0]!.n)).toBe(0);
  });
});
