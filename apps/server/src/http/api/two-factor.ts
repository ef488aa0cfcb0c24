import type { TwoFactorBackupCodes, TwoFactorSetup, TwoFactorStats, TwoFactorStatus } from '@modelgate/contract';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { badRequest, forbidden, notFound } from '../../errors/app-error.js';
import { outranks } from '../../domain/users/user-permissions.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';
import { auditCaller, audited, auditOwnAccount } from '../audit-coverage.js';
import { userId } from './users.js';

export const twoFactorCode = z.string({ error: '验证码不能为空' }).trim().min(1, '验证码不能为空').max(64, '验证码格式错误');
export const twoFactorCodeBody = z.object({ code: twoFactorCode });

/** new-api's `/api/user/2fa/*` routes and the administrators' 2FA view (the sign-in's code step is in auth.ts). */
export function twoFactorRoutes(app: FastifyInstance, context: AppContext): void {
  const { twoFactor, freshVerification } = context;
  const repository = context.users.repository;
  const signedIn = { preHandler: authGuard(repository, 'user') };
  const admin = { preHandler: authGuard(repository, 'admin') };

  app.get('/api/user/2fa/status', signedIn, async (request) => ok<TwoFactorStatus>(await twoFactor.status(Number(currentUser(request).id))));

  app.post('/api/user/2fa/setup', signedIn, async (request) => {
    // A stolen session must not be able to bind the account to the thief's authenticator.
    freshVerification.require(request);
    const setup = await twoFactor.setup(currentUser(request));
    return ok<TwoFactorSetup>(setup, '2FA设置初始化成功，请使用认证器扫描二维码并输入验证码完成设置');
  });

  app.post('/api/user/2fa/enable', signedIn, async (request) => {
    const body = parseInput(twoFactorCodeBody, request.body);
    await twoFactor.enable(Number(currentUser(request).id), body.code);
    // The first code proves the new factor: this session counts as verified with it.
    if (request.sessionId !== undefined) await freshVerification.mark(request, '2fa');
    auditOwnAccount(context, request, { action: 'user.2fa_enable', summary: '启用了两步验证' });
    return ok(undefined, '两步验证启用成功');
  });

  app.post('/api/user/2fa/disable', signedIn, async (request) => {
    const body = parseInput(twoFactorCodeBody, request.body);
    await twoFactor.disable(Number(currentUser(request).id), body.code);
    auditOwnAccount(context, request, { action: 'user.2fa_disable', summary: '关闭了两步验证' });
    return ok(undefined, '两步验证已禁用');
  });

  app.post('/api/user/2fa/backup_codes', signedIn, async (request) => {
    const body = parseInput(twoFactorCodeBody, request.body);
    const codes = await twoFactor.regenerateBackupCodes(Number(currentUser(request).id), body.code);
    return ok<TwoFactorBackupCodes>({ backup_codes: codes }, '备用码重新生成成功');
  });

  app.get('/api/user/2fa/stats', admin, async () => ok<TwoFactorStats>(await twoFactor.stats()));

  app.delete('/api/user/:id/2fa', { ...admin, ...audited('user.2fa_admin_disable') }, async (request) => {
    const id = parseInput(userId, (request.params as { id: string }).id);
    const target = await repository.findById(id);
    if (!target) throw notFound('用户不存在', 'user:not_found');
    if (!outranks(Number(currentUser(request).role), Number(target.role))) {
      throw forbidden('无权操作同级或更高级用户的2FA设置', 'two_factor:same_or_higher_level');
    }
    if (!(await twoFactor.adminDisable(id))) throw badRequest('用户未启用2FA', 'two_factor:not_enabled');
    // As in new-api: whoever holds the account's sessions signs in again, by password alone now.
    await repository.sessions.revokeAllOf(id);
    context.audit.record({
      ...auditCaller(request),
      action: 'user.2fa_admin_disable',
      target: { type: 'user', id },
      summary: `强制关闭用户 ${target.username}（ID ${id}）的两步验证`,
      before: { two_factor: true },
      after: { two_factor: false },
      params: { target_username: target.username },
    });
    return ok(undefined, '用户2FA已被强制禁用');
  });
}
