import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { consumeLogRow } from './consume-log.js';
import { createLogWriter, LogBuffer, type LogInsert } from './log-buffer.js';

const row = (index: number): LogInsert =>
  consumeLogRow({
    createdAt: 1_700_000_000 + index,
    userId: 1 + (index % 3),
    username: `user${index % 3}`,
    tokenId: 7,
    tokenName: '令牌 7',
    model: 'gpt-4o-mini',
    upstreamModel: index % 2 === 0 ? 'gpt-4o-mini' : 'gpt-4o-mini-2024-07-18',
    channelId: 3,
    channelName: 'mock',
    group: 'default',
    quota: index * 11,
    promptTokens: index,
    completionTokens: 2 * index,
    useTimeSeconds: 1,
    isStream: index % 2 === 1,
    pricing: { modelRatio: 0.075, completionRatio: 4, groupRatio: 1, modelPrice: -1 },
    firstResponseMs: 12,
    triedChannelIds: [3],
    unpaidQuota: 0,
  });

/** The batch's log writer on every dialect: each row lands once, every column as given. */
describe.each(DIALECTS)('log writer on %s', (dialect) => {
  let fresh: FreshDb;
  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
  });
  afterAll(async () => {
    await fresh.drop();
  });

  it.each([1, 100, 257])('writes %i rows exactly, every column of every row', async (count) => {
    const { kysely } = fresh.db;
    await kysely.deleteFrom('logs').execute();
    const write = createLogWriter(fresh.db);
    const rows = Array.from({ length: count }, (_, index) => row(index));
    await kysely.transaction().execute((trx) => write(trx, rows));
    // The same writer again (SQLite binds full hundreds from one array it refills): nothing of the first batch stays in the second.
    const more = Array.from({ length: 150 }, (_, index) => row(1000 + index));
    await kysely.transaction().execute((trx) => write(trx, more));
    const stored = await kysely.selectFrom('logs').selectAll().orderBy('id').execute();
    expect(stored.map(({ id: _id, ...columns }) => ({ ...columns, created_at: Number(columns.created_at), quota: Number(columns.quota) }))).toEqual([
      ...rows,
      ...more,
    ]);
  });

  it('writes nothing when the transaction fails', async () => {
    const { kysely } = fresh.db;
    await kysely.deleteFrom('logs').execute();
    const write = createLogWriter(fresh.db);
    await expect(
      kysely.transaction().execute(async (trx) => {
        await write(trx, [row(1), row(2)]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await kysely.selectFrom('logs').select('id').execute()).toHaveLength(0);
  });
});

describe('log buffer', () => {
  it('reports a backlog once when it reaches its size, and hands rows over in order', () => {
    const buffer = new LogBuffer(3);
    let calls = 0;
    buffer.onBacklog(() => {
      calls += 1;
    });
    for (let index = 0; index < 5; index += 1) buffer.push(row(index));
    expect(calls).toBe(1);
    const taken = buffer.take();
    expect(taken.map((log) => log.created_at)).toEqual([0, 1, 2, 3, 4].map((index) => 1_700_000_000 + index));
    buffer.restore(taken.slice(3));
    expect(buffer.size).toBe(2);
  });
});
