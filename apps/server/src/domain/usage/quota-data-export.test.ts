import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DialectName } from '../../db/index.js';
import { chatCompletionBody, sendJson } from '../../relay/testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';

type Sums = Record<string, { quota: number; tokens: number; count: number }>;

/** Consume logs and quota_data rows of these users, summed per user and model. */
async function sumsOf(relay: RelayTestEnv, userIds: number[]): Promise<{ logs: Sums; quotaData: Sums; hoursTruncated: boolean }> {
  const { kysely } = relay.context.db;
  const logs: Sums = {};
  for (const row of await kysely.selectFrom('logs').selectAll().where('user_id', 'in', userIds).where('type', '=', 2).execute()) {
    const entry = (logs[`${row.user_id}/${row.model_name}`] ??= { quota: 0, tokens: 0, count: 0 });
    entry.quota += Number(row.quota);
    entry.tokens += Number(row.prompt_tokens) + Number(row.completion_tokens);
    entry.count += 1;
  }
  const quotaData: Sums = {};
  let hoursTruncated = true;
  for (const row of await kysely.selectFrom('quota_data').selectAll().where('user_id', 'in', userIds).execute()) {
    if (Number(row.created_at) % 3600 !== 0) hoursTruncated = false;
    const entry = (quotaData[`${row.user_id}/${row.model_name}`] ??= { quota: 0, tokens: 0, count: 0 });
    entry.quota += Number(row.quota);
    entry.tokens += Number(row.token_used);
    entry.count += Number(row.count);
  }
  return { logs, quotaData, hoursTruncated };
}

/** quota_data_models holds exactly quota_data summed over users per model and hour. */
async function expectModelTotalsAgree(relay: RelayTestEnv): Promise<void> {
  const { kysely } = relay.context.db;
  const key = (row: { model_name: string; created_at: unknown }) => `${row.model_name}@${Number(row.created_at)}`;
  const summed = new Map<string, { count: number; quota: number; token_used: number }>();
  for (const row of await kysely.selectFrom('quota_data').selectAll().execute()) {
    const entry = summed.get(key(row)) ?? { count: 0, quota: 0, token_used: 0 };
    entry.count += Number(row.count);
    entry.quota += Number(row.quota);
    entry.token_used += Number(row.token_used);
    summed.set(key(row), entry);
  }
  const stored = new Map(
    (await kysely.selectFrom('quota_data_models').selectAll().execute()).map((row) => [
      key(row),
      { count: Number(row.count), quota: Number(row.quota), token_used: Number(row.token_used) },
    ]),
  );
  expect(summed.size).toBeGreaterThan(0);
  expect(stored).toEqual(summed);
}

async function callRelay(relay: RelayTestEnv, calls: { apiKey: string; model: string }[]): Promise<void> {
  relay.upstream.respond((_request, response) => {
    const prompt = 10 + Math.floor(Math.random() * 500);
    const completion = 1 + Math.floor(Math.random() * 300);
    sendJson(response, 200, chatCompletionBody('ok', { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }));
  });
  const pool = new Pool(relay.gateway, { connections: 10 });
  try {
    const statuses = await Promise.all(
      calls.map(async ({ apiKey, model }) => {
        const response = await pool.request({
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
        });
        await response.body.text();
        return response.statusCode;
      }),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
  } finally {
    await pool.close();
  }
}

describe.each(['sqlite', 'postgres', 'mysql'] as DialectName[])('usage data export on %s', (dialect) => {
  let fresh: FreshDb | undefined;
  let relay: RelayTestEnv;
  beforeAll(async () => {
    fresh = dialect === 'sqlite' ? undefined : await createFreshDb(dialect);
    relay = await startRelayTestEnv(fresh ? { SQL_DSN: fresh.sqlDsn } : {});
    await setOption(relay.context, 'ModelRatio', JSON.stringify({ 'qd-a': 0.5, 'qd-b': 2 }));
    await setOption(relay.context, 'DataExportEnabled', true);
  });
  afterAll(async () => {
    await relay.close();
    await fresh?.drop();
  });

  async function payers(count: number) {
    const result = [];
    for (let index = 0; index < count; index += 1) {
      const user = await seedUser(relay.context, { quota: 1_000_000_000 });
      const token = await seedToken(relay.context, user.id);
      await seedChannel(relay.context, { key: unique('key'), baseUrl: relay.upstream.url, models: ['qd-a', 'qd-b'], groups: [user.group] });
      result.push({ user, token });
    }
    return result;
  }

  it('sums N relay calls per user, model and hour exactly as the consume logs do, across several exports', async () => {
    const users = await payers(3);
    const calls = (n: number) => Array.from({ length: n }, (_, index) => ({ apiKey: users[index % 3]!.token.apiKey, model: index % 5 < 2 ? 'qd-a' : 'qd-b' }));
    const ids = users.map(({ user }) => user.id);

    await callRelay(relay, calls(40));
    await relay.runtime.drain();
    await relay.runtime.usageExport.flush();
    // A second export with nothing new adds nothing; later calls add to the same rows.
    await relay.runtime.usageExport.flush();
    await callRelay(relay, calls(25));
    await relay.runtime.drain();
    await relay.runtime.usageExport.flush();

    const { logs, quotaData, hoursTruncated } = await sumsOf(relay, ids);
    expect(Object.keys(logs)).toHaveLength(6);
    expect(Object.values(logs).reduce((total, entry) => total + entry.count, 0)).toBe(65);
    expect(quotaData).toEqual(logs);
    expect(hoursTruncated).toBe(true);
    const rows = await relay.context.db.kysely.selectFrom('quota_data').selectAll().where('user_id', '=', ids[0]!).execute();
    expect(rows[0]).toMatchObject({ username: users[0]!.user.username });
    await expectModelTotalsAgree(relay);
  });

  it('keeps the sums of a failed write for the next export instead of losing or doubling them', async () => {
    const { user, token } = (await payers(1))[0]!;
    await callRelay(relay, [
      { apiKey: token.apiKey, model: 'qd-a' },
      { apiKey: token.apiKey, model: 'qd-a' },
    ]);
    await relay.runtime.drain();
    const { kysely } = relay.context.db;
    // A sum no database accepts (NULL into a NOT NULL column), written after the real ones: the
    // batch fails half-way and must leave nothing behind.
    const exporter = relay.runtime.usageExport;
    const poisoned = {
      type: 2,
      user_id: user.id,
      username: user.username,
      model_name: 'qd-poison',
      created_at: 7200,
      quota: Number.NaN,
      prompt_tokens: 1,
      completion_tokens: 1,
    };
    exporter.accumulator.add(poisoned as never);
    await expect(exporter.flush()).rejects.toThrow();
    expect(await kysely.selectFrom('quota_data').selectAll().where('user_id', '=', user.id).where('model_name', '=', 'qd-a').execute()).toEqual([]);
    const restored = exporter.accumulator.take().filter((entry) => entry.modelName !== 'qd-poison');
    exporter.accumulator.restore(restored);
    await exporter.flush();
    const { logs, quotaData } = await sumsOf(relay, [user.id]);
    expect(quotaData[`${user.id}/qd-a`]).toEqual(logs[`${user.id}/qd-a`]);
    await expectModelTotalsAgree(relay);
  });

  it('sums nothing while DataExportEnabled is off', async () => {
    await setOption(relay.context, 'DataExportEnabled', false);
    try {
      const { user, token } = (await payers(1))[0]!;
      await callRelay(relay, [{ apiKey: token.apiKey, model: 'qd-b' }]);
      await relay.runtime.drain();
      await relay.runtime.usageExport.flush();
      expect((await sumsOf(relay, [user.id])).quotaData).toEqual({});
    } finally {
      await setOption(relay.context, 'DataExportEnabled', true);
    }
  });
});

describe('the dashboard before the export', () => {
  it('shows a call at once from the node’s memory, and the same figures once exported (never twice)', async () => {
    const relay = await startRelayTestEnv();
    try {
      const model = unique('live');
      await setOption(relay.context, 'ModelRatio', JSON.stringify({ [model]: 0.5 }));
      const token = await seedToken(relay.context, 1);
      await seedChannel(relay.context, { key: unique('key'), baseUrl: relay.upstream.url, models: [model], groups: ['default'] });
      await callRelay(
        relay,
        Array.from({ length: 3 }, () => ({ apiKey: token.apiKey, model })),
      );
      await relay.runtime.drain();
      const root = await relay.test.login();
      const now = Math.floor(Date.now() / 1000);
      const range = `start_timestamp=${now - 7200}&end_timestamp=${now + 3600}`;
      const read = async (url: string) => {
        const answer = (await relay.test.app.inject({ method: 'GET', url, headers: root })).json() as {
          data: { model_name: string; count: number; quota: number; token_used: number }[];
        };
        return answer.data.filter((row) => row.model_name === model).map(({ count, quota, token_used }) => ({ count, quota, token_used }));
      };
      const { logs } = await sumsOf(relay, [1]);
      const expected = [{ count: 3, quota: logs[`1/${model}`]!.quota, token_used: logs[`1/${model}`]!.tokens }];
      expect(await relay.context.db.kysely.selectFrom('quota_data').selectAll().where('model_name', '=', model).execute()).toEqual([]);
      expect(await read(`/api/data/self?${range}`)).toEqual(expected);
      expect(await read(`/api/data/?${range}`)).toEqual(expected);
      expect(await read(`/api/data/?${range}&username=root`)).toEqual(expected);

      await relay.runtime.usageExport.flush();
      expect(await read(`/api/data/self?${range}`)).toEqual(expected);
      expect(await read(`/api/data/?${range}`)).toEqual(expected);
    } finally {
      await relay.close();
    }
  });
});

describe('usage data export at shutdown', () => {
  it('writes what was summed when the app closes cleanly, on every node', async () => {
    const fresh = await createFreshDb('sqlite');
    try {
      const relay = await startRelayTestEnv({ SQLITE_PATH: fresh.sqlitePath });
      await setOption(relay.context, 'ModelRatio', JSON.stringify({ 'qd-a': 0.5 }));
      const user = await seedUser(relay.context, { quota: 1_000_000_000 });
      const token = await seedToken(relay.context, user.id);
      await seedChannel(relay.context, { key: unique('key'), baseUrl: relay.upstream.url, models: ['qd-a'], groups: [user.group] });
      await callRelay(
        relay,
        Array.from({ length: 7 }, () => ({ apiKey: token.apiKey, model: 'qd-a' })),
      );
      await relay.close();

      const rows = await fresh.db.kysely.selectFrom('quota_data').selectAll().where('user_id', '=', user.id).execute();
      const logs = await fresh.db.kysely.selectFrom('logs').selectAll().where('user_id', '=', user.id).execute();
      expect(rows.map((row) => [row.model_name, Number(row.count), Number(row.quota)])).toEqual([
        ['qd-a', 7, logs.reduce((total, log) => total + Number(log.quota), 0)],
      ]);

      // A second node's calls count too: it sums and writes its own, adding to the same rows.
      const slave = await startRelayTestEnv({ SQLITE_PATH: fresh.sqlitePath, NODE_TYPE: 'slave' });
      await setOption(slave.context, 'ModelRatio', JSON.stringify({ 'qd-a': 0.5, 'qd-b': 0.25 }));
      await seedChannel(slave.context, { key: unique('key'), baseUrl: slave.upstream.url, models: ['qd-b'], groups: [user.group] });
      await callRelay(
        slave,
        Array.from({ length: 3 }, () => ({ apiKey: token.apiKey, model: 'qd-b' })),
      );
      await slave.close();
      const both = await fresh.db.kysely.selectFrom('quota_data').selectAll().where('user_id', '=', user.id).execute();
      const allLogs = await fresh.db.kysely.selectFrom('logs').selectAll().where('user_id', '=', user.id).execute();
      expect(allLogs).toHaveLength(10);
      const quotaOf = (model: string) => allLogs.filter((log) => log.model_name === model).reduce((total, log) => total + Number(log.quota), 0);
      expect(both.map((row) => [row.model_name, Number(row.count), Number(row.quota)]).sort()).toEqual([
        ['qd-a', 7, quotaOf('qd-a')],
        ['qd-b', 3, quotaOf('qd-b')],
      ]);
    } finally {
      await fresh.drop();
    }
  });
});
