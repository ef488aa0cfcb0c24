import { LogKind, LogType, type ManageResult } from '@modelgate/contract';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { Database } from '../../db/schema.js';
import { AppError, badRequest, forbidden, notFound } from '../../errors/app-error.js';
import { setSpendableBalance } from '../billing/balance-set.js';
import { LeaseKind } from '../billing/lease-book.js';
import type { SpendableQuota } from '../billing/spendable-quota.js';
import { hashPassword } from './password.js';
import { decideManageAction, outranks, SAME_OR_HIGHER_UPDATE, type ManageAction } from './user-permissions.js';
import { formatLogQuota, recordUserLog } from './user-logs.js';
import { isUniqueViolation, type UserRow } from './user-repository.js';
import { assertUsernameAvailable, usernameTakenError } from './user-registration.js';

/** How an admin changes a balance: by a signed amount, by an amount taken away, or to a value. */
export type QuotaMode = 'add' | 'subtract' | 'override';

export interface ManageRequest {
  id: number;
  action: ManageAction;
  /** For add_quota: the amount (add: signed; subtract: taken away; override: the new balance). */
  value?: number;
  mode?: QuotaMode;
}

export interface AdminUserUpdate {
  id: number;
  username?: string;
  display_name?: string;
  password?: string;
  group?: string;
  quota?: number;
  remark?: string;
  /** Rate limits (relay/rate-limits/): 0 for no limit. */
  rpm_limit?: number | undefined;
  tpm_limit?: number | undefined;
  rpd_limit?: number | undefined;
  concurrency_limit?: number | undefined;
}

async function loadTarget(context: AppContext, id: number): Promise<UserRow> {
  const target = await context.users.repository.findById(id);
  if (!target) throw notFound('用户不存在', 'user:not_found');
  if (target.deleted_at !== null) throw badRequest('该用户已注销', 'user:deleted');
  return target;
}

const adminInfo = (actor: UserRow) => ({ admin_id: Number(actor.id), admin_username: actor.username });

/**
 * Changes a balance by `delta`, with its management log line in the same transaction. An amount
 * taken away is taken only from what the user can spend and no call in flight holds
 * (SpendableQuota.subtract), so the balance never goes below zero.
 */
export async function adjustQuota(context: AppContext, balances: SpendableQuota, actor: UserRow, target: UserRow, delta: number): Promise<void> {
  if (!Number.isSafeInteger(delta) || delta === 0) throw badRequest('额度变更值必须是非零整数', 'quota:invalid_delta');
  const id = Number(target.id);
  const amount = formatLogQuota(context.options, Math.abs(delta));
  const log = (trx: Kysely<Database>) =>
    recordUserLog(trx, {
      userId: id,
      username: target.username,
      type: LogType.Manage,
      content: delta > 0 ? `管理员增加用户额度 ${amount}` : `管理员减少用户额度 ${amount}`,
      other: { kind: delta > 0 ? LogKind.AdminAdd : LogKind.AdminSubtract, quota: Math.abs(delta), ...adminInfo(actor) },
    });
  if (delta > 0) {
    const added = await context.db.kysely.transaction().execute(async (trx) => {
      if (!(await context.users.repository.addQuota(id, delta, trx))) return false;
      await log(trx);
      return true;
    });
    if (!added) throw notFound('用户不存在', 'user:not_found');
    return;
  }
  const outcome = await balances.subtract(LeaseKind.User, id, -delta, log);
  if (outcome === 'short') throw badRequest('用户额度不足，无法扣减', 'quota:insufficient');
  if (outcome === 'held') {
    throw new AppError(
      'quota:held_in_flight',
      `用户额度中有一部分正被进行中的请求占用，暂时无法扣减 ${amount}，请几秒后重试 (part of the balance is held by calls in flight; retry in a few seconds)`,
      { status: 409, retryable: true },
    );
  }
}

/**
 * Sets a balance to `next` (new-api's PUT /api/user/ semantics): what the user can spend from now
 * on, with what the relay's calls in flight hold counted in (billing/balance-set.ts). The log's
 * "from" is the balance replaced, read under the same locks.
 */
export async function replaceQuota(context: AppContext, actor: UserRow, target: UserRow, next: number): Promise<void> {
  const replaced = await setSpendableBalance(context.db, LeaseKind.User, Number(target.id), next, async (trx, before) => {
    if (before === next) return;
    await recordUserLog(trx, {
      userId: Number(target.id),
      username: target.username,
      type: LogType.Manage,
      content: `管理员将用户额度从 ${formatLogQuota(context.options, before)}修改为 ${formatLogQuota(context.options, next)}`,
      other: { kind: LogKind.AdminSet, quota_before: before, quota_after: next, ...adminInfo(actor) },
    });
  });
  if (replaced === undefined) throw notFound('用户不存在', 'user:not_found');
}

/** POST /api/user/manage: promote, demote, disable, enable, delete or add_quota; answers with the balance the user can spend. */
export async function manageUser(context: AppContext, balances: SpendableQuota, actor: UserRow, request: ManageRequest): Promise<ManageResult> {
  const repository = context.users.repository;
  const target = await loadTarget(context, request.id);
  const decision = decideManageAction(Number(actor.role), { role: Number(target.role), status: Number(target.status) }, request.action);
  if (!decision.allowed) throw forbidden(decision.message, decision.code);
  const id = Number(target.id);

  switch (request.action) {
    case 'delete':
      await repository.softDelete(id);
      break;
    case 'add_quota': {
      const value = request.value ?? 0;
      const mode = request.mode ?? 'add';
      if (mode === 'override') {
        if (!Number.isSafeInteger(value) || value < 0) throw badRequest('额度必须是非负整数', 'quota:invalid_value');
        await replaceQuota(context, actor, target, value);
      } else {
        if (mode === 'subtract' && value < 0) throw badRequest('扣减的额度必须是正整数', 'quota:invalid_delta');
        await adjustQuota(context, balances, actor, target, mode === 'subtract' ? -value : value);
      }
      break;
    }
    default:
      await repository.update(id, { role: decision.role, status: decision.status });
  }
  context.changes.emit('user', id);
  const after = await repository.findById(id);
  // The column leaves out what the relay's leases hold, and reads below zero after a set while calls are in flight.
  const spendable = await balances.read(LeaseKind.User, id);
  return { status: Number(after?.status ?? decision.status), role: Number(after?.role ?? decision.role), quota: spendable?.balance ?? 0 };
}

/** PUT /api/user/: edits the fields sent (others stay as they are). */
export async function updateUserByAdmin(context: AppContext, actor: UserRow, update: AdminUserUpdate): Promise<void> {
  const repository = context.users.repository;
  const target = await loadTarget(context, update.id);
  if (!outranks(Number(actor.role), Number(target.role))) throw forbidden(SAME_OR_HIGHER_UPDATE, 'user:same_or_higher_level');

  const changes: Partial<Omit<UserRow, 'id'>> = {};
  if (update.username !== undefined && update.username !== target.username) {
    await assertUsernameAvailable(repository, update.username, Number(target.id));
    changes.username = update.username;
  }
  if (update.display_name !== undefined) changes.display_name = update.display_name || changes.username || target.username;
  if (update.group !== undefined) changes.group = update.group;
  if (update.remark !== undefined) changes.remark = update.remark;
  for (const field of ['rpm_limit', 'tpm_limit', 'rpd_limit', 'concurrency_limit'] as const) {
    const figure = update[field];
    if (figure !== undefined) changes[field] = figure;
  }
  if (update.password) changes.password = await hashPassword(update.password);
  if (Object.keys(changes).length > 0) {
    try {
      await repository.update(Number(target.id), changes);
    } catch (error) {
      if (isUniqueViolation(error)) throw usernameTakenError();
      throw error;
    }
  }
  if (update.quota !== undefined) {
    await replaceQuota(context, actor, { ...target, username: changes.username ?? target.username }, update.quota);
  }
  context.changes.emit('user', Number(target.id));
}

/** new-api's binding types as its user editor names them, and the column each one clears. */
export const BINDING_TYPES = {
  email: 'email',
  github: 'github_id',
  linuxdo: 'linux_do_id',
  oidc: 'oidc_id',
  wechat: 'wechat_id',
  telegram: 'telegram_id',
} as const;
export type BindingType = keyof typeof BINDING_TYPES;

/**
 * new-api's DELETE /api/user/:id/bindings/:binding_type: an administrator unbinds a sign-in
 * method of a user below its level (the super administrator: anyone), with a management log line.
 * Answers the value that was bound ('' when nothing was).
 */
export async function clearUserBinding(context: AppContext, actor: UserRow, id: number, type: string): Promise<{ target: UserRow; previous: string }> {
  const normalised = type.trim().toLowerCase();
  if (!Object.hasOwn(BINDING_TYPES, normalised)) {
    throw badRequest(`不支持的绑定类型：${type}（可选 ${Object.keys(BINDING_TYPES).join('、')}）`, 'user:invalid_binding_type');
  }
  const column = BINDING_TYPES[normalised as BindingType];
  const target = await loadTarget(context, id);
  if (!outranks(Number(actor.role), Number(target.role))) throw forbidden(SAME_OR_HIGHER_UPDATE, 'user:same_or_higher_level');
  const previous = target[column] ?? '';
  await context.db.kysely.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ [column]: '' })
      .where('id', '=', id)
      .execute();
    await recordUserLog(trx, {
      userId: id,
      username: target.username,
      type: LogType.Manage,
      content: `管理员清除了用户 ${target.username} 的 ${normalised} 绑定`,
      other: adminInfo(actor),
    });
  });
  context.changes.emit('user', id);
  return { target, previous };
}
