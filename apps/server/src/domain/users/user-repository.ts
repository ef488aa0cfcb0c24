import { type PublicUser, UserStatus } from '@modelgate/contract';
import { sql, type Expression, type Kysely, type Selectable, type SqlBool } from 'kysely';
import { likeContains, likeIgnoreCase } from '../../lib/like-pattern.js';
import type { Db } from '../../db/index.js';
import { insertReturningId } from '../../db/index.js';
import type { Database, UsersTable } from '../../db/schema.js';
import { SessionRepository } from './session-repository.js';
import { publicUserSetting } from './user-setting.js';
import { usernameKey } from '../../lib/username.js';

export type UserRow = Selectable<UsersTable>;

/** Columns holding a third-party account id, one per sign-in provider. */
export type BindingColumn = 'github_id' | 'linux_do_id' | 'wechat_id' | 'telegram_id' | 'oidc_id';

export interface UserPageQuery {
  keyword?: string;
  group?: string;
  offset: number;
  limit: number;
}

/** True for a unique-index violation on any supported dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const failure = error as { code?: unknown; errno?: unknown } | null;
  if (!failure || typeof failure !== 'object') return false;
  return (
    failure.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    failure.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    failure.code === '23505' ||
    failure.code === 'ER_DUP_ENTRY' ||
    failure.errno === 1062
  );
}

/** What the console sees of a user: its wire shape is the contract's publicUserSchema. */
export type { PublicUser };

export function toPublicUser(row: UserRow): PublicUser {
  return {
    id: Number(row.id),
    username: row.username,
    display_name: row.display_name,
    role: Number(row.role),
    status: Number(row.status),
    email: row.email,
    github_id: row.github_id,
    oidc_id: row.oidc_id,
    wechat_id: row.wechat_id,
    telegram_id: row.telegram_id,
    linux_do_id: row.linux_do_id,
    quota: Number(row.quota),
    used_quota: Number(row.used_quota),
    request_count: Number(row.request_count),
    group: row.group,
    aff_code: row.aff_code ?? '',
    aff_count: Number(row.aff_count),
    aff_quota: Number(row.aff_quota),
    aff_history_quota: Number(row.aff_history),
    inviter_id: Number(row.inviter_id),
    setting: publicUserSetting(row.setting),
    remark: row.remark,
    created_at: Number(row.created_at),
    DeletedAt: row.deleted_at ? new Date(Number(row.deleted_at) * 1000).toISOString() : null,
    rpm_limit: Number(row.rpm_limit ?? 0),
    tpm_limit: Number(row.tpm_limit ?? 0),
    rpd_limit: Number(row.rpd_limit ?? 0),
    concurrency_limit: Number(row.concurrency_limit ?? 0),
  };
}

/** The columns a write sets, with username_key following username. */
function withUsernameKey<T extends { username?: string }>(values: T): T & { username_key?: string } {
  return values.username === undefined ? values : { ...values, username_key: usernameKey(values.username) };
}

/** Whether a write takes the account away from whoever is signed in as it. */
function endsSessions(values: Partial<Omit<UserRow, 'id'>>): boolean {
  return (
    values.password !== undefined ||
    (values.status !== undefined && Number(values.status) !== UserStatus.Enabled) ||
    (values.deleted_at !== undefined && values.deleted_at !== null)
  );
}

export class UserRepository {
  /**
   * The users' signed-in browsers. Here, not beside this repository, so that every write that
   * changes a password, bans or deletes ends them, whichever path made it.
   */
  readonly sessions: SessionRepository;

  constructor(private readonly db: Db) {
    this.sessions = new SessionRepository(db);
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.db.kysely.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Live (not deregistered) user by username or email. */
  findLiveByLogin(login: string): Promise<UserRow | undefined> {
    return this.db.kysely
      .selectFrom('users')
      .selectAll()
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('username', '=', login), eb.and([eb('email', '=', login), eb('email', '!=', '')])]))
      .orderBy('id')
      .executeTakeFirst();
  }

  findByAccessToken(accessToken: string): Promise<UserRow | undefined> {
    return this.db.kysely.selectFrom('users').selectAll().where('access_token', '=', accessToken).executeTakeFirst();
  }

  /**
   * Whether another user holds this name or one that reads the same (same usernameKey). Usernames
   * stay taken by deregistered users too, as in new-api (the row keeps its unique name).
   */
  async usernameTaken(username: string, exceptUserId?: number): Promise<boolean> {
    let query = this.db.kysely
      .selectFrom('users')
      .select('id')
      .where((eb) => eb.or([eb('username', '=', username), eb('username_key', '=', usernameKey(username))]));
    if (exceptUserId !== undefined) query = query.where('id', '!=', exceptUserId);
    return (await query.executeTakeFirst()) !== undefined;
  }

  async count(): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  insert(values: Partial<Omit<UserRow, 'id'>> & { username: string; password: string }): Promise<number> {
    return insertReturningId(this.db, 'users', { created_at: Math.floor(Date.now() / 1000), ...withUsernameKey(values) });
  }

  /** A new password, a ban or a deletion also signs the user out everywhere. */
  async update(id: number, values: Partial<Omit<UserRow, 'id'>>): Promise<void> {
    await this.db.kysely.updateTable('users').set(withUsernameKey(values)).where('id', '=', id).execute();
    if (endsSessions(values)) await this.sessions.revokeAllOf(id);
  }

  /** Live user whose email is `email` (first by id when an imported database holds duplicates). */
  findLiveByEmail(email: string): Promise<UserRow | undefined> {
    if (email === '') return Promise.resolve(undefined);
    return this.db.kysely.selectFrom('users').selectAll().where('deleted_at', 'is', null).where('email', '=', email).orderBy('id').executeTakeFirst();
  }

  /** Whether any user, deregistered ones included, holds this email (as new-api checks it). */
  async emailTaken(email: string, exceptUserId?: number): Promise<boolean> {
    let query = this.db.kysely.selectFrom('users').select('id').where('email', '=', email);
    if (exceptUserId !== undefined) query = query.where('id', '!=', exceptUserId);
    return (await query.executeTakeFirst()) !== undefined;
  }

  /** The user bound to a third-party account, deregistered ones included. */
  /**
   * The user bound to a provider account. Account ids are case-sensitive (an OIDC `sub`, a WeChat
   * openid), but MySQL's default collation is not: there the index finds the candidates and a
   * byte comparison keeps only the exact one.
   */
  findByBinding(column: BindingColumn, value: string): Promise<UserRow | undefined> {
    let query = this.db.kysely.selectFrom('users').selectAll().where(column, '=', value);
    if (this.db.dialect === 'mysql') query = query.where(sql<SqlBool>`cast(${sql.ref(column)} as binary) = cast(${value} as binary)`);
    return query.orderBy('id').executeTakeFirst();
  }

  /** The live user owning an invitation code. */
  findLiveByAffCode(affCode: string): Promise<UserRow | undefined> {
    if (affCode === '') return Promise.resolve(undefined);
    return this.db.kysely.selectFrom('users').selectAll().where('deleted_at', 'is', null).where('aff_code', '=', affCode).executeTakeFirst();
  }

  async maxId(): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('users')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirst();
    return Number(row?.max ?? 0);
  }

  /**
   * One page of users, deregistered ones included (the console shows them without actions),
   * newest first. `keyword` matches the id exactly, or part of the username, email or display
   * name, ignoring case.
   */
  async page(query: UserPageQuery): Promise<{ items: UserRow[]; total: number }> {
    const keyword = query.keyword?.trim() ?? '';
    const group = query.group?.trim() ?? '';
    const filtered = this.db.kysely
      .selectFrom('users')
      .$if(group !== '', (builder) => builder.where('group', '=', group))
      .$if(keyword !== '', (builder) =>
        builder.where((eb) => {
          const pattern = likeContains(keyword);
          const matches: Expression<SqlBool>[] = [
            likeIgnoreCase('username', pattern),
            likeIgnoreCase('email', pattern),
            likeIgnoreCase('display_name', pattern),
          ];
          if (/^\d{1,15}$/.test(keyword)) matches.push(eb('id', '=', Number(keyword)));
          return eb.or(matches);
        }),
      );
    const [items, counted] = await Promise.all([
      filtered.selectAll().orderBy('id', 'desc').limit(query.limit).offset(query.offset).execute(),
      filtered.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(counted.total) };
  }

  /**
   * Adds `delta` (negative to take away) to a live user's quota in one conditional statement,
   * so the balance never goes below zero whatever runs at the same time. False when the user
   * is missing, deregistered, or holds less than a negative delta takes.
   */
  async addQuota(id: number, delta: number, executor: Kysely<Database> = this.db.kysely): Promise<boolean> {
    let query = executor
      .updateTable('users')
      .set({ quota: sql<number>`quota + ${delta}` })
      .where('id', '=', id)
      .where('deleted_at', 'is', null);
    if (delta < 0) query = query.where('quota', '>=', -delta);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Moves referral earnings to the balance atomically; false when aff_quota is below `amount`. */
  async transferAffQuota(id: number, amount: number): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('users')
      .set({ aff_quota: sql<number>`aff_quota - ${amount}`, quota: sql<number>`quota + ${amount}` })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .where('aff_quota', '>=', amount)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Credits an inviter: one more invitee and `reward` to its referral earnings. */
  async creditInviter(id: number, reward: number, executor: Kysely<Database> = this.db.kysely): Promise<void> {
    await executor
      .updateTable('users')
      .set({
        aff_count: sql<number>`aff_count + 1`,
        aff_quota: sql<number>`aff_quota + ${reward}`,
        aff_history: sql<number>`aff_history + ${reward}`,
      })
      .where('id', '=', id)
      .execute();
  }

  /** Gives the user an invitation code if it has none; returns the code it ends up with. */
  async ensureAffCode(id: number, candidate: string): Promise<string | undefined> {
    await this.db.kysely
      .updateTable('users')
      .set({ aff_code: candidate })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('aff_code', 'is', null), eb('aff_code', '=', '')]))
      .execute();
    const row = await this.db.kysely.selectFrom('users').select('aff_code').where('id', '=', id).executeTakeFirst();
    return row?.aff_code ?? undefined;
  }

  /**
   * Deregisters: the row stays (its username stays taken, as in new-api) with deleted_at set, and
   * every session of the user ends.
   */
  async softDelete(id: number): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('users')
      .set({ deleted_at: Math.floor(Date.now() / 1000) })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    await this.sessions.revokeAllOf(id);
    return Number(result.numUpdatedRows) === 1;
  }
}
