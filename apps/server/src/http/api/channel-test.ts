import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { authGuard } from '../../middleware/auth.js';
import type { RelayRuntime } from '../../relay/relay-runtime.js';
import { parseInput } from '../../lib/parse-input.js';

export const testParams = z.object({ id: z.coerce.number({ error: '渠道 ID 必须是数字' }).int().positive('渠道 ID 必须是正整数') });
export const testQuery = z.object({ model: z.string().optional() });

/**
 * Channel health on the console API: test one channel (answers with its time in seconds, as
 * new-api does) or start testing all of them in the background.
 */
export function channelTestRoutes(app: FastifyInstance, context: AppContext, runtime: RelayRuntime): void {
  const adminOnly = authGuard(context.users.repository, 'admin');

  app.get('/api/channel/test/:id', { preHandler: adminOnly }, async (request) => {
    const { id } = parseInput(testParams, request.params);
    const { model } = parseInput(testQuery, request.query);
    const result = await runtime.health.test(id, model);
    if (!result) return { success: false, message: '渠道不存在，请刷新后重试', time: 0 };
    return { success: result.ok, message: result.message, time: result.elapsedMs / 1000 };
  });

  app.get('/api/channel/test', { preHandler: adminOnly }, async () => {
    if (!runtime.health.testAll()) return { success: false, message: '测试已在运行中，请稍后再试' };
    return { success: true, message: '' };
  });
}
