import { Role } from '@modelgate/contract';
import type { SetupStatus } from '@modelgate/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { modelsByChannelType } from '../../domain/channels/type-models.js';
import { badRequest } from '../../errors/app-error.js';
import { authGuard } from '../../middleware/auth.js';
import { ok } from '../envelope.js';

/**
 * Routes new-api's console and scripts call that have no feature of their own here: the model
 * list per channel type, the models enabled channels serve, and the first-run setup, which an
 * instance of ours never needs (an empty database gets its super administrator at start).
 */
export function compatRoutes(app: FastifyInstance, context: AppContext): void {
  const signedIn = authGuard(context.users.repository, 'user');
  const admin = authGuard(context.users.repository, 'admin');

  app.get('/api/models', { preHandler: signedIn }, async () => {
    const priced = [
      ...Object.keys(context.options.json<Record<string, number>>('ModelRatio')),
      ...Object.keys(context.options.json<Record<string, number>>('ModelPrice')),
    ];
    return ok(modelsByChannelType(priced));
  });

  // A static path: find-my-way matches it before /api/channel/:id whatever the order.
  app.get('/api/channel/models_enabled', { preHandler: admin }, async () => {
    const rows = await context.db.kysely.selectFrom('abilities').select('model').distinct().where('enabled', '=', 1).orderBy('model').execute();
    return ok(rows.map((row) => row.model));
  });

  app.get('/api/setup', async () => ok<SetupStatus>({ status: true, root_init: await rootExists(context), database_type: context.db.dialect }));

  app.post('/api/setup', async () => {
    throw badRequest('系统已经初始化完成', 'setup:already_done');
  });
}

async function rootExists(context: AppContext): Promise<boolean> {
  const root = await context.db.kysely
    .selectFrom('users')
    .select('id')
    .where('role', '=', Role.Root)
    .where('deleted_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return root !== undefined;
}
