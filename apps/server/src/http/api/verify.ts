import { isAdmin, type VerifyResult, type VerifyStatus } from '@modelgate/contract';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { AppError, badRequest } from '../../errors/app-error.js';
import { beginLoginAttempt } from '../../domain/users/login-limit.js';
import { verifyPassword } from '../../domain/users/password.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';
import { auditCaller } from '../audit-coverage.js';

export const verifyBody = z.object({
  method: z.enum(['2fa', 'passkey', 'password'], { error: '不支持的验证方式' }),
  code: z.string().trim().max(64, '验证码格式错误').optional().default(''),
  password: z.string().max(256, '密码格式错误').optional().default(''),
});

/** The account a verification attempt counts against: its own lock, apart from the sign-in's. */
const verifyAccount = (userId: number) => `#verify:${userId}`;

/**
 * Re-verification (new-api's `POST /api/verify`): the signed-in user proves themselves again with
 * a 2FA code, a passkey (its own flow marks the session; this call confirms it) or, when they have
 * neither, the password. Wrong proofs count toward a per-account lock like sign-in's.
 */
export function verifyRoutes(app: FastifyInstance, context: AppContext): void {
  const signedIn = { preHandler: authGuard(context.users.repository, 'user') };
  const fresh = context.freshVerification;

  app.get('/api/verify/status', signedIn, async (request) => {
    const user = currentUser(request);
    const until = fresh.freshUntil(request);
    return ok<VerifyStatus>({
      verified: until > 0,
      method: until > 0 ? (request.sessionVerifiedMethod ?? '') : '',
      expires_at: until,
      methods: await fresh.methodsOf(Number(user.id)),
      window_seconds: fresh.windowSeconds(),
    });
  });

  app.post('/api/verify', signedIn, async (request) => {
    const user = currentUser(request);
    const body = parseInput(verifyBody, request.body);
    if (request.sessionId === undefined) {
      throw badRequest('当前认证方式不支持安全验证，请在控制台登录后操作', 'auth:verification_needs_session');
    }
    const methods = await fresh.methodsOf(Number(user.id));
    if (!methods.includes(body.method)) {
      throw badRequest(body.method === 'password' ? '你已启用两步验证或通行密钥，请使用它们验证' : '你尚未启用此验证方式', 'verify:method_unavailable');
    }
    if (body.method === 'passkey') {
      // The passkey's own flow (POST /api/user/passkey/verify/finish) proved it and marked the session.
      if (fresh.freshUntil(request) === 0 || request.sessionVerifiedMethod !== 'passkey') {
        throw badRequest('请先完成通行密钥验证', 'verify:passkey_required');
      }
      return ok<VerifyResult>({ verified: true, method: 'passkey', expires_at: fresh.freshUntil(request) }, '验证成功');
    }
    if (body.method === 'password' ? body.password === '' : body.code === '') {
      throw badRequest(body.method === 'password' ? '请输入密码' : '验证码不能为空', 'verify:missing_proof');
    }
    const attempt = await beginLoginAttempt(context.rateLimits, verifyAccount(Number(user.id)));
    try {
      if (body.method === 'password') {
        if (!(await verifyPassword(body.password, user.password))) throw badRequest('密码错误', 'verify:wrong_password');
      } else {
        await fresh.factor('2fa')?.verify?.(user, { code: body.code });
      }
    } catch (error) {
      if (error instanceof AppError && error.status < 500) await attempt.failed();
      throw error;
    }
    await attempt.succeeded();
    const expiresAt = await fresh.mark(request, body.method);
    // An administrator's fresh verification opens secrets (a channel's key): who did it, when, how.
    if (isAdmin(Number(user.role))) {
      context.audit.record({
        ...auditCaller(request),
        action: 'user.security_verify',
        target: { type: 'user', id: Number(user.id) },
        summary: `${user.username} 完成安全验证（${body.method}）`,
        params: { method: body.method, expires_at: expiresAt },
      });
    }
    return ok<VerifyResult>({ verified: true, method: body.method, expires_at: expiresAt }, '验证成功');
  });
}
