import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { usableGroups } from '../../domain/tokens/usable-groups.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { ok } from '../envelope.js';

/** Group names for administrators, and the groups a user may give a token. */
export function groupRoutes(app: FastifyInstance, context: AppContext): void {
  const { options, users } = context;

  app.get('/api/group/', { preHandler: authGuard(users.repository, 'admin') }, async () => ok(Object.keys(options.json<Record<string, number>>('GroupRatio'))));

  app.get('/api/user/self/groups', { preHandler: authGuard(users.repository, 'user') }, async (request) =>
    ok(usableGroups(options, currentUser(request).group)),
  );
}
