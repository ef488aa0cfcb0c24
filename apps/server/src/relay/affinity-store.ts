import type { Redis } from 'ioredis';

/** Where one session's calls go: a channel, and which of its keys. */
export interface AffinityPin {
  channelId: number;
  keyIndex: number;
}

export interface AffinityLimits {
  ttlMs: number;
  maxEntries: number;
}

interface MemoryEntry {
  pin: AffinityPin;
  expiresAt: number;
}

/**
 * Session pins in this process's memory: a Map kept in order of last use, so the least recently
 * used entry is the first one. Every entry lives `ttlMs` from its last use, so (under one TTL) the
 * first entries are also the first to expire: a write drops the expired ones from the front and,
 * past `maxEntries`, the least recently used. Each operation is O(1), amortized.
 */
export class MemoryAffinityStore {
  private readonly entries = new Map<string, MemoryEntry>();

  constructor(
    private readonly limits: () => AffinityLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The session's pin, or undefined; a hit counts as a use (its TTL starts again). */
  get(key: string): AffinityPin | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    const now = this.now();
    this.entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    entry.expiresAt = now + this.limits().ttlMs;
    this.entries.set(key, entry);
    return entry.pin;
  }

  set(key: string, pin: AffinityPin): void {
    const { ttlMs, maxEntries } = this.limits();
    const now = this.now();
    this.entries.delete(key);
    this.entries.set(key, { pin, expiresAt: now + ttlMs });
    for (const [oldest, entry] of this.entries) {
      if (entry.expiresAt > now && this.entries.size <= maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** How long a call waits for Redis's answer before it is routed without its session's pin. */
export const REDIS_WAIT_MS = 200;

const SCRIPT_NAME = 'modelgateAffinityGet';
/** KEYS[1]: the pin. ARGV[1]: its TTL in ms. A hit counts as a use: its TTL starts again. */
const GET_SCRIPT = `
local pin = redis.call('GET', KEYS[1])
if pin then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return pin
`;

type ScriptedRedis = Redis & Record<typeof SCRIPT_NAME, (key: string, ttlMs: number) => Promise<string | null>>;

/**
 * Session pins in Redis, shared by every node: `<channel id>:<key index>` under the session's key,
 * expiring `ttlMs` after its last use. A read is one round trip (a script: GET and, on a hit,
 * PEXPIRE, which works on any Redis since 2.6); writes are sent without waiting. Nothing here
 * throws or rejects: an error, or no answer within REDIS_WAIT_MS, is reported and read as no pin.
 */
export class RedisAffinityStore {
  /** The last write sent: Redis runs one connection's commands in order, so its end is every write's. */
  private lastWrite: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: () => number,
    private readonly onError: (error: unknown) => void,
  ) {
    if (!(SCRIPT_NAME in redis)) redis.defineCommand(SCRIPT_NAME, { numberOfKeys: 1, lua: GET_SCRIPT });
  }

  get(key: string): Promise<AffinityPin | undefined> {
    // Disconnected (or still connecting): no waiting behind ioredis's offline queue.
    if (this.redis.status !== 'ready') {
      this.onError(new Error(`Redis is ${this.redis.status}`));
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.onError(new Error(`Redis did not answer within ${REDIS_WAIT_MS} ms`));
        resolve(undefined);
      }, REDIS_WAIT_MS);
      (this.redis as ScriptedRedis)[SCRIPT_NAME](key, Math.ceil(this.ttlMs())).then(
        (value) => {
          clearTimeout(timer);
          resolve(parsePin(value));
        },
        (error: unknown) => {
          clearTimeout(timer);
          this.onError(error);
          resolve(undefined);
        },
      );
    });
  }

  set(key: string, pin: AffinityPin): void {
    if (this.redis.status !== 'ready') return this.onError(new Error(`Redis is ${this.redis.status}`));
    this.lastWrite = this.redis.set(key, `${pin.channelId}:${pin.keyIndex}`, 'PX', Math.ceil(this.ttlMs())).catch(this.onError);
  }

  delete(key: string): void {
    if (this.redis.status !== 'ready') return this.onError(new Error(`Redis is ${this.redis.status}`));
    this.lastWrite = this.redis.del(key).catch(this.onError);
  }

  /** Resolves once the writes sent so far have been answered (or have failed). */
  settled(): Promise<void> {
    return this.lastWrite.then(() => undefined);
  }
}

function parsePin(value: string | null): AffinityPin | undefined {
  if (value === null) return undefined;
  const colon = value.indexOf(':');
  const channelId = Number(value.slice(0, colon));
  const keyIndex = Number(value.slice(colon + 1));
  if (colon < 0 || !Number.isSafeInteger(channelId) || !Number.isSafeInteger(keyIndex) || keyIndex < 0) return undefined;
  return { channelId, keyIndex };
}
