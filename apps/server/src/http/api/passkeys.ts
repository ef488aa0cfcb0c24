import { passkeyAssertionSchema, passkeyRegistrationSchema, type PasskeyCeremony, type PasskeyStatus, type VerifyResult } from '@modelgate/contract';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { badRequest, forbidden, notFound } from '../../errors/app-error.js';
import type { ChallengeOwner } from '../../domain/passkeys/passkey-repository.js';
import type { PasskeyService } from '../../domain/passkeys/passkey-service.js';
import { outranks, SAME_OR_HIGHER_UPDATE } from '../../domain/users/user-permissions.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';
import { auditCaller, audited, auditOwnAccount } from '../audit-coverage.js';
import { completeLogin, criticalRateLimit } from './auth.js';
import { userId } from './users.js';

/** A ceremony's begin takes nothing, or (registration) the new passkey's name. */
export const loginBeginBody = z.object({});
export const registerBeginBody = z.object({ name: z.string().trim().max(64, '名称不能超过 64 个字符').optional().default('') });
export const passkeyIdQuery = z.object({
  id: z.coerce.number({ error: '无效的通行密钥 ID' }).int('无效的通行密钥 ID').positive('无效的通行密钥 ID').max(Number.MAX_SAFE_INTEGER).optional(),
});
export const resetParams = z.object({ id: userId });
/** The browser's credential JSON, as new-api's console posts it to the finishes. */
export const registrationBody = passkeyRegistrationSchema;
export const assertionBody = passkeyAssertionSchema;

const ceremony = (publicKey: object): PasskeyCeremony => ({ options: { publicKey: publicKey as Record<string, unknown> } });

/** The signed-in session a registration or re-verification belongs to; an access token has none. */
function sessionOwner(request: FastifyRequest): ChallengeOwner {
  if (request.sessionId === undefined) throw badRequest('当前认证方式不支持通行密钥，请在控制台登录后操作', 'passkey:needs_session');
  return { userId: Number(currentUser(request).id), sessionId: request.sessionId };
}

/**
 * Passkeys, on new-api's routes: sign in with one (public, discoverable credentials, no 2FA
 * asked after it), list, add and remove the signed-in user's (adding and removing need a fresh
 * verification), prove oneself again with one (marks the session for POST /api/verify), and an
 * administrator's reset of a user's passkeys.
 */
export function passkeyRoutes(app: FastifyInstance, context: AppContext, passkeys: PasskeyService): void {
  const repository = context.users.repository;
  const signedIn = { preHandler: authGuard(repository, 'user') };
  const admin = { preHandler: authGuard(repository, 'admin') };
  const critical = { preHandler: criticalRateLimit(context) };
  const fresh = context.freshVerification;

  app.post('/api/user/passkey/login/begin', critical, async (request) => {
    parseInput(loginBeginBody, request.body);
    return ok(ceremony(await passkeys.beginAssertion(request, 'login', { userId: 0, sessionId: 0 })));
  });

  app.post('/api/user/passkey/login/finish', critical, async (request, reply) => {
    const response = parseInput(assertionBody, request.body) as AuthenticationResponseJSON;
    const passkey = await passkeys.finishAssertion(request, 'login', { userId: 0, sessionId: 0 }, response);
    const user = await repository.findById(Number(passkey.user_id));
    if (!user || user.deleted_at !== null) throw badRequest('Passkey 验证失败，请重试或联系管理员', 'passkey:user_gone');
    return completeLogin(context, request, reply, user);
  });

  app.get('/api/user/passkey', signedIn, async (request) => ok<PasskeyStatus>(await passkeys.status(Number(currentUser(request).id))));

  app.post('/api/user/passkey/register/begin', signedIn, async (request) => {
    const owner = sessionOwner(request);
    fresh.require(request);
    const { name } = parseInput(registerBeginBody, request.body);
    return ok(ceremony(await passkeys.beginRegistration(request, currentUser(request), owner, name)));
  });

  app.post('/api/user/passkey/register/finish', signedIn, async (request) => {
    const owner = sessionOwner(request);
    fresh.require(request);
    const response = parseInput(registrationBody, request.body) as RegistrationResponseJSON;
    await passkeys.finishRegistration(request, currentUser(request), owner, response);
    auditOwnAccount(context, request, { action: 'user.passkey_register', summary: '注册了通行密钥' });
    return ok(undefined, 'Passkey 注册成功');
  });

  app.delete('/api/user/passkey', signedIn, async (request) => {
    const { id } = parseInput(passkeyIdQuery, request.query);
    fresh.require(request);
    const removed = await passkeys.repository.remove(Number(currentUser(request).id), id);
    if (removed === 0) throw badRequest(id === undefined ? '该用户尚未绑定 Passkey' : '通行密钥不存在', 'passkey:not_found');
    auditOwnAccount(context, request, {
      action: 'user.passkey_delete',
      summary: `删除了 ${removed} 个通行密钥`,
      params: { passkey_id: id ?? 'all', count: removed },
    });
    return ok(undefined, 'Passkey 已解绑');
  });

  app.post('/api/user/passkey/verify/begin', signedIn, async (request) => {
    const owner = sessionOwner(request);
    parseInput(loginBeginBody, request.body);
    return ok(ceremony(await passkeys.beginAssertion(request, 'verify', owner)));
  });

  app.post('/api/user/passkey/verify/finish', signedIn, async (request) => {
    const owner = sessionOwner(request);
    const response = parseInput(assertionBody, request.body) as AuthenticationResponseJSON;
    await passkeys.finishAssertion(request, 'verify', owner, response);
    const expiresAt = await fresh.mark(request, 'passkey');
    auditOwnAccount(context, request, {
      action: 'user.security_verify',
      summary: '完成安全验证（passkey）',
      params: { method: 'passkey', expires_at: expiresAt },
    });
    return ok<VerifyResult>({ verified: true, method: 'passkey', expires_at: expiresAt }, 'Passkey 验证成功');
  });

  app.delete('/api/user/:id/reset_passkey', { ...admin, ...audited('user.passkey_admin_reset') }, async (request) => {
    const { id } = parseInput(resetParams, request.params);
    const target = await repository.findById(id);
    if (!target || target.deleted_at !== null) throw notFound('用户不存在', 'user:not_found');
    if (!outranks(Number(currentUser(request).role), Number(target.role))) throw forbidden(SAME_OR_HIGHER_UPDATE, 'user:same_or_higher_level');
    const removed = await passkeys.repository.remove(id);
    if (removed === 0) throw badRequest('该用户尚未绑定 Passkey', 'passkey:none');
    context.audit.record({
      ...auditCaller(request),
      action: 'user.passkey_admin_reset',
      target: { type: 'user', id },
      summary: `重置用户 ${target.username}（ID ${id}）的通行密钥，共 ${removed} 个`,
      params: { target_username: target.username, count: removed },
    });
    return ok(undefined, 'Passkey 已重置');
  });
}
