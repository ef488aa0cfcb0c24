import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { usableGroups } from '../../domain/tokens/usable-groups.js';
import { authenticate, authGuard, currentUser } from '../../middleware/auth.js';
import { ok } from '../envelope.js';

/** Group names for administrators, and the groups a user may give a token. */
export function groupRoutes(app: FastifyInstance, context: AppContext): void {
  const { options, users } = context;

  app.get('/api/group/', { preHandler: authGuard(users.repository, 'admin') }, async () => ok(Object.keys(options.json<Record<string, number>>('GroupRatio'))));

  // new-api serves the list without a session too (GetUserGroups): the groups anyone may use,
  // plus the caller's own group when a session or access token comes with the request.
  app.get('/api/user/groups', async (request) => {
    const user = request.headers.cookie || request.headers.authorization ? await authenticate(request, users.repository).catch(() => undefined) : undefined;
    return ok(usableGroups(options, user?.group ?? ''));
  });

  app.get('/api/user/self/groups', { preHandler: authGuard(users.repository, 'user') }, async (request) =>
    ok(usableGroups(options, currentUser(request).group)),
  );
}
