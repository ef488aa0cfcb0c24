import { LogType, type QuotaDataRow } from '@modelgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogInsert } from '../../domain/logs/log-buffer.js';
import { writeQuotaData } from '../../domain/usage/quota-data-export.js';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

/**
 * The dashboard's rows on every database: on SQLite and PostgreSQL the stored hours' JSON is built
 * by the database, the hours this node still holds sums of are read as objects and merged; the
 * answer must be the same rows, numbers and escaped names as reading every row as an object.
 */
const HOUR = 1_700_002_800;
const H = 3600;
// Quotes, a backslash, a control character and CJK: the database's JSON must escape them as JSON.stringify does.
const ODD = 'a"b\\c\u0001 模型';

/** A dashboard row as the console reads it (new-api's QuotaData). */
type Row = QuotaDataRow;

describe.each(DIALECTS)('the dashboard rows on %s', (dialect) => {
  let fresh: FreshDb | undefined;
  let test: TestApp;
  let root: Record<string, string>;
  let bob: Record<string, string>;
  let aliceId = 0;
  let bobId = 0;
  // What every user's rows are in the end, stored and still in memory: [user, username, model, hour, count].
  const stored: [number, string, string, number, number][] = [];
  const pending: [number, string, string, number, number][] = [];

  beforeAll(async () => {
    if (dialect !== 'sqlite') fresh = await createFreshDb(dialect);
    test = await startTestApp(fresh ? { SQL_DSN: fresh.sqlDsn } : {});
    root = await test.login();
    for (const username of ['alice', 'bob']) {
      await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
    }
    bob = await test.login('bob', 'password123');
    bobId = Number(bob['new-api-user']);
    aliceId = Number((await test.login('alice', 'password123'))['new-api-user']);
    // Hours 0 to 5 stored; hours 4, 5 and 6 also held in memory (4 and 5 add to stored rows, 6 is new).
    for (let hour = 0; hour < 6; hour++) {
      stored.push([aliceId, 'alice', 'gpt-4o', HOUR + hour * H, hour + 1]);
      stored.push([aliceId, 'alice', ODD, HOUR + hour * H, 10 + hour]);
      if (hour % 2 === 0) stored.push([bobId, 'bob', 'gpt-4o', HOUR + hour * H, 100 + hour]);
    }
    pending.push([aliceId, 'alice', 'gpt-4o', HOUR + 4 * H, 1000], [bobId, 'bob', 'z-model', HOUR + 5 * H, 2000], [bobId, 'bob', ODD, HOUR + 6 * H, 3000]);
    await writeQuotaData(
      test.context.db,
      stored.map(([userId, username, modelName, createdAt, count]) => ({
        userId,
        username,
        modelName,
        createdAt,
        count,
        tokenUsed: count * 7,
        quota: count * 1000,
      })),
    );
    for (const [userId, username, modelName, createdAt, count] of pending) {
      for (let call = 0; call < count; call++) test.relay.usageExport.accumulator.add(consumeLog(userId, username, modelName, createdAt + 60));
    }
  });
  afterAll(async () => {
    await test?.close();
    await fresh?.drop();
  });

  /** The expected rows of a range: stored and pending summed per key, by hour then model. */
  function expected(start: number, end: number, keep: (userId: number) => boolean, summed: boolean): Row[] {
    const rows = new Map<string, Row>();
    for (const [userId, username, modelName, createdAt, count] of [...stored, ...pending]) {
      if (createdAt < start || createdAt > end || !keep(userId)) continue;
      const key = summed ? `${modelName}/${createdAt}` : `${userId}/${modelName}/${createdAt}`;
      const row = rows.get(key) ?? {
        id: 0,
        user_id: summed ? 0 : userId,
        username: summed ? '' : username,
        model_name: modelName,
        created_at: createdAt,
        token_used: 0,
        count: 0,
        quota: 0,
      };
      row.count += count;
      row.token_used += count * 7;
      row.quota += count * 1000;
      rows.set(key, row);
    }
    return [...rows.values()].sort((a, b) => a.created_at - b.created_at || (a.model_name < b.model_name ? -1 : 1));
  }

  async function chart(path: string, session: Record<string, string>): Promise<Row[]> {
    const response = await test.app.inject({ method: 'GET', url: path, headers: session });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = JSON.parse(response.body) as { success: boolean; message: string; data: Row[] };
    expect(body.success, response.body).toBe(true);
    expect(body.message).toBe('');
    return body.data;
  }

  // Ranges: all stored and pending hours; only stored hours (no merge); only pending hours (nothing built by the database); empty.
  const ranges: [string, number, number][] = [
    ['every hour', HOUR - H, HOUR + 7 * H],
    ['the stored hours before the first held in memory', HOUR, HOUR + 3 * H],
    ['from an hour held in memory', HOUR + 4 * H, HOUR + 6 * H],
    ['no hour', HOUR - 10 * H, HOUR - 5 * H],
  ];

  it.each(ranges)("an administrator's chart of everyone, %s", async (_label, start, end) => {
    const rows = await chart(`/api/data/?start_timestamp=${start}&end_timestamp=${end}`, root);
    expect(rows).toEqual(expected(start, end, () => true, true));
  });

  it.each(ranges)("an administrator's chart of one username, %s", async (_label, start, end) => {
    const rows = await chart(`/api/data/?username=alice&start_timestamp=${start}&end_timestamp=${end}`, root);
    const want = expected(start, end, (userId) => userId === aliceId, false);
    expect(rows.map(({ id: _id, ...row }) => ({ id: 0, ...row }))).toEqual(want);
    // Stored rows carry their quota_data id, sums still in memory 0.
    for (const row of rows) expect(row.id > 0 || row.created_at >= HOUR + 4 * H).toBe(true);
  });

  it.each(ranges)("a user's own chart, %s", async (_label, start, end) => {
    const rows = await chart(`/api/data/self?start_timestamp=${start}&end_timestamp=${end}`, bob);
    expect(rows.map(({ id: _id, ...row }) => ({ id: 0, ...row }))).toEqual(expected(start, end, (userId) => userId === bobId, false));
  });

  it('answers the same once the sums in memory are exported', async () => {
    const before = await chart(`/api/data/?start_timestamp=${HOUR - H}&end_timestamp=${HOUR + 7 * H}`, root);
    await test.relay.usageExport.flush();
    expect(test.relay.usageExport.unexported()).toEqual([]);
    expect(await chart(`/api/data/?start_timestamp=${HOUR - H}&end_timestamp=${HOUR + 7 * H}`, root)).toEqual(before);
  });
});

function consumeLog(userId: number, username: string, modelName: string, createdAt: number): LogInsert {
  return {
    user_id: userId,
    created_at: createdAt,
    type: LogType.Consume,
    content: '',
    username,
    token_name: 'key',
    model_name: modelName,
    quota: 1000,
    prompt_tokens: 3,
    completion_tokens: 4,
    use_time: 1,
    is_stream: 0,
    channel_id: 1,
    channel_name: 'c',
    token_id: 1,
    group: 'default',
    ip: '',
    other: '',
  };
}
