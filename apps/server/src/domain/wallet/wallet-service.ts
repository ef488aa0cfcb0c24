import { LogKind, LogType, type TopUpInfo, type TopUpOrder } from '@modelgate/contract';
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { TopUpsTable } from '../../db/schema.js';
import { AppError, badRequest, forbidden, notFound } from '../../errors/app-error.js';
import { like, likeContains } from '../../lib/like-pattern.js';
import type { Paging } from '../../lib/paging.js';
import type { OptionService } from '../options/option-service.js';
import { EPAY_TYPES, epayMoneyMatches, epaySign, epayVerify } from './epay.js';
import { recordUserLog } from '../users/user-logs.js';
import { formatQuota } from './quota-format.js';

export interface PaymentForm {
  url: string;
  params: Record<string, string>;
}

const now = () => Math.floor(Date.now() / 1000);

type TopUpsRow = Selectable<TopUpsTable>;

/** Online top-up through Epay: quotes, orders, and the notify that credits an order once. */
export class WalletService {
  constructor(
    private readonly db: Db,
    private readonly options: OptionService,
    /** Told after a credit commits, so balance caches drop the user at once. */
    private readonly onCredited: (userId: number) => void = () => undefined,
  ) {}

  onlineTopUpEnabled(): boolean {
    return this.options.string('PayAddress') !== '' && this.options.string('EpayId') !== '' && this.options.raw('EpayKey') !== '';
  }

  /** Price in money for `amount` units: amount × Price × the group's top-up ratio, to the cent. */
  quote(amount: number, group: string): number {
    this.checkAmount(amount);
    const ratios = this.options.json<Record<string, number>>('TopupGroupRatio');
    const ratio = ratios[group] ?? 1;
    return Math.round(amount * this.options.number('Price') * ratio * 100) / 100;
  }

  async createOrder(input: { userId: number; group: string; amount: number; paymentMethod: string; origin: string }): Promise<PaymentForm> {
    if (!this.onlineTopUpEnabled()) throw forbidden('管理员未开启在线充值', 'topup:disabled');
    const type = EPAY_TYPES[input.paymentMethod];
    if (!type) throw badRequest('不支持的支付方式', 'topup:invalid_method');
    const money = this.quote(input.amount, input.group);
    if (money < 0.01) throw badRequest('充值金额过低', 'topup:too_low');
    const tradeNo = `MG${now()}${randomBytes(6).toString('hex').toUpperCase()}`;
    const callbackBase = this.options.string('CustomCallbackAddress') || this.options.string('ServerAddress') || input.origin;
    const serverAddress = this.options.string('ServerAddress') || input.origin;
    await this.db.kysely
      .insertInto('top_ups')
      .values({
        user_id: input.userId,
        amount: input.amount,
        money,
        trade_no: tradeNo,
        payment_method: input.paymentMethod,
        create_time: now(),
        status: 'pending',
      })
      .execute();
    const params: Record<string, string> = {
      pid: this.options.string('EpayId'),
      type,
      out_trade_no: tradeNo,
      notify_url: `${callbackBase}/api/user/epay/notify`,
      return_url: `${serverAddress}/topup`,
      name: `TUC${input.amount}`,
      money: money.toFixed(2),
    };
    params.sign = epaySign(params, this.options.raw('EpayKey'));
    params.sign_type = 'MD5';
    return { url: `${this.options.string('PayAddress')}/submit.php`, params };
  }

  /**
   * Handles an Epay notify. Returns true when the notify is genuine and the order is (now or
   * already) paid; credits amount × QuotaPerUnit only on the first genuine notify.
   */
  async handleNotify(params: Record<string, string>): Promise<boolean> {
    if (!epayVerify(params, this.options.raw('EpayKey'))) return false;
    if (params.pid !== undefined && params.pid !== this.options.string('EpayId')) return false;
    if (params.trade_status !== 'TRADE_SUCCESS') return false;
    const tradeNo = params.out_trade_no ?? '';
    const order = await this.db.kysely.selectFrom('top_ups').selectAll().where('trade_no', '=', tradeNo).executeTakeFirst();
    if (!order) return false;
    if (!epayMoneyMatches(params.money, Number(order.money))) return false;
    if (order.status === 'success') return true;

    await this.credit(
      order,
      (quota, quotaPerUnit) => `使用在线充值成功，充值金额: ${formatQuota(quota, quotaPerUnit, true)}，支付金额：${Number(order.money).toFixed(2)}`,
    );
    return true;
  }

  /**
   * new-api's 补单 (POST /api/user/topup/complete): an administrator credits a pending order the
   * payment notify never reached, once, as the notify would. Answers the order and the quota added.
   */
  async completeOrder(tradeNo: string): Promise<{ order: TopUpsRow; quota: number }> {
    const order = await this.db.kysely.selectFrom('top_ups').selectAll().where('trade_no', '=', tradeNo).executeTakeFirst();
    if (!order) throw notFound('充值订单不存在', 'topup:not_found');
    if (order.status !== 'pending') throw badRequest('订单状态不是待支付，无法补单', 'topup:not_pending');
    const quota = await this.credit(
      order,
      (added, quotaPerUnit) => `管理员补单成功，充值金额: ${formatQuota(added, quotaPerUnit, true)}，支付金额：${Number(order.money).toFixed(2)}`,
    );
    if (quota === undefined) throw badRequest('订单状态不是待支付，无法补单', 'topup:not_pending');
    return { order, quota };
  }

  /**
   * Marks a pending order paid and adds amount × QuotaPerUnit to its user with a top-up log line,
   * in one transaction; answers the quota added, or undefined when another call claimed it first.
   */
  private async credit(order: TopUpsRow, describe: (quota: number, quotaPerUnit: number) => string): Promise<number | undefined> {
    const quotaPerUnit = this.options.number('QuotaPerUnit');
    const quota = Math.round(Number(order.amount) * quotaPerUnit);
    const userId = Number(order.user_id);
    const credited = await this.db.kysely.transaction().execute(async (trx) => {
      const claimed = await trx
        .updateTable('top_ups')
        .set({ status: 'success', complete_time: now() })
        .where('trade_no', '=', order.trade_no)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      // A concurrent notify (or completion) for the same order already credited it.
      if (Number(claimed.numUpdatedRows) !== 1) return false;
      await trx
        .updateTable('users')
        .set((eb) => ({ quota: eb('quota', '+', quota) }))
        .where('id', '=', userId)
        .execute();
      const user = await trx.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst();
      await recordUserLog(trx, {
        userId,
        username: user?.username ?? '',
        type: LogType.TopUp,
        quota,
        content: describe(quota, quotaPerUnit),
        other: { kind: LogKind.OnlineTopUp, quota, money: Number(order.money) },
      });
      return true;
    });
    if (!credited) return undefined;
    this.onCredited(userId);
    return quota;
  }

  /**
   * new-api's GET /api/user/topup/info: what the top-up page offers. Epay's two methods when it is
   * set up (the only ones POST /api/user/pay takes), no Stripe or Creem, no preset amounts.
   */
  topUpInfo(): TopUpInfo {
    const enabled = this.onlineTopUpEnabled();
    return {
      enable_online_topup: enabled,
      enable_stripe_topup: false,
      enable_creem_topup: false,
      creem_products: '[]',
      pay_methods: enabled
        ? [
            { name: '支付宝', type: 'alipay', color: 'rgba(var(--semi-blue-5), 1)' },
            { name: '微信', type: 'wxpay', color: 'rgba(var(--semi-green-5), 1)' },
          ]
        : [],
      min_topup: this.options.number('MinTopUp'),
      stripe_min_topup: 0,
      amount_options: [],
      discount: {},
    };
  }

  /**
   * Online top-up orders, newest first: one user's (`userId`) or everyone's, `keyword` matching
   * part of the trade number, as new-api's top-up history searches.
   */
  async listTopUps(filter: { userId?: number; keyword: string }, paging: Paging): Promise<{ items: TopUpOrder[]; total: number }> {
    let query = this.db.kysely.selectFrom('top_ups');
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.keyword !== '') query = query.where(like('trade_no', likeContains(filter.keyword)));
    const [rows, count] = await Promise.all([
      query.selectAll().orderBy('id', 'desc').limit(paging.pageSize).offset(paging.offset).execute(),
      query.select((eb) => eb.fn.countAll<number | string | bigint>().as('total')).executeTakeFirstOrThrow(),
    ]);
    const items = rows.map((row) => ({
      id: Number(row.id),
      user_id: Number(row.user_id),
      amount: Number(row.amount),
      money: Number(row.money),
      trade_no: row.trade_no,
      payment_method: row.payment_method,
      create_time: Number(row.create_time),
      complete_time: Number(row.complete_time),
      status: row.status,
    }));
    return { items, total: Number(count.total) };
  }

  private checkAmount(amount: number): void {
    const minimum = this.options.number('MinTopUp');
    if (!Number.isSafeInteger(amount) || amount < 1) throw badRequest('充值数量必须是正整数', 'topup:invalid_amount');
    if (amount < minimum) throw new AppError('topup:below_minimum', `充值数量不能小于 ${minimum}`, { status: 400 });
  }
}
