import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { TokensTable } from '../../db/schema.js';
import { parseAllowIps, type IpAllowList } from './ip-allow-list.js';
import { rateFiguresOf, type RateFigures } from './rate-figures.js';
import type { LeasedElsewhere } from '../billing/leased-elsewhere.js';
import type { SyncLock } from './sync-lock.js';

export interface CachedToken {
  id: number;
  key: string;
  userId: number;
  name: string;
  status: number;
  /** Unix seconds; -1 never expires. */
  expiredTime: number;
  /** What a limited token can spend: the database value, this node's lease and other nodes' leases. */
  remainQuota: number;
  unlimited: boolean;
  /** undefined when model limits are off; an empty set then denies every model. */
  modelLimits: ReadonlySet<string> | undefined;
  allowIps: IpAllowList | undefined;
  /** '' = the user's group. */
  group: string;
  /** The token's own rate limits (relay/rate-limits/); undefined when it has none. */
  rateLimits?: RateFigures | undefined;
}

const NEGATIVE_TTL_MS = 30_000;
const NEGATIVE_LIMIT = 10_000;
const RELOAD_CHUNK = 500;

type TokenRow = Selectable<TokensTable> & { leased_elsewhere: number };

/**
 * Tokens by key. The first request with a key reads it from the database; after that it is
 * served from memory until a 'token' change event or the periodic sync replaces it. Unknown keys
 * are remembered briefly so that a flood of bad keys does not become a flood of queries.
 */
export class TokenCache {
  private readonly byKey = new Map<string, CachedToken>();
  private readonly byId = new Map<number, CachedToken>();
  private readonly unknown = new Map<string, number>();
  /** Bumped by every invalidation, so a load that raced one does not cache what it read. */
  private generation = 0;

  constructor(
    private readonly db: Db,
    private readonly lock: SyncLock,
    /** This node's net quota change for a token not yet written to the database. */
    private readonly unflushedQuota: (tokenId: number) => number,
    private readonly leasedElsewhere: LeasedElsewhere,
  ) {}

  peek(key: string): CachedToken | undefined {
    return this.byKey.get(key);
  }

  /** Tokens held in memory (for /metrics). */
  get size(): number {
    return this.byKey.size;
  }

  byTokenId(id: number): CachedToken | undefined {
    return this.byId.get(id);
  }

  knownMissing(key: string): boolean {
    const until = this.unknown.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.unknown.delete(key);
    return false;
  }

  load(key: string): Promise<CachedToken | undefined> {
    return this.lock.run(async () => {
      const cached = this.byKey.get(key);
      if (cached) return cached;
      const generation = this.generation;
      const row = await this.db.kysely.selectFrom('tokens').selectAll().select(this.leasedElsewhere).where('key', '=', key).executeTakeFirst();
      const current = generation === this.generation;
      if (!row || row.deleted_at !== null) {
        if (current) {
          if (this.unknown.size >= NEGATIVE_LIMIT) this.unknown.clear();
          this.unknown.set(key, Date.now() + NEGATIVE_TTL_MS);
        }
        return undefined;
      }
      return current ? this.store(row) : this.toToken(row);
    });
  }

  invalidate(key: string): void {
    this.generation += 1;
    this.unknown.delete(key);
    const cached = this.byKey.get(key);
    if (!cached) return;
    this.byKey.delete(key);
    this.byId.delete(cached.id);
  }

  adjustQuota(tokenId: number, delta: number): void {
    const cached = this.byId.get(tokenId);
    if (cached) cached.remainQuota += delta;
  }

  /** Re-reads every cached token. The caller holds the sync lock. */
  async reloadAllLocked(): Promise<void> {
    const keys = [...this.byKey.keys()];
    for (let start = 0; start < keys.length; start += RELOAD_CHUNK) {
      const chunk = keys.slice(start, start + RELOAD_CHUNK);
      const rows = await this.db.kysely.selectFrom('tokens').selectAll().select(this.leasedElsewhere).where('key', 'in', chunk).execute();
      const seen = new Set<string>();
      for (const row of rows) {
        // An entry invalidated while this ran is left for the next request to read afresh.
        if (row.deleted_at !== null || !this.byKey.has(row.key)) continue;
        seen.add(row.key);
        this.store(row);
      }
      for (const key of chunk) if (!seen.has(key)) this.invalidate(key);
    }
    this.unknown.clear();
  }

  private store(row: TokenRow): CachedToken {
    const token = this.toToken(row);
    const previous = this.byKey.get(row.key);
    if (previous && previous.id !== token.id) this.byId.delete(previous.id);
    this.byKey.set(row.key, token);
    this.byId.set(token.id, token);
    return token;
  }

  private toToken(row: TokenRow): CachedToken {
    const id = Number(row.id);
    return {
      id,
      key: row.key,
      userId: Number(row.user_id),
      name: row.name,
      status: Number(row.status),
      expiredTime: Number(row.expired_time),
      remainQuota: Number(row.remain_quota) + this.unflushedQuota(id) + Number(row.leased_elsewhere),
      unlimited: Number(row.unlimited_quota) === 1,
      modelLimits:
        Number(row.model_limits_enabled) === 1
          ? new Set(
              row.model_limits
                .split(',')
                .map((model) => model.trim())
                .filter((model) => model !== ''),
            )
          : undefined,
      allowIps: parseAllowIps(row.allow_ips),
      group: row.group.trim(),
      rateLimits: rateFiguresOf(row),
    };
  }
}
