import type { Redis } from 'ioredis';
import { AppError } from '../errors/app-error.js';

/**
 * Fixed-window counters per key (an IP and a bucket name), and timed locks (the sign-in lockout).
 * In memory on one node; in Redis when REDIS_CONN_STRING is set, so every node shares them.
 */
export interface RateLimitStore {
  /** Counts one hit and returns the number of hits in the current window. */
  hit(key: string, windowSeconds: number): Promise<number>;
  /** Takes back one hit from the current window; nothing when the window has ended. */
  unhit(key: string): Promise<void>;
  /** Locks `key` for `seconds` unless it is locked already (a running lock is not extended). */
  lock(key: string, seconds: number): Promise<void>;
  /** Seconds left on the lock of `key`, 0 when it is not locked. */
  lockedFor(key: string): Promise<number>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly locks = new Map<string, number>();
  private lastSweep = Date.now();

  async hit(key: string, windowSeconds: number): Promise<number> {
    const now = Date.now();
    if (now - this.lastSweep > 60_000) this.sweep(now);
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      this.windows.set(key, { count: 1, resetAt: now + windowSeconds * 1000 });
      return 1;
    }
    window.count += 1;
    return window.count;
  }

  async unhit(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.resetAt > Date.now() && window.count > 0) window.count -= 1;
  }

  async lock(key: string, seconds: number): Promise<void> {
    const now = Date.now();
    if ((this.locks.get(key) ?? 0) <= now) this.locks.set(key, now + seconds * 1000);
  }

  async lockedFor(key: string): Promise<number> {
    const left = (this.locks.get(key) ?? 0) - Date.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    for (const [key, until] of this.locks) if (until <= now) this.locks.delete(key);
  }
}

// DECR on a key that expired would leave -1 without a TTL: take back a hit only while the window lives.
const UNHIT_SCRIPT = "if redis.call('exists', KEYS[1]) == 1 then return redis.call('decr', KEYS[1]) end return 0";

export class RedisRateLimitStore implements RateLimitStore {
  constructor(private readonly redis: Redis) {}

  async hit(key: string, windowSeconds: number): Promise<number> {
    const redisKey = `modelgate:rl:${key}`;
    const [[, count]] = (await this.redis.multi().incr(redisKey).expire(redisKey, windowSeconds, 'NX').exec()) as [
      [Error | null, number],
      [Error | null, number],
    ];
    return count;
  }

  async unhit(key: string): Promise<void> {
    await this.redis.eval(UNHIT_SCRIPT, 1, `modelgate:rl:${key}`);
  }

  async lock(key: string, seconds: number): Promise<void> {
    await this.redis.set(`modelgate:lock:${key}`, '1', 'EX', seconds, 'NX');
  }

  async lockedFor(key: string): Promise<number> {
    const left = await this.redis.pttl(`modelgate:lock:${key}`);
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }
}

export interface RateLimitRule {
  bucket: string;
  /** Hits allowed per window; 0 disables the rule. */
  limit: number;
  windowSeconds: number;
}

export async function enforceRateLimit(store: RateLimitStore, rule: RateLimitRule, ip: string): Promise<void> {
  if (rule.limit <= 0) return;
  const count = await store.hit(`${rule.bucket}:${ip}`, rule.windowSeconds);
  if (count > rule.limit) {
    throw new AppError('rate_limit:exceeded', '请求过于频繁，请稍后再试', { status: 429 });
  }
}
