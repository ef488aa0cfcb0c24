import { UserStatus } from '@modelgate/contract';
import type { LoginTwoFactorRequired } from '@modelgate/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { forbidden } from '../../errors/app-error.js';
import { PENDING_LOGIN_SECONDS } from '../../domain/users/two-factor.js';
import type { UserRow } from '../../domain/users/user-repository.js';
import { ok } from '../envelope.js';
import { twoFactorCode } from './two-factor.js';

export const twoFactorLoginBody = z.object({
  code: twoFactorCode,
  flow_token: z.string().trim().max(128, '会话已过期，请重新登录').optional().default(''),
});

/** The browser's pending sign-in: a signed cookie scoped to the sign-in routes. */
export const PENDING_COOKIE = 'two_fa_login';
export const PENDING_COOKIE_PATH = '/api/user/login';
export const EXPIRED = '会话已过期，请重新登录';

/**
 * The password was right and the account has 2FA: no session yet. The pending sign-in lives in
 * the database (two_fa_logins) so any node completes it, for 5 minutes, once; this browser gets its
 * token in a signed cookie and new-api's newer clients the same token as `flow_token`.
 */
export async function askForSecondFactor(context: AppContext, request: FastifyRequest, reply: FastifyReply, user: UserRow) {
  if (Number(user.status) !== UserStatus.Enabled) throw forbidden('用户已被封禁', 'auth:user_banned');
  const pending = await context.twoFactor.startLogin(Number(user.id));
  reply.setCookie(PENDING_COOKIE, pending.token, {
    signed: true,
    httpOnly: true,
    sameSite: 'strict',
    path: PENDING_COOKIE_PATH,
    maxAge: PENDING_LOGIN_SECONDS,
    secure: request.protocol === 'https',
  });
  return ok<LoginTwoFactorRequired>({ require_2fa: true, flow_token: pending.token, expires_at: pending.expiresAt }, '请输入两步验证码');
}

export function pendingTokenOf(request: FastifyRequest, flowToken: string): string {
  if (flowToken !== '') return flowToken;
  const raw = request.cookies[PENDING_COOKIE];
  if (!raw) return '';
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value ? unsigned.value : '';
}
