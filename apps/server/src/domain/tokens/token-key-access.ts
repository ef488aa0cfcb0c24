import { isRoot, LogKind, LogType } from '@modelgate/contract';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { notFound } from '../../errors/app-error.js';
import { insertLogRow } from '../logs/log-buffer.js';
import type { UserRow } from '../users/user-repository.js';
import { TOKEN_BATCH_MAX, type TokenRow } from './token-fields.js';
import type { TokenRepository } from './token-repository.js';

const NOT_FOUND_MESSAGE = '令牌不存在';
/** The action name new-api's audit log gives this event (other.op.action). */
export const ADMIN_KEY_VIEW_ACTION = 'token.admin_key_view';

export interface KeyReader {
  user: UserRow;
  /** Written into the management log when the super administrator reads another user's key. */
  ip: string;
}

/**
 * The only way a full token key leaves the server (new-api's POST /api/token/{id}/key and
 * /api/token/batch/keys). Keys are answered without `sk-`, as stored; lists carry masked keys.
 */
export class TokenKeyAccess {
  constructor(
    private readonly context: AppContext,
    private readonly tokens: TokenRepository,
  ) {}

  /**
   * The owner reads its own key. The super administrator may read anyone's, and reading
   * another user's writes a management log line under the administrator naming the token and
   * its owner (never the key). Everyone else gets "not found", so ids of others' tokens
   * cannot be probed.
   */
  async read(reader: KeyReader, id: number): Promise<string> {
    const readerId = Number(reader.user.id);
    const token = isRoot(Number(reader.user.role)) ? await this.tokens.findAnyById(id) : await this.tokens.findOwned(readerId, id);
    if (!token) throw notFound(NOT_FOUND_MESSAGE, 'token:not_found');
    if (Number(token.user_id) !== readerId) await this.logAdminRead(reader, token);
    return token.key;
  }

  /** Copy selected: the keys of those of `ids` the user owns, by id (others' ids are left out, as in new-api). */
  async readOwned(user: UserRow, ids: number[]): Promise<Record<number, string>> {
    const keys: Record<number, string> = {};
    for (const { id, key } of await this.tokens.ownedKeys(Number(user.id), [...new Set(ids)])) keys[id] = key;
    return keys;
  }

  private async logAdminRead(reader: KeyReader, token: TokenRow): Promise<void> {
    const ownerId = Number(token.user_id);
    // The audit line must not depend on the owner still being loadable: an unknown name stays empty.
    const owner = await this.context.users.repository.findById(ownerId);
    const ownerName = owner?.username ?? '';
    const params = { target_user_id: ownerId, target_username: ownerName, token_id: Number(token.id), token_name: token.name };
    await insertLogRow(this.context.db.kysely, {
      user_id: Number(reader.user.id),
      username: reader.user.username,
      type: LogType.Manage,
      content: `超级管理员查看了用户 ${ownerName || '(未知)'}（ID ${ownerId}）的令牌「${token.name}」（ID ${Number(token.id)}）的密钥`,
      ip: reader.ip,
      other: JSON.stringify({
        kind: LogKind.TokenKeyView,
        admin_info: { admin_id: Number(reader.user.id), admin_username: reader.user.username },
        op: { action: ADMIN_KEY_VIEW_ACTION, params },
      }),
      created_at: Math.floor(Date.now() / 1000),
    });
    this.context.audit.record({
      actor: { id: Number(reader.user.id), username: reader.user.username, role: Number(reader.user.role) },
      ip: reader.ip,
      action: 'token.key_reveal',
      target: { type: 'token', id: Number(token.id) },
      summary: `查看用户 ${ownerName || '(未知)'}（ID ${ownerId}）的令牌「${token.name}」（ID ${Number(token.id)}）的密钥`,
      params,
    });
  }
}

/** new-api's batch body: {ids: [...]}, 1 to 100 token ids. */
export const tokenIdsSchema = z.object(
  {
    ids: z
      .array(z.number({ error: '令牌 ID 必须是正整数' }).int('令牌 ID 必须是正整数').positive('令牌 ID 必须是正整数'), { error: '请选择至少一个令牌' })
      .min(1, '请选择至少一个令牌')
      .max(TOKEN_BATCH_MAX, `一次最多读取 ${TOKEN_BATCH_MAX} 个令牌的密钥`),
  },
  { error: '请求体应为 {"ids": [令牌 ID, ...]}' },
);

/** new-api's batch delete body: {ids: [...]}, 1 to 100 token ids (a console page at most). */
export const tokenDeleteIdsSchema = z.object(
  {
    ids: z
      .array(z.number({ error: '令牌 ID 必须是正整数' }).int('令牌 ID 必须是正整数').positive('令牌 ID 必须是正整数'), { error: '请选择至少一个令牌' })
      .min(1, '请选择至少一个令牌')
      .max(TOKEN_BATCH_MAX, `一次最多删除 ${TOKEN_BATCH_MAX} 个令牌`),
  },
  { error: '请求体应为 {"ids": [令牌 ID, ...]}' },
);
