import type { Redis } from 'ioredis';
import { AppError } from '../errors/app-error.js';

/**
 * Fixed-window counters per key (an IP and a bucket name). In memory on one node; in Redis when
 * REDIS_CONN_STRING is set, so every node shares the same windows.
 */
export interface RateLimitStore {
  /** Counts one hit and returns the number of hits in the current window. */
  hit(key: string, windowSeconds: number): Promise<number>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
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

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

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
