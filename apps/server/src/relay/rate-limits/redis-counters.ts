import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CounterStore, Outcome } from './counter-store.js';
import { DAY_MS, type LimitCheck } from './limit-checks.js';

/** How long an admission waits for Redis before the call goes unchecked. */
export const REDIS_WAIT_MS = 500;
/**
 * A slot is a member of its gate's sorted set, scored by when it lapses: a node that dies holding
 * slots gives them back this long after its last renewal. Held slots are renewed every third of it.
 */
export const LEASE_MS = 60_000;
/** Counters outlive the windows that read them by this much (clock skew between nodes). */
const KEY_SLACK_MS = 5_000;

/** How long the ends of calls are gathered into one write to Redis (a slot comes back at most this much later). */
const FINISH_BATCH_MS = 2;

const ADMIT = 'modelgateRateAdmit';
const FINISH = 'modelgateRateFinish';

/**
 * A user's window counters are the fields of one hash, `modelgate:rl:{<user>}`, one field per
 * check (its key), holding `bucket:current:previous` and rolled forward here as the memory
 * counters roll theirs (the fixed window and the previous one's weight worked out from `now` as
 * sliding-window.ts does, in the same double arithmetic). Gates are sorted sets of leases,
 * `modelgate:rl:{<user>}:<gate key>`.
 *
 * The checks travel as one argument, `code,limit,field,window;` each (code r: a request window
 * counted on admission; k: a window only checked; c: a gate, whose field is its key's index in
 * KEYS): a call's arguments are a handful of strings whatever its checks, which is most of what a
 * script call costs the node (each argument is written out separately).
 *
 * KEYS: the hash, then each gate's set. ARGV: now, the lease, its end, a gate set's expiry, the
 * hash's expiry, the checks. Returns {admitted (1 or 0), then per check the two counts found};
 * counts only when every check passes.
 */
const ADMIT_SCRIPT = `
local now = tonumber(ARGV[1])
local checks = {}
local fields = {}
for code, limit, field, window in string.gmatch(ARGV[6], '([rkc]),(%d+),([^,;]+),(%d+);') do
  checks[#checks + 1] = {code, tonumber(limit), field, tonumber(window)}
  if code ~= 'c' then fields[#fields + 1] = field end
end
local values = {}
if #fields > 0 then values = redis.call('HMGET', KEYS[1], unpack(fields)) end
local result = {1}
local buckets = {}
local found = 0
for i, check in ipairs(checks) do
  local current, previous = 0, 0
  if check[1] == 'c' then
    local key = KEYS[tonumber(check[3])]
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    current = redis.call('ZCARD', key)
    if current >= check[2] then result[1] = 0 end
  else
    found = found + 1
    local window = check[4]
    local bucket = math.floor(now / window)
    buckets[i] = bucket
    local stored = values[found]
    if stored then
      local storedBucket, storedCurrent, storedPrevious = string.match(stored, '^(%d+):(%d+):(%d+)$')
      storedBucket = tonumber(storedBucket)
      if storedBucket == bucket then
        current, previous = tonumber(storedCurrent), tonumber(storedPrevious)
      elseif storedBucket == bucket - 1 then
        previous = tonumber(storedCurrent)
      end
    end
    local weight = 1 - (now - bucket * window) / window
    if math.ceil(previous * weight) + current >= check[2] then result[1] = 0 end
  end
  result[2 * i] = current
  result[2 * i + 1] = previous
end
if result[1] == 1 then
  local writes = {}
  for i, check in ipairs(checks) do
    if check[1] == 'r' then
      writes[#writes + 1] = check[3]
      writes[#writes + 1] = string.format('%d:%d:%d', buckets[i], result[2 * i] + 1, result[2 * i + 1])
    elseif check[1] == 'c' then
      local key = KEYS[tonumber(check[3])]
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

/**
 * A call has ended: what it adds to its windows (its tokens, its success) and its slots given back,
 * in one script call. KEYS: the hash, then the gates whose slot the lease holds. ARGV: the lease,
 * the hash's expiry, now, the additions as `field,window,amount;` each.
 */
const FINISH_SCRIPT = `
local now = tonumber(ARGV[3])
local added = false
for field, window, amount in string.gmatch(ARGV[4], '([^,;]+),(%d+),(%d+);') do
  window = tonumber(window)
  local bucket = math.floor(now / window)
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
  redis.call('HSET', KEYS[1], field, string.format('%d:%d:%d', bucket, current + tonumber(amount), previous))
  added = true
end
if added and redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
for i = 2, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
return 0
`;

type ScriptedRedis = Redis &
  Record<typeof ADMIT, (...args: (string | number)[]) => Promise<number[]>> &
  Record<typeof FINISH, (...args: (string | number)[]) => Promise<unknown>>;

/**
 * The counters shared by every node through Redis (REDIS_CONN_STRING). A call's checks are one
 * script (EVALSHA): read, decide and count atomically, so two nodes never both take the last slot;
 * what the call owes when it ends (its tokens, its success, its slots) is one more script call.
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
  /** Finish calls waiting for the next flush, and its timer. */
  private pending: (string | number)[][] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** The last write sent: Redis runs one connection's commands in order, so its end is every write's. */
  private lastWrite: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly onError: (error: unknown) => void,
    private readonly waitMs = REDIS_WAIT_MS,
  ) {
    if (!(ADMIT in redis)) redis.defineCommand(ADMIT, { lua: ADMIT_SCRIPT });
    if (!(FINISH in redis)) redis.defineCommand(FINISH, { lua: FINISH_SCRIPT });
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
    let wire = '';
    let expiry = DAY_MS;
    for (const check of checks) {
      if (check.kind === 'concurrency') {
        keys.push(gateKey(userId, check));
        wire += `c,${check.limit},${keys.length},0;`;
      } else {
        wire += check.wire;
        if (check.windowMs > expiry) expiry = check.windowMs;
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
      (this.redis as ScriptedRedis)[ADMIT](keys.length, ...keys, now, lease, now + LEASE_MS, 2 * LEASE_MS, 2 * expiry + KEY_SLACK_MS, wire).then(
        (reply) => {
          clearTimeout(timer);
          const admitted = reply[0] === 1;
          if (admitted && gates.length > 0) {
            if (late) this.write(userId, gates, lease, 0, '', 0);
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
    let additions = '';
    for (const check of checks) {
      const amount = check.kind === 'tpm' ? tokens : check.kind === 'success' && succeeded ? 1 : 0;
      if (amount > 0) additions += `${check.key},${check.windowMs},${amount};`;
    }
    const gates = this.held.get(lease);
    if (gates !== undefined) {
      this.held.delete(lease);
      if (this.held.size === 0) this.stopRenewal();
    }
    this.write(userId, gates ?? NO_GATES, lease, now, additions, additions === '' ? 0 : hashExpiry(checks));
  }

  settled(): Promise<void> {
    this.flush();
    return this.lastWrite.then(() => undefined);
  }

  close(): void {
    this.flush();
    this.stopRenewal();
    this.held.clear();
  }

  /**
   * Queues one script call: `additions` (`field,window,amount;` each) into the user's hash, and the
   * lease out of `gates`. The calls that end within FINISH_BATCH_MS go out together, one pipeline
   * in one socket write: a write is a system call, and it cost the node more than the script.
   */
  private write(userId: number, gates: readonly string[], lease: string, now: number, additions: string, expiry: number): void {
    if (additions === '' && gates.length === 0) return;
    this.pending.push([1 + gates.length, hashKey(userId), ...gates, lease, expiry, now, additions]);
    if (this.flushTimer === undefined) {
      this.flushTimer = setTimeout(() => this.flush(), FINISH_BATCH_MS);
      this.flushTimer.unref();
    }
  }

  private flush(): void {
    if (this.flushTimer !== undefined) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    if (this.pending.length === 0) return;
    const calls = this.pending;
    this.pending = [];
    if (this.redis.status !== 'ready') return this.onError(new Error(`Redis is ${this.redis.status}`));
    if (calls.length === 1) {
      this.lastWrite = (this.redis as ScriptedRedis)[FINISH](...calls[0]!).catch(this.onError);
      return;
    }
    const pipeline = this.redis.pipeline() as ReturnType<Redis['pipeline']> & Record<typeof FINISH, (...args: (string | number)[]) => unknown>;
    for (const call of calls) pipeline[FINISH](...call);
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

const NO_GATES: readonly string[] = [];

// The user id in braces keeps one user's keys in one Redis Cluster slot, as the script needs.
const hashKey = (userId: number): string => `modelgate:rl:{${userId}}`;
const gateKey = (userId: number, check: LimitCheck): string => `modelgate:rl:{${userId}}:${check.key}`;
