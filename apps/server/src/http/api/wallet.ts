import type { Envelope, PageData, PaymentFields, PaymentFormExtras, TopUpInfo, TopUpOrder } from '@modelgate/contract';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { RedemptionService } from '../../domain/redemptions/redemption-service.js';
import { formatQuota } from '../../domain/wallet/quota-format.js';
import { WalletService } from '../../domain/wallet/wallet-service.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { parseInput } from '../../lib/parse-input.js';
import { pageOf, queryText, readPaging } from '../../lib/paging.js';
import { ok } from '../envelope.js';
import { auditCaller, audited } from '../audit-coverage.js';

export const redeemBody = z.object({ key: z.string({ error: '请输入兑换码' }) });
const amountSchema = z.coerce.number({ error: '充值数量必须是正整数' });
export const quoteBody = z.object({ amount: amountSchema, top_up_code: z.string().optional() });
/** new-api's 补单 body. */
export const completeTopUpBody = z.object({
  trade_no: z.string({ error: '参数错误：请提供订单号 trade_no' }).trim().min(1, '参数错误：请提供订单号 trade_no'),
});
export const payBody = z.object({ amount: amountSchema, top_up_code: z.string().optional(), payment_method: z.string({ error: '请选择支付方式' }) });

/** The wallet: redeem a code, quote and pay online (Epay), and the Epay notify callback. */
export function walletRoutes(app: FastifyInstance, context: AppContext): void {
  const redemptions = new RedemptionService(context.db);
  const wallet = new WalletService(context.db, context.options, (userId) => context.changes.emit('user', userId));
  const signedIn = authGuard(context.users.repository, 'user');
  const originOf = (request: { protocol: string; host: string }) => `${request.protocol}://${request.host}`;

  app.post('/api/user/topup', { preHandler: signedIn }, async (request) => {
    const { key } = parseInput(redeemBody, request.body);
    const user = currentUser(request);
    const { options } = context;
    const result = await redemptions.redeem(
      key,
      { id: Number(user.id), username: user.username },
      (quota) => `通过兑换码充值 ${formatQuota(quota, options.number('QuotaPerUnit'), options.bool('DisplayInCurrencyEnabled'))}`,
    );
    context.changes.emit('user', Number(user.id));
    return ok(result.quota, '兑换成功');
  });

  app.post('/api/user/amount', { preHandler: signedIn }, async (request) => {
    const { amount } = parseInput(quoteBody, request.body);
    return ok(wallet.quote(amount, currentUser(request).group).toFixed(2), 'success');
  });

  app.post('/api/user/pay', { preHandler: signedIn }, async (request) => {
    const body = parseInput(payBody, request.body);
    const user = currentUser(request);
    const form = await wallet.createOrder({
      userId: Number(user.id),
      group: user.group,
      amount: body.amount,
      paymentMethod: body.payment_method,
      origin: originOf(request),
    });
    return { success: true, message: 'success', data: form.params, url: form.url } satisfies Envelope<PaymentFields> & PaymentFormExtras;
  });

  // new-api's top-up page: the ways to pay, and the history of one's own orders.
  app.get('/api/user/topup/info', { preHandler: signedIn }, async () => ok<TopUpInfo>(wallet.topUpInfo()));
  const topUps = async (query: unknown, userId?: number) => {
    const paging = readPaging(query);
    const { items, total } = await wallet.listTopUps({ userId, keyword: queryText((query ?? {}) as Record<string, unknown>, 'keyword') }, paging);
    return ok<PageData<TopUpOrder>>(pageOf(items, total, paging));
  };
  app.get('/api/user/topup/self', { preHandler: signedIn }, async (request) => topUps(request.query, Number(currentUser(request).id)));
  app.get('/api/user/topup', { preHandler: authGuard(context.users.repository, 'admin') }, async (request) => topUps(request.query));

  app.post('/api/user/topup/complete', { preHandler: authGuard(context.users.repository, 'admin'), ...audited('user.quota_change') }, async (request) => {
    const { trade_no: tradeNo } = parseInput(completeTopUpBody, request.body);
    const { order, quota } = await wallet.completeOrder(tradeNo);
    const userId = Number(order.user_id);
    const target = await context.users.repository.findById(userId);
    context.audit.record({
      ...auditCaller(request),
      action: 'user.quota_change',
      target: { type: 'user', id: userId },
      summary: `为用户 ${target?.username ?? ''}（ID ${userId}）补单 ${tradeNo}，增加额度 ${quota}`,
      params: { mode: 'topup_complete', trade_no: tradeNo, value: quota, target_username: target?.username ?? '' },
    });
    return ok(undefined, '补单成功');
  });

  const notify = async (params: Record<string, string>) => {
    const credited = await wallet.handleNotify(params).catch((error: unknown) => {
      context.logger.error({ err: error }, 'epay notify failed');
      return false;
    });
    return credited ? 'success' : 'fail';
  };
  const stringParams = (input: unknown): Record<string, string> =>
    Object.fromEntries(
      Object.entries((input ?? {}) as Record<string, unknown>).map(([name, value]) => [name, String(Array.isArray(value) ? value[0] : value)]),
    );

  app.get('/api/user/epay/notify', async (request, reply) => reply.type('text/plain').send(await notify(stringParams(request.query))));
  app.post('/api/user/epay/notify', async (request, reply) =>
    reply.type('text/plain').send(await notify({ ...stringParams(request.query), ...stringParams(request.body) })),
  );
}
