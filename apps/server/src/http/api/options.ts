import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { OptionValidationError } from '../../config/option-registry.js';
import { badRequest } from '../../errors/app-error.js';
import { authGuard } from '../../middleware/auth.js';
import { ok, parseInput } from '../envelope.js';

const putOptionBody = z.object({
  key: z.string().min(1, '配置项名称不能为空'),
  value: z.union([z.string(), z.number(), z.boolean()], { error: '配置值必须是字符串、数字或布尔值' }),
});

export function optionRoutes(app: FastifyInstance, context: AppContext): void {
  const rootOnly = authGuard(context.users.repository, 'root');

  app.get('/api/option/', { preHandler: rootOnly }, async () => ok(context.options.listPublic()));

  app.put('/api/option/', { preHandler: rootOnly }, async (request) => {
    const { key, value } = parseInput(putOptionBody, request.body);
    try {
      await context.options.set(key, value);
    } catch (error) {
      if (error instanceof OptionValidationError) throw badRequest(error.message, 'option:invalid');
      throw error;
    }
    return ok(undefined, '保存成功');
  });
}
