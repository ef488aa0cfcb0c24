import { LogKind, LogType, RedemptionStatus } from '@modelgate/contract';
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { RedemptionsTable } from '../../db/schema.js';
import { AppError, badRequest, notFound } from '../../errors/app-error.js';
import type { Paging } from '../../lib/paging.js';
import { recordUserLog } from '../users/user-logs.js';

export type RedemptionRow = Selectable<RedemptionsTable>;

export const MAX_REDEMPTIONS_PER_BATCH = 100;

const now = () => Math.floor(Date.now() / 1000);

export interface RedeemResult {
  quota: number;
}

export class RedemptionService {
  constructor(private readonly db: Db) {}

  async list(paging: Paging, keyword?: string): Promise<{ items: RedemptionRow[]; total: number }> {
    let query = this.db.kysely.selectFrom('redemptions').where('deleted_at', 'is', null);
    if (keyword) {
      const id = /^\d+$/.test(keyword) ? Number(keyword) : undefined;
      query = query.where((eb) => (id === undefined ? eb('name', 'like', `${keyword}%`) : eb.or([eb('id', '=', id), eb('name', 'like', `${keyword}%`)])));
    }
    const [items, count] = await Promise.all([
      query.selectAll().orderBy('id', 'desc').limit(paging.pageSize).offset(paging.offset).execute(),
      query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.total) };
  }

  async get(id: number): Promise<RedemptionRow> {
    const row = await this.db.kysely.selectFrom('redemptions').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) throw notFound('兑换码不存在', 'redemption:not_found');
    return row;
  }

  /** Creates `count` codes in one transaction and returns their keys. */
  async create(input: { name: string; quota: number; count: number; expiredTime: number }, creatorId: number): Promise<string[]> {
    const keys = Array.from({ length: input.count }, () => randomUUID().replaceAll('-', ''));
    const createdTime = now();
    await this.db.kysely.transaction().execute(async (trx) => {
      await trx
        .insertInto('redemptions')
        .values(
          keys.map((key) => ({
            user_id: creatorId,
            key,
            name: input.name,
            quota: input.quota,
            status: RedemptionStatus.Unused,
            created_time: createdTime,
            expired_time: input.expiredTime,
          })),
        )
        .execute();
    });
    return keys;
  }

  async update(id: number, changes: { name: string; quota: number; expiredTime?: number }): Promise<RedemptionRow> {
    const result = await this.db.kysely
      .updateTable('redemptions')
      .set({ name: changes.name, quota: changes.quota, ...(changes.expiredTime === undefined ? {} : { expired_time: changes.expiredTime }) })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .where('status', '!=', RedemptionStatus.Used)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      await this.get(id);
      throw badRequest('兑换码已被使用，无法编辑', 'redemption:used');
    }
    return this.get(id);
  }

  async setStatus(id: number, status: number): Promise<RedemptionRow> {
    if (status !== RedemptionStatus.Unused && status !== RedemptionStatus.Disabled) {
      throw badRequest('兑换码状态只能是启用（1）或禁用（2）', 'redemption:invalid_status');
    }
    const result = await this.db.kysely
      .updateTable('redemptions')
      .set({ status })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .where('status', '!=', RedemptionStatus.Used)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      await this.get(id);
      throw badRequest('兑换码已被使用，无法更改状态', 'redemption:used');
    }
    return this.get(id);
  }

  /**
   * new-api's clean-up of codes nobody can redeem any more: used, disabled, and unused ones past
   * their expiry. Answers how many were deleted.
   */
  async deleteInvalid(now = Math.floor(Date.now() / 1000)): Promise<number> {
    const result = await this.db.kysely
      .deleteFrom('redemptions')
      .where((eb) =>
        eb.or([
          eb('status', 'in', [RedemptionStatus.Used, RedemptionStatus.Disabled]),
          eb.and([eb('status', '=', RedemptionStatus.Unused), eb('expired_time', '!=', 0), eb('expired_time', '<', now)]),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async delete(id: number): Promise<void> {
    const result = await this.db.kysely.deleteFrom('redemptions').where('id', '=', id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw notFound('兑换码不存在', 'redemption:not_found');
  }

  /**
   * Redeems a code for a user exactly once: the code flips from unused to used with a
   * conditional update, and only the caller whose update changed the row credits the quota, in
   * the same transaction.
   */
  async redeem(key: string, user: { id: number; username: string }, describe: (quota: number) => string): Promise<RedeemResult> {
    const trimmed = key.trim();
    if (trimmed === '') throw badRequest('请输入兑换码', 'redemption:empty');
    return this.db.kysely.transaction().execute(async (trx) => {
      const redeemedAt = now();
      const claimed = await trx
        .updateTable('redemptions')
        .set({ status: RedemptionStatus.Used, used_user_id: user.id, redeemed_time: redeemedAt })
        .where('key', '=', trimmed)
        .where('status', '=', RedemptionStatus.Unused)
        .where('deleted_at', 'is', null)
        .where((eb) => eb.or([eb('expired_time', '=', 0), eb('expired_time', '>', redeemedAt)]))
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) {
        throw new AppError('redemption:invalid', '无效的兑换码，或兑换码已被使用', { status: 400 });
      }
      const { quota } = await trx.selectFrom('redemptions').select('quota').where('key', '=', trimmed).executeTakeFirstOrThrow();
      await trx
        .updateTable('users')
        .set((eb) => ({ quota: eb('quota', '+', quota) }))
        .where('id', '=', user.id)
        .execute();
      await recordUserLog(trx, {
        userId: user.id,
        username: user.username,
        type: LogType.TopUp,
        quota,
        content: describe(quota),
        other: { kind: LogKind.Redeem, quota: Number(quota) },
      });
      return { quota: Number(quota) };
    });
  }
}
