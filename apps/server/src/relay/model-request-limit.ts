import type { Redis } from 'ioredis';
import type { OptionKey } from '../config/option-registry.js';
import type { OptionService } from '../domain/options/option-service.js';
import { AppError } from '../errors/app-error.js';

/**
 * new-api's per-user model request limits (middleware/model-rate-limit.go), for calls made with
 * an API key. While ModelRequestRateLimitEnabled, within any ModelRequestRateLimitDurationMinutes:
 * - at most ModelRequestRateLimitCount requests, failed ones included (each admitted request
 *   counts at once; a refused one does not);
 * - at most ModelRequestRateLimitSuccessCount successful requests (counted once the upstream's
 *   answer is being delivered, checked before each request).
 * 0 turns a limit off (and a duration of 0 both). A refusal is HTTP 429 with new-api's message,
 * in the caller's protocol.
 *
 * Each limit is a sliding window kept as two counters per user, the current fixed window and the
 * previous one, weighted by how much of the previous window the sliding one still covers
 * (rounded up, so a slot frees only once a whole earlier request has aged out). That is O(1) per
 * request and per user, whatever the limits are, and entries live at most two windows. With
 * REDIS_CONN_STRING the counters are Redis keys with that expiry, checked and counted in one Lua
 * script, so every node shares one limit; otherwise they are in this process's memory.
 */
export class ModelRequestLimits {
  private settings: LimitSettings = OFF;
  private readonly memory = new Map<number, UserWindows>();
  private lastSweep = 0;

  constructor(
    private readonly options: OptionService,
    private readonly redis: Redis | undefined,
    private readonly onRedisError: (error: unknown) => void = () => undefined,
  ) {
    this.update();
    options.onChange((key) => {
      if (LIMIT_KEYS.has(key)) this.update();
    });
    if (redis) defineScript(redis);
  }

  /**
   * Admits one request of `userId` or throws the 429. Nothing to await while the limits are off
   * or kept in memory; a promise when Redis must be asked.
   */
  admit(userId: number): undefined | Promise<void> {
    const settings = this.settings;
    if (settings === OFF) return undefined;
    const now = Date.now();
    const bucket = Math.floor(now / settings.windowMs);
    const weight = 1 - (now - bucket * settings.windowMs) / settings.windowMs;
    if (this.redis) return this.admitShared(this.redis, settings, userId, bucket, weight);
    if (now - this.lastSweep >= settings.windowMs) this.sweep(now, bucket);
    let windows = this.memory.get(userId);
    if (!windows) this.memory.set(userId, (windows = { bucket, total: 0, previousTotal: 0, success: 0, previousSuccess: 0 }));
    roll(windows, bucket);
    if (settings.successCount > 0 && Math.ceil(windows.previousSuccess * weight) + windows.success >= settings.successCount) {
      throw successLimitReached(settings);
    }
    if (settings.count > 0) {
      if (Math.ceil(windows.previousTotal * weight) + windows.total >= settings.count) throw countLimitReached(settings);
      windows.total += 1;
    }
    return undefined;
  }

  /** The upstream's answer to an admitted request of `userId` is being delivered. */
  succeeded(userId: number): void {
    const settings = this.settings;
    if (settings === OFF || settings.successCount === 0) return;
    const bucket = Math.floor(Date.now() / settings.windowMs);
    if (this.redis) {
      const key = redisKey(userId, 's', settings.windowMs, bucket);
      this.redis
        .multi()
        .incr(key)
        .pexpire(key, 2 * settings.windowMs + KEY_SLACK_MS)
        .exec()
        .catch(this.onRedisError);
      return;
    }
    const windows = this.memory.get(userId);
    if (!windows) return;
    roll(windows, bucket);
    windows.success += 1;
  }

  private async admitShared(redis: Redis, settings: LimitSettings, userId: number, bucket: number, weight: number): Promise<void> {
    const { windowMs } = settings;
    let verdict: number;
    try {
      verdict = await (redis as ScriptedRedis)[SCRIPT_NAME](
        redisKey(userId, 't', windowMs, bucket),
        redisKey(userId, 't', windowMs, bucket - 1),
        redisKey(userId, 's', windowMs, bucket),
        redisKey(userId, 's', windowMs, bucket - 1),
        settings.count,
        settings.successCount,
        weight,
        2 * windowMs + KEY_SLACK_MS,
      );
    } catch (error) {
      // As new-api: a limit that cannot be checked refuses the call rather than letting it through.
      this.onRedisError(error);
      throw new AppError('rate_limit:check_failed', '请求频率限制检查失败，请稍后再试 (rate_limit_check_failed)', { status: 500 });
    }
    if (verdict === VERDICT_SUCCESS_LIMIT) throw successLimitReached(settings);
    if (verdict === VERDICT_COUNT_LIMIT) throw countLimitReached(settings);
  }

  private update(): void {
    const { options } = this;
    const minutes = options.number('ModelRequestRateLimitDurationMinutes');
    const count = Math.floor(options.number('ModelRequestRateLimitCount'));
    const successCount = Math.floor(options.number('ModelRequestRateLimitSuccessCount'));
    const on = options.bool('ModelRequestRateLimitEnabled') && minutes > 0 && (count > 0 || successCount > 0);
    const windowMs = minutes * 60_000;
    // Counters of another window length mean nothing under the new one.
    if (!on || windowMs !== this.settings.windowMs) this.memory.clear();
    this.settings = on ? { minutes, windowMs, count, successCount } : OFF;
  }

  /** Drops the users with no request in the last two windows: memory follows the active users only. */
  private sweep(now: number, bucket: number): void {
    this.lastSweep = now;
    for (const [userId, windows] of this.memory) if (windows.bucket < bucket - 1) this.memory.delete(userId);
  }
}

interface LimitSettings {
  minutes: number;
  windowMs: number;
  count: number;
  successCount: number;
}

const OFF: LimitSettings = { minutes: 0, windowMs: 0, count: 0, successCount: 0 };

const LIMIT_KEYS: ReadonlySet<OptionKey> = new Set([
  'ModelRequestRateLimitEnabled',
  'ModelRequestRateLimitDurationMinutes',
  'ModelRequestRateLimitCount',
  'ModelRequestRateLimitSuccessCount',
]);

/** One user's counters: the fixed window `bucket` and the one before it. */
interface UserWindows {
  bucket: number;
  total: number;
  previousTotal: number;
  success: number;
  previousSuccess: number;
}

function roll(windows: UserWindows, bucket: number): void {
  if (windows.bucket === bucket) return;
  const adjacent = windows.bucket === bucket - 1;
  windows.previousTotal = adjacent ? windows.total : 0;
  windows.previousSuccess = adjacent ? windows.success : 0;
  windows.total = 0;
  windows.success = 0;
  windows.bucket = bucket;
}

// new-api's messages, word for word.
const countLimitReached = ({ minutes, count }: LimitSettings) =>
  new AppError('rate_limit:model_request_count', `您已达到总请求数限制：${minutes}分钟内最多请求${count}次，包括失败次数，请检查您的请求是否正确`, {
    status: 429,
    type: 'new_api_error',
  });
const successLimitReached = ({ minutes, successCount }: LimitSettings) =>
  new AppError('rate_limit:model_request_success_count', `您已达到请求数限制：${minutes}分钟内最多请求${successCount}次`, {
    status: 429,
    type: 'new_api_error',
  });

/** Keys expire this long after their window stops mattering (clock skew between nodes). */
const KEY_SLACK_MS = 5_000;

// The user id in braces keeps one user's keys in one Redis Cluster slot, as the script needs.
const redisKey = (userId: number, kind: 't' | 's', windowMs: number, bucket: number) => `modelgate:mrl:{${userId}}:${kind}:${windowMs}:${bucket}`;

const SCRIPT_NAME = 'modelgateModelRequestAdmit';
const VERDICT_SUCCESS_LIMIT = 1;
const VERDICT_COUNT_LIMIT = 2;

/**
 * KEYS: total (current, previous window), successes (current, previous window).
 * ARGV: count limit, success limit, weight of the previous window, key expiry in ms.
 * Returns 0 (admitted and counted), 1 (success limit reached), 2 (count limit reached).
 */
const ADMIT_SCRIPT = `
local weight = tonumber(ARGV[3])
local successLimit = tonumber(ARGV[2])
if successLimit > 0 then
  local used = math.ceil(tonumber(redis.call('GET', KEYS[4]) or '0') * weight) + tonumber(redis.call('GET', KEYS[3]) or '0')
  if used >= successLimit then return 1 end
end
local countLimit = tonumber(ARGV[1])
if countLimit > 0 then
  local used = math.ceil(tonumber(redis.call('GET', KEYS[2]) or '0') * weight) + tonumber(redis.call('GET', KEYS[1]) or '0')
  if used >= countLimit then return 2 end
  redis.call('INCR', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return 0
`;

type ScriptedRedis = Redis & Record<typeof SCRIPT_NAME, (...args: (string | number)[]) => Promise<number>>;

/** EVALSHA with a fallback to EVAL (ioredis), defined once per client. */
function defineScript(redis: Redis): void {
  if (SCRIPT_NAME in redis) return;
  redis.defineCommand(SCRIPT_NAME, { numberOfKeys: 4, lua: ADMIT_SCRIPT });
}
