import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../errors/app-error.js';
import { authGuard } from '../../middleware/auth.js';
import { notAudited } from '../audit-coverage.js';

export const SUBSCRIPTIONS_NOT_OFFERED = '本站未提供订阅套餐';
export const PREFILL_GROUPS_NOT_OFFERED = '本站未提供预填分组';

/**
 * Features of new-api that modelgate does not have, at the paths new-api's console reads on
 * pages that otherwise work: subscription plans (the wallet page, the user list) and prefill
 * groups (the channel editor). That console shows nothing when such an answer is not a success,
 * while a 404 would pop an error each time, so these answer a plain refusal (HTTP 200,
 * success:false) and change nothing.
 */
export function notOfferedRoutes(app: FastifyInstance, context: AppContext): void {
  const signedIn = { preHandler: authGuard(context.users.repository, 'user') };
  const admin = { preHandler: authGuard(context.users.repository, 'admin') };
  const refusal = (code: string, message: string) => async (): Promise<never> => {
    throw new AppError(code, message, { status: 400 });
  };
  const noSubscriptions = refusal('subscription:not_offered', SUBSCRIPTIONS_NOT_OFFERED);
  const changesNothing = notAudited('a feature modelgate does not offer: refuses and changes nothing');
  app.get('/api/subscription/plans', signedIn, noSubscriptions);
  app.get('/api/subscription/self', signedIn, noSubscriptions);
  app.get('/api/subscription/admin/plans', admin, noSubscriptions);
  app.post('/api/subscription/admin/users/batch_active_subscriptions', { ...admin, ...changesNothing }, noSubscriptions);

  const noPrefillGroups = refusal('prefill_group:not_offered', PREFILL_GROUPS_NOT_OFFERED);
  app.get('/api/prefill_group/', admin, noPrefillGroups);
  app.post('/api/prefill_group/', { ...admin, ...changesNothing }, noPrefillGroups);
  app.put('/api/prefill_group/', { ...admin, ...changesNothing }, noPrefillGroups);
  app.delete('/api/prefill_group/:id', { ...admin, ...changesNothing }, noPrefillGroups);
}
