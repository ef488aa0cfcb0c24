import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CounterStore, Outcome } from './counter-store.js';
import { countsOnAdmission, DAY_MS, type LimitCheck } from './limit-checks.js';
import { bucketOf, weightOf } from './sliding-window.js';

/** How long an admission waits for Redis before the call goes unchecked. */
export const REDIS_WAIT_MS = 500;
/**
 * A slot is a member of its gate's sorted set, scored by when it lapses: a node that dies holding
 * slots gives them back this long after its last renewal. Held slots are renewed every third of it.
 */
export const LEASE_MS = 60_000;
/** Counters outlive the windows that read them by this much (clock skew between nodes). */
const KEY_SLACK_MS = 5_000;

const ADMIT = 'modelgateRateAdmit';
const ADD = 'modelgateRateAdd';

/**
 * A user's window counters are the fields of one hash, `modelgate:rl:{<user>}`, one field per
 * check (its key), holding `bucket:current:previous` and rolled forward here as the memory
 * counters roll theirs. Gates are sorted sets of leases, `modelgate:rl:{<user>}:<gate key>`.
 *
 * KEYS: the hash, then each gate's set. ARGV: now, the lease, its end, a gate set's expiry, the
 * hash's expiry, then five per check: its code (r: a request window counted on admission; k: a
 * window only checked; c: a gate), its limit, its field (a gate: its key's index), its fixed window
 * and the previous window's weight. Returns {admitted (1 or 0), then per check the two counts
 * found}; counts only when every check passes.
 */
const ADMIT_SCRIPT = `
local now = tonumber(ARGV[1])
local checks = (#ARGV - 5) / 5
local fields = {}
for i = 1, checks do
  local base = 5 + (i - 1) * 5
  if ARGV[base + 1] ~= 'c' then fields[#fields + 1] = ARGV[base + 3] end
end
local values = {}
if #fields > 0 then values = redis.call('HMGET', KEYS[1], unpack(fields)) end
local result = {1}
local found = 0
for i = 1, checks do
  local base = 5 + (i - 1) * 5
  local code = ARGV[base + 1]
  local limit = tonumber(ARGV[base + 2])
  local current, previous = 0, 0
  if code == 'c' then
    local key = KEYS[tonumber(ARGV[base + 3])]
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    current = redis.call('ZCARD', key)
    if current >= limit then result[1] = 0 end
  else
    found = found + 1
    local stored = values[found]
    if stored then
      local bucket = tonumber(ARGV[base + 4])
      local storedBucket, storedCurrent, storedPrevious = string.match(stored, '^(%d+):(%d+):(%d+)$')
      storedBucket = tonumber(storedBucket)
      if storedBucket == bucket then
        current, previous = tonumber(storedCurrent), tonumber(storedPrevious)
      elseif storedBucket == bucket - 1 then
        previous = tonumber(storedCurrent)
      end
    end
    if math.ceil(previous * tonumber(ARGV[base + 5])) + current >= limit then result[1] = 0 end
  end
  result[2 * i] = current
  result[2 * i + 1] = previous
end
if result[1] == 1 then
  local writes = {}
  for i = 1, checks do
    local base = 5 + (i - 1) * 5
    local code = ARGV[base + 1]
    if code == 'r' then
      writes[#writes + 1] = ARGV[base + 3]
      writes[#writes + 1] = ARGV[base + 4] .. ':' .. (result[2 * i] + 1) .. ':' .. result[2 * i + 1]
    elseif code == 'c' then
      local key = KEYS[tonumber(ARGV[base + 3])]
      redis.call('ZADD', key, ARGV[3], ARGV[2])
      redis.call('PEXPIRE', key, ARGV[4])
    end
  end
  if #writes > 0 then
    redis.call('HSET', KEYS[1], unpack(writes))
    if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
  end
end
return result
`;

/** KEYS: the hash. ARGV: its expiry, then three per counter: its field, the current fixed window, the amount to add. */
const ADD_SCRIPT = `
for i = 1, (#ARGV - 1) / 3 do
  local base = 1 + (i - 1) * 3
  local field = ARGV[base + 1]
  local bucket = tonumber(ARGV[base + 2])
  local current, previous = 0, 0
  local stored = redis.call('HGET', KEYS[1], field)
  if stored then
    local storedBucket, storedCurrent, storedPrevious = string.match(stored, '^(%d+):(%d+):(%d+)$')
    storedBucket = tonumber(storedBucket)
    if storedBucket == bucket then
      current, previous = tonumber(storedCurrent), tonumber(storedPrevious)
    elseif storedBucket == bucket - 1 then
      previous = tonumber(storedCurrent)
    end
  end
  redis.call('HSET', KEYS[1], field, ARGV[base + 2] .. ':' .. (current + tonumber(ARGV[base + 3])) .. ':' .. previous)
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 0
`;

type ScriptedRedis = Redis & Record<typeof ADMIT, (...args: (string | number)[]) => Promise<number[]>>;

/**
 * The counters shared by every node through Redis (REDIS_CONN_STRING). A call's checks are one
 * script (EVALSHA): read, decide and count atomically, so two nodes never both take the last slot;
 * what the call owes when it ends (its tokens, its success, its slots) is one more pipelined write.
 * Every key of a call carries its user in braces, so they sit in one Redis Cluster slot.
 *
 * Nothing here throws or rejects: a Redis error, a Redis not connected, or no answer within
 * REDIS_WAIT_MS lets the call through unchecked and is reported (`onError`); a slot an answer
 * that came too late took is given back at once.
 */
export class RedisCounters implements CounterStore {
  /** Slots this node holds: lease → its gates' keys, renewed until given back. */
  private readonly held = new Map<string, string[]>();
  private renewal: NodeJS.Timeout | undefined;
  private readonly node = randomBytes(6).toString('hex');
  private sequence = 0;
  /** The last write sent: Redis runs one connection's commands in order, so its end is every write's. */
  private lastWrite: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly onError: (error: unknown) => void,
    private readonly waitMs = REDIS_WAIT_MS,
  ) {
    if (!(ADMIT in redis)) redis.defineCommand(ADMIT, { lua: ADMIT_SCRIPT });
    if (!(ADD in redis)) redis.defineCommand(ADD, { numberOfKeys: 1, lua: ADD_SCRIPT });
  }

  /** A lease name unique among all nodes. */
  nextLease(): string {
    this.sequence += 1;
    return `${this.node}:${this.sequence}`;
  }

  admit(userId: number, checks: readonly LimitCheck[], now: number, lease: string): Promise<Outcome | undefined> {
    if (this.redis.status !== 'ready') {
      this.onError(new Error(`Redis is ${this.redis.status}`));
      return Promise.resolve(undefined);
    }
    const keys = [hashKey(userId)];
    const args: (string | number)[] = [now, lease, now + LEASE_MS, 2 * LEASE_MS, hashExpiry(checks)];
    for (const check of checks) {
      if (check.kind === 'concurrency') {
        keys.push(gateKey(userId, check));
        args.push('c', check.limit, keys.length, 0, 0);
      } else {
        args.push(countsOnAdmission(check.kind) ? 'r' : 'k', check.limit, check.key, bucketOf(now, check.windowMs), weightOf(now, check.windowMs));
      }
    }
    const gates = keys.slice(1);
    return new Promise((resolve) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        this.onError(new Error(`Redis did not answer within ${this.waitMs} ms`));
        resolve(undefined);
      }, this.waitMs);
      (this.redis as ScriptedRedis)[ADMIT](keys.length, ...keys, ...args).then(
        (reply) => {
          clearTimeout(timer);
          const admitted = reply[0] === 1;
          if (admitted && gates.length > 0) {
            if (late) this.write(userId, [], gates, lease);
            else this.hold(lease, gates);
          }
          if (!late) resolve({ admitted, counts: admitted ? [] : reply.slice(1).map(Number) });
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (late) return;
          this.onError(error);
          resolve(undefined);
        },
      );
    });
  }

  finish(userId: number, checks: readonly LimitCheck[], lease: string, tokens: number, succeeded: boolean, now: number): void {
    const additions: (string | number)[] = [];
    for (const check of checks) {
      const amount = check.kind === 'tpm' ? tokens : check.kind === 'success' && succeeded ? 1 : 0;
      if (amount > 0) additions.push(check.key, bucketOf(now, check.windowMs), amount);
    }
    const gates = this.held.get(lease);
    if (gates !== undefined) {
      this.held.delete(lease);
      if (this.held.size === 0) this.stopRenewal();
    }
    if (additions.length > 0) additions.unshift(hashExpiry(checks));
    this.write(userId, additions, gates ?? [], lease);
  }

  settled(): Promise<void> {
    return this.lastWrite.then(() => undefined);
  }

  close(): void {
    this.stopRenewal();
    this.held.clear();
  }

  /** One pipelined write: `additions` (the ADD script's arguments) into the user's hash, and the lease out of `gates`. */
  private write(userId: number, additions: (string | number)[], gates: readonly string[], lease: string): void {
    if (additions.length === 0 && gates.length === 0) return;
    if (this.redis.status !== 'ready') return this.onError(new Error(`Redis is ${this.redis.status}`));
    const pipeline = this.redis.pipeline() as ReturnType<Redis['pipeline']> & Record<typeof ADD, (...args: (string | number)[]) => unknown>;
    if (additions.length > 0) pipeline[ADD](hashKey(userId), ...additions);
    for (const gate of gates) pipeline.zrem(gate, lease);
    this.lastWrite = pipeline.exec().catch(this.onError);
  }

  private hold(lease: string, keys: string[]): void {
    this.held.set(lease, keys);
    if (this.renewal !== undefined) return;
    this.renewal = setInterval(() => this.renew(), LEASE_MS / 3);
    this.renewal.unref();
  }

  /** Moves the end of every slot this node holds LEASE_MS ahead (XX: a slot given back meanwhile stays gone). */
  private renew(): void {
    if (this.redis.status !== 'ready') return this.onError(new Error(`Redis is ${this.redis.status}`));
    const until = Date.now() + LEASE_MS;
    const pipeline = this.redis.pipeline();
    for (const [lease, keys] of this.held) for (const key of keys) pipeline.zadd(key, 'XX', until, lease).pexpire(key, 2 * LEASE_MS);
    this.lastWrite = pipeline.exec().catch(this.onError);
  }

  private stopRenewal(): void {
    if (this.renewal === undefined) return;
    clearInterval(this.renewal);
    this.renewal = undefined;
  }
}

/** The user's hash lives two of its longest windows (a day at least) after its last count. */
function hashExpiry(checks: readonly LimitCheck[]): number {
  let longest = DAY_MS;
  for (const check of checks) if (check.windowMs > longest) longest = check.windowMs;
  return 2 * longest + KEY_SLACK_MS;
}

// The user id in braces keeps one user's keys in one Redis Cluster slot, as the script needs.
const hashKey = (userId: number): string => `modelgate:rl:{${userId}}`;
const gateKey = (userId: number, check: LimitCheck): string => `modelgate:rl:{${userId}}:${check.key}`;
