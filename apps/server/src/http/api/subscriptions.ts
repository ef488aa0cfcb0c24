import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../errors/app-error.js';
import { authGuard } from '../../middleware/auth.js';
import { notAudited } from '../audit-coverage.js';

export const SUBSCRIPTIONS_UNSUPPORTED = '本站未提供订阅套餐';

/**
 * new-api's subscription plans, which modelgate does not sell. Its console asks for them on the
 * wallet page and the user list on every load and shows nothing when the answer is not a success;
 * a 404 would pop an error each time instead. So the paths it reads answer a plain refusal.
 */
export function subscriptionRoutes(app: FastifyInstance, context: AppContext): void {
  const signedIn = { preHandler: authGuard(context.users.repository, 'user') };
  const admin = { preHandler: authGuard(context.users.repository, 'admin') };
  const refuse = async (): Promise<never> => {
    throw new AppError('subscription:unsupported', SUBSCRIPTIONS_UNSUPPORTED, { status: 400 });
  };
  app.get('/api/subscription/plans', signedIn, refuse);
  app.get('/api/subscription/self', signedIn, refuse);
  app.get('/api/subscription/admin/plans', admin, refuse);
  app.post(
    '/api/subscription/admin/users/batch_active_subscriptions',
    { ...admin, ...notAudited('subscriptions are not offered: refuses and changes nothing') },
    refuse,
  );
}
