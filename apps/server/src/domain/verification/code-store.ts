import type { Redis } from 'ioredis';

/** What a code proves; codes of one purpose never satisfy another. */
export type VerificationPurpose = 'email_verification' | 'password_reset';

/** Wrong guesses a code survives; then it is dropped and a new one must be requested. */
export const MAX_FAILED_ATTEMPTS = 5;

export interface IssueRequest {
  purpose: VerificationPurpose;
  /** Whom the code is for, e.g. a normalised email address. */
  key: string;
  code: string;
  ttlSeconds: number;
  /** No new code for the same key within this many seconds of the last one. */
  cooldownSeconds: number;
}

/**
 * Short-lived one-time codes (email codes, password reset tokens). In memory on one node; in
 * Redis when REDIS_CONN_STRING is set, so a code mailed by one node is accepted by another.
 */
export interface VerificationStore {
  /** Stores the code unless the key is cooling down; returns 0, or the seconds left to wait. */
  issue(request: IssueRequest): Promise<number>;
  /** True when `code` is the live code for the key; a matching code is used up at once. */
  consume(purpose: VerificationPurpose, key: string, code: string): Promise<boolean>;
}

interface MemoryEntry {
  code: string;
  expiresAt: number;
  failures: number;
}

export class MemoryVerificationStore implements VerificationStore {
  private readonly codes = new Map<string, MemoryEntry>();
  private readonly cooldowns = new Map<string, number>();
  private lastSweep = Date.now();

  async issue({ purpose, key, code, ttlSeconds, cooldownSeconds }: IssueRequest): Promise<number> {
    const now = Date.now();
    this.sweep(now);
    const id = `${purpose}:${key}`;
    const coolUntil = this.cooldowns.get(id) ?? 0;
    if (coolUntil > now) return Math.ceil((coolUntil - now) / 1000);
    this.cooldowns.set(id, now + cooldownSeconds * 1000);
    this.codes.set(id, { code, expiresAt: now + ttlSeconds * 1000, failures: 0 });
    return 0;
  }

  async consume(purpose: VerificationPurpose, key: string, code: string): Promise<boolean> {
    const id = `${purpose}:${key}`;
    const entry = this.codes.get(id);
    if (!entry || entry.expiresAt <= Date.now()) {
      this.codes.delete(id);
      return false;
    }
    if (code !== '' && entry.code === code) {
      this.codes.delete(id);
      return true;
    }
    entry.failures += 1;
    if (entry.failures >= MAX_FAILED_ATTEMPTS) this.codes.delete(id);
    return false;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [id, entry] of this.codes) if (entry.expiresAt <= now) this.codes.delete(id);
    for (const [id, until] of this.cooldowns) if (until <= now) this.cooldowns.delete(id);
  }
}

// Compare, count the miss, and delete in one step so two nodes cannot both accept a code.
const CONSUME_SCRIPT = `
local stored = redis.call('HGET', KEYS[1], 'code')
if not stored then return 0 end
if ARGV[1] ~= '' and stored == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if failures >= tonumber(ARGV[2]) then redis.call('DEL', KEYS[1]) end
return 0
`;

export class RedisVerificationStore implements VerificationStore {
  constructor(private readonly redis: Redis) {}

  async issue({ purpose, key, code, ttlSeconds, cooldownSeconds }: IssueRequest): Promise<number> {
    const base = `modelgate:verify:${purpose}:${key}`;
    const claimed = await this.redis.set(`${base}:cooldown`, '1', 'EX', cooldownSeconds, 'NX');
    if (claimed === null) {
      const left = await this.redis.ttl(`${base}:cooldown`);
      return Math.max(left, 1);
    }
    await this.redis.multi().del(base).hset(base, 'code', code, 'failures', 0).expire(base, ttlSeconds).exec();
    return 0;
  }

  async consume(purpose: VerificationPurpose, key: string, code: string): Promise<boolean> {
    const base = `modelgate:verify:${purpose}:${key}`;
    const result = await this.redis.eval(CONSUME_SCRIPT, 1, base, code, MAX_FAILED_ATTEMPTS);
    return Number(result) === 1;
  }
}
