import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CounterStore, Outcome } from './counter-store.js';
import { counterLetter, countsOnAdmission, type LimitCheck } from './limit-checks.js';
import { bucketOf, weightOf } from './sliding-window.js';

/** How long an admission waits for Redis before the call goes unchecked. */
export const REDIS_WAIT_MS = 500;
/**
 * A slot is a member of its gate's sorted set, scored by when it lapses: a node that dies holding
 * slots gives them back this long after its last renewal. Held slots are renewed every third of it.
 */
export const LEASE_MS = 60_000;
/** Window keys outlive the windows that read them by this much (clock skew between nodes). */
const KEY_SLACK_MS = 5_000;

const SCRIPT_NAME = 'modelgateRateAdmit';

/**
 * KEYS: two per check: its window's current and previous fixed-window counters, or its gate's
 * sorted set (twice). ARGV: now, the lease's member, the lease's end, the gate key's expiry, then
 * per check: its code (r: a request window counted on admission; k: a window only checked; c: a
 * gate), its limit, the previous window's weight, its key's expiry.
 * Returns {admitted (1 or 0), then per check the two counts found}. Counts only when every check passes.
 */
const ADMIT_SCRIPT = `
local now = tonumber(ARGV[1])
local checks = (#ARGV - 4) / 4
local result = {1}
for i = 1, checks do
  local base = 4 + (i - 1) * 4
  local code = ARGV[base + 1]
  local limit = tonumber(ARGV[base + 2])
  local current, previous
  if code == 'c' then
    redis.call('ZREMRANGEBYSCORE', KEYS[2 * i - 1], '-inf', now)
    current = redis.call('ZCARD', KEYS[2 * i - 1])
    previous = 0
    if current >= limit then result[1] = 0 end
  else
    current = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0')
    previous = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
    if math.ceil(previous * tonumber(ARGV[base + 3])) + current >= limit then result[1] = 0 end
  end
  result[2 * i] = current
  result[2 * i + 1] = previous
end
if result[1] == 1 then
  for i = 1, checks do
    local base = 4 + (i - 1) * 4
    local code = ARGV[base + 1]
    if code == 'r' then
      redis.call('INCR', KEYS[2 * i - 1])
      redis.call('PEXPIRE', KEYS[2 * i - 1], ARGV[base + 4])
    elseif code == 'c' then
      redis.call('ZADD', KEYS[2 * i - 1], ARGV[3], ARGV[2])
      redis.call('PEXPIRE', KEYS[2 * i - 1], ARGV[4])
    end
  end
end
return result
`;

type ScriptedRedis = Redis & Record<typeof SCRIPT_NAME, (...args: (string | number)[]) => Promise<number[]>>;

/**
 * The counters shared by every node through Redis (REDIS_CONN_STRING). A call's checks are one
 * script (EVALSHA): read, decide and count atomically, so two nodes never both take the last slot.
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
    if (!(SCRIPT_NAME in redis)) redis.defineCommand(SCRIPT_NAME, { lua: ADMIT_SCRIPT });
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
    const keys: string[] = [];
    const args: (string | number)[] = [now, lease, now + LEASE_MS, 2 * LEASE_MS];
    const gates: string[] = [];
    for (const check of checks) {
      if (check.kind === 'concurrency') {
        const key = gateKey(userId, check);
        keys.push(key, key);
        gates.push(key);
        args.push('c', check.limit, 0, 0);
        continue;
      }
      const bucket = bucketOf(now, check.windowMs);
      keys.push(windowKey(userId, check, bucket), windowKey(userId, check, bucket - 1));
      args.push(countsOnAdmission(check.kind) ? 'r' : 'k', check.limit, weightOf(now, check.windowMs), 2 * check.windowMs + KEY_SLACK_MS);
    }
    return new Promise((resolve) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        this.onError(new Error(`Redis did not answer within ${this.waitMs} ms`));
        resolve(undefined);
      }, this.waitMs);
      (this.redis as ScriptedRedis)[SCRIPT_NAME](keys.length, ...keys, ...args).then(
        (reply) => {
          clearTimeout(timer);
          const admitted = reply[0] === 1;
          if (admitted && gates.length > 0) {
            if (late) this.giveBack(gates, lease);
            else this.hold(lease, gates);
          }
          if (!late) resolve({ admitted, counts: reply.slice(1).map(Number) });
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

  add(userId: number, checks: readonly LimitCheck[], kind: 'tpm' | 'success', amount: number, now: number): void {
    if (this.redis.status !== 'ready') return this.onError(new Error(`Redis is ${this.redis.status}`));
    const pipeline = this.redis.pipeline();
    for (const check of checks) {
      if (check.kind !== kind) continue;
      const key = windowKey(userId, check, bucketOf(now, check.windowMs));
      pipeline.incrby(key, amount).pexpire(key, 2 * check.windowMs + KEY_SLACK_MS);
    }
    this.lastWrite = pipeline.exec().catch(this.onError);
  }

  release(userId: number, checks: readonly LimitCheck[], lease: string): void {
    const keys = this.held.get(lease);
    if (keys === undefined) return;
    this.held.delete(lease);
    if (this.held.size === 0) this.stopRenewal();
    this.giveBack(keys, lease);
  }

  settled(): Promise<void> {
    return this.lastWrite.then(() => undefined);
  }

  close(): void {
    this.stopRenewal();
    this.held.clear();
  }

  private giveBack(keys: readonly string[], lease: string): void {
    if (this.redis.status !== 'ready') return this.onError(new Error(`Redis is ${this.redis.status}`));
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.zrem(key, lease);
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

// The user id in braces keeps one user's keys in one Redis Cluster slot, as the script needs.
const windowKey = (userId: number, check: LimitCheck, bucket: number): string =>
  `modelgate:rl:{${userId}}:${check.scope}:${counterLetter(check.kind)}${check.windowMs}:${bucket}`;
const gateKey = (userId: number, check: LimitCheck): string => `modelgate:rl:{${userId}}:${check.scope}:c`;
