import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../errors/app-error.js';
import { authGuard } from '../../middleware/auth.js';
import { notAudited } from '../audit-coverage.js';
import { ok } from '../envelope.js';

export const SUBSCRIPTIONS_NOT_OFFERED = '本站未提供订阅套餐';
export const PREFILL_GROUPS_NOT_OFFERED = '本站未提供预填分组';
export const CUSTOM_OAUTH_NOT_OFFERED = '本站不支持自定义 OAuth 提供商';
export const RATIO_SYNC_NOT_OFFERED = '本站不支持上游倍率同步';
export const PERFORMANCE_NOT_OFFERED = '本站不提供性能监控';
export const CHANNEL_AFFINITY_NOT_OFFERED = '本站不支持渠道亲和性缓存';

/**
 * Features of new-api that modelgate does not have, at the paths new-api's console reads on
 * pages that otherwise work: subscription plans (the wallet page, the user list), prefill
 * groups (the channel editor), and the settings tabs of custom OAuth providers, upstream ratio
 * sync, performance monitoring and the channel affinity cache. That console shows nothing when such an answer is not a success,
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

  // The settings page lists custom OAuth providers when it opens: modelgate has none to list.
  const root = { preHandler: authGuard(context.users.repository, 'root') };
  const noCustomOAuth = refusal('custom_oauth:not_offered', CUSTOM_OAUTH_NOT_OFFERED);
  app.get('/api/custom-oauth-provider/', root, async () => ok<unknown[]>([]));
  app.get('/api/custom-oauth-provider/:id', root, noCustomOAuth);
  app.post('/api/custom-oauth-provider/', { ...root, ...changesNothing }, noCustomOAuth);
  app.put('/api/custom-oauth-provider/:id', { ...root, ...changesNothing }, noCustomOAuth);
  app.delete('/api/custom-oauth-provider/:id', { ...root, ...changesNothing }, noCustomOAuth);
  app.post('/api/custom-oauth-provider/discovery', { ...root, ...changesNothing }, noCustomOAuth);

  const noRatioSync = refusal('ratio_sync:not_offered', RATIO_SYNC_NOT_OFFERED);
  app.get('/api/ratio_sync/channels', root, noRatioSync);
  app.post('/api/ratio_sync/fetch', { ...root, ...changesNothing }, noRatioSync);
  app.get('/api/performance/stats', root, refusal('performance:not_offered', PERFORMANCE_NOT_OFFERED));
  const noAffinity = refusal('channel_affinity:not_offered', CHANNEL_AFFINITY_NOT_OFFERED);
  app.get('/api/option/channel_affinity_cache', root, noAffinity);
  app.delete('/api/option/channel_affinity_cache', { ...root, ...changesNothing }, noAffinity);
}
