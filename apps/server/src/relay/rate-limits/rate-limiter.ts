import { modelRequestRateLimitGroupSchema, rateLimitMapSchema } from '@modelgate/contract';
import type { RelayReply } from '../relay-exchange.js';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { OptionKey } from '../../config/option-registry.js';
import type { OptionService } from '../../domain/options/option-service.js';
import { rateFigures, type RateFigures } from '../../domain/relay-cache/rate-figures.js';
import type { RelayCaller } from '../relay-caller.js';
import type { CounterStore, Outcome } from './counter-store.js';
import type { CachedToken } from '../../domain/relay-cache/token-cache.js';
import type { CachedUser } from '../../domain/relay-cache/user-cache.js';
import {
  figureChecks,
  groupOwner,
  limitCheck,
  MINUTE_MS,
  modelOwner,
  scopeName,
  TOKEN_OWNER,
  USER_OWNER,
  type LimitCheck,
  type LimitOwner,
} from './limit-checks.js';
import { MemoryCounters } from './memory-counters.js';
import { refusal } from './rate-answer.js';
import { RedisCounters } from './redis-counters.js';

/**
 * Rate limits on the relay (issue 27), one design for every owner of a limit:
 *
 * Who has limits, each figure optional (0: none): rpm (requests a minute), tpm (tokens a minute:
 * prompt + completion), rpd (requests a day), concurrency (calls in flight at once).
 * - a token: its columns rpm_limit, tpm_limit, rpd_limit, concurrency_limit (migration 010),
 *   set by its owner on the token form; counted per token;
 * - a user: the same columns on users, set by an administrator; counted per user, all their
 *   tokens (and the console's playground) together;
 * - a group: the option GroupRateLimits, `{"vip": {"rpm": 60, "concurrency": 4}}`: figures for
 *   each user's calls made in that group (the token's group, else the user's), counted per user
 *   and group, so one user cannot use up a whole group's allowance;
 * - a model: the option ModelRateLimits, `{"gpt-4o": {"tpm": 100000}}`: figures for each user's
 *   calls of that model (the name the client asked for), counted per user and model;
 * - new-api's ModelRequestRateLimit* (middleware/model-rate-limit.go), folded in: while
 *   ModelRequestRateLimitEnabled, each user's calls within DurationMinutes, at most Count
 *   (failed ones included) and at most SuccessCount successful ones, the pair replaced for a
 *   group by ModelRequestRateLimitGroup (`{"vip": [0, 1000]}`, new-api's option), with new-api's
 *   messages. API keys only, as in new-api: the playground is exempt from these and from a
 *   token's limits (it has no token), not from the user's, group's and model's.
 * Every limit that applies is checked; a call passes only if all pass, so the tightest refuses.
 *
 * Windows: rpm, tpm and new-api's counts slide over their window (a minute, DurationMinutes),
 * rpd over 24 hours, each approximated by two fixed windows (sliding-window.ts). A request is
 * counted when admitted, failed or not, and a refused one is not counted anywhere. Tokens are
 * counted when the call settles, as its usage is known only then: a call is admitted while its
 * window's tokens are below the figure, so the one call that takes the window past it still runs
 * to its end, and later calls are refused until enough of the window has aged out. A gate's slot
 * is taken on admission and given back when the call's answer has ended, whatever the end (an
 * answer, a failure, a client gone, a stream's end; a piped answer when its last byte is out);
 * a call's tokens and its success are written then too, in the same write.
 *
 * Where counters live: with REDIS_CONN_STRING in Redis, shared by every node: one script per
 * limited call checks and counts atomically, so N nodes together admit exactly the figure; a
 * gate's slots are leases a dead node's slots lapse from within a minute (redis-counters.ts).
 * Otherwise in this process's memory (memory-counters.ts). A Redis failure never fails a call:
 * it goes unchecked (fail-open: an outage of a cache must not become an outage of the gateway)
 * and the failure is logged at most once a minute. This replaces new-api's rule that refused
 * calls with 500 when its limit could not be checked.
 *
 * Refused: HTTP 429 in the caller's protocol, with Retry-After and OpenAI's x-ratelimit headers
 * (rate-answer.ts), before anything is held or any upstream asked, so nothing is charged or
 * logged. Admitted calls go without those headers: writing six headers on every limited call cost
 * more (about 6 µs, measured) than the whole limiter.
 *
 * Cost: a call none of whose owners has a limit (no token or user figures, no group or model
 * option, new-api's limit off) costs five field reads and no allocation: admit returns undefined
 * and there is nothing to release. bench/ratelimits-bench.ts measures a call with every kind set.
 */
export class RateLimiter {
  private settings: LimitSettings;
  private readonly store: CounterStore;
  /** Each cached token's and user's checks, made when first needed: a reload caches a new object, so an edit is seen. */
  private readonly tokenChecks = new WeakMap<CachedToken, readonly LimitCheck[]>();
  private readonly userChecks = new WeakMap<CachedUser, readonly LimitCheck[]>();
  private readonly redisStore: RedisCounters | undefined;
  private lastErrorLog = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly options: OptionService,
    redis: Redis | undefined,
    private readonly logger: Pick<Logger, 'warn'>,
    redisWaitMs?: number,
  ) {
    this.settings = readSettings(options);
    const onError = (error: unknown) => this.redisFailed(error);
    this.redisStore = redis ? new RedisCounters(redis, onError, redisWaitMs) : undefined;
    this.store = this.redisStore ?? new MemoryCounters();
    options.onChange((key) => {
      if (LIMIT_OPTIONS.has(key)) this.settings = readSettings(options);
    });
  }

  /**
   * Admits one call or throws its 429 (its headers set on `reply`). Undefined when no limit
   * applies, or none needs anything later; otherwise the ticket the call gives back when it ends.
   * A promise only when Redis is asked. `playground`: the console's playground (a session, no key).
   */
  admit(caller: RelayCaller, model: string, playground: boolean, reply: RelayReply): RateTicket | undefined | Promise<RateTicket | undefined> {
    const settings = this.settings;
    const token = playground ? undefined : caller.token.rateLimits;
    const user = caller.user.rateLimits;
    const request = playground ? undefined : settings.request;
    if (token === undefined && user === undefined && settings.groups === undefined && settings.models === undefined && request === undefined) {
      return undefined;
    }
    const checks = joined(
      token === undefined ? undefined : this.checksOfToken(caller.token, token),
      user === undefined ? undefined : this.checksOfUser(caller.user, user),
      settings.groups?.get(caller.group)?.checks,
      settings.models?.get(model)?.checks,
      request === undefined ? undefined : (request.groups.get(caller.group) ?? request.checks),
    );
    if (checks.length === 0) return undefined;
    const userId = caller.user.id;
    const now = Date.now();
    const lease = this.redisStore?.nextLease() ?? '';
    const found = this.store.admit(userId, checks, now, lease);
    if (found instanceof Promise) return found.then((outcome) => this.decide(outcome, userId, checks, now, lease, reply));
    return this.decide(found, userId, checks, now, lease, reply);
  }

  private checksOfToken(token: CachedToken, figures: RateFigures): readonly LimitCheck[] {
    let checks = this.tokenChecks.get(token);
    if (checks === undefined) this.tokenChecks.set(token, (checks = figureChecks(figures, `t${token.id}`, TOKEN_OWNER)));
    return checks;
  }

  private checksOfUser(user: CachedUser, figures: RateFigures): readonly LimitCheck[] {
    let checks = this.userChecks.get(user);
    if (checks === undefined) this.userChecks.set(user, (checks = figureChecks(figures, 'u', USER_OWNER)));
    return checks;
  }

  /** Resolves once the counts sent so far are stored (at once in memory): for tests of several nodes. */
  settled(): Promise<void> {
    return this.store.settled();
  }

  close(): void {
    this.store.close();
  }

  private decide(
    outcome: Outcome | undefined,
    userId: number,
    checks: readonly LimitCheck[],
    now: number,
    lease: string,
    reply: RelayReply,
  ): RateTicket | undefined {
    // Redis could not be asked: the call goes unchecked, and has nothing to give back.
    if (outcome === undefined) return undefined;
    if (!outcome.admitted) throw refusal(reply.raw, checks, outcome, now);
    let later = false;
    for (const check of checks) if (check.kind === 'concurrency' || check.kind === 'tpm' || check.kind === 'success') later = true;
    return later ? new RateTicket(this.store, userId, checks, lease) : undefined;
  }

  private redisFailed(error: unknown): void {
    const now = Date.now();
    if (now - this.lastErrorLog < ERROR_LOG_INTERVAL_MS) return;
    this.lastErrorLog = now;
    this.logger.warn({ err: error }, 'rate limits: Redis failed; calls are admitted unchecked until it answers (logged at most once a minute)');
  }
}

/**
 * What an admitted call owes its limits later: its tokens (counted at settlement), its success (an
 * answer delivered), its gates' slots; all written when the call has ended, at most once.
 */
export class RateTicket {
  private ended = false;
  private delivered = false;
  private tokens = 0;

  constructor(
    private readonly store: CounterStore,
    private readonly userId: number,
    private readonly checks: readonly LimitCheck[],
    private readonly lease: string,
  ) {}

  /** The upstream's answer is being delivered (new-api's SuccessCount). */
  succeeded(): void {
    this.delivered = true;
  }

  /** The call settled with this many tokens (prompt + completion). */
  settled(tokens: number): void {
    if (tokens > 0) this.tokens += Math.ceil(tokens);
  }

  /**
   * The call's handling is over: its counts are written and its slots given back once its answer
   * is out, now when it is (or the client is gone), else when the response closes: a piped answer
   * still flowing, or a failure the error handler is about to send.
   */
  end(reply: RelayReply): void {
    if (this.ended) return;
    const response = reply.raw;
    if (response.writableEnded || response.destroyed || response.closed) this.finish();
    else response.once('close', () => this.finish());
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.store.finish(this.userId, this.checks, this.lease, this.tokens, this.delivered, Date.now());
  }
}

/** Redis failures are logged at most this often: an outage must not flood the log. */
const ERROR_LOG_INTERVAL_MS = 60_000;

const LIMIT_OPTIONS: ReadonlySet<OptionKey> = new Set([
  'GroupRateLimits',
  'ModelRateLimits',
  'ModelRequestRateLimitEnabled',
  'ModelRequestRateLimitDurationMinutes',
  'ModelRequestRateLimitCount',
  'ModelRequestRateLimitSuccessCount',
  'ModelRequestRateLimitGroup',
]);

/** A group's or a model's checks. */
interface OwnedFigures {
  checks: readonly LimitCheck[];
}

/** new-api's ModelRequestRateLimit*, while it is on: the checks of its global pair, and of each group's (ModelRequestRateLimitGroup). */
interface RequestLimits {
  checks: readonly LimitCheck[];
  groups: ReadonlyMap<string, readonly LimitCheck[]>;
}

interface LimitSettings {
  /** undefined while GroupRateLimits names no group with a limit (nothing is looked up then). */
  groups: ReadonlyMap<string, OwnedFigures> | undefined;
  models: ReadonlyMap<string, OwnedFigures> | undefined;
  request: RequestLimits | undefined;
}

/** The owners' checks joined for a call, remembered under the first owner's array: its next call finds the same parts. */
interface JoinedChecks {
  parts: readonly (readonly LimitCheck[] | undefined)[];
  all: readonly LimitCheck[];
}

const joinedChecks = new WeakMap<readonly LimitCheck[], JoinedChecks>();

/** The call's checks: a single owner's array itself (the usual case), else the owners' arrays joined once and reused. */
function joined(...parts: (readonly LimitCheck[] | undefined)[]): readonly LimitCheck[] {
  let first: readonly LimitCheck[] | undefined;
  let several = false;
  for (const part of parts) {
    if (part === undefined || part.length === 0) continue;
    if (first === undefined) first = part;
    else several = true;
  }
  if (!several) return first ?? NO_CHECKS;
  const known = joinedChecks.get(first!);
  if (known !== undefined && known.parts.every((part, index) => part === parts[index])) return known.all;
  const all: LimitCheck[] = [];
  for (const part of parts) if (part !== undefined) for (const check of part) all.push(check);
  joinedChecks.set(first!, { parts, all });
  return all;
}

const NO_CHECKS: readonly LimitCheck[] = [];

function requestChecks(minutes: number, count: number, successCount: number): readonly LimitCheck[] {
  const windowMs = minutes * MINUTE_MS;
  const checks: LimitCheck[] = [];
  if (successCount > 0) checks.push(limitCheck('success', successCount, windowMs, 'n', USER_OWNER, minutes));
  if (count > 0) checks.push(limitCheck('count', count, windowMs, 'n', USER_OWNER, minutes));
  return checks;
}

function readSettings(options: OptionService): LimitSettings {
  return {
    groups: ownedFigures(options, 'GroupRateLimits', 'g', groupOwner),
    models: ownedFigures(options, 'ModelRateLimits', 'm', modelOwner),
    request: requestLimits(options),
  };
}

function ownedFigures(
  options: OptionService,
  key: 'GroupRateLimits' | 'ModelRateLimits',
  prefix: 'g' | 'm',
  ownerOf: (name: string) => LimitOwner,
): ReadonlyMap<string, OwnedFigures> | undefined {
  // Checked when written (option-registry.ts); a row written around the check is read as no limit.
  const parsed = rateLimitMapSchema.safeParse(options.json<unknown>(key));
  if (!parsed.success) return undefined;
  const owned = new Map<string, OwnedFigures>();
  for (const [name, entry] of Object.entries(parsed.data)) {
    const figures = rateFigures(entry.rpm ?? 0, entry.tpm ?? 0, entry.rpd ?? 0, entry.concurrency ?? 0);
    if (figures !== undefined) owned.set(name, { checks: figureChecks(figures, scopeName(prefix, name), ownerOf(name)) });
  }
  return owned.size > 0 ? owned : undefined;
}

function requestLimits(options: OptionService): RequestLimits | undefined {
  const minutes = Math.floor(options.number('ModelRequestRateLimitDurationMinutes'));
  if (!options.bool('ModelRequestRateLimitEnabled') || minutes <= 0) return undefined;
  const parsed = modelRequestRateLimitGroupSchema.safeParse(options.json<unknown>('ModelRequestRateLimitGroup'));
  const groups = new Map<string, readonly LimitCheck[]>();
  for (const [group, [count, successCount]] of parsed.success ? Object.entries(parsed.data) : [])
    groups.set(group, requestChecks(minutes, count, successCount));
  const checks = requestChecks(
    minutes,
    Math.floor(options.number('ModelRequestRateLimitCount')),
    Math.floor(options.number('ModelRequestRateLimitSuccessCount')),
  );
  if (checks.length === 0 && groups.size === 0) return undefined;
  return { checks, groups };
}
