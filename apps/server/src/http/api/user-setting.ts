import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { applyUserSettingUpdate, parseUserSetting, sealUserSetting } from '../../domain/users/user-setting.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { ok } from '../envelope.js';

/**
 * PUT /api/user/setting (new-api's UpdateUserSetting): the signed-in user's quota warning, by mail
 * or webhook, and its threshold. GET /api/user/self returns the stored setting (secret left out).
 */
export function userSettingRoutes(app: FastifyInstance, context: AppContext): void {
  const signedIn = authGuard(context.users.repository, 'user');

  app.put('/api/user/setting', { preHandler: signedIn }, async (request) => {
    const user = currentUser(request);
    const next = applyUserSettingUpdate(parseUserSetting(user.setting), request.body);
    await context.db.kysely
      .updateTable('users')
      .set({ setting: JSON.stringify(sealUserSetting(next, context.db.secrets)) })
      .where('id', '=', Number(user.id))
      .execute();
    context.changes.emit('user', Number(user.id));
    return ok(undefined, '设置已更新');
  });
}
