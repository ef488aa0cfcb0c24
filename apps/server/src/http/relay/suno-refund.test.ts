import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sunoTaskChange } from '../../domain/tasks/suno-task-state.js';
import { TaskRepository } from '../../domain/tasks/task-repository.js';
import { sunoTaskItemSchema } from '../../providers/suno/suno-wire.js';
import { startMockSuno, type MockSuno } from '../../providers/suno/testing/mock-suno.js';
import { MUSIC_QUOTA, SUNO_PRICES, pollTasks, refundLogs, seedSunoPayer, sunoCall, taskRow } from '../../providers/suno/testing/suno-test-kit.js';
import { setOption, startRelayTestEnv, totals, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';

/**
 * A failed Suno task's quota comes back exactly once even when the gateway stops between
 * recording the failure and refunding it, and on PostgreSQL as on SQLite.
 */
let mock: MockSuno;
beforeAll(async () => {
  mock = await startMockSuno();
});
afterAll(async () => {
  await mock?.close();
});

const setPrices = (env: RelayTestEnv) => setOption(env.context, 'ModelPrice', JSON.stringify({ ...env.context.options.json('ModelPrice'), ...SUNO_PRICES }));

async function submitFailingSong(env: RelayTestEnv, apiKey: string): Promise<string> {
  mock.plan({ kind: 'failure', reason: 'the model refused the lyrics' });
  const submitted = await sunoCall(env.gateway, apiKey, 'POST', '/suno/submit/music', { prompt: 'x' });
  expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
  return submitted.json.data as string;
}

describe('a gateway restart between a failure and its refund', () => {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-suno-restart-'));
  const sqlite = join(dir, 'gateway.db');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refunds once, by the new process', async () => {
    const first = await startRelayTestEnv({ SQLITE_PATH: sqlite, NODE_NAME: 'suno-restart' });
    let payer: Awaited<ReturnType<typeof seedSunoPayer>>;
    let taskId: string;
    try {
      await setPrices(first);
      payer = await seedSunoPayer(first, mock, { tokenQuota: 1_000_000 });
      taskId = await submitFailingSong(first, payer.token.apiKey);
      mock.finishAll();
      // The poll's first step (the row becomes FAILURE), and then the process stops: no refund yet.
      const row = await taskRow(first, taskId);
      const change = sunoTaskChange(row, sunoTaskItemSchema.parse(mock.view(mock.tasks.get(taskId)!)));
      expect(change?.status).toBe('FAILURE');
      expect(await new TaskRepository(first.context.db).update(Number(row.id), change!)).toBe(true);
    } finally {
      await first.close();
    }

    const second = await startRelayTestEnv({ SQLITE_PATH: sqlite, NODE_NAME: 'suno-restart' });
    try {
      const stopped = await totals(second.context, payer.ids);
      expect([stopped.logQuotaSum, stopped.userQuota, (await refundLogs(second, payer.user.id)).length]).toEqual([MUSIC_QUOTA, 1_000_000_000 - MUSIC_QUOTA, 0]);
      await pollTasks(second);
      await pollTasks(second);
      await second.tasks.billing.refundPending();
      await second.runtime.drain();
      const refunds = await refundLogs(second, payer.user.id);
      expect(refunds.map((log) => Number(log.quota))).toEqual([MUSIC_QUOTA]);
      const books = await totals(second.context, payer.ids);
      expect(books.logQuotaSum - MUSIC_QUOTA).toBe(0);
      expect([books.userQuota, books.userUsed, books.tokenRemain, books.tokenUsed, books.channelUsed.get(payer.channelId)]).toEqual([
        1_000_000_000, 0, 1_000_000, 0, 0,
      ]);
      const fetched = await sunoCall(second.gateway, payer.token.apiKey, 'GET', `/suno/fetch/${taskId}`);
      expect(fetched.json.data).toMatchObject({ status: 'FAILURE', progress: '100%', fail_reason: 'the model refused the lyrics' });
    } finally {
      await second.close();
    }
  });
});

describe('on PostgreSQL', () => {
  let fresh: FreshDb;
  let env: RelayTestEnv;
  beforeAll(async () => {
    fresh = await createFreshDb('postgres');
    env = await startRelayTestEnv({ SQL_DSN: fresh.sqlDsn });
    await setPrices(env);
  });
  afterAll(async () => {
    await env?.close();
    await fresh?.drop();
  });

  it('charges a song, follows it to failure and refunds it once', async () => {
    const payer = await seedSunoPayer(env, mock, { tokenQuota: 1_000_000 });
    const taskId = await submitFailingSong(env, payer.token.apiKey);
    mock.advance(3);
    await pollTasks(env);
    expect((await taskRow(env, taskId)).status).toBe('IN_PROGRESS');
    mock.finishAll();
    await Promise.all([pollTasks(env), env.tasks.billing.refundPending(), env.tasks.billing.refundPending()]);
    await pollTasks(env);
    await env.runtime.drain();
    const refunds = await refundLogs(env, payer.user.id);
    expect(refunds.map((log) => Number(log.quota))).toEqual([MUSIC_QUOTA]);
    const books = await totals(env.context, payer.ids);
    expect(books.logQuotaSum).toBe(MUSIC_QUOTA);
    expect([books.userQuota, books.tokenRemain, books.channelUsed.get(payer.channelId)]).toEqual([1_000_000_000, 1_000_000, 0]);
  });
});
