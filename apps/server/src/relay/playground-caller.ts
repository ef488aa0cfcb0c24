import { TokenStatus, UserStatus } from '@modelgate/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import { AppError } from '../errors/app-error.js';
import { authenticate } from '../middleware/auth.js';
import type { RelayCache } from '../domain/relay-cache/relay-cache.js';
import { mayUseGroup } from '../domain/tokens/usable-groups.js';
import type { RelayCaller } from './relay-caller.js';
import type { RelayRequestBody } from './relay-input.js';

/** The playground's token id: none. The call is billed to the user alone, as new-api does. */
export const PLAYGROUND_TOKEN_ID = 0;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The caller of `POST /pg/chat/completions`: the console's signed-in user (session cookie and
 * New-Api-User, as every console call), in the group the body names (one the user may use) or
 * its own. The call runs under a token that exists only for it, `playground-<group>`, unlimited,
 * so the user's balance alone pays, and the logs say where the call came from.
 *
 * The body's `group` is the console's, not the model's: it is removed before the request goes
 * upstream, and so is `max_tokens: 0` (the playground's "unset").
 */
export async function playgroundCaller(request: FastifyRequest, context: AppContext, cache: RelayCache): Promise<RelayCaller> {
  const signedIn = await authenticate(request, context.users.repository);
  if (request.sessionId === undefined) {
    throw new AppError('auth:playground_session_only', '操练场仅支持登录会话，暂不支持使用 access token (the playground needs a signed-in session)', {
      status: 401,
      type: 'invalid_request_error',
    });
  }
  const user = cache.users.peek(Number(signedIn.id)) ?? (await cache.users.load(Number(signedIn.id)));
  if (!user || user.deleted) throw new AppError('auth:user_deleted', '未登录或登录已过期，请重新登录', { status: 401, type: 'invalid_request_error' });
  if (user.status !== UserStatus.Enabled) throw new AppError('auth:user_banned', '用户已被封禁 (this user is banned)', { status: 403, type: 'new_api_error' });

  const group = takeGroup(request);
  if (group !== undefined && group !== user.group && !mayUseGroup(context.options, user.group, group)) {
    throw new AppError('auth:group_forbidden', `无权访问 ${group} 分组 (group ${group} is not available to you)`, { status: 403, type: 'new_api_error' });
  }
  const chosen = group ?? user.group;
  return {
    token: {
      id: PLAYGROUND_TOKEN_ID,
      key: '',
      userId: user.id,
      name: `playground-${chosen}`,
      status: TokenStatus.Enabled,
      expiredTime: -1,
      remainQuota: 0,
      unlimited: true,
      modelLimits: undefined,
      allowIps: undefined,
      group: chosen,
    },
    user,
    group: chosen,
    pinnedChannelId: undefined,
    clientIp: request.ip,
  };
}

/** Reads and removes the console-only fields of a JSON body; a non-JSON body is left to the relay's own checks. */
function takeGroup(request: FastifyRequest): string | undefined {
  const body = request.body as RelayRequestBody | undefined;
  if (body?.kind !== 'json' || !isObject(body.json)) return undefined;
  const { group, ...rest } = body.json;
  if (group !== undefined && typeof group !== 'string') {
    throw new AppError('request:invalid_group', 'group 必须是字符串 (group must be a string)', { status: 400 });
  }
  if (rest.max_tokens === 0) delete rest.max_tokens;
  if (group !== undefined || rest.max_tokens !== body.json.max_tokens) {
    request.body = { kind: 'json', json: rest, raw: JSON.stringify(rest) } satisfies RelayRequestBody;
  }
  const trimmed = group?.trim();
  return trimmed === '' ? undefined : trimmed;
}
