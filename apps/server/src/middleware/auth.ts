import { Role, UserStatus } from '@modelgate/contract';
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { AppError, forbidden, unauthorized } from '../errors/app-error.js';
import type { UserRepository, UserRow } from '../domain/users/user-repository.js';
import { findSession } from './session.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, set by the auth guards. */
    user?: UserRow;
    /** The id of the session the caller signed in with (none for an access token). */
    sessionId?: number;
    /** When that session last re-verified its user (Unix seconds, 0: never) and how. */
    sessionVerifiedAt?: number;
    sessionVerifiedMethod?: string;
  }
}

export type RoleLevel = 'user' | 'admin' | 'root';

const minimumRole: Record<RoleLevel, number> = { user: Role.Common, admin: Role.Admin, root: Role.Root };

/** The access token from `Authorization: <token>` or `Authorization: Bearer <token>`. */
function accessTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization?.trim();
  if (!header) return undefined;
  const token = header.replace(/^Bearer\s+/i, '').trim();
  return token || undefined;
}

/**
 * Resolves the caller of a console request: a live session or the system access token, and
 * in both cases a New-Api-User header naming the same user.
 */
export async function authenticate(request: FastifyRequest, users: UserRepository): Promise<UserRow> {
  let user: UserRow | undefined;
  const session = await findSession(request, users.sessions);
  if (session !== undefined) {
    user = await users.findById(Number(session.user_id));
    request.sessionId = Number(session.id);
    request.sessionVerifiedAt = Number(session.verified_at);
    request.sessionVerifiedMethod = session.verified_method;
  } else {
    const accessToken = accessTokenOf(request);
    if (accessToken === undefined) throw unauthorized('无权进行此操作，未登录且未提供 access token', 'auth:not_logged_in');
    user = await users.findByAccessToken(accessToken);
    if (!user) throw unauthorized('无权进行此操作，access token 无效', 'auth:invalid_access_token');
  }
  if (!user || user.deleted_at !== null) throw unauthorized('未登录或登录已过期，请重新登录', 'auth:user_deleted');

  const headerValue = request.headers['new-api-user'];
  const claimed = Array.isArray(headerValue) ? headerValue[0] : headerValue;
  if (claimed === undefined || claimed === '') {
    throw unauthorized('无权进行此操作，未提供 New-Api-User', 'auth:missing_user_header');
  }
  if (!/^\d+$/.test(claimed.trim()) || Number(claimed) !== Number(user.id)) {
    throw unauthorized('无权进行此操作，New-Api-User 与登录用户不匹配', 'auth:user_header_mismatch');
  }
  if (Number(user.status) !== UserStatus.Enabled) throw unauthorized('用户已被封禁', 'auth:user_banned');
  return user;
}

/** Marks a guard with its level, so route walks (http/audit-coverage.ts) can tell admin routes apart. */
const GUARD_LEVEL = Symbol('guard level');

export function authGuard(users: UserRepository, level: RoleLevel): preHandlerAsyncHookHandler {
  const guard: preHandlerAsyncHookHandler = async (request) => {
    const user = await authenticate(request, users);
    if (Number(user.role) < minimumRole[level]) throw forbidden('无权进行此操作，权限不足', 'auth:insufficient_role');
    request.user = user;
  };
  return Object.assign(guard, { [GUARD_LEVEL]: level });
}

/** The level of an auth guard among a route's preHandlers (one or a list), or undefined when it has none. */
export function guardLevelOf(preHandlers: unknown): RoleLevel | undefined {
  const handlers = Array.isArray(preHandlers) ? preHandlers : [preHandlers];
  for (const handler of handlers) {
    const level = typeof handler === 'function' ? (handler as { [GUARD_LEVEL]?: RoleLevel })[GUARD_LEVEL] : undefined;
    if (level) return level;
  }
  return undefined;
}

/** The signed-in user of a guarded route. */
export function currentUser(request: FastifyRequest): UserRow {
  if (!request.user) throw new AppError('server:no_user', 'route is missing its auth guard', { status: 500 });
  return request.user;
}
