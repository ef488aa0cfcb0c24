import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import { insertReturningId } from '../../db/index.js';
import type { UsersTable } from '../../db/schema.js';

export type UserRow = Selectable<UsersTable>;

/** What the console sees of a user: never the password or the access token. */
export interface PublicUser {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  github_id: string;
  oidc_id: string;
  wechat_id: string;
  telegram_id: string;
  linux_do_id: string;
  quota: number;
  used_quota: number;
  request_count: number;
  group: string;
  aff_code: string;
  aff_count: number;
  aff_quota: number;
  aff_history_quota: number;
  inviter_id: number;
  setting: string;
  remark: string;
  created_at: number;
  DeletedAt: string | null;
}

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
    setting: row.setting,
    remark: row.remark,
    created_at: Number(row.created_at),
    DeletedAt: row.deleted_at ? new Date(Number(row.deleted_at) * 1000).toISOString() : null,
  };
}

export class UserRepository {
  constructor(private readonly db: Db) {}

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

  /** Usernames stay taken by deregistered users too, as in new-api (the row keeps its unique name). */
  async usernameTaken(username: string): Promise<boolean> {
    const row = await this.db.kysely.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
    return row !== undefined;
  }

  async count(): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  insert(values: Partial<Omit<UserRow, 'id'>> & { username: string; password: string }): Promise<number> {
    return insertReturningId(this.db, 'users', { created_at: Math.floor(Date.now() / 1000), ...values });
  }

  async update(id: number, values: Partial<Omit<UserRow, 'id'>>): Promise<void> {
    await this.db.kysely.updateTable('users').set(values).where('id', '=', id).execute();
  }
}
