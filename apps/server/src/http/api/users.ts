import { isAdmin, LogKind, LogType, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, Role, USERNAME_MAX_LENGTH } from '@modelgate/contract';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { badRequest, forbidden, notFound } from '../../errors/app-error.js';
import { hashPassword, verifyPassword } from '../../domain/users/password.js';
import { formatLogQuota, recordUserLog } from '../../domain/users/user-logs.js';
import { clearUserBinding, manageUser, updateUserByAdmin } from '../../domain/users/user-management.js';
import { modelsForGroups } from '../../domain/users/user-models.js';
import { usableGroups } from '../../domain/tokens/usable-groups.js';
import { rateLimitInputFields } from '../../domain/tokens/token-fields.js';
import { pageOf, readPaging } from '../../lib/paging.js';
import { mayCreateRole, outranks, SAME_OR_HIGHER_READ, MANAGE_ACTIONS } from '../../domain/users/user-permissions.js';
import { assertUsernameAvailable, createUser, usernameTakenError } from '../../domain/users/user-registration.js';
import { isUniqueViolation, toPublicUser, type UserRow } from '../../domain/users/user-repository.js';
import { hasForbiddenCharacters } from '../../lib/username.js';
import { randomAlphanumeric } from '../../domain/users/user-service.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { endSession, startSession } from '../../middleware/session.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';
import { auditCaller, audited } from '../audit-coverage.js';
import { LeaseKind } from '../../domain/billing/lease-book.js';
import type { SpendableQuota } from '../../domain/billing/spendable-quota.js';
import { withSpendableQuota } from './console-balances.js';

const DISPLAY_NAME_MAX_LENGTH = 20;

/** The fields of a user an audit row compares (the password hash is masked by its name). */
const auditedUser = (user: UserRow) => ({
  username: user.username,
  display_name: user.display_name,
  role: Number(user.role),
  status: Number(user.status),
  group: user.group,
  quota: Number(user.quota),
  remark: user.remark,
  password: user.password,
  rpm_limit: Number(user.rpm_limit),
  tpm_limit: Number(user.tpm_limit),
  rpd_limit: Number(user.rpd_limit),
  concurrency_limit: Number(user.concurrency_limit),
});

const username = z.string().trim().min(1, '用户名不能为空').max(USERNAME_MAX_LENGTH, `用户名长度不能超过 ${USERNAME_MAX_LENGTH} 个字符`);
const password = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `密码长度不得小于 ${PASSWORD_MIN_LENGTH} 位！`)
  .max(PASSWORD_MAX_LENGTH, `密码长度不得大于 ${PASSWORD_MAX_LENGTH} 位！`);
/** An optional new password: empty means "leave it as it is". */
const optionalPassword = z.union([z.literal(''), password]).optional();
const displayName = z
  .string()
  .trim()
  .max(DISPLAY_NAME_MAX_LENGTH, `显示名称长度不能超过 ${DISPLAY_NAME_MAX_LENGTH} 个字符`)
  .refine((name) => !hasForbiddenCharacters(name), '显示名称包含不允许的字符 (the display name holds control, zero-width or text-direction characters)');
const quota = z.number({ error: '额度必须是整数' }).int('额度必须是整数').min(0, '额度不能为负数').max(Number.MAX_SAFE_INTEGER);
export const userId = z.coerce.number({ error: '无效的用户 ID' }).int('无效的用户 ID').positive('无效的用户 ID');
export const bindingParams = z.object({ id: userId, binding_type: z.string().min(1, '请指定绑定类型') });

export const createBody = z.object({
  username,
  password,
  display_name: displayName.optional(),
  role: z.union([z.literal(Role.Common), z.literal(Role.Admin), z.literal(Role.Root)]).optional(),
});

// The console sends the whole user object back; fields not listed here (role, status,
// bindings ...) are not editable through this call and are ignored.
export const adminUpdateBody = z.object({
  id: userId,
  username: username.optional(),
  display_name: displayName.optional(),
  password: optionalPassword,
  group: z.string().trim().min(1, '分组不能为空').max(64, '分组名称过长').optional(),
  quota: quota.optional(),
  remark: z.string().max(255, '备注过长').optional(),
  ...rateLimitInputFields,
});

export const manageBody = z.object({
  id: userId,
  action: z.enum(MANAGE_ACTIONS, { error: '无效的操作' }),
  value: z.number({ error: '额度必须是整数' }).int('额度必须是整数').min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).optional(),
  mode: z.enum(['add', 'subtract', 'override'], { error: '无效的额度操作方式' }).optional(),
});

export const selfUpdateBody = z.object({
  username: username.optional(),
  display_name: displayName.optional(),
  password: optionalPassword,
  original_password: z.string().optional().default(''),
});

export const affTransferBody = z.object({ quota: z.number({ error: '划转额度必须是整数' }).int('划转额度必须是整数') });

/** Admin user management and the signed-in user's own account (spec 01 §2, §6, §7). */
export function userRoutes(app: FastifyInstance, context: AppContext, balances: SpendableQuota): void {
  const { options, users } = context;
  const repository = users.repository;
  const admin = authGuard(repository, 'admin');
  const signedIn = authGuard(repository, 'user');

  const listPage = async (query: unknown, filtered: boolean) => {
    const paging = readPaging(query);
    const params = (query ?? {}) as Record<string, unknown>;
    const text = (value: unknown) => (filtered && typeof value === 'string' ? value : '');
    const { items, total } = await repository.page({
      keyword: text(params.keyword),
      group: text(params.group),
      offset: paging.offset,
      limit: paging.pageSize,
    });
    const withTwoFactor = await context.twoFactor.repository.enabledAmong(items.map((item) => Number(item.id)));
    const listed = items.map((item) => ({ ...toPublicUser(item), two_fa_enabled: withTwoFactor.has(Number(item.id)) }));
    return ok(pageOf(await withSpendableQuota(balances, listed), total, paging));
  };

  app.get('/api/user/', { preHandler: admin }, async (request) => listPage(request.query, false));
  app.get('/api/user/search', { preHandler: admin }, async (request) => listPage(request.query, true));

  app.get('/api/user/:id', { preHandler: admin }, async (request) => {
    const id = parseInput(userId, (request.params as { id: string }).id);
    const user = await repository.findById(id);
    if (!user) throw notFound('用户不存在', 'user:not_found');
    if (!outranks(Number(currentUser(request).role), Number(user.role))) throw forbidden(SAME_OR_HIGHER_READ, 'user:same_or_higher_level');
    return ok((await withSpendableQuota(balances, [toPublicUser(user)]))[0]);
  });

  app.post('/api/user/', { preHandler: admin, ...audited('user.create') }, async (request) => {
    const body = parseInput(createBody, request.body);
    const role = body.role ?? Role.Common;
    if (!mayCreateRole(Number(currentUser(request).role), role)) {
      throw forbidden('无法创建权限大于等于自己的用户', 'user:create_same_or_higher_level');
    }
    await assertUsernameAvailable(repository, body.username);
    const created = await createUser(context, {
      username: body.username,
      password: body.password,
      displayName: body.display_name || body.username,
      role,
    });
    context.audit.record({
      ...auditCaller(request),
      action: 'user.create',
      target: { type: 'user', id: Number(created.id) },
      summary: `创建用户 ${created.username}（ID ${Number(created.id)}）`,
      after: auditedUser(created),
    });
    return ok(toPublicUser(created), '用户账户创建成功！');
  });

  app.put('/api/user/', { preHandler: admin, ...audited('user.update', 'user.quota_change') }, async (request) => {
    const update = parseInput(adminUpdateBody, request.body);
    const before = await repository.findById(update.id);
    await updateUserByAdmin(context, currentUser(request), update);
    const after = await repository.findById(update.id);
    if (before && after) {
      const { quota: quotaBefore, ...restBefore } = auditedUser(before);
      const { quota: quotaAfter, ...restAfter } = auditedUser(after);
      const target = { type: 'user' as const, id: update.id };
      const caller = auditCaller(request);
      if (JSON.stringify(restBefore) !== JSON.stringify(restAfter)) {
        const summary = `修改用户 ${after.username}（ID ${update.id}）的信息`;
        const params = { target_username: after.username };
        context.audit.record({ ...caller, action: 'user.update', target, summary, before: restBefore, after: restAfter, params });
      }
      if (quotaBefore !== quotaAfter) {
        const summary = `将用户 ${after.username}（ID ${update.id}）的额度从 ${quotaBefore} 修改为 ${quotaAfter}`;
        context.audit.record({
          ...caller,
          action: 'user.quota_change',
          target,
          summary,
          before: { quota: quotaBefore },
          after: { quota: quotaAfter },
          params: { mode: 'override', target_username: after.username },
        });
      }
    }
    return ok(undefined, '用户信息更新成功！');
  });

  /**
   * {id, action}: promote | demote | disable | enable | delete → data {status, role, quota}, quota being
   * what the user can spend (the relay's leases counted in).
   * Quota changes (the add-quota modal) use {id, action: 'add_quota', value, mode?}:
   *   mode 'add' (default): value is a signed delta, applied as one conditional
   *     `quota = quota + value` that never leaves the balance below zero;
   *   mode 'subtract': value > 0 is taken away, same guarantee (new-api's newer form). Calls in
   *     flight keep what they hold: when only they hold the amount, the answer says to retry;
   *   mode 'override': value is the new balance (same as PUT /api/user/ with quota).
   * Every change writes a management log line (type 3) on the user.
   */
  app.post(
    '/api/user/manage',
    { preHandler: admin, ...audited('user.promote', 'user.demote', 'user.disable', 'user.enable', 'user.delete', 'user.quota_change') },
    async (request) => {
      const body = parseInput(manageBody, request.body);
      const before = await repository.findById(body.id);
      const quotaBefore = (await balances.read(LeaseKind.User, body.id))?.balance ?? 0;
      const result = await manageUser(context, balances, currentUser(request), body);
      if (before) {
        const name = `${before.username}（ID ${body.id}）`;
        const target = { type: 'user' as const, id: body.id };
        const caller = auditCaller(request);
        if (body.action === 'add_quota') {
          const summary = `将用户 ${name} 的额度从 ${quotaBefore} 修改为 ${result.quota}`;
          const params = { mode: body.mode ?? 'add', value: body.value ?? 0, target_username: before.username };
          context.audit.record({
            ...caller,
            action: 'user.quota_change',
            target,
            summary,
            before: { quota: quotaBefore },
            after: { quota: result.quota },
            params,
          });
        } else {
          const verbs = { promote: '提升', demote: '降级', disable: '禁用', enable: '启用', delete: '删除' } as const;
          const after = { role: result.role, status: result.status, deleted: body.action === 'delete' };
          const previous = { role: Number(before.role), status: Number(before.status), deleted: false };
          const params = { target_username: before.username };
          context.audit.record({
            ...caller,
            action: `user.${body.action}`,
            target,
            summary: `${verbs[body.action]}用户 ${name}`,
            before: previous,
            after,
            params,
          });
        }
      }
      return ok(result, '操作成功完成！');
    },
  );

  // new-api's router deletes a user by id too (the list's delete goes through /manage): the same rules.
  app.delete('/api/user/:id', { preHandler: admin, ...audited('user.delete') }, async (request) => {
    const id = parseInput(userId, (request.params as { id: string }).id);
    const before = await repository.findById(id);
    const result = await manageUser(context, balances, currentUser(request), { id, action: 'delete' });
    if (before) {
      context.audit.record({
        ...auditCaller(request),
        action: 'user.delete',
        target: { type: 'user', id },
        summary: `删除用户 ${before.username}（ID ${id}）`,
        before: { role: Number(before.role), status: Number(before.status), deleted: false },
        after: { role: result.role, status: result.status, deleted: true },
        params: { target_username: before.username },
      });
    }
    return ok();
  });

  // new-api's user editor unbinds one sign-in method (email, github, linuxdo, oidc, wechat, telegram).
  app.delete('/api/user/:id/bindings/:binding_type', { preHandler: admin, ...audited('user.update') }, async (request) => {
    const { id, binding_type: type } = parseInput(bindingParams, request.params);
    const { target, previous } = await clearUserBinding(context, currentUser(request), id, type);
    context.audit.record({
      ...auditCaller(request),
      action: 'user.update',
      target: { type: 'user', id },
      summary: `清除用户 ${target.username}（ID ${id}）的 ${type.trim().toLowerCase()} 绑定`,
      params: { target_username: target.username, binding_type: type.trim().toLowerCase(), was_bound: previous !== '' },
    });
    return ok(undefined, 'success');
  });

  // modelgate has no administrator-defined OAuth providers, so nobody holds such a binding:
  // new-api's account page and user editor read an empty list.
  app.get('/api/user/oauth/bindings', { preHandler: signedIn }, async () => ok<unknown[]>([]));
  app.get('/api/user/:id/oauth/bindings', { preHandler: admin }, async (request) => {
    const id = parseInput(userId, (request.params as { id: string }).id);
    if (!(await repository.findById(id))) throw notFound('用户不存在', 'user:not_found');
    return ok<unknown[]>([]);
  });

  app.get('/api/user/aff', { preHandler: signedIn }, async (request) => {
    const user = currentUser(request);
    const code = user.aff_code || (await repository.ensureAffCode(Number(user.id), randomAlphanumeric(4)));
    return ok(code ?? '');
  });

  app.post('/api/user/aff_transfer', { preHandler: signedIn }, async (request) => {
    const user = currentUser(request);
    const { quota: amount } = parseInput(affTransferBody, request.body);
    const minimum = options.number('QuotaPerUnit');
    if (amount < minimum) throw badRequest(`转移额度最小为${formatLogQuota(options, Math.ceil(minimum))}！`, 'aff:below_minimum');
    if (!(await repository.transferAffQuota(Number(user.id), amount))) throw badRequest('邀请额度不足！', 'aff:insufficient');
    await recordUserLog(context.db.kysely, {
      userId: Number(user.id),
      username: user.username,
      type: LogType.System,
      content: `邀请奖励划转到余额 ${formatLogQuota(options, amount)}`,
      other: { kind: LogKind.AffTransfer, quota: amount },
    });
    context.changes.emit('user', Number(user.id));
    return ok(undefined, '划转成功');
  });

  app.get('/api/user/models', { preHandler: signedIn }, async (request) => {
    const user = currentUser(request);
    return ok(await modelsForGroups(context.db, Object.keys(usableGroups(options, user.group))), '获取模型列表成功');
  });

  app.put('/api/user/self', { preHandler: signedIn }, async (request, reply) => {
    const user = currentUser(request);
    const body = parseInput(selfUpdateBody, request.body);
    const changes: Partial<Omit<UserRow, 'id'>> = {};
    if (body.password) {
      // With a second factor set up, the original password alone does not do: the session must
      // have verified with that factor within the last few minutes (POST /api/verify).
      if ((await context.freshVerification.methodsOf(Number(user.id)))[0] !== 'password') context.freshVerification.require(request);
      // Accounts made by a third-party sign-in have no password yet: they may set one freely.
      if (user.password !== '' && !(await verifyPassword(body.original_password, user.password))) {
        throw badRequest('原密码错误', 'user:wrong_original_password');
      }
      changes.password = await hashPassword(body.password);
    }
    if (body.username !== undefined && body.username !== user.username) {
      await assertUsernameAvailable(repository, body.username, Number(user.id));
      changes.username = body.username;
    }
    if (body.display_name !== undefined) changes.display_name = body.display_name || (changes.username ?? user.username);
    if (Object.keys(changes).length > 0) {
      try {
        await repository.update(Number(user.id), changes);
      } catch (error) {
        if (isUniqueViolation(error)) throw usernameTakenError();
        throw error;
      }
      context.changes.emit('user', Number(user.id));
    }
    // An administrator's own password is an admin action: the row says it changed, never to what.
    if (changes.password && isAdmin(Number(user.role))) {
      context.audit.record({
        ...auditCaller(request),
        action: 'user.password_change',
        target: { type: 'user', id: Number(user.id) },
        summary: `${user.username} 修改了自己的密码`,
        before: { password: user.password },
        after: { password: changes.password },
      });
    }
    // The new password ended every session of the user, this one too (a stolen cookie of this very
    // browser must not outlive the change); the browser that made the change gets a fresh one.
    if (changes.password && request.sessionId !== undefined) {
      await startSession(request, reply, repository.sessions, Number(user.id));
    }
    return ok(undefined, changes.password ? '密码修改成功！' : '用户信息更新成功！');
  });

  app.delete('/api/user/self', { preHandler: signedIn }, async (request, reply) => {
    const user = currentUser(request);
    if (Number(user.role) === Role.Root) throw forbidden('不能删除超级管理员账户', 'user:cannot_delete_root');
    await repository.softDelete(Number(user.id));
    context.changes.emit('user', Number(user.id));
    await endSession(request, reply, repository.sessions);
    return ok(undefined, '账户已删除！');
  });
}
