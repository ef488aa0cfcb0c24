import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogType, TokenStatus } from '@modelgate/contract';
import type { RelayCaller } from '../relay-caller.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from '../testing/relay-fixtures.js';

/**
 * Task money through the real app and SQLite: holds never overspend a balance under concurrency,
 * a charge is logged with its price key, and a failed task's refund happens exactly once however
 * many times (and from however many places) it is asked for.
 */

const QUOTA_PER_UNIT = 500_000;

describe('task billing', () => {
  let env: RelayTestEnv;
  let group: string;
  let channelId: number;

  beforeAll(async () => {
    env = await startRelayTestEnv();
    group = unique('tasks');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: 1.5 }));
    await setOption(env.context, 'ModelPrice', JSON.stringify({ ...env.context.options.json('ModelPrice'), mj_imagine: 0.1, suno_music: 0.2 }));
    channelId = await seedChannel(env.context, { type: 2, key: unique('mj'), baseUrl: 'http://127.0.0.1:9', models: ['mj_imagine'], groups: [group] });
  });
  afterAll(async () => {
    await env?.close();
  });

  async function callerFor(apiKey: string): Promise<RelayCaller> {
    const request = { headers: { authorization: `Bearer ${apiKey}` }, ip: '127.0.0.1', query: {} } as unknown as FastifyRequest;
    return env.runtime.auth.authenticate(request);
  }

  it('prices by ModelPrice × QuotaPerUnit × group ratio, and never holds more than the balance under 50 concurrent submits', async () => {
    const price = Math.round(0.1 * QUOTA_PER_UNIT * 1.5);
    expect(env.tasks.billing.quotaOf(env.tasks.billing.pricingOf('mj_imagine', group))).toBe(price);
    const user = await seedUser(env.context, { quota: price * 20 + price / 2, group });
    const token = await seedToken(env.context, user.id, { unlimited: true });
    const caller = await callerFor(token.apiKey);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, async () => {
        const hold = await env.tasks.billing.hold(caller, 'mj_imagine');
        return env.tasks.billing.charge(hold, { id: channelId, name: 'mj' }, { action: 'IMAGINE' });
      }),
    );
    const charged = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(charged).toHaveLength(20);
    for (const refused of outcomes.filter((outcome) => outcome.status === 'rejected')) {
      expect((refused as PromiseRejectedResult).reason).toMatchObject({ status: 403 });
    }
    await env.runtime.drain();
    const after = await totals(env.context, { userId: user.id, tokenId: token.id, channelIds: [channelId] });
    expect(after.userQuota).toBe(price / 2);
    expect(after.logQuotaSum).toBe(price * 20);
    expect(
      after.logs.every(
        (log) => log.model_name === 'mj_imagine' && String(log.content).endsWith('，操作 IMAGINE') && JSON.parse(String(log.other)).task_action === 'IMAGINE',
      ),
    ).toBe(true);
  });

  it('gives a failed task’s quota back exactly once, to the user, the token and the channel counter', async () => {
    const price = Math.round(0.2 * QUOTA_PER_UNIT * 1.5);
    const user = await seedUser(env.context, { quota: price, group });
    const token = await seedToken(env.context, user.id, { remainQuota: price, unlimited: false });
    const caller = await callerFor(token.apiKey);
    const hold = await env.tasks.billing.hold(caller, 'suno_music');
    const quota = await env.tasks.billing.charge(hold, { id: channelId, name: 'suno' });
    expect(quota).toBe(price);
    await env.runtime.drain();
    // Spent out: the relay marks such a key exhausted.
    await env.context.db.kysely.updateTable('tokens').set({ status: TokenStatus.Exhausted }).where('id', '=', token.id).execute();
    const now = Math.floor(Date.now() / 1000);
    const taskId = unique('suno-task');
    const { id } = await env.context.db.kysely
      .insertInto('tasks')
      .values({
        created_at: now,
        updated_at: now,
        task_id: taskId,
        platform: 'suno',
        user_id: user.id,
        token_id: token.id,
        channel_id: channelId,
        quota,
        action: 'MUSIC',
        status: 'IN_PROGRESS',
        submit_time: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // Not failed yet: nothing to give back.
    expect(await env.tasks.billing.refund('tasks', Number(id))).toBeUndefined();
    await env.context.db.kysely.updateTable('tasks').set({ status: 'FAILURE', fail_reason: 'upstream failed' }).where('id', '=', Number(id)).execute();
    const [swept, ...asked] = await Promise.all([
      env.tasks.billing.refundPending(),
      ...Array.from({ length: 8 }, () => env.tasks.billing.refund('tasks', Number(id))),
    ]);
    // Nine claims at once, one refund.
    expect(swept + asked.filter((refund) => refund !== undefined).length).toBe(1);
    expect(await env.tasks.billing.refundPending()).toBe(0);

    const after = await totals(env.context, { userId: user.id, tokenId: token.id, channelIds: [channelId] });
    expect(after.userQuota).toBe(price);
    expect(after.userUsed).toBe(0);
    expect(after.tokenRemain).toBe(price);
    expect(after.tokenUsed).toBe(0);
    expect(after.tokenStatus).toBe(TokenStatus.Enabled);
    const refunds = after.refundLogs;
    expect(refunds).toHaveLength(1);
    expect(Number(refunds[0]!.type)).toBe(LogType.System);
    expect(after.logQuotaSum - after.refundQuotaSum).toBe(0);
    expect(refunds[0]).toMatchObject({ quota: price });
    expect(String(refunds[0]!.content)).toMatch(new RegExp(`^异步任务执行失败 ${taskId}，补偿 `));
    const row = await env.context.db.kysely.selectFrom('tasks').select(['refunded']).where('id', '=', Number(id)).executeTakeFirstOrThrow();
    expect(Number(row.refunded)).toBe(1);
  });
});
