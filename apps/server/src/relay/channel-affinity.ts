import type { IncomingHttpHeaders } from 'node:http';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { OptionKey } from '../config/option-registry.js';
import type { PriorityTier } from '../domain/relay-cache/channel-index.js';
import type { RelayChannel } from '../domain/relay-cache/relay-channel.js';
import type { OptionService } from '../domain/options/option-service.js';
import type { AppError } from '../errors/app-error.js';
import type { UpstreamBody } from '../providers/provider-types.js';
import { MemoryAffinityStore, RedisAffinityStore, type AffinityPin } from './affinity-store.js';
import type { ChannelGate } from './channel-selector.js';
import type { RelayCaller } from './relay-caller.js';
import type { RelayInput } from './relay-input.js';

/**
 * Channel affinity: the calls of one agent session stay on one channel, and on one key of a
 * multi-key channel, while it is healthy, so the upstream's prompt cache (kept per account and
 * often per key) keeps serving the session's long, growing prompt.
 *
 * The session key, the first of (see sessionKeyOf):
 * - the headers named by ChannelAffinityHeader (comma-separated; empty by default);
 * - `x-claude-code-session-id`, the session header Claude Code sends with every call;
 * - `session-id`, then `thread-id`: Codex CLI 0.171 sends its thread id under both (seen in
 *   coding-agents.test.ts's traffic); older versions sent `session_id` and `conversation_id`,
 *   read next.
 * - `session_id`, then `conversation_id`: Codex CLI sends its conversation id under both
 *   (codex-rs/codex-api requests/headers.rs), and as the Responses body's `prompt_cache_key`;
 * - the body's `prompt_cache_key` (OpenAI chat and Responses: the client's own cache key);
 * - Anthropic's `metadata.user_id`: its session part when it has one (Claude Code sends
 *   `user_<hash>_account_<uuid>_session_<uuid>`, newer versions a JSON text with `session_id`),
 *   else the whole value (a per-end-user id, which keeps that user's calls together).
 * Gemini CLI sends nothing per session on the public API (only a per-installation header), so
 * its calls have no key unless ChannelAffinityHeader names one. Values longer than
 * MAX_SESSION_KEY characters are not used.
 *
 * A pin is scoped by (user id, group, model, session key): one user can never steer another's
 * calls, and a pin only applies to the routes it was made on. Its value is (channel id, key index).
 *
 * The rule (forward() in relay-service.ts, through SessionAffinity):
 * - attempt 0 goes to the pinned channel when it is still among the call's tiers (so enabled and
 *   serving this group and model), its breaker lets a call through (the gate pickChannel uses),
 *   no higher tier has a channel that does (priorities outrank affinity), and its weight gives
 *   it a share of its tier; its pinned key is drawn first (a key whose breaker is open is
 *   passed over as in any draw). Otherwise the normal pick;
 * - affinity never blocks failover: retries are pickChannel's as always, never a tried channel;
 * - a delivered answer (re)pins the session to the channel and key that served it (written only
 *   when that changed); a call whose pinned channel failed (a retryable failure: 429, 5xx,
 *   unreachable) and that no other channel answered forgets the pin, so the next call draws anew;
 * - calls pinned to a channel by their key (`sk-<key>-<channel id>`) are left alone.
 *
 * Where pins live: with REDIS_CONN_STRING in Redis (affinity-store.ts), so every node routes a
 * session alike, one round trip per call that has a session key; else in this process's memory,
 * an LRU of at most ChannelAffinityMaxEntries entries. Either way a pin expires
 * ChannelAffinityTTLSeconds after the session's last call. A Redis failure or a slow Redis never
 * fails or stalls a call (it waits at most REDIS_WAIT_MS): the call is routed without the pin and
 * the failure logged (at most once a minute).
 *
 * Cost: with ChannelAffinityEnabled off, one field read per call. On, a call without a session
 * key costs a few header and body field reads and no allocation; one with a key builds its
 * scoped key and one small object, and does no I/O on a node without Redis.
 */

/** Longer session keys are not used: they would cost memory (and Redis) for no routing benefit. */
export const MAX_SESSION_KEY = 256;

/** The session headers agent CLIs send, as Node spells them (lower case). */
const SESSION_HEADERS = ['x-claude-code-session-id', 'session-id', 'thread-id', 'session_id', 'conversation_id'] as const;

const AFFINITY_OPTIONS: ReadonlySet<OptionKey> = new Set([
  'ChannelAffinityEnabled',
  'ChannelAffinityTTLSeconds',
  'ChannelAffinityMaxEntries',
  'ChannelAffinityHeader',
]);

/** Redis failures are logged at most this often: a Redis outage must not flood the log. */
const ERROR_LOG_INTERVAL_MS = 60_000;

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

interface AffinitySettings {
  enabled: boolean;
  ttlMs: number;
  maxEntries: number;
  /** ChannelAffinityHeader's names, lower case. */
  headers: readonly string[];
}

export class ChannelAffinity {
  private settings: AffinitySettings;
  private readonly memory: MemoryAffinityStore | undefined;
  private readonly shared: RedisAffinityStore | undefined;
  private lastErrorLog = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly options: OptionService,
    redis: Redis | undefined,
    private readonly logger: Logger,
  ) {
    this.settings = this.read();
    const onError = (error: unknown) => this.redisFailed(error);
    if (redis) this.shared = new RedisAffinityStore(redis, () => this.settings.ttlMs, onError);
    else this.memory = new MemoryAffinityStore(() => this.settings);
    options.onChange((key) => {
      if (!AFFINITY_OPTIONS.has(key)) return;
      this.settings = this.read();
      if (!this.settings.enabled) this.memory?.clear();
    });
  }

  /**
   * The call's session with its pin looked up, or undefined when affinity is off or the call has
   * no session key (then nothing else is done for it). A promise only when Redis is asked.
   */
  session(caller: RelayCaller, input: RelayInput, headers: IncomingHttpHeaders): SessionAffinity | undefined | Promise<SessionAffinity> {
    const settings = this.settings;
    if (!settings.enabled) return undefined;
    const sessionKey = sessionKeyOf(headers, input.body, settings.headers);
    if (sessionKey === undefined) return undefined;
    const key = `modelgate:affinity:${caller.user.id}:${caller.group}:${input.model}:${sessionKey}`;
    if (this.shared) return this.shared.get(key).then((pin) => new SessionAffinity(this, key, pin));
    return new SessionAffinity(this, key, this.memory!.get(key));
  }

  /** Pins the session to this channel and key. */
  remember(key: string, pin: AffinityPin): void {
    if (this.shared) this.shared.set(key, pin);
    else this.memory!.set(key, pin);
  }

  forget(key: string): void {
    if (this.shared) this.shared.delete(key);
    else this.memory!.delete(key);
  }

  /** Resolves once the pins written so far are in Redis (at once without it): for tests of several nodes. */
  settled(): Promise<void> {
    return this.shared ? this.shared.settled() : Promise.resolve();
  }

  /** Pins held in this process's memory (0 with Redis). */
  get size(): number {
    return this.memory?.size ?? 0;
  }

  private read(): AffinitySettings {
    const { options } = this;
    return {
      enabled: options.bool('ChannelAffinityEnabled'),
      ttlMs: options.number('ChannelAffinityTTLSeconds') * 1000,
      maxEntries: Math.max(1, Math.floor(options.number('ChannelAffinityMaxEntries'))),
      headers: options
        .string('ChannelAffinityHeader')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter((name) => HEADER_NAME.test(name)),
    };
  }

  private redisFailed(error: unknown): void {
    const now = Date.now();
    if (now - this.lastErrorLog < ERROR_LOG_INTERVAL_MS) return;
    this.lastErrorLog = now;
    this.logger.warn({ err: error }, 'channel affinity: Redis failed; calls are routed without their session pins meanwhile');
  }
}

/**
 * One call's session: its pin as looked up, and what the call did with it. Made only for calls
 * with a session key; forward() asks it for attempt 0's channel and key and tells it the outcome.
 */
export class SessionAffinity {
  /** The pinned channel when attempt 0 went to it. */
  private stuck: RelayChannel | undefined;
  private stuckFailed = false;

  constructor(
    private readonly affinity: ChannelAffinity,
    readonly key: string,
    readonly pin: AffinityPin | undefined,
  ) {}

  /** Attempt 0's channel: the pinned one while it may take the call, else undefined (the normal pick). */
  channel(tiers: readonly PriorityTier[], gate: ChannelGate): RelayChannel | undefined {
    if (this.pin === undefined) return undefined;
    this.stuck = affinityChannel(tiers, this.pin.channelId, gate);
    return this.stuck;
  }

  /** The key to draw first on this channel: the pinned one on the pinned channel. */
  keyFor(channel: RelayChannel): number | undefined {
    return channel === this.stuck ? this.pin!.keyIndex : undefined;
  }

  /** An attempt's answer was delivered: the session is pinned to what served it. */
  served(channel: RelayChannel, keyIndex: number): void {
    const pin = this.pin;
    if (pin !== undefined && pin.channelId === channel.id && pin.keyIndex === keyIndex) return;
    this.affinity.remember(this.key, { channelId: channel.id, keyIndex });
  }

  /** An attempt failed: a failure of the pinned channel itself (not of the request) counts against the pin. */
  failed(channel: RelayChannel, error: AppError): void {
    if (channel === this.stuck && error.retryable) this.stuckFailed = true;
  }

  /** No attempt was delivered: a pin whose channel failed is forgotten, so the next call draws anew. */
  gaveUp(): void {
    if (this.stuckFailed) this.affinity.forget(this.key);
  }
}

/**
 * The session key of a call (see the comment at the top), or undefined. Reads a few header and
 * body fields; allocates nothing for a call without one.
 */
export function sessionKeyOf(headers: IncomingHttpHeaders, body: UpstreamBody, configured: readonly string[]): string | undefined {
  for (const name of configured) {
    const value = usable(headers[name]);
    if (value !== undefined) return value;
  }
  for (const name of SESSION_HEADERS) {
    const value = usable(headers[name]);
    if (value !== undefined) return value;
  }
  if (body.kind !== 'json') return undefined;
  const json = body.json;
  const cacheKey = usable(json.prompt_cache_key);
  if (cacheKey !== undefined) return cacheKey;
  const metadata = json.metadata;
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const userId = (metadata as { user_id?: unknown }).user_id;
  return typeof userId === 'string' ? usable(claudeSessionOf(userId)) : undefined;
}

function usable(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed !== '' && trimmed.length <= MAX_SESSION_KEY ? trimmed : undefined;
}

const LEGACY_SESSION_MARK = '_session_';

/**
 * The session part of Claude Code's metadata.user_id: `session_id` of the JSON text newer
 * versions send, the part after `_session_` of `user_<hash>_account_<uuid>_session_<uuid>`;
 * any other value whole.
 */
export function claudeSessionOf(userId: string): string {
  if (userId.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(userId);
      const session = typeof parsed === 'object' && parsed !== null ? (parsed as { session_id?: unknown }).session_id : undefined;
      if (typeof session === 'string' && session.trim() !== '') return session;
    } catch {
      // Not JSON after all: the whole value.
    }
    return userId;
  }
  const mark = userId.lastIndexOf(LEGACY_SESSION_MARK);
  const session = mark < 0 ? '' : userId.slice(mark + LEGACY_SESSION_MARK.length);
  return session === '' ? userId : session;
}

/** Each route's channels by id with their tier, built the first time a pin is checked against it. */
const positions = new WeakMap<readonly PriorityTier[], Map<number, { channel: RelayChannel; tier: number }>>();

function positionIn(tiers: readonly PriorityTier[], channelId: number): { channel: RelayChannel; tier: number } | undefined {
  let byId = positions.get(tiers);
  if (byId === undefined) {
    byId = new Map();
    for (let tier = 0; tier < tiers.length; tier += 1) for (const channel of tiers[tier]!.channels) byId.set(channel.id, { channel, tier });
    // The tiers are an immutable snapshot of the channel index: a reload makes new ones.
    positions.set(tiers, byId);
  }
  return byId.get(channelId);
}

/**
 * The pinned channel when attempt 0 may go to it (see the rule at the top), else undefined. Pure
 * but for the memo of each route's positions; O(1) unless the pin is in a lower tier, then it
 * looks for a channel that may take the call in the tiers above.
 */
export function affinityChannel(tiers: readonly PriorityTier[], channelId: number, gate: ChannelGate): RelayChannel | undefined {
  const found = positionIn(tiers, channelId);
  if (found === undefined) return undefined;
  const { channel, tier } = found;
  // Weighted tier where this channel has no share: the operator is draining it.
  if (channel.weight <= 0 && tiers[tier]!.totalWeight > 0) return undefined;
  if (gate.blockedUntil(channel) !== 0) return undefined;
  for (let higher = 0; higher < tier; higher += 1) {
    for (const other of tiers[higher]!.channels) if (gate.blockedUntil(other) === 0) return undefined;
  }
  return channel;
}
