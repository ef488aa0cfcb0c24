import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { UsersTable } from '../../db/schema.js';
import { parseUserSetting } from '../users/user-setting.js';
import type { LeasedElsewhere } from '../billing/leased-elsewhere.js';
import type { SyncLock } from './sync-lock.js';
import { rateFiguresOf, type RateFigures } from './rate-figures.js';

export interface CachedUser {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
  /** What the user can spend: the database value, this node's lease and other nodes' leases. */
  quota: number;
  deleted: boolean;
  /** The user's setting accept_unset_model_ratio_model: models nobody priced are served at the self-use ratio. */
  acceptUnsetModelRatio: boolean;
  /** The user's setting record_ip_log: their consume logs carry the caller's IP. */
  recordIpLog: boolean;
  /** The user's own rate limits (relay/rate-limits/); undefined when they have none. */
  rateLimits: RateFigures | undefined;
}

const RELOAD_CHUNK = 500;
const COLUMNS = [
  'id',
  'username',
  'role',
  'status',
  'group',
  'quota',
  'deleted_at',
  'setting',
  'rpm_limit',
  'tpm_limit',
  'rpd_limit',
  'concurrency_limit',
] as const;
type UserRow = Pick<Selectable<UsersTable>, (typeof COLUMNS)[number]> & { leased_elsewhere: number };

function settingFlags(stored: string): Pick<CachedUser, 'acceptUnsetModelRatio' | 'recordIpLog'> {
  const setting = parseUserSetting(stored);
  return { acceptUnsetModelRatio: setting.accept_unset_model_ratio_model === true, recordIpLog: setting.record_ip_log === true };
}

/** Users by id, for the relay: read once, then from memory until a 'user' event or the sync. */
export class UserCache {
  private readonly byId = new Map<number, CachedUser>();
  /** Bumped by every invalidation, so a load that raced one does not cache what it read. */
  private generation = 0;

  constructor(
    private readonly db: Db,
    private readonly lock: SyncLock,
    private readonly unflushedQuota: (userId: number) => number,
    private readonly leasedElsewhere: LeasedElsewhere,
  ) {}

  peek(id: number): CachedUser | undefined {
    return this.byId.get(id);
  }

  /** Users held in memory (for /metrics). */
  get size(): number {
    return this.byId.size;
  }

  load(id: number): Promise<CachedUser | undefined> {
    return this.lock.run(async () => {
      const cached = this.byId.get(id);
      if (cached) return cached;
      const generation = this.generation;
      const row = await this.db.kysely
        .selectFrom('users')
        .select([...COLUMNS, this.leasedElsewhere])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) return undefined;
      return generation === this.generation ? this.store(row) : this.toUser(row);
    });
  }

  invalidate(id: number): void {
    this.generation += 1;
    this.byId.delete(id);
  }

  adjustQuota(id: number, delta: number): void {
    const cached = this.byId.get(id);
    if (cached) cached.quota += delta;
  }

  /** Re-reads every cached user. The caller holds the sync lock. */
  async reloadAllLocked(): Promise<void> {
    const ids = [...this.byId.keys()];
    for (let start = 0; start < ids.length; start += RELOAD_CHUNK) {
      const chunk = ids.slice(start, start + RELOAD_CHUNK);
      const rows = await this.db.kysely
        .selectFrom('users')
        .select([...COLUMNS, this.leasedElsewhere])
        .where('id', 'in', chunk)
        .execute();
      const seen = new Set<number>();
      for (const row of rows) {
        seen.add(Number(row.id));
        // An entry invalidated while this ran is left for the next request to read afresh.
        if (this.byId.has(Number(row.id))) this.store(row);
      }
      for (const id of chunk) if (!seen.has(id)) this.byId.delete(id);
    }
  }

  private store(row: UserRow): CachedUser {
    const user = this.toUser(row);
    this.byId.set(user.id, user);
    return user;
  }

  private toUser(row: UserRow): CachedUser {
    const id = Number(row.id);
    return {
      id,
      username: row.username,
      role: Number(row.role),
      status: Number(row.status),
      group: row.group,
      quota: Number(row.quota) + this.unflushedQuota(id) + Number(row.leased_elsewhere),
      deleted: row.deleted_at !== null,
      ...settingFlags(row.setting),
      rateLimits: rateFiguresOf(row),
    };
  }
}
