import { LogType } from '@modelgate/contract';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { createLogWriter, type LogInsert } from './log-buffer.js';
import { grainFor } from './log-counts.js';
import { LogQuery, type LogFilter } from './log-query.js';

const NOW = 1_800_000_000;
const noFilter: LogFilter = { type: 0, username: '', tokenName: '', modelName: '', startTimestamp: 0, endTimestamp: 0, channel: 0, group: '' };
const paging = { page: 1, pageSize: 10, offset: 0 };

/** 400 rows over ten days up to NOW, a few of them in the last minute; types mixed. */
function rows(): LogInsert[] {
  return Array.from(
    { length: 400 },
    (_, index): LogInsert => ({
      user_id: 1 + (index % 4),
      created_at: index < 390 ? NOW - 10 * 86_400 + index * 2_000 : NOW - 50 + index - 390,
      type: index % 9 === 0 ? LogType.TopUp : LogType.Consume,
      content: '',
      username: `u${1 + (index % 4)}`,
      token_name: `t${index % 3}`,
      model_name: ['gpt-4o', 'gpt-4o-mini', 'claude'][(index % 5) % 3]!,
      quota: 1 + ((index * 37) % 101),
      prompt_tokens: index,
      completion_tokens: index % 7,
      use_time: 1,
      is_stream: 0,
      channel_id: 1 + (index % 2),
      channel_name: '',
      token_id: 1,
      group: index % 6 === 0 ? 'vip' : 'default',
      ip: '',
      other: '{}',
    }),
  );
}

/** Each filter with what it selects; stat ignores `type`, pages honour it. */
const filters: [string, Partial<LogFilter>, (row: LogInsert) => boolean][] = [
  ['none', {}, () => true],
  ['type', { type: LogType.TopUp }, (row) => row.type === LogType.TopUp],
  ['username', { username: 'u2' }, (row) => row.username === 'u2'],
  ['token', { tokenName: 't1' }, (row) => row.token_name === 't1'],
  ['model', { modelName: 'gpt-4o' }, (row) => row.model_name === 'gpt-4o'],
  ['model pattern', { modelName: 'gpt-4o%' }, (row) => row.model_name.startsWith('gpt-4o')],
  ['model pattern matching nothing', { modelName: 'nothing%' }, () => false],
  ['channel', { channel: 2 }, (row) => row.channel_id === 2],
  ['group', { group: 'vip' }, (row) => row.group === 'vip'],
  [
    'range',
    { startTimestamp: NOW - 5 * 86_400, endTimestamp: NOW - 2 * 86_400 },
    (row) => row.created_at >= NOW - 5 * 86_400 && row.created_at <= NOW - 2 * 86_400,
  ],
  ['type + range', { type: LogType.Consume, startTimestamp: NOW - 86_400 }, (row) => row.type === LogType.Consume && row.created_at >= NOW - 86_400],
  [
    'own + model + since',
    { userId: 3, modelName: 'claude', startTimestamp: NOW - 7 * 86_400 },
    (row) => row.user_id === 3 && row.model_name === 'claude' && row.created_at >= NOW - 7 * 86_400,
  ],
  [
    'own + type + token',
    { userId: 1, type: LogType.Consume, tokenName: 't0' },
    (row) => row.user_id === 1 && row.type === LogType.Consume && row.token_name === 't0',
  ],
];

describe.each(DIALECTS)('log pages and stats on %s', (dialect) => {
  let fresh: FreshDb;
  const seeded = rows();
  const ids: number[] = [];

  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
    // Through the relay's batch writer (rows and rollups), a few batches as flushes write them.
    const write = createLogWriter(fresh.db);
    for (let start = 0; start < seeded.length; start += 150) {
      await fresh.db.kysely.transaction().execute((trx) => write(trx, seeded.slice(start, start + 150)));
    }
    const stored = await fresh.db.kysely.selectFrom('logs').select('id').orderBy('id').execute();
    ids.push(...stored.map((row) => Number(row.id)));
  });
  afterAll(async () => {
    await fresh.drop();
  });

  it.each(filters)('%s: the total, the newest ids and the sums are exactly the rows the filter selects', async (_name, partial, selects) => {
    const filter = { ...noFilter, ...partial };
    const query = new LogQuery(fresh.db);
    const matching = seeded.map((row, index) => ({ row, id: ids[index]! })).filter(({ row }) => selects(row));
    const page = await query.page(filter, paging);
    expect(page.total).toBe(matching.length);
    expect(page.items.map((row) => Number(row.id))).toEqual(
      matching
        .map(({ id }) => id)
        .reverse()
        .slice(0, 10),
    );

    // The stat counts consume rows only, whatever type the page asked for.
    const consumed = seeded.filter((row) => row.type === LogType.Consume && selects({ ...row, type: filter.type || row.type }));
    const stat = await query.stat(filter, NOW);
    expect(stat.quota).toBe(consumed.reduce((total, row) => total + row.quota, 0));
    if (filter.startTimestamp === 0 && filter.endTimestamp === 0) {
      // rpm and tpm: the same rows within the last minute.
      const recent = consumed.filter((row) => row.created_at >= NOW - 60);
      if (Object.keys(partial).length === 0) expect(recent.length).toBeGreaterThan(0);
      expect(stat.rpm).toBe(recent.length);
      expect(stat.tpm).toBe(recent.reduce((total, row) => total + row.prompt_tokens + row.completion_tokens, 0));
    }
  });
});

describe('the SQLite plans of the log counts and sums', () => {
  let fresh: FreshDb;
  let traced: Db;
  const statements: CompiledQuery[] = [];

  beforeAll(async () => {
    fresh = await createFreshDb('sqlite');
    const write = createLogWriter(fresh.db);
    await fresh.db.kysely.transaction().execute((trx) => write(trx, rows()));
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: fresh.db.sqlite! }), log: (event) => void statements.push(event.query) });
    traced = { ...fresh.db, kysely };
  });
  afterAll(async () => {
    await fresh.drop();
  });

  /** SQLite's plan for each count and sum the call ran. */
  async function plansOf(call: () => Promise<unknown>): Promise<{ sql: string; plan: string }[]> {
    statements.length = 0;
    await call();
    return statements
      .filter((statement) => /^select (count|sum)/.test(statement.sql))
      .map((statement) => ({
        sql: statement.sql,
        plan: (fresh.db.sqlite!.prepare(`explain query plan ${statement.sql}`).all(...(statement.parameters as unknown[])) as { detail: string }[])
          .map((step) => step.detail)
          .join('; '),
      }));
  }

  it.each(filters)(
    '%s: counts and sums read the rollups by key or a covering index of the logs, the last minute the created_at index',
    async (name, partial) => {
      const filter = { ...noFilter, ...partial };
      const query = new LogQuery(traced);
      const covered = grainFor({ ...filter, modelNames: filter.modelName.includes('%') ? [] : undefined }) !== undefined;
      const pagePlans = (await plansOf(() => query.page(filter, paging))).map((statement) => statement.plan);
      const statPlans = await plansOf(() => query.stat(filter, NOW));
      const recent = statPlans.find((statement) => statement.sql.includes('"rpm"'))?.plan;
      const sums = statPlans.filter((statement) => !statement.sql.includes('"rpm"')).map((statement) => statement.plan);
      for (const plan of [...pagePlans, ...sums]) {
        // Never a scan of either table: the rollups by their key or names index, the logs by a range of an index.
        if (plan.includes('log_rollups'))
          expect(plan).toMatch(/^SEARCH log_rollups USING (PRIMARY KEY \(id_key=\? AND grain=\?|INDEX idx_log_rollups_names \(grain=\? AND name_key=\?)/);
        else expect(plan).toMatch(/^SEARCH logs USING (COVERING )?INDEX /);
      }
      // What a grain covers is counted from the rollups; the rest from the logs.
      expect(pagePlans.some((plan) => plan.includes('log_rollups'))).toBe(covered);
      expect(sums.some((plan) => plan.includes('log_rollups'))).toBe(covered);
      expect(recent).toMatch(/USING (COVERING )?INDEX idx_logs_created_at_covering \(created_at>\?\)/);
      // An administrator's username is found through the names index, not by reading the whole grain.
      if (name === 'username') expect(pagePlans.join('\n')).toContain('INDEX idx_log_rollups_names (grain=? AND name_key=?');
      // A range's partial buckets at its edges are read as ranges of the logs' time index.
      if (name === 'range') expect(sums.join('\n')).toContain('idx_logs_created_at_covering (created_at>? AND created_at<?)');
    },
  );

  it('every column the filters read is in the covering indexes (migration 007)', () => {
    const indexed = fresh.db.sqlite!.prepare("select name from pragma_index_list('logs')").all() as { name: string }[];
    expect(indexed.map((row) => row.name)).toEqual(
      expect.arrayContaining([
        'idx_logs_username_covering',
        'idx_logs_token_name_covering',
        'idx_logs_model_name_covering',
        'idx_logs_channel_id_covering',
        'idx_logs_group_covering',
        'idx_logs_type_covering',
        'idx_logs_user_id_covering',
        'idx_logs_created_at_covering',
      ]),
    );
    expect(indexed.map((row) => row.name)).not.toContain('idx_logs_user_type_id');
  });
});
