import { TokenStatus } from '@modelgate/contract';
import type { EventEmitter } from 'node:events';
import type { Updateable } from 'kysely';
import type { ChangeEvents } from '../../lib/cluster-changes.js';
import type { Db } from '../../db/index.js';
import type { TokensTable } from '../../db/schema.js';
import { badRequest, notFound } from '../../errors/app-error.js';
import type { Paging } from '../../lib/paging.js';
import { setSpendableBalance } from '../billing/balance-set.js';
import { LeaseKind } from '../billing/lease-book.js';
import type { SpendableQuota } from '../billing/spendable-quota.js';
import type { OptionService } from '../options/option-service.js';
import type { UserRow } from '../users/user-repository.js';
import { randomAlphanumeric } from '../users/user-service.js';
import {
  checkAllowIps,
  checkExpiry,
  checkName,
  isExhausted,
  isExpired,
  TOKEN_BATCH_MAX,
  TOKEN_KEY_LENGTH,
  type TokenInput,
  type TokenRow,
} from './token-fields.js';
import { TokenRepository, type TokenSearch } from './token-repository.js';
import { mayUseGroup } from './usable-groups.js';

export const EXPIRED_MESSAGE = '令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期';
export const EXHAUSTED_MESSAGE = '令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度';
const NOT_FOUND_MESSAGE = '令牌不存在';
const KEY_ATTEMPTS = 3;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A user's own tokens. Every write tells the key caches through `changes.emit('token', key)`. */
export class TokenService {
  readonly repository: TokenRepository;

  constructor(
    private readonly db: Db,
    private readonly options: OptionService,
    private readonly changes: EventEmitter<ChangeEvents>,
  ) {
    this.repository = new TokenRepository(db);
  }

  list(userId: number, search: TokenSearch, paging: Paging) {
    return this.repository.list(userId, search, paging);
  }

  async get(userId: number, id: number): Promise<TokenRow> {
    const token = await this.repository.findOwned(userId, id);
    if (!token) throw notFound(NOT_FOUND_MESSAGE, 'token:not_found');
    return token;
  }

  private checkGroup(user: UserRow, group: string): string {
    const trimmed = group.trim();
    if (!mayUseGroup(this.options, user.group, trimmed)) throw badRequest(`无权使用分组：${trimmed}`, 'token:group_not_allowed');
    return trimmed;
  }

  /** Creates `count` tokens (default 1); names after the first get a dash and six random characters. */
  async create(user: UserRow, input: TokenInput): Promise<TokenRow[]> {
    const name = checkName(input.name, true)!;
    const count = input.count ?? 1;
    if (count < 1 || count > TOKEN_BATCH_MAX) throw badRequest(`令牌数量必须是 1 到 ${TOKEN_BATCH_MAX} 之间的整数`, 'token:invalid_count');
    const now = nowSeconds();
    const values = {
      user_id: Number(user.id),
      status: TokenStatus.Enabled,
      created_time: now,
      accessed_time: now,
      expired_time: checkExpiry(input.expired_time ?? -1, now),
      remain_quota: input.remain_quota ?? 0,
      unlimited_quota: input.unlimited_quota ? 1 : 0,
      model_limits_enabled: input.model_limits_enabled ? 1 : 0,
      model_limits: input.model_limits ?? '',
      allow_ips: checkAllowIps(input.allow_ips ?? ''),
      group: this.checkGroup(user, input.group ?? ''),
      rpm_limit: input.rpm_limit ?? 0,
      tpm_limit: input.tpm_limit ?? 0,
      rpd_limit: input.rpd_limit ?? 0,
      concurrency_limit: input.concurrency_limit ?? 0,
    };
    const created: TokenRow[] = [];
    for (let index = 0; index < count; index += 1) {
      const tokenName = index === 0 ? name : `${name}-${randomAlphanumeric(6)}`;
      created.push(await this.insertWithFreshKey({ ...values, name: tokenName }));
    }
    return created;
  }

  /** 48 CSPRNG characters collide with odds near 62^-48; the unique index is the real guard. */
  private async insertWithFreshKey(values: Omit<TokenRow, 'id' | 'key' | 'used_quota' | 'deleted_at'>): Promise<TokenRow> {
    for (let attempt = 1; ; attempt += 1) {
      const key = randomAlphanumeric(TOKEN_KEY_LENGTH);
      try {
        const id = await this.repository.insert({ ...values, key });
        this.changes.emit('token', key);
        return await this.get(Number(values.user_id), id);
      } catch (error) {
        if (attempt >= KEY_ATTEMPTS || !(await this.repository.findByKey(key))) throw error;
      }
    }
  }

  /**
   * Full edit of the fields sent. A token that had been marked expired or exhausted comes back
   * on when the edit removes the cause, and is marked again if the edit brings the cause back;
   * its balance is what it can spend (`balances`), not the column, which the relay's leases empty.
   */
  async update(user: UserRow, input: TokenInput, balances: SpendableQuota): Promise<TokenRow> {
    if (input.id === undefined) throw badRequest('令牌 ID 不能为空', 'token:missing_id');
    const userId = Number(user.id);
    const current = await this.get(userId, input.id);
    const now = nowSeconds();
    const values: Updateable<TokensTable> = {};
    const name = checkName(input.name, false);
    if (name !== undefined) values.name = name;
    if (input.expired_time !== undefined) values.expired_time = checkExpiry(input.expired_time, now, Number(current.expired_time));
    if (input.unlimited_quota !== undefined) values.unlimited_quota = input.unlimited_quota ? 1 : 0;
    if (input.model_limits_enabled !== undefined) values.model_limits_enabled = input.model_limits_enabled ? 1 : 0;
    if (input.model_limits !== undefined) values.model_limits = input.model_limits;
    if (input.allow_ips !== undefined) values.allow_ips = checkAllowIps(input.allow_ips);
    if (input.group !== undefined) values.group = this.checkGroup(user, input.group);
    if (input.rpm_limit !== undefined) values.rpm_limit = input.rpm_limit;
    if (input.tpm_limit !== undefined) values.tpm_limit = input.tpm_limit;
    if (input.rpd_limit !== undefined) values.rpd_limit = input.rpd_limit;
    if (input.concurrency_limit !== undefined) values.concurrency_limit = input.concurrency_limit;

    // The relay marks tokens as they run out; an edit only repairs (or re-marks) marked ones.
    const status = Number(current.status);
    if (status === TokenStatus.Expired || status === TokenStatus.Exhausted) {
      const remain = input.remain_quota ?? (await balances.read(LeaseKind.Token, input.id))?.balance ?? Number(current.remain_quota);
      const after = { ...current, ...values, remain_quota: remain } as TokenRow;
      const derived = isExpired(after, now) ? TokenStatus.Expired : isExhausted(after) ? TokenStatus.Exhausted : TokenStatus.Enabled;
      if (derived !== status) values.status = derived;
    }
    if (input.remain_quota === undefined) {
      await this.repository.update(userId, input.id, values);
    } else {
      // The balance the token can spend from now on, with what calls in flight hold counted in;
      // the other fields in the same transaction.
      const id = input.id;
      await setSpendableBalance(this.db, LeaseKind.Token, id, input.remain_quota, (trx) => this.repository.update(userId, id, values, trx));
    }
    this.changes.emit('token', current.key);
    return this.get(userId, input.id);
  }

  /**
   * ?status_only=true: a user switches a token between enabled (1) and disabled (2); on only while
   * it is unexpired and has something to spend (`balances`: the leases counted in).
   */
  async setStatus(user: UserRow, id: number | undefined, status: number | undefined, balances: SpendableQuota): Promise<TokenRow> {
    if (id === undefined) throw badRequest('令牌 ID 不能为空', 'token:missing_id');
    if (status !== TokenStatus.Enabled && status !== TokenStatus.Disabled) {
      throw badRequest('令牌状态只能是 1（启用）或 2（禁用）', 'token:invalid_status');
    }
    const userId = Number(user.id);
    const current = await this.get(userId, id);
    if (status === TokenStatus.Enabled) {
      const now = nowSeconds();
      const enabled = await this.db.kysely.transaction().execute(async (trx) => {
        await balances.lockLeases(trx, LeaseKind.Token, id);
        return this.repository.enableIfUsable(userId, id, now, balances.inStatement(LeaseKind.Token, id), trx);
      });
      if (!enabled) {
        const latest = await this.get(userId, id);
        if (isExpired(latest, now)) throw badRequest(EXPIRED_MESSAGE, 'token:expired');
        throw badRequest(EXHAUSTED_MESSAGE, 'token:exhausted');
      }
    } else {
      await this.repository.update(userId, id, { status });
    }
    this.changes.emit('token', current.key);
    return this.get(userId, id);
  }

  /** Deleted for good, as in new-api; the change event makes the key stop working at once. */
  async remove(userId: number, id: number): Promise<void> {
    const current = await this.get(userId, id);
    if (!(await this.repository.delete(userId, id))) throw notFound(NOT_FOUND_MESSAGE, 'token:not_found');
    this.changes.emit('token', current.key);
  }

  /**
   * new-api's batch delete: the user's tokens among `ids` are deleted for good (another user's ids
   * are passed over, as in new-api); answers how many were deleted.
   */
  async removeMany(userId: number, ids: number[]): Promise<number> {
    const keys = await this.repository.deleteMany(userId, [...new Set(ids)]);
    for (const key of keys) this.changes.emit('token', key);
    return keys.length;
  }
}
