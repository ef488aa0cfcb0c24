import { Role, TokenStatus, UserStatus } from '@modelgate/contract';
import type { FastifyRequest } from 'fastify';
import type { RelayRequest } from './relay-exchange.js';
import type { AppContext } from '../app-context.js';
import { AppError } from '../errors/app-error.js';
import type { RelayCache } from '../domain/relay-cache/relay-cache.js';
import type { CachedToken } from '../domain/relay-cache/token-cache.js';
import type { CachedUser } from '../domain/relay-cache/user-cache.js';
import { playgroundCaller } from './playground-caller.js';
import type { RelayCaller } from './relay-caller.js';

export type { RelayCaller } from './relay-caller.js';

const authError = (code: string, message: string, status = 401) =>
  new AppError(`auth:${code}`, message, { status, type: status === 401 ? 'invalid_request_error' : 'new_api_error' });

/** `Bearer sk-<key>`, `Bearer <key>` or the bare key; an optional `-<channelId>` suffix pins a channel. */
type ParsedKey = { key: string; channelPart: string | undefined };

export function parseRelayKey(header: string | undefined): ParsedKey | undefined {
  if (!header) return undefined;
  let value = header.trim();
  if (/^bearer\s/i.test(value)) value = value.slice(6).trim();
  if (value.startsWith('sk-')) value = value.slice(3);
  if (value === '') return undefined;
  const dash = value.indexOf('-');
  if (dash === -1) return { key: value, channelPart: undefined };
  return { key: value.slice(0, dash), channelPart: value.slice(dash + 1) };
}

/**
 * Where the key travels: `Authorization: Bearer` (OpenAI), `x-api-key` (Anthropic), `x-goog-api-key`
 * or `?key=` (Gemini), as each protocol's official clients send it.
 */
export function relayKeyOf(request: RelayRequest): string | undefined {
  const headers = request.headers;
  if (headers.authorization) return headers.authorization;
  const anthropic = headers['x-api-key'];
  if (typeof anthropic === 'string' && anthropic !== '') return anthropic;
  const google = headers['x-goog-api-key'];
  if (typeof google === 'string' && google !== '') return google;
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.key === 'string' && query.key !== '' ? query.key : undefined;
}

export class RelayAuthenticator {
  constructor(
    private readonly context: AppContext,
    private readonly cache: RelayCache,
  ) {}

  /**
   * Resolves the caller. With the token and its user cached (nearly every request) this is
   * synchronous; only a cache miss returns a promise.
   */
  authenticate(request: RelayRequest): RelayCaller | Promise<RelayCaller> {
    const parsed = parseRelayKey(relayKeyOf(request));
    if (!parsed) {
      throw authError('missing_api_key', '未提供令牌：请在请求头中携带 Authorization: Bearer sk-... (no API key provided)');
    }
    const { tokens, users } = this.cache;
    const token = tokens.peek(parsed.key);
    const user = token && users.peek(token.userId);
    if (token && user) return this.admit(request, parsed, token, user);
    return this.authenticateLoading(request, parsed, token);
  }

  /** The console's playground: the signed-in user, billed without a token. */
  authenticateSession(request: FastifyRequest): Promise<RelayCaller> {
    return playgroundCaller(request, this.context, this.cache);
  }

  private async authenticateLoading(request: RelayRequest, parsed: ParsedKey, cached: CachedToken | undefined): Promise<RelayCaller> {
    const { tokens, users } = this.cache;
    const token = cached ?? (tokens.knownMissing(parsed.key) ? undefined : await tokens.load(parsed.key));
    if (!token) throw authError('invalid_api_key', '无效的令牌，请检查 API Key 是否正确 (invalid API key)');
    // The token's own checks come first: a disabled key says so even when its user is gone.
    this.checkToken(token);
    this.checkIp(token, request.ip);
    const user = users.peek(token.userId) ?? (await users.load(token.userId));
    return this.admit(request, parsed, token, user);
  }

  private admit(request: RelayRequest, parsed: ParsedKey, token: CachedToken, user: CachedUser | undefined): RelayCaller {
    this.checkToken(token);
    const clientIp = request.ip;
    this.checkIp(token, clientIp);
    if (!user || user.deleted) throw authError('invalid_api_key', '令牌所属用户不存在 (the user of this key no longer exists)');
    if (user.status !== UserStatus.Enabled) throw authError('user_banned', '用户已被封禁 (this user is banned)', 403);

    let pinnedChannelId: number | undefined;
    if (parsed.channelPart !== undefined) {
      if (user.role < Role.Admin) {
        throw authError('channel_pin_forbidden', '普通用户不支持指定渠道 (only administrators may pin a channel with sk-<key>-<channel id>)', 403);
      }
      if (!/^\d+$/.test(parsed.channelPart)) throw authError('invalid_api_key', '无效的令牌：渠道 ID 格式错误 (invalid channel id in the key)');
      pinnedChannelId = Number(parsed.channelPart);
    }

    return { token, user, group: this.groupOf(token, user), pinnedChannelId, clientIp };
  }

  private checkIp(token: CachedToken, clientIp: string): void {
    if (token.allowIps && !token.allowIps.allows(clientIp)) {
      throw authError('ip_not_allowed', `您的 IP ${clientIp} 不在该令牌允许访问的 IP 列表中 (this token does not accept requests from ${clientIp})`, 403);
    }
  }

  /** Model limits: with limits on, only the listed models (none listed = none allowed). */
  checkModel(caller: RelayCaller, model: string): void {
    const limits = caller.token.modelLimits;
    if (limits && !limits.has(model)) {
      throw new AppError('auth:model_not_allowed', `该令牌无权使用模型 ${model}，请在令牌设置中允许它 (this token may not use model ${model})`, {
        status: 403,
        type: 'new_api_error',
      });
    }
  }

  private checkToken(token: CachedToken): void {
    if (token.status === TokenStatus.Expired) throw authError('token_expired', '该令牌已过期，请延长有效期或换用其他令牌 (this key has expired)');
    if (token.status === TokenStatus.Exhausted) {
      throw authError('token_exhausted', '该令牌额度已用尽，请提高令牌额度或换用其他令牌 (this key has no quota left)', 403);
    }
    if (token.status !== TokenStatus.Enabled) throw authError('token_disabled', '该令牌已被禁用 (this key is disabled)');
    if (token.expiredTime !== -1 && token.expiredTime < Date.now() / 1000) {
      this.markToken(token, TokenStatus.Expired);
      throw authError('token_expired', '该令牌已过期，请延长有效期或换用其他令牌 (this key has expired)');
    }
    if (!token.unlimited && token.remainQuota <= 0) {
      this.markToken(token, TokenStatus.Exhausted);
      throw authError('token_exhausted', '该令牌额度已用尽，请提高令牌额度或换用其他令牌 (this key has no quota left)', 403);
    }
  }

  private groupOf(token: CachedToken, user: CachedUser): string {
    if (token.group === '' || token.group === user.group) return user.group;
    const usable = this.context.options.json<Record<string, unknown>>('UserUsableGroups');
    if (!Object.hasOwn(usable, token.group)) {
      throw authError('group_forbidden', `无权访问 ${token.group} 分组，请修改令牌的分组 (this key's group ${token.group} is not available to its user)`, 403);
    }
    return token.group;
  }

  /** Records why the token stopped working; the cache sees it at once, the database shortly. */
  private markToken(token: CachedToken, status: number): void {
    token.status = status;
    this.context.db.kysely
      .updateTable('tokens')
      .set({ status })
      .where('id', '=', token.id)
      .where('status', '=', TokenStatus.Enabled)
      .execute()
      .then(() => this.context.changes.emit('token', token.key))
      .catch((error: unknown) => this.context.logger.error({ err: error, tokenId: token.id }, 'could not record token status'));
  }
}
