import { LogKind, LogType, TokenStatus } from '@modelgate/contract';
import { sql } from 'kysely';
import type { AppContext } from '../../app-context.js';
import { DEFAULT_MODEL_PRICE } from '../../config/default-prices.js';
import type { ChargeService, Reservation } from '../../domain/billing/charge-service.js';
import { LeaseKind } from '../../domain/billing/lease-book.js';
import type { Payer } from '../../domain/billing/payer.js';
import { groupRatioOf, type ModelPricing } from '../../domain/billing/pricing.js';
import type { QuotaLedger } from '../../domain/billing/quota-ledger.js';
import type { SpendableQuota } from '../../domain/billing/spendable-quota.js';
import { consumeLogRow } from '../../domain/logs/consume-log.js';
import { formatLogQuota, recordUserLog } from '../../domain/users/user-logs.js';
import type { RelayMetrics } from '../../lib/metrics/relay-metrics.js';
import type { RelayCaller } from '../relay-caller.js';

/** The two task tables: Midjourney drawings and the async tasks (Suno). */
export type TaskTable = 'midjourneys' | 'tasks';

/** new-api's price for a task action nobody priced (and that has no default): $0.1 a call. */
export const TASK_FALLBACK_PRICE = 0.1;

/** A task's price held from its payer while the upstream is asked to take it. */
export interface TaskHold {
  caller: RelayCaller;
  /** The ModelPrice key the action is priced by (`mj_imagine`, `suno_music`, …), also the log's model. */
  priceKey: string;
  pricing: ModelPricing;
  /** What the task costs: price × QuotaPerUnit × group ratio. */
  quota: number;
  reservation: Reservation;
  /** Date.now() when the request arrived. */
  startedWall: number;
}

/** What a refund gave back, for the caller's own bookkeeping (notify hooks, tests). */
export interface Refund {
  userId: number;
  tokenId: number;
  quota: number;
}

/**
 * The money of asynchronous tasks (Midjourney, Suno), as new-api bills them: a fixed price per
 * action (ModelPrice: mj_imagine, suno_music, …), charged when the upstream accepts the task, and
 * given back once if the task ends in failure.
 *
 * - hold: the price is reserved from the payer's balance before the upstream is called, through
 *   the relay's ChargeService (the same leases and conditional updates as every relayed call), so
 *   concurrent submits never spend more than the balance holds.
 * - charge: the upstream accepted the task: the hold becomes the charge, and the consume log goes
 *   into the same batched transaction as the counters (a crash loses both or neither).
 * - release: the upstream refused: nothing is charged.
 * - refund: one database transaction claims the failed task's row (`refunded = 0 → 1`), credits the
 *   user, the token and the channel's counter, and writes new-api's system log. Exactly once: a
 *   second run, another node or a retry after a crash finds the row claimed. `refundPending` sweeps
 *   every failed, unrefunded task, so a failure recorded just before a crash is refunded at the
 *   next sweep.
 */
export class TaskBilling {
  constructor(
    private readonly context: AppContext,
    private readonly charges: ChargeService,
    private readonly ledger: QuotaLedger,
    /** The relay's /metrics figures: task charges count in its quota charged. */
    private readonly metrics: RelayMetrics,
    /** What payers can spend: whether a refunded token is usable again. */
    private readonly balances: SpendableQuota,
  ) {}

  /** The price of one call of `priceKey` for a group: ModelPrice, else new-api's default, else $0.1; times the group ratio. */
  pricingOf(priceKey: string, group: string): ModelPricing {
    const prices = this.context.options.json<Record<string, number>>('ModelPrice');
    const own = Object.hasOwn(prices, priceKey) && typeof prices[priceKey] === 'number' ? prices[priceKey] : undefined;
    const price = own ?? DEFAULT_MODEL_PRICE[priceKey] ?? TASK_FALLBACK_PRICE;
    return { modelPrice: price, modelRatio: 0, completionRatio: 1, groupRatio: groupRatioOf(this.context.options, group) };
  }

  quotaOf(pricing: ModelPricing): number {
    return Math.round(pricing.modelPrice * this.context.options.number('QuotaPerUnit') * pricing.groupRatio);
  }

  /** Holds the task's price; throws the relay's 403 when the payer's balance cannot cover it. */
  async hold(caller: RelayCaller, priceKey: string): Promise<TaskHold> {
    const startedWall = Date.now();
    const pricing = this.pricingOf(priceKey, caller.group);
    const quota = this.quotaOf(pricing);
    const payer: Payer = { userId: caller.user.id, tokenId: caller.token.id, limitedToken: !caller.token.unlimited };
    const reservation = this.charges.reserveFromLease(payer, quota) ?? (await this.charges.reserve(payer, quota, () => ({ full: quota })));
    return { caller, priceKey, pricing, quota, reservation, startedWall };
  }

  /** The upstream refused or failed the submit: the hold goes back. */
  release(hold: TaskHold): void {
    this.charges.release(hold.reservation);
  }

  /**
   * The upstream accepted the task: it is charged and logged (model = the price key, as new-api
   * logs `mj_imagine`). Returns what was charged, for the task's `quota` column.
   */
  async charge(hold: TaskHold, channel: { id: number; name: string }, task?: { action: string; detail?: string | undefined }): Promise<number> {
    const settled = await this.charges.settle(hold.reservation, hold.quota, channel.id);
    this.metrics.charged(hold.priceKey, channel.id, settled.charged);
    const { caller } = hold;
    if (this.context.options.bool('LogConsumeEnabled')) {
      const row = consumeLogRow({
        createdAt: Math.floor(hold.startedWall / 1000),
        userId: caller.user.id,
        username: caller.user.username,
        tokenId: caller.token.id,
        tokenName: caller.token.name,
        model: hold.priceKey,
        upstreamModel: hold.priceKey,
        channelId: channel.id,
        channelName: channel.name,
        group: caller.group,
        quota: settled.charged,
        promptTokens: 0,
        completionTokens: 0,
        useTimeSeconds: Math.floor((Date.now() - hold.startedWall) / 1000),
        isStream: false,
        pricing: hold.pricing,
        firstResponseMs: Date.now() - hold.startedWall,
        triedChannelIds: [channel.id],
        unpaidQuota: settled.unpaid,
        ip: caller.user.recordIpLog ? caller.clientIp : '',
        task,
      });
      this.ledger.logs.push(row);
    }
    return settled.charged;
  }

  /**
   * Gives a failed task's quota back, exactly once (see the class). False when there was nothing to
   * give: not failed, already refunded, free, or no such row.
   */
  async refund(table: TaskTable, id: number): Promise<Refund | undefined> {
    const { db, options } = this.context;
    const refund = await db.kysely.transaction().execute(async (trx) => {
      const claimed = await trx
        .updateTable(table)
        .set({ refunded: 1 })
        .where('id', '=', id)
        .where('refunded', '=', 0)
        .where('status', '=', 'FAILURE')
        .where('quota', '>', 0)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) return undefined;
      const row =
        table === 'midjourneys'
          ? await trx
              .selectFrom('midjourneys')
              .select(['user_id', 'token_id', 'channel_id', 'quota', 'action', 'mj_id as taskId'])
              .where('id', '=', id)
              .executeTakeFirstOrThrow()
          : await trx
              .selectFrom('tasks')
              .select(['user_id', 'token_id', 'channel_id', 'quota', 'action', 'task_id as taskId'])
              .where('id', '=', id)
              .executeTakeFirstOrThrow();
      const quota = Number(row.quota);
      const userId = Number(row.user_id);
      const tokenId = Number(row.token_id);
      // The lock order of every transaction that moves money: lease rows, then users, then tokens.
      if (tokenId > 0) await this.balances.lockLeases(trx, LeaseKind.Token, tokenId);
      await trx
        .updateTable('users')
        .set({ quota: sql<number>`quota + ${quota}`, used_quota: sql<number>`used_quota - ${quota}` })
        .where('id', '=', userId)
        .execute();
      if (tokenId > 0) {
        // An unlimited key's remaining quota never moved; a limited one spent out gets its status back
        // when it has something to spend, the relay's leases counted in. The status first: MySQL's
        // SET reads the columns assigned before it.
        const remaining = this.balances.inStatement(LeaseKind.Token, tokenId);
        await trx
          .updateTable('tokens')
          .set({
            status: sql<number>`case when status = ${TokenStatus.Exhausted} and unlimited_quota = 0 and ${remaining} + ${quota} > 0 then ${TokenStatus.Enabled} else status end`,
            remain_quota: sql<number>`case when unlimited_quota = 1 then remain_quota else remain_quota + ${quota} end`,
            used_quota: sql<number>`used_quota - ${quota}`,
          })
          .where('id', '=', tokenId)
          .execute();
      }
      if (Number(row.channel_id) > 0) {
        await trx
          .updateTable('channels')
          .set({ used_quota: sql<number>`used_quota - ${quota}` })
          .where('id', '=', Number(row.channel_id))
          .execute();
      }
      const user = await trx.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst();
      // new-api's words: 构图失败 (a drawing) / 异步任务执行失败 (other tasks), then 补偿 and the amount.
      const what = table === 'midjourneys' ? '构图失败' : '异步任务执行失败';
      await recordUserLog(trx, {
        userId,
        username: user?.username ?? '',
        type: LogType.System,
        content: `${what} ${row.taskId}，补偿 ${formatLogQuota(options, quota)}`,
        quota,
        other: {
          kind: LogKind.TaskRefund,
          quota,
          task_refund: true,
          task_table: table,
          task_id: row.taskId,
          action: row.action,
          channel_id: Number(row.channel_id),
        },
      });
      return { userId, tokenId, quota };
    });
    if (refund) await this.refreshCaches(refund);
    return refund;
  }

  /** Refunds every failed task not refunded yet (the pollers run it each round; after a crash it finishes the job). */
  async refundPending(limit = 100): Promise<number> {
    let count = 0;
    for (const table of ['midjourneys', 'tasks'] as const) {
      const rows = await this.context.db.kysely
        .selectFrom(table)
        .select('id')
        .where('status', '=', 'FAILURE')
        .where('refunded', '=', 0)
        .where('quota', '>', 0)
        .limit(limit)
        .execute();
      for (const row of rows) if (await this.refund(table, Number(row.id))) count += 1;
    }
    return count;
  }

  /** The relay's cached user and token read their balances afresh. */
  private async refreshCaches(refund: Refund): Promise<void> {
    const { changes, db } = this.context;
    changes.emit('user', refund.userId);
    if (refund.tokenId > 0) {
      const token = await db.kysely.selectFrom('tokens').select('key').where('id', '=', refund.tokenId).executeTakeFirst();
      if (token) changes.emit('token', token.key);
    }
  }
}
