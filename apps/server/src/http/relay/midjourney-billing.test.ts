import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../app-context.js';
import { MockMidjourney } from '../../providers/midjourney/testing/mock-midjourney.js';
import { startRelayTestEnv, totals, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';
import { createFreshDb } from '../../test-support/dialects.js';
import { mjCall, QUIET, seedMjPayer } from './midjourney-testing.js';

/**
 * The money of drawings: charged once on an accepted submit, given back exactly once when the
 * task fails (also after a restart between the failure and the refund), and never more than the
 * balance holds under concurrent submits.
 */
const UNIT = 500_000;
const IMAGINE = 0.1 * UNIT;
let mock: MockMidjourney;

beforeAll(async () => {
  mock = await new MockMidjourney().start();
});
afterAll(async () => {
  await mock.close();
});

async function refundLogs(context: AppContext, userId: number) {
  return context.db.kysely.selectFrom('logs').selectAll().where('user_id', '=', userId).where('type', '=', 4).execute();
}

async function taskRow(context: AppContext, mjId: string) {
  return context.db.kysely.selectFrom('midjourneys').selectAll().where('mj_id', '=', mjId).executeTakeFirstOrThrow();
}

describe('midjourney billing', () => {
  let env: RelayTestEnv;
  beforeAll(async () => {
    env = await startRelayTestEnv(QUIET);
  });
  afterAll(() => env.close());

  it('refunds a failed task once, whatever the number of poll rounds', async () => {
    const payer = await seedMjPayer(env.context, mock, { quota: 10 * IMAGINE });
    const submitted = await mjCall(env.gateway, payer.token.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'a banned thing' });
    const id = String(submitted.json.result);
    await mock.advance(id);
    await env.tasks.midjourney.poller.pollOnce();
    await mock.fail(id, 'Banned prompt detected');
    const round = await env.tasks.midjourney.poller.pollOnce();
    expect(round.refunded).toBe(1);
    expect((await env.tasks.midjourney.poller.pollOnce()).refunded).toBe(0);

    const fetched = await mjCall(env.gateway, payer.token.apiKey, 'GET', `/mj/task/${id}/fetch`);
    expect(fetched.json).toMatchObject({ status: 'FAILURE', progress: '100%', failReason: 'Banned prompt detected' });
    expect(await taskRow(env.context, id)).toMatchObject({ refunded: 1, quota: IMAGINE, token_id: payer.token.id });
    expect(await env.tasks.billing.refund('midjourneys', Number((await taskRow(env.context, id)).id))).toBeUndefined();

    await env.runtime.flush();
    const books = await totals(env.context, payer.ids);
    const refunds = await refundLogs(env.context, payer.user.id);
    expect(refunds).toHaveLength(1);
    expect(Number(refunds[0]!.quota)).toBe(IMAGINE);
    expect(refunds[0]!.content).toContain(`构图失败 ${id}`);
    // Charged sum − refund sum is what the user paid: nothing.
    expect(books.logQuotaSum - Number(refunds[0]!.quota)).toBe(0);
    expect(books.userQuota).toBe(10 * IMAGINE);
    expect(books.userUsed).toBe(0);
    expect(books.channelUsed.get(payer.channelId)).toBe(0);
  });

  it('accepts exactly the submits the balance covers out of 50 at once', async () => {
    const strict = await startRelayTestEnv({ ...QUIET, QUOTA_WAIT_SECONDS: '0' });
    try {
      const payer = await seedMjPayer(strict.context, mock, { quota: 20 * IMAGINE });
      const pool = new Pool(strict.gateway, { connections: 50 });
      const answers = await Promise.all(
        Array.from({ length: 50 }, async (_, index) => {
          const response = await pool.request({
            method: 'POST',
            path: '/mj/submit/imagine',
            headers: { 'mj-api-secret': payer.token.apiKey, 'content-type': 'application/json' },
            body: JSON.stringify({ prompt: `cat ${index}` }),
          });
          return { status: response.statusCode, json: (await response.body.json()) as { code: number; description: string } };
        }),
      );
      await pool.close();
      const accepted = answers.filter((answer) => answer.status === 200 && answer.json.code === 1);
      const refused = answers.filter((answer) => answer.status !== 200);
      expect(accepted).toHaveLength(20);
      expect(refused).toHaveLength(30);
      for (const answer of refused) {
        expect(answer.status).toBe(403);
        expect(answer.json.code).toBe(4);
        expect(answer.json.description).not.toBe('');
      }
      await strict.runtime.flush();
      const books = await totals(strict.context, payer.ids);
      expect(books.logs).toHaveLength(20);
      expect(books.userQuota).toBe(0);
      expect(books.userUsed).toBe(20 * IMAGINE);
      const rows = await strict.context.db.kysely.selectFrom('midjourneys').select(['quota']).where('user_id', '=', payer.user.id).execute();
      expect(rows).toHaveLength(20);
      expect(rows.every((row) => Number(row.quota) === IMAGINE)).toBe(true);
    } finally {
      await strict.close();
    }
  });
});

describe('midjourney refund across a restart', () => {
  it('refunds once when the gateway stopped after the failure was recorded and before the refund', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-mj-restart-'));
    const sqlite = { ...QUIET, SQLITE_PATH: join(dir, 'modelgate.db') };
    try {
      const first = await startRelayTestEnv(sqlite);

      const payer = await seedMjPayer(first.context, mock, { quota: 5 * IMAGINE });
      const submitted = await mjCall(first.gateway, payer.token.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'doomed' });
      const id = String(submitted.json.result);
      await mock.fail(id, 'Job timeout');
      // The failure is written (as a poll round writes it) and the process stops before any refund.
      const row = await taskRow(first.context, id);
      await first.context.db.kysely
        .updateTable('midjourneys')
        .set({ status: 'FAILURE', progress: '100%', fail_reason: 'Job timeout' })
        .where('id', '=', row.id)
        .execute();
      await first.close();

      const second = await startRelayTestEnv(sqlite);
      try {
        expect((await taskRow(second.context, id)).refunded).toBe(0);
        expect((await second.tasks.midjourney.poller.pollOnce()).refunded).toBe(1);
        expect((await second.tasks.midjourney.poller.pollOnce()).refunded).toBe(0);
        await second.runtime.flush();
        const books = await totals(second.context, payer.ids);
        const refunds = await refundLogs(second.context, payer.user.id);
        expect(refunds).toHaveLength(1);
        expect(books.logs).toHaveLength(1);
        expect(books.logQuotaSum - Number(refunds[0]!.quota)).toBe(0);
        expect(books.userQuota).toBe(5 * IMAGINE);
        expect(books.userUsed).toBe(0);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('midjourney refund on PostgreSQL', () => {
  it('gives a failed task back exactly once when refunds race', async () => {
    const fresh = await createFreshDb('postgres');
    const env = await startRelayTestEnv({ ...QUIET, SQL_DSN: fresh.sqlDsn });
    try {
      const payer = await seedMjPayer(env.context, mock, { quota: 3 * IMAGINE });
      const submitted = await mjCall(env.gateway, payer.token.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'pg' });
      const id = String(submitted.json.result);
      await mock.fail(id);
      const mj = env.tasks.midjourney;
      const row = await taskRow(env.context, id);
      const [first] = await mj.repository.unfinished(10);
      expect(first?.mj_id).toBe(id);
      await env.context.db.kysely.updateTable('midjourneys').set({ status: 'FAILURE', progress: '100%' }).where('id', '=', row.id).execute();
      const results = await Promise.all([
        ...Array.from({ length: 5 }, () => env.tasks.billing.refund('midjourneys', Number(row.id))),
        mj.poller.pollOnce(),
        env.tasks.billing.refundPending(),
      ]);
      const refunds =
        results.slice(0, 5).filter((result) => result !== undefined).length + (results[5] as { refunded: number }).refunded + (results[6] as number);
      expect(refunds).toBe(1);
      await env.runtime.flush();
      const books = await totals(env.context, payer.ids);
      expect(books.userQuota).toBe(3 * IMAGINE);
      expect(await refundLogs(env.context, payer.user.id)).toHaveLength(1);
    } finally {
      await env.close();
      await fresh.drop();
    }
  });
});
