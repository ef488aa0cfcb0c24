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

/**
 * The administrator's chart keeps each whole past UTC day's text in memory with the day's revision,
 * which every node's usage export raises in the transaction that writes to the day: a kept day is
 * read again only after such a write (from this node or another), and the answer is always the
 * stored rows.
 */
describe.each(DIALECTS)("the administrator's chart keeps whole days on %s", (dialect) => {
  const DAY = 86_400;
  const DAY0 = 19_675 * DAY;
  let fresh: FreshDb | undefined;
  let nodeA: TestApp;
  let nodeB: TestApp;
  let root: Record<string, string>;
  // Every dashboard row written so far: [model, hour, count] (any user; the chart sums them per model and hour).
  const written: [string, number, number][] = [];

  const write = async (node: TestApp, rows: [string, number, number][]) => {
    written.push(...rows);
    await writeQuotaData(
      node.context.db,
      rows.map(([modelName, createdAt, count], index) => ({
        userId: 1 + (index % 2),
        username: index % 2 === 0 ? 'root' : 'other',
        modelName,
        createdAt,
        count,
        tokenUsed: count * 7,
        quota: count * 1000,
      })),
    );
  };
  const expectedRows = (start: number, end: number): Row[] => {
    const rows = new Map<string, Row>();
    for (const [modelName, createdAt, count] of written) {
      if (createdAt < start || createdAt > end) continue;
      const key = `${modelName}/${createdAt}`;
      const row = rows.get(key) ?? { id: 0, user_id: 0, username: '', model_name: modelName, created_at: createdAt, token_used: 0, count: 0, quota: 0 };
      row.count += count;
      row.token_used += count * 7;
      row.quota += count * 1000;
      rows.set(key, row);
    }
    return [...rows.values()].sort((a, b) => a.created_at - b.created_at || (a.model_name < b.model_name ? -1 : 1));
  };
  // Two hours before the first day to three hours into the fifth: three edges read, four whole days kept.
  const START = DAY0 - 2 * H;
  const END = DAY0 + 4 * DAY + 3 * H;
  const chart = async (node: TestApp = nodeA): Promise<Row[]> => {
    const response = await node.app.inject({ method: 'GET', url: `/api/data/?start_timestamp=${START}&end_timestamp=${END}`, headers: root });
    const body = JSON.parse(response.body) as { success: boolean; data: Row[] };
    expect(body.success, response.body).toBe(true);
    return body.data;
  };

  beforeAll(async () => {
    if (dialect !== 'sqlite') fresh = await createFreshDb(dialect);
    nodeA = await startTestApp(fresh ? { SQL_DSN: fresh.sqlDsn } : {});
    // A second node on the same database.
    nodeB = await startTestApp(fresh ? { SQL_DSN: fresh.sqlDsn } : { SQLITE_PATH: nodeA.context.config.sqlitePath });
    root = await nodeA.login();
    const rows: [string, number, number][] = [];
    for (let day = -1; day <= 4; day++) {
      for (const hour of [0, 5, 23]) {
        rows.push(['gpt-4o', DAY0 + day * DAY + hour * H, 1 + day * 10 + hour], [ODD, DAY0 + day * DAY + hour * H, 500 + day]);
      }
    }
    await write(nodeA, rows);
  });
  afterAll(async () => {
    await nodeB?.close();
    await nodeA?.close();
    await fresh?.drop();
  });

  it('answers the stored rows, then the same from the kept days', async () => {
    const want = expectedRows(START, END);
    expect(want.length).toBeGreaterThan(24);
    expect(await chart()).toEqual(want);
    expect(await chart()).toEqual(want);
  });

  it('reads a kept day again only after a write moves its revision, from this node or another', async () => {
    await chart();
    // A change no export made (it moves no revision) is not seen while its day is kept: the kept text is what is answered.
    const edit = (hour: number) =>
      nodeA.context.db.kysely
        .updateTable('quota_data_models')
        .set({ count: 999_999 })
        .where('created_at', '=', hour)
        .where('model_name', '=', 'gpt-4o')
        .execute();
    await edit(DAY0 + DAY + 5 * H);
    await edit(DAY0 + 2 * DAY + 5 * H);
    const before = await chart();
    expect(before.find((row) => row.created_at === DAY0 + DAY + 5 * H && row.model_name === 'gpt-4o')?.count).not.toBe(999_999);
    // Another node's export into the second day: this node reads that day again (and sees both changes in it), not the third.
    await write(nodeB, [[ODD, DAY0 + DAY + 7 * H, 42]]);
    const after = await chart();
    expect(after.find((row) => row.created_at === DAY0 + DAY + 7 * H)).toMatchObject({ model_name: ODD, count: 42, quota: 42_000 });
    expect(after.find((row) => row.created_at === DAY0 + DAY + 5 * H && row.model_name === 'gpt-4o')?.count).toBe(999_999);
    expect(after.find((row) => row.created_at === DAY0 + 2 * DAY + 5 * H && row.model_name === 'gpt-4o')?.count).not.toBe(999_999);
    // This node's own export through its usage export (the sums of its calls) moves the third day's revision.
    nodeA.relay.usageExport.accumulator.add(consumeLog(1, 'root', 'gpt-4o', DAY0 + 2 * DAY + 9 * H + 60));
    await nodeA.relay.usageExport.flush();
    written.push(['gpt-4o', DAY0 + 2 * DAY + 9 * H, 1]);
    const third = await chart();
    expect(third.find((row) => row.created_at === DAY0 + 2 * DAY + 9 * H)).toMatchObject({ model_name: 'gpt-4o', count: 1, quota: 1000 });
    expect(third.find((row) => row.created_at === DAY0 + 2 * DAY + 5 * H && row.model_name === 'gpt-4o')?.count).toBe(999_999);
    // The other node, which kept nothing yet, reads everything as stored.
    expect(await chart(nodeB)).toEqual(third);
  });

  it('answers a span of any length in one piece (1970 to the year 5138)', async () => {
    const response = await nodeA.app.inject({ method: 'GET', url: '/api/data/?start_timestamp=0&end_timestamp=99999999999', headers: root });
    const body = JSON.parse(response.body) as { success: boolean; data: Row[] };
    expect(body.success, response.body).toBe(true);
    expect(body.data).toEqual(expectedRows(0, 99_999_999_999).map((row) => edited(row)));
  });

  it("gives each written day one more revision per export, in the export's transaction", async () => {
    const revisions = async () =>
      Object.fromEntries(
        (await nodeA.context.db.kysely.selectFrom('quota_data_days').select(['day', 'revision']).orderBy('day').execute()).map((row) => [
          Number(row.day),
          Number(row.revision),
        ]),
      );
    const before = await revisions();
    await write(nodeB, [
      ['gpt-4o', DAY0 + 3 * DAY + H, 1],
      [ODD, DAY0 + 3 * DAY + 2 * H, 1],
      ['gpt-4o', DAY0 + 4 * DAY + H, 1],
    ]);
    const after = await revisions();
    expect(after[DAY0 + 3 * DAY]).toBe(before[DAY0 + 3 * DAY]! + 1);
    expect(after[DAY0 + 4 * DAY]).toBe(before[DAY0 + 4 * DAY]! + 1);
    expect(after[DAY0]).toBe(before[DAY0]);
    expect(await chart()).toEqual(expectedRows(START, END).map((row) => edited(row)));
  });
});

/** The rows the previous test changed without an export (count 999,999), as they stand in the database. */
function edited(row: Row): Row {
  const DAY0 = 19_675 * 86_400;
  const changed = row.model_name === 'gpt-4o' && (row.created_at === DAY0 + 86_400 + 5 * 3600 || row.created_at === DAY0 + 2 * 86_400 + 5 * 3600);
  return changed ? { ...row, count: 999_999 } : row;
}

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
