import type { Redemption } from '@modelgate/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { MAX_REDEMPTIONS_PER_BATCH, RedemptionService, type RedemptionRow } from '../../domain/redemptions/redemption-service.js';
import { hasForbiddenCharacters } from '../../lib/username.js';
import { formatQuota } from '../../domain/wallet/quota-format.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';
import { auditCaller, audited } from '../audit-coverage.js';
import { pageOf, readPaging } from '../../lib/paging.js';

export const idParam = z.object({ id: z.coerce.number({ error: '无效的兑换码 ID' }).int().positive('无效的兑换码 ID') });
const nameSchema = z
  .string()
  .trim()
  .max(20, '兑换码名称长度必须在 1 到 20 之间')
  .refine((name) => !hasForbiddenCharacters(name), '兑换码名称包含不允许的字符 (the name holds control, zero-width or text-direction characters)');
const quotaSchema = z.number({ error: '额度必须是整数' }).int('额度必须是整数').positive('额度必须大于 0');
const expiredSchema = z.number({ error: '过期时间必须是整数' }).int().min(0, '过期时间无效').optional();

export const createBody = z.object({
  name: nameSchema.optional().default(''),
  quota: quotaSchema,
  count: z
    .number({ error: '数量必须是整数' })
    .int('数量必须是整数')
    .min(1, '数量必须大于 0')
    .max(MAX_REDEMPTIONS_PER_BATCH, `一次最多创建 ${MAX_REDEMPTIONS_PER_BATCH} 个兑换码`)
    .optional()
    .default(1),
  expired_time: expiredSchema,
});
export const updateBody = z.object({
  id: z.number().int().positive('无效的兑换码 ID'),
  name: nameSchema.min(1, '兑换码名称长度必须在 1 到 20 之间'),
  quota: quotaSchema,
  expired_time: expiredSchema,
});
export const statusBody = z.object({ id: z.number().int().positive('无效的兑换码 ID'), status: z.number().int() });

const toWire = (row: RedemptionRow): Redemption => ({
  id: Number(row.id),
  user_id: Number(row.user_id),
  key: row.key,
  status: Number(row.status),
  name: row.name,
  quota: Number(row.quota),
  created_time: Number(row.created_time),
  redeemed_time: Number(row.redeemed_time),
  used_user_id: Number(row.used_user_id),
  expired_time: Number(row.expired_time),
});

/** Redemption codes (admins), spec 02 §7. */
export function redemptionRoutes(app: FastifyInstance, context: AppContext): void {
  const service = new RedemptionService(context.db);
  const admin = authGuard(context.users.repository, 'admin');

  app.get('/api/redemption/', { preHandler: admin }, async (request) => {
    const paging = readPaging(request.query);
    const { items, total } = await service.list(paging);
    return ok(pageOf(items.map(toWire), total, paging));
  });

  app.get('/api/redemption/search', { preHandler: admin }, async (request) => {
    const query = request.query as Record<string, unknown>;
    const paging = readPaging(query);
    const keyword = typeof query.keyword === 'string' ? query.keyword.trim() : '';
    const { items, total } = await service.list(paging, keyword);
    return ok(pageOf(items.map(toWire), total, paging));
  });

  app.get('/api/redemption/:id', { preHandler: admin }, async (request) => {
    const { id } = parseInput(idParam, request.params);
    return ok(toWire(await service.get(id)));
  });

  /** A code as its audit rows show it: never the key, which redeems it. */
  const withoutKey = (row: RedemptionRow) => {
    const { key: _key, ...fields } = toWire(row);
    return fields;
  };
  const before = (id: number) => service.get(id).catch(() => undefined);

  app.post('/api/redemption/', { preHandler: admin, ...audited('redemption.create') }, async (request) => {
    const body = parseInput(createBody, request.body);
    const { options } = context;
    const name = body.name || formatQuota(body.quota, options.number('QuotaPerUnit'), options.bool('DisplayInCurrencyEnabled'));
    const keys = await service.create(
      { name: name.slice(0, 20), quota: body.quota, count: body.count, expiredTime: body.expired_time ?? 0 },
      Number(currentUser(request).id),
    );
    context.audit.record({
      ...auditCaller(request),
      action: 'redemption.create',
      target: { type: 'redemption', id: '' },
      summary: `创建兑换码「${name.slice(0, 20)}」${keys.length} 个，每个额度 ${body.quota}`,
      after: { name: name.slice(0, 20), quota: body.quota, count: keys.length, expired_time: body.expired_time ?? 0 },
    });
    return ok(keys);
  });

  app.put('/api/redemption/', { preHandler: admin, ...audited('redemption.update', 'redemption.status') }, async (request) => {
    const query = request.query as Record<string, unknown>;
    const statusOnly = query.status_only === 'true' || query.status_only === '1';
    let row: RedemptionRow;
    let previous: RedemptionRow | undefined;
    if (statusOnly) {
      const { id, status } = parseInput(statusBody, request.body);
      previous = await before(id);
      row = await service.setStatus(id, status);
    } else {
      const body = parseInput(updateBody, request.body);
      previous = await before(body.id);
      row = await service.update(body.id, { name: body.name, quota: body.quota, expiredTime: body.expired_time });
    }
    const id = Number(row.id);
    context.audit.record({
      ...auditCaller(request),
      action: statusOnly ? 'redemption.status' : 'redemption.update',
      target: { type: 'redemption', id },
      summary: `${statusOnly ? '修改兑换码状态' : '修改兑换码'}「${row.name}」（ID ${id}）`,
      before: previous && withoutKey(previous),
      after: withoutKey(row),
    });
    return ok(toWire(row));
  });

  const remove = async (request: FastifyRequest) => {
    const { id } = parseInput(idParam, request.params);
    const previous = await before(id);
    await service.delete(id);
    context.audit.record({
      ...auditCaller(request),
      action: 'redemption.delete',
      target: { type: 'redemption', id },
      summary: `删除兑换码「${previous?.name ?? ''}」（ID ${id}）`,
      before: previous && withoutKey(previous),
    });
    return ok();
  };
  app.delete('/api/redemption/:id', { preHandler: admin, ...audited('redemption.delete') }, remove);

  // new-api's 清除失效兑换码: used, disabled and expired codes go at once; the answer is how many.
  app.delete('/api/redemption/invalid', { preHandler: admin, ...audited('redemption.delete') }, async (request) => {
    const count = await service.deleteInvalid();
    context.audit.record({
      ...auditCaller(request),
      action: 'redemption.delete',
      target: { type: 'redemption', id: '' },
      summary: `清除失效兑换码 ${count} 个`,
      params: { count },
    });
    return ok<number>(count);
  });
}
