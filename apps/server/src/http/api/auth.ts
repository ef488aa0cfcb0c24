import { isAdmin, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, USERNAME_MAX_LENGTH, UserStatus } from '@modelgate/contract';
import type { SignedInUser, UserSession } from '@modelgate/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { AppError, badRequest, forbidden } from '../../errors/app-error.js';
import { beginLoginAttempt } from '../../domain/users/login-limit.js';
import { verifyPassword } from '../../domain/users/password.js';
import { assertUsernameAvailable, createUser } from '../../domain/users/user-registration.js';
import { toPublicUser, type UserRow } from '../../domain/users/user-repository.js';
import {
  consumeEmailVerificationCode,
  resetPasswordWithToken,
  sendEmailVerificationCode,
  sendPasswordResetLink,
} from '../../domain/verification/email-flows.js';
import { assertEmailAllowed, normaliseEmail } from '../../domain/verification/email-rules.js';
import { enforceTurnstile } from '../../domain/verification/turnstile.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { enforceRateLimit } from '../../lib/rate-limit.js';
import { clearSessionCookie, endSession, startSession } from '../../middleware/session.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';
import type { SpendableQuota } from '../../domain/billing/spendable-quota.js';
import { withSpendableQuota } from './console-balances.js';
import { askForSecondFactor, EXPIRED, PENDING_COOKIE, PENDING_COOKIE_PATH, pendingTokenOf, twoFactorLoginBody } from './two-factor-login.js';

export const loginBody = z.object({
  username: z.string().trim().optional().default(''),
  password: z.string().optional().default(''),
});

export const registerBody = z.object({
  username: z.string().trim().min(1, '用户名不能为空').max(USERNAME_MAX_LENGTH, `用户名长度不能超过 ${USERNAME_MAX_LENGTH} 个字符`),
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `密码长度不得小于 ${PASSWORD_MIN_LENGTH} 位！`)
    .max(PASSWORD_MAX_LENGTH, `密码长度不得大于 ${PASSWORD_MAX_LENGTH} 位！`),
  password2: z.string().optional(),
  email: z.string().trim().optional().default(''),
  verification_code: z.string().trim().optional().default(''),
  aff_code: z.string().trim().optional().default(''),
});

export const sessionId = z.coerce
  .number({ error: '无效的会话 ID' })
  .int('无效的会话 ID')
  .positive('无效的会话 ID')
  .max(Number.MAX_SAFE_INTEGER, '无效的会话 ID');

export const resetBody = z.object({
  email: z.string().optional().default(''),
  token: z.string().trim().optional().default(''),
});

/**
 * Signs the user in on this browser and answers what the console stores as the signed-in user
 * (shared by password login and every third-party sign-in).
 */
export async function completeLogin(context: AppContext, request: FastifyRequest, reply: FastifyReply, user: UserRow) {
  if (Number(user.status) !== UserStatus.Enabled) throw forbidden('用户已被封禁', 'auth:user_banned');
  await startSession(request, reply, context.users.repository.sessions, Number(user.id));
  // Every way in (password, OAuth, Telegram) ends here.
  if (isAdmin(Number(user.role))) recordAdminLogin(context, request, user, true);
  return ok<SignedInUser>(
    {
      id: Number(user.id),
      username: user.username,
      display_name: user.display_name,
      role: Number(user.role),
      status: Number(user.status),
      group: user.group,
    },
    '登录成功！',
  );
}

/** An administrator's or root's sign-in, or a failed try at one with the password. */
function recordAdminLogin(context: AppContext, request: FastifyRequest, user: UserRow, succeeded: boolean, failure: 'password' | '2fa' = 'password'): void {
  context.audit.record({
    actor: { id: Number(user.id), username: user.username, role: Number(user.role) },
    ip: request.ip,
    action: succeeded ? 'admin.login' : 'admin.login_failed',
    target: { type: 'user', id: Number(user.id) },
    summary: succeeded ? `管理员 ${user.username} 登录` : `管理员 ${user.username} 登录失败：${failure === '2fa' ? '两步验证码错误' : '密码错误'}`,
    params: { user_agent: String(request.headers['user-agent'] ?? '').slice(0, 200), ...(succeeded ? {} : { reason: failure }) },
  });
}

/** The origin the console was reached at, for links in mails when ServerAddress is not set. */
export const requestOrigin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

export function authRoutes(app: FastifyInstance, context: AppContext, balances: SpendableQuota): void {
  const { options, users } = context;
  const repository = users.repository;
  const signedIn = authGuard(repository, 'user');
  const critical = criticalRateLimit(context);
  const turnstile: preHandlerAsyncHookHandler = async (request) => enforceTurnstile(context, request);

  app.post('/api/user/login', { preHandler: [critical, turnstile] }, async (request, reply) => {
    if (!options.bool('PasswordLoginEnabled')) throw forbidden('管理员关闭了密码登录', 'auth:password_login_disabled');
    const { username, password } = parseInput(loginBody, request.body);
    if (username === '' || password === '') throw badRequest('请输入用户名和密码！', 'auth:missing_credentials');
    // Addresses are stored lower-cased; people type them as they like.
    const user =
      (await repository.findLiveByLogin(username)) ?? (username.includes('@') ? await repository.findLiveByLogin(username.toLowerCase()) : undefined);
    const attempt = await beginLoginAttempt(context.rateLimits, user?.username ?? username);
    if (!user || !(await verifyPassword(password, user.password))) {
      await attempt.failed();
      // An administrator's account being tried is worth a row; a user's typo is not.
      if (user && isAdmin(Number(user.role))) recordAdminLogin(context, request, user, false);
      throw new AppError('auth:wrong_credentials', '用户名或密码错误', { status: 401 });
    }
    await attempt.succeeded();
    if (await context.twoFactor.enabledFor(Number(user.id))) return askForSecondFactor(context, request, reply, user);
    return completeLogin(context, request, reply, user);
  });

  /** The sign-in's code step: the pending sign-in of POST /api/user/login, then a TOTP or backup code. */
  app.post('/api/user/login/2fa', { preHandler: criticalRateLimit(context) }, async (request, reply) => {
    const body = parseInput(twoFactorLoginBody, request.body);
    const token = pendingTokenOf(request, body.flow_token);
    const pendingUserId = await context.twoFactor.pendingLogin(token);
    if (pendingUserId === undefined) throw badRequest(EXPIRED, 'two_factor:login_expired');
    const user = await repository.findById(pendingUserId);
    if (!user || user.deleted_at !== null) throw badRequest(EXPIRED, 'two_factor:login_expired');
    if (Number(user.status) !== UserStatus.Enabled) throw forbidden('用户已被封禁', 'auth:user_banned');
    try {
      await context.twoFactor.checkCode(pendingUserId, body.code, { backup: true });
    } catch (error) {
      if (isAdmin(Number(user.role)) && error instanceof AppError && error.status < 500) recordAdminLogin(context, request, user, false, '2fa');
      throw error;
    }
    // The code was right; the sign-in itself completes once, whichever node or tab asks first.
    if (!(await context.twoFactor.consumeLogin(token))) throw badRequest(EXPIRED, 'two_factor:login_expired');
    reply.clearCookie(PENDING_COOKIE, { path: PENDING_COOKIE_PATH });
    return completeLogin(context, request, reply, user);
  });

  app.get('/api/user/logout', async (request, reply) => {
    await endSession(request, reply, repository.sessions);
    return ok(undefined, '已退出登录');
  });

  /** The signed-in user's sessions (browsers), the one making this call marked `current`. */
  app.get('/api/user/self/sessions', { preHandler: signedIn }, async (request) => {
    const sessions = await repository.sessions.listLive(Number(currentUser(request).id), Math.floor(Date.now() / 1000));
    return ok<UserSession[]>(
      sessions.map((session) => ({
        id: Number(session.id),
        created_at: Number(session.created_at),
        last_seen_at: Number(session.last_seen_at),
        expires_at: Number(session.expires_at),
        ip: session.ip,
        user_agent: session.user_agent,
        current: Number(session.id) === request.sessionId,
      })),
    );
  });

  app.delete('/api/user/self/sessions/:id', { preHandler: signedIn }, async (request, reply) => {
    const id = parseInput(sessionId, (request.params as { id: string }).id);
    // Someone else's session reads as missing: its id tells the caller nothing.
    if (!(await repository.sessions.revoke(Number(currentUser(request).id), id))) throw badRequest('会话不存在或已失效', 'session:not_found');
    if (id === request.sessionId) clearSessionCookie(reply);
    return ok(undefined, '会话已注销');
  });

  app.post('/api/user/register', { preHandler: [critical, turnstile] }, async (request) => {
    if (!options.bool('RegisterEnabled')) throw forbidden('管理员关闭了新用户注册', 'auth:register_disabled');
    if (!options.bool('PasswordRegisterEnabled')) {
      throw forbidden('管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册', 'auth:password_register_disabled');
    }
    const body = parseInput(registerBody, request.body);
    if (body.password2 !== undefined && body.password2 !== body.password) throw badRequest('两次输入的密码不一致', 'auth:password_mismatch');
    await assertUsernameAvailable(repository, body.username);
    let email = '';
    if (options.bool('EmailVerificationEnabled')) {
      if (body.email === '' || body.verification_code === '') {
        throw badRequest('管理员开启了邮箱验证，请输入邮箱地址和验证码', 'auth:email_verification_required');
      }
      email = normaliseEmail(body.email);
      assertEmailAllowed(options, email);
      if (await repository.emailTaken(email)) throw badRequest('邮箱地址已被占用', 'email:taken');
      // Checked last, so a refusal above does not use up the code.
      if (!(await consumeEmailVerificationCode(context, email, body.verification_code))) {
        throw badRequest('验证码错误或已过期', 'verification:code_invalid');
      }
    }
    await createUser(context, { username: body.username, password: body.password, email, inviterAffCode: body.aff_code });
    return ok(undefined, '注册成功！');
  });

  app.get('/api/verification', { preHandler: [critical, turnstile] }, async (request) => {
    const email = normaliseEmail((request.query as Record<string, unknown>).email);
    await sendEmailVerificationCode(context, email);
    return ok(undefined, '验证码发送成功，请检查你的邮箱！');
  });

  app.get('/api/reset_password', { preHandler: [critical, turnstile] }, async (request) => {
    const email = normaliseEmail((request.query as Record<string, unknown>).email);
    await sendPasswordResetLink(context, email, requestOrigin(request));
    return ok(undefined, '重置邮件发送成功，请检查邮箱！');
  });

  app.post('/api/user/reset', { preHandler: critical }, async (request) => {
    const body = parseInput(resetBody, request.body);
    if (body.email.trim() === '' || body.token === '') throw badRequest('无效的参数', 'request:invalid_parameter');
    const password = await resetPasswordWithToken(context, normaliseEmail(body.email), body.token);
    return ok(password, '密码已重置');
  });

  app.get('/api/user/self', { preHandler: signedIn }, async (request) => ok((await withSpendableQuota(balances, [toPublicUser(currentUser(request))]))[0]));

  app.get('/api/user/token', { preHandler: signedIn }, async (request) => {
    const token = await users.resetAccessToken(Number(currentUser(request).id));
    return ok(token, '令牌已重置');
  });
}

/** The CRITICAL_RATE_LIMIT rule (per IP, 20 minutes) for sign-in, registration and mail sending. */
export function criticalRateLimit(context: AppContext): preHandlerAsyncHookHandler {
  return async (request) =>
    enforceRateLimit(context.rateLimits, { bucket: 'critical', limit: context.config.rateLimits.critical, windowSeconds: 20 * 60 }, request.ip);
}
