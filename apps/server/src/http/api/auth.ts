import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, Role, USERNAME_MAX_LENGTH, UserStatus } from '@modelgate/contract';
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { AppError, badRequest, forbidden } from '../../errors/app-error.js';
import { hashPassword, verifyPassword } from '../../domain/users/password.js';
import { randomAlphanumeric } from '../../domain/users/user-service.js';
import { toPublicUser } from '../../domain/users/user-repository.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { enforceRateLimit } from '../../middleware/rate-limit.js';
import { endSession, startSession } from '../../middleware/session.js';
import { ok, parseInput } from '../envelope.js';

const loginBody = z.object({
  username: z.string().trim().optional().default(''),
  password: z.string().optional().default(''),
});

const registerBody = z.object({
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

export function authRoutes(app: FastifyInstance, context: AppContext): void {
  const { options, users } = context;
  const repository = users.repository;
  const signedIn = authGuard(repository, 'user');
  const critical: preHandlerAsyncHookHandler = async (request) =>
    enforceRateLimit(context.rateLimits, { bucket: 'critical', limit: context.config.rateLimits.critical, windowSeconds: 20 * 60 }, request.ip);

  app.post('/api/user/login', { preHandler: critical }, async (request, reply) => {
    if (!options.bool('PasswordLoginEnabled')) throw forbidden('管理员关闭了密码登录', 'auth:password_login_disabled');
    const { username, password } = parseInput(loginBody, request.body);
    if (username === '' || password === '') throw badRequest('请输入用户名和密码！', 'auth:missing_credentials');
    const user = await repository.findLiveByLogin(username);
    if (!user || !(await verifyPassword(password, user.password))) {
      throw new AppError('auth:wrong_credentials', '用户名或密码错误', { status: 401 });
    }
    if (Number(user.status) !== UserStatus.Enabled) throw forbidden('用户已被封禁', 'auth:user_banned');
    startSession(request, reply, Number(user.id));
    return ok(
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
  });

  app.get('/api/user/logout', async (_request, reply) => {
    endSession(reply);
    return ok(undefined, '已退出登录');
  });

  app.post('/api/user/register', { preHandler: critical }, async (request) => {
    if (!options.bool('RegisterEnabled')) throw forbidden('管理员关闭了新用户注册', 'auth:register_disabled');
    if (!options.bool('PasswordRegisterEnabled')) {
      throw forbidden('管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册', 'auth:password_register_disabled');
    }
    const body = parseInput(registerBody, request.body);
    if (body.password2 !== undefined && body.password2 !== body.password) throw badRequest('两次输入的密码不一致', 'auth:password_mismatch');
    if (await repository.usernameTaken(body.username)) throw badRequest('用户名已存在，或已注销', 'auth:username_taken');
    await repository.insert({
      username: body.username,
      password: await hashPassword(body.password),
      display_name: body.username,
      role: Role.Common,
      status: UserStatus.Enabled,
      quota: options.number('QuotaForNewUser'),
      aff_code: randomAlphanumeric(6),
    });
    return ok(undefined, '注册成功！');
  });

  app.get('/api/user/self', { preHandler: signedIn }, async (request) => ok(toPublicUser(currentUser(request))));

  app.get('/api/user/token', { preHandler: signedIn }, async (request) => {
    const token = await users.resetAccessToken(Number(currentUser(request).id));
    return ok(token, '令牌已重置');
  });
}
