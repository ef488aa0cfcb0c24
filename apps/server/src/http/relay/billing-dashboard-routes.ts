import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { LeaseKind } from '../../domain/billing/lease-book.js';
import type { RelayRuntime } from '../../relay/relay-runtime.js';

/** What an unlimited token reports as its limit, as one-api does. */
const UNLIMITED_AMOUNT = 100_000_000;

/**
 * OpenAI's old billing endpoints as one-api emulates them, so tools that show "balance" work:
 * with DisplayTokenStatEnabled the figures are the token's, else the user's; amounts are dollars
 * when DisplayInCurrencyEnabled, else quota units.
 */
export function billingDashboardRoutes(scope: FastifyInstance, context: AppContext, runtime: RelayRuntime): void {
  const { options, db } = context;

  // What the payer can spend, every node's leases counted in (the column alone reads low while calls are made).
  const figures = async (request: FastifyRequest) => {
    const caller = await runtime.auth.authenticate(request);
    const toAmount = (quota: number) => (options.bool('DisplayInCurrencyEnabled') ? quota / options.number('QuotaPerUnit') : quota);
    if (options.bool('DisplayTokenStatEnabled')) {
      const id = caller.token.id;
      const row = await db.kysely.selectFrom('tokens').select(['expired_time', 'unlimited_quota']).where('id', '=', id).executeTakeFirstOrThrow();
      const { balance, used } = (await runtime.balances.read(LeaseKind.Token, id)) ?? { balance: 0, used: 0 };
      return {
        limit: Number(row.unlimited_quota) === 1 ? UNLIMITED_AMOUNT : toAmount(balance + used),
        used: toAmount(used),
        accessUntil: Math.max(0, Number(row.expired_time)),
      };
    }
    const { balance, used } = (await runtime.balances.read(LeaseKind.User, caller.user.id)) ?? { balance: 0, used: 0 };
    return { limit: toAmount(balance + used), used: toAmount(used), accessUntil: 0 };
  };

  for (const prefix of ['', '/v1']) {
    scope.get(`${prefix}/dashboard/billing/subscription`, async (request) => {
      const { limit, accessUntil } = await figures(request);
      return {
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: limit,
        hard_limit_usd: limit,
        system_hard_limit_usd: limit,
        access_until: accessUntil,
      };
    });
    scope.get(`${prefix}/dashboard/billing/usage`, async (request) => {
      const { used } = await figures(request);
      // OpenAI reports usage in cents.
      return { object: 'list', total_usage: used * 100 };
    });
  }
}
