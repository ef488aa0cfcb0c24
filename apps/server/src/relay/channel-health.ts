import { ChannelStatus } from '@modelgate/contract';
import type { OpenAIEndpoint } from '@modelgate/protocol';
import type { AppContext } from '../app-context.js';
import { toRelayChannel, type RelayChannel } from '../domain/relay-cache/relay-channel.js';
import { parseSensitiveWords, WordMatcher } from '../domain/sensitive/word-matcher.js';
import { describeConnectionFailure } from '../lib/connection-failure.js';
import { channelSecrets, maskSecrets } from '../lib/mask-secrets.js';
import type { ErrorVerdict, UpstreamFailure } from '../providers/provider-types.js';
import { AppError } from '../errors/app-error.js';
import { ChannelBreakers } from './channel-breaker.js';
import { keyStatus, parseChannelInfo, withKeyStatus } from '../domain/channels/multi-key.js';
import { changeKeyStates } from '../domain/channels/multi-key-store.js';
import { needsChatAttempt, planChatAttempt, type ChatAttempt } from './chat-attempt.js';
import type { RelayEndpointSpec } from './relay-endpoints.js';
import type { RelayInput } from './relay-input.js';
import type { UpstreamClient } from '../providers/upstream-client.js';
import { readUpstreamFailure } from './upstream-failure.js';

/** A key's calls on this node (ChannelHealth.keyUseOf). */
export interface KeyUse {
  served: number;
  failed: number;
  /** Unix seconds of its last served call; 0 = none yet. */
  lastServed: number;
}

export interface ChannelTestResult {
  ok: boolean;
  /** Milliseconds the test took. */
  elapsedMs: number;
  message: string;
}

const TEST_ALL_CONCURRENCY = 3;
/** How long a probe may run before another may go when RELAY_TIMEOUT is 0 (undici's own header limit). */
const PROBE_LEASE_DEFAULT_SECONDS = 300;
const DEFAULT_TEST_MODEL = 'gpt-4o-mini';

/**
 * Channel health: tests (a small real request, recording response_time and test_time) and the
 * automatic status changes. With AutomaticDisableChannelEnabled, a channel whose upstream rejects
 * its key, or whose test is slower than ChannelDisableThreshold seconds, becomes status 3 with
 * other_info.status_reason/status_time, unless its auto_ban is 0. With
 * AutomaticEnableChannelEnabled, a status-3 channel that passes a test comes back.
 *
 * Passing troubles (429, 5xx, an upstream that cannot be reached) never change a channel's
 * status: they feed this node's circuit breakers (channel-breaker.ts), which take a channel or
 * key out of routing for a cool-down and bring it back through one probe request.
 */
export class ChannelHealth {
  private testAllRunning = false;
  private readonly disabling = new Set<number>();
  /** Overrun quota waiting to be added to each channel's flag (noteOverrun). */
  private readonly overruns = new Map<number, { quota: number; cuts: number }>();
  readonly breakers: ChannelBreakers;
  /** AutomaticDisableKeywords, built once per value of the option; undefined while the list is empty. */
  private disableKeywords: WordMatcher | undefined;

  constructor(
    private readonly context: AppContext,
    private readonly upstream: UpstreamClient,
  ) {
    const { options, config } = context;
    this.breakers = new ChannelBreakers(() => ({
      failureThreshold: Math.floor(options.number('ChannelBreakerFailureThreshold')),
      windowMs: options.number('ChannelBreakerWindowSeconds') * 1000,
      cooldownMs: options.number('ChannelBreakerCooldownSeconds') * 1000,
      // A probe reports when its headers arrive, which RELAY_TIMEOUT bounds.
      probeLeaseMs: (config.relayTimeoutSeconds > 0 ? config.relayTimeoutSeconds : PROBE_LEASE_DEFAULT_SECONDS) * 1000,
    }));
    this.setDisableKeywords(options.string('AutomaticDisableKeywords'));
    options.onChange((key, value) => {
      if (key === 'AutomaticDisableKeywords') this.setDisableKeywords(value);
    });
  }

  private setDisableKeywords(list: string): void {
    const matcher = new WordMatcher(parseSensitiveWords(list));
    this.disableKeywords = matcher.size > 0 ? matcher : undefined;
  }

  /**
   * Whether an upstream's error answer says the channel itself is unusable: the provider's own
   * verdict (rejected key, closed account), or new-api's ShouldDisableChannel keyword rule, an
   * error message holding one of AutomaticDisableKeywords, ignoring case. Whether the channel is
   * then disabled is still up to AutomaticDisableChannelEnabled and its auto_ban.
   */
  disablesChannel(failure: UpstreamFailure, verdict: ErrorVerdict): boolean {
    return verdict.disableChannel || (this.disableKeywords !== undefined && this.disableKeywords.find(failure.message) !== undefined);
  }

  /** The upstream answered a relayed request with a success status. */
  onRelaySuccess(channel: RelayChannel, keyIndex: number): void {
    this.countKey(channel, keyIndex, true);
    if (this.breakers.succeeded(channel, keyIndex)) this.context.logger.info({ channelId: channel.id }, 'channel circuit closed');
  }

  /**
   * An upstream's error answer to a relayed request. Rate limits and server errors count against
   * the key's breaker, and so does a rejected key; a rejected key also disables the channel at
   * once when the rules say so. Errors of the request itself (other 4xx) say nothing about health.
   */
  onUpstreamError(channel: RelayChannel, keyIndex: number, failure: UpstreamFailure, verdict: ErrorVerdict): void {
    const disable = this.disablesChannel(failure, verdict);
    this.countKey(channel, keyIndex, false);
    // A multi-key channel loses the rejected key alone; the channel goes with its last key.
    if (disable && channel.allKeys.length > 1) this.onKeyFailure(channel, keyIndex, failure);
    else if (disable) this.onRelayFailure(channel, failure);
    if (failure.status === 429 || failure.status >= 500 || disable) {
      this.trip(channel, keyIndex, `${failure.message} (HTTP ${failure.status})`);
    }
  }

  /**
   * An adaptor's refusal to build the request: a key that can never work (malformed, or refused by
   * Vertex's token endpoint) counts as a rejected key, anything else as an unreachable upstream.
   */
  onBuildFailure(channel: RelayChannel, keyIndex: number, error: AppError): void {
    const failure = credentialFailure(error);
    if (failure) this.onUpstreamError(channel, keyIndex, failure, CREDENTIALS_REFUSED);
    else this.onUnreachable(channel, error.message);
  }

  /** No usable answer at all (refused, reset, timed out): the upstream's trouble, whichever key was used. */
  onUnreachable(channel: RelayChannel, reason: string): void {
    this.trip(channel, undefined, reason);
  }

  private trip(channel: RelayChannel, keyIndex: number | undefined, reason: string): void {
    const masked = maskSecrets(reason, channel.allKeys);
    if (this.breakers.failed(channel, keyIndex, masked)) {
      this.context.logger.warn({ channelId: channel.id, reason: masked }, 'channel circuit opened');
    }
  }

  /**
   * A key of a multi-key channel was rejected: with AutomaticDisableChannelEnabled and the
   * channel's auto_ban, that key is disabled (status 3, with the reason and time) and the others
   * keep serving; the channel is disabled once no key is left (multi-key-store.ts).
   */
  onKeyFailure(channel: RelayChannel, keyIndex: number, failure: UpstreamFailure): void {
    if (!this.context.options.bool('AutomaticDisableChannelEnabled') || !channel.autoBan) return;
    const index = channel.keyIndexes[keyIndex];
    const key = channel.keys[keyIndex];
    if (index === undefined || key === undefined) return;
    const reason = `${maskSecrets(failure.message, channel.allKeys)} (HTTP ${failure.status})`;
    this.disableKey(channel.id, index, key, reason).catch((error: unknown) =>
      this.context.logger.error({ err: error, channelId: channel.id }, 'could not disable a key of the channel'),
    );
  }

  /**
   * Sets key `index` of a channel to status 3 when it is still `key` and enabled; true when it did.
   * Two nodes disabling the same key, or an admin editing the keys meanwhile, change nothing twice.
   */
  async disableKey(channelId: number, index: number, key: string, reason: string): Promise<boolean> {
    const result = await changeKeyStates(this.context.db, channelId, ({ keys, info }) =>
      keys[index] === key && keyStatus(info, index) === ChannelStatus.Enabled
        ? { keys, info: withKeyStatus(info, index, ChannelStatus.AutoDisabled, reason) }
        : { refused: 'unchanged' },
    );
    if (!result.after) return false;
    this.context.logger.warn({ channelId, keyIndex: index, reason, channelStatus: result.after.status }, 'channel key disabled automatically');
    this.context.changes.emit('channels');
    return true;
  }

  /** Brings an automatically disabled key back (and its channel, when it was disabled for want of keys); true when it did. */
  async enableKey(channelId: number, index: number, key: string): Promise<boolean> {
    const result = await changeKeyStates(this.context.db, channelId, ({ keys, info }) =>
      keys[index] === key && keyStatus(info, index) === ChannelStatus.AutoDisabled
        ? { keys, info: withKeyStatus(info, index, ChannelStatus.Enabled) }
        : { refused: 'unchanged' },
    );
    if (!result.after) return false;
    this.context.logger.info({ channelId, keyIndex: index }, 'channel key enabled automatically after passing a test');
    this.context.changes.emit('channels');
    return true;
  }

  /**
   * This node's calls per key of each multi-key channel since it started (the key list shows them):
   * served, failed, and when it last served. Single-key channels are not counted (their channel's
   * used_quota and logs say it all).
   */
  private readonly keyUse = new Map<number, Map<string, KeyUse>>();

  private countKey(channel: RelayChannel, keyIndex: number | undefined, served: boolean): void {
    if (channel.allKeys.length < 2 || keyIndex === undefined) return;
    const key = channel.keys[keyIndex];
    if (key === undefined) return;
    let perKey = this.keyUse.get(channel.id);
    if (!perKey) this.keyUse.set(channel.id, (perKey = new Map()));
    let use = perKey.get(key);
    if (!use) perKey.set(key, (use = { served: 0, failed: 0, lastServed: 0 }));
    if (served) {
      use.served += 1;
      use.lastServed = Math.floor(Date.now() / 1000);
    } else use.failed += 1;
  }

  /** This node's counts for one key of a channel. */
  keyUseOf(channelId: number, key: string): KeyUse | undefined {
    return this.keyUse.get(channelId)?.get(key);
  }

  /** Called by the relay when an upstream failure says the channel itself is unusable. */
  onRelayFailure(channel: RelayChannel, failure: UpstreamFailure): void {
    if (!this.context.options.bool('AutomaticDisableChannelEnabled') || !channel.autoBan) return;
    if (this.disabling.has(channel.id)) return;
    this.disabling.add(channel.id);
    this.disable(channel.id, `${failure.message} (HTTP ${failure.status})`)
      .catch((error: unknown) => this.context.logger.error({ err: error, channelId: channel.id }, 'could not disable channel'))
      .finally(() => this.disabling.delete(channel.id));
  }

  /**
   * An upstream returned more than its call was held for (the excess was not charged), or streamed
   * past the output limit it was sent and the relay cut the stream there: the channel is flagged for
   * admins (other_info.overrun_quota, the quota not charged, other_info.limit_ignored, the calls cut,
   * both running totals, and overrun_time), written off the request's way, one write per channel
   * at a time with what arrived meanwhile added.
   */
  noteOverrun(channel: RelayChannel, quota: number, cut = false): void {
    const pending = this.overruns.get(channel.id);
    if (pending !== undefined) {
      pending.quota += quota;
      pending.cuts += cut ? 1 : 0;
      return;
    }
    const entry = { quota, cuts: cut ? 1 : 0 };
    this.overruns.set(channel.id, entry);
    const write = async () => {
      while (entry.quota > 0 || entry.cuts > 0) {
        const adding = { quota: entry.quota, cuts: entry.cuts };
        entry.quota = 0;
        entry.cuts = 0;
        await this.context.db.kysely.transaction().execute(async (trx) => {
          const row = await trx.selectFrom('channels').select('other_info').where('id', '=', channel.id).executeTakeFirst();
          if (!row) return;
          const values = {
            overrun_quota: numberIn(row.other_info, 'overrun_quota') + adding.quota,
            limit_ignored: numberIn(row.other_info, 'limit_ignored') + adding.cuts,
            overrun_time: Math.floor(Date.now() / 1000),
          };
          await trx
            .updateTable('channels')
            .set({ other_info: mergeOtherInfo(row.other_info, values) })
            .where('id', '=', channel.id)
            .execute();
        });
      }
    };
    write()
      .catch((error: unknown) => this.context.logger.error({ err: error, channelId: channel.id }, 'could not flag the channel for an overrun'))
      .finally(() => this.overruns.delete(channel.id));
  }

  /** Sets an enabled channel with auto_ban=1 to status 3; true when it did. */
  async disable(channelId: number, reason: string): Promise<boolean> {
    const { db, changes, logger } = this.context;
    let maskedReason = maskSecrets(reason);
    const changed = await db.kysely.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('channels').select(['other_info', 'key']).where('id', '=', channelId).executeTakeFirst();
      if (!row) return false;
      // Reasons quote upstream answers, which may quote the key; other_info is shown to admins.
      maskedReason = maskSecrets(reason, channelSecrets(db.secrets.open(row.key)));
      const otherInfo = mergeOtherInfo(row.other_info, { status_reason: maskedReason, status_time: Math.floor(Date.now() / 1000) });
      const result = await trx
        .updateTable('channels')
        .set({ status: ChannelStatus.AutoDisabled, other_info: otherInfo })
        .where('id', '=', channelId)
        .where('status', '=', ChannelStatus.Enabled)
        .where('auto_ban', '=', 1)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await trx.updateTable('abilities').set({ enabled: 0 }).where('channel_id', '=', channelId).execute();
      return true;
    });
    if (changed) {
      logger.warn({ channelId, reason: maskedReason }, 'channel disabled automatically');
      changes.emit('channels');
    }
    return changed;
  }

  /** Brings an automatically disabled channel (status 3) back; true when it did. */
  async enable(channelId: number): Promise<boolean> {
    const { db, changes, logger } = this.context;
    const changed = await db.kysely.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('channels')
        .set({ status: ChannelStatus.Enabled })
        .where('id', '=', channelId)
        .where('status', '=', ChannelStatus.AutoDisabled)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await trx.updateTable('abilities').set({ enabled: 1 }).where('channel_id', '=', channelId).execute();
      return true;
    });
    if (changed) {
      logger.info({ channelId }, 'channel enabled automatically after passing a test');
      changes.emit('channels');
    }
    return changed;
  }

  /** Tests one channel (with `model`, else its test model, else its first model) and applies the rules. */
  async test(channelId: number, model?: string): Promise<ChannelTestResult | undefined> {
    const stored = await this.context.db.kysely.selectFrom('channels').selectAll().where('id', '=', channelId).executeTakeFirst();
    if (!stored) return undefined;
    const row = { ...stored, key: this.context.db.secrets.open(stored.key) };
    const channel = toRelayChannel(row);
    const testModel = model?.trim() || channel.testModel || channel.models[0] || DEFAULT_TEST_MODEL;
    // A multi-key channel also tests its automatically disabled keys: a recovered one comes back (new-api #7040).
    const recovered = channel.allKeys.length > 1 ? await this.testDisabledKeys(row, channel, testModel) : undefined;
    if (channel.keys.length === 0 && recovered !== undefined) {
      await this.context.db.kysely
        .updateTable('channels')
        .set({ test_time: Math.floor(Date.now() / 1000) })
        .where('id', '=', channelId)
        .execute();
      return recovered;
    }
    const outcome = await this.probe(channel, testModel);
    const now = Math.floor(Date.now() / 1000);
    await this.context.db.kysely
      .updateTable('channels')
      .set(outcome.result.ok ? { response_time: outcome.result.elapsedMs, test_time: now } : { test_time: now })
      .where('id', '=', channelId)
      .execute();
    // A passing test is as good a probe as a relayed request.
    if (outcome.keyIndex !== undefined) this.onRelaySuccess(channel, outcome.keyIndex);
    await this.applyRules(channel, outcome);
    return outcome.result;
  }

  /**
   * Tests each automatically disabled key of a multi-key channel once, with AutomaticEnableChannelEnabled:
   * a key that passes is enabled again (and its channel, when it was disabled for want of keys).
   * The result of the first passing key, else of the last one tried; undefined when none was tried.
   */
  private async testDisabledKeys(row: { channel_info: string }, channel: RelayChannel, model: string): Promise<ChannelTestResult | undefined> {
    if (!this.context.options.bool('AutomaticEnableChannelEnabled')) return undefined;
    const info = parseChannelInfo(row.channel_info, channel.allKeys.length);
    let last: ChannelTestResult | undefined;
    for (let index = 0; index < channel.allKeys.length; index += 1) {
      if (keyStatus(info, index) !== ChannelStatus.AutoDisabled) continue;
      const key = channel.allKeys[index]!;
      const outcome = await this.probe(channel, model, key);
      last = outcome.result;
      if (outcome.result.ok) {
        await this.enableKey(channel.id, index, key);
        return outcome.result;
      }
    }
    return last;
  }

  /** Starts testing every enabled and auto-disabled channel in the background; false if a run is going. */
  testAll(): boolean {
    if (this.testAllRunning) return false;
    this.runTestAll().catch((error: unknown) => this.context.logger.error({ err: error }, 'channel test run failed'));
    return true;
  }

  /** One whole test run, awaited (the scheduled test); does nothing while another run is going. */
  async runTestAll(): Promise<void> {
    if (this.testAllRunning) return;
    this.testAllRunning = true;
    try {
      await this.testEveryChannel();
    } finally {
      this.testAllRunning = false;
    }
  }

  private async testEveryChannel(): Promise<void> {
    const rows = await this.context.db.kysely
      .selectFrom('channels')
      .select('id')
      .where('status', 'in', [ChannelStatus.Enabled, ChannelStatus.AutoDisabled])
      .orderBy('id')
      .execute();
    const queue = rows.map((row) => Number(row.id));
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        await this.test(id).catch((error: unknown) => this.context.logger.error({ err: error, channelId: id }, 'channel test failed'));
      }
    };
    await Promise.all(Array.from({ length: TEST_ALL_CONCURRENCY }, worker));
  }

  private async applyRules(channel: RelayChannel, outcome: ProbeOutcome): Promise<void> {
    const { options } = this.context;
    const thresholdMs = options.number('ChannelDisableThreshold') * 1000;
    const tooSlow = outcome.result.ok && thresholdMs > 0 && outcome.result.elapsedMs > thresholdMs;
    if (channel.status === ChannelStatus.Enabled && options.bool('AutomaticDisableChannelEnabled') && channel.autoBan) {
      const usedKey = outcome.usedKey;
      if (outcome.failure && outcome.disableChannel && channel.allKeys.length > 1 && usedKey !== undefined) {
        // A multi-key channel loses the key that failed, not the channel.
        const index = channel.allKeys.indexOf(usedKey);
        if (index !== -1) await this.disableKey(channel.id, index, usedKey, `${outcome.failure.message} (HTTP ${outcome.failure.status})`);
      } else if (outcome.failure && outcome.disableChannel) {
        await this.disable(channel.id, `${outcome.failure.message} (HTTP ${outcome.failure.status})`);
      } else if (tooSlow) {
        const seconds = (outcome.result.elapsedMs / 1000).toFixed(2);
        await this.disable(channel.id, `响应时间 ${seconds}s 超过阈值 ${(thresholdMs / 1000).toFixed(2)}s (response time above ChannelDisableThreshold)`);
      }
    }
    if (channel.status === ChannelStatus.AutoDisabled && options.bool('AutomaticEnableChannelEnabled') && outcome.result.ok && !tooSlow) {
      await this.enable(channel.id);
    }
  }

  /** One test request with a key drawn from the channel's usable ones, or with `forcedKey` (a disabled key on trial). */
  private async probe(channel: RelayChannel, model: string, forcedKey?: string): Promise<ProbeOutcome> {
    const fail = (message: string, elapsedMs = 0): ProbeOutcome => ({ result: { ok: false, elapsedMs, message }, disableChannel: false });
    const adaptor = channel.adaptor;
    if (!adaptor) return fail(`渠道类型 ${channel.type} 暂不支持测试 (this channel type cannot be tested yet)`);
    if (channel.endpointProblem) return fail(channel.endpointProblem);
    if (channel.keys.length === 0 && forcedKey === undefined) {
      return fail(channel.allKeys.length > 0 ? '渠道的所有密钥均已禁用 (every key of the channel is disabled)' : '渠道未设置密钥 (the channel has no key)');
    }
    const endpoint: OpenAIEndpoint = /embedding/i.test(model) ? 'embeddings' : 'chat';
    const json: Record<string, unknown> = endpoint === 'chat' ? { model, messages: [{ role: 'user', content: 'hi' }], stream: false } : { model, input: 'hi' };
    const keyIndex = forcedKey === undefined ? Math.floor(Math.random() * channel.keys.length) : -1;
    const key = forcedKey ?? channel.keys[keyIndex]!;
    const upstreamModel = channel.modelMapping?.get(model) ?? model;
    const body = { kind: 'json' as const, json, raw: JSON.stringify(json) };
    let chat: ChatAttempt | undefined;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const timeoutMs = this.context.config.channelTestTimeoutSeconds * 1000;
    const deadline = AbortSignal.timeout(timeoutMs);
    const unreachable = (error: unknown) =>
      fail(maskSecrets(describeConnectionFailure(error, { timedOut: deadline.aborted, timeoutMs }), channel.allKeys), elapsed());
    let response;
    try {
      // Claude, Gemini, Vertex, Bedrock and Cohere get the test in their own format, a model served
      // through the Responses API (the ChatCompletions→Responses policy) as a Responses call.
      const testInput = endpoint === 'chat' ? testChatInput(model, body) : undefined;
      if (testInput && needsChatAttempt(testInput, channel, adaptor, upstreamModel, this.context.options))
        chat = planChatAttempt(testInput, channel, adaptor, key, upstreamModel, this.context.options, {});
      const upstreamRequest = chat
        ? await chat.request
        : adaptor.buildRequest({ endpoint, channel: channel.endpoint, key, model, upstreamModel, body, askStreamUsage: false });
      response = await this.upstream.send(upstreamRequest, { signal: deadline, stream: false });
    } catch (error) {
      // An adaptor's own refusal (a malformed key, a token endpoint's answer) says what is wrong.
      if (error instanceof AppError) {
        const failure = credentialFailure(error);
        if (!failure) return fail(maskSecrets(error.message, channel.allKeys), elapsed());
        const masked = { ...failure, message: maskSecrets(failure.message, channel.allKeys) };
        return {
          result: { ok: false, elapsedMs: elapsed(), message: masked.message },
          failure: masked,
          disableChannel: this.disablesChannel(masked, CREDENTIALS_REFUSED),
          usedKey: key,
        };
      }
      return unreachable(error);
    }
    if (response.statusCode >= 300) {
      const failure = await readUpstreamFailure(response, channel.allKeys);
      const verdict = adaptor.classifyError(failure);
      return {
        result: { ok: false, elapsedMs: elapsed(), message: failure.message },
        failure,
        disableChannel: this.disablesChannel(failure, verdict),
        usedKey: key,
      };
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      // Headers came, then the upstream stalled or hung up: that is not an answer that failed to parse.
      return unreachable(error);
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      return fail('上游返回的不是 JSON (the upstream answer is not JSON)', elapsed());
    }
    const elapsedMs = elapsed();
    const shaped = chat
      ? nativeAnswerShaped(chat, answer)
      : typeof answer === 'object' &&
        answer !== null &&
        (Array.isArray((answer as { choices?: unknown }).choices) || Array.isArray((answer as { data?: unknown }).data));
    if (!shaped) return fail('上游返回了无法识别的响应 (unrecognised upstream answer)', elapsedMs);
    return { result: { ok: true, elapsedMs, message: '' }, disableChannel: false, keyIndex: keyIndex === -1 ? undefined : keyIndex, usedKey: key };
  }
}

/** Adaptor errors that mean the channel's key can never work. */
const CREDENTIAL_CODES: ReadonlySet<string> = new Set(['channel:invalid_key', 'channel:credentials_refused']);
const CREDENTIALS_REFUSED: ErrorVerdict = { retryable: true, disableChannel: true };

function credentialFailure(error: AppError): UpstreamFailure | undefined {
  if (!CREDENTIAL_CODES.has(error.code)) return undefined;
  return { status: 401, message: error.message, type: 'authentication_error', code: error.shortCode };
}

/** The test's chat request as the relay reads an OpenAI client's. */
function testChatInput(model: string, body: { kind: 'json'; json: Record<string, unknown>; raw: string }): RelayInput {
  return {
    spec: TEST_CHAT_ENDPOINT,
    model,
    stream: false,
    clientAskedUsage: false,
    body,
    fields: body.json,
    maxTokens: undefined,
    calls: 1,
    byteLength: body.raw.length,
    format: 'openai',
  };
}

const TEST_CHAT_ENDPOINT: RelayEndpointSpec = { endpoint: 'chat', path: '/v1/chat/completions', body: 'json' };

/** A native answer the relay can read: one that converts to a completion with a choice. */
function nativeAnswerShaped(chat: ChatAttempt, answer: unknown): boolean {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return false;
  try {
    return chat.translation.completion(answer as Record<string, unknown>).choices.length > 0;
  } catch {
    return false;
  }
}

interface ProbeOutcome {
  result: ChannelTestResult;
  failure?: UpstreamFailure;
  disableChannel: boolean;
  /** The key a passing test used. */
  keyIndex?: number;
  /** The key the test used (a failure's too). */
  usedKey?: string;
}

function numberIn(text: string, key: string): number {
  try {
    const parsed: unknown = JSON.parse(text || '{}');
    const value = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)[key] : undefined;
    return typeof value === 'number' && Number.isFinite(value) ? value : 0;
  } catch {
    return 0;
  }
}

function mergeOtherInfo(text: string, values: Record<string, unknown>): string {
  let base: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text || '{}');
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) base = parsed as Record<string, unknown>;
  } catch {
    // A corrupt other_info is replaced rather than kept.
  }
  return JSON.stringify({ ...base, ...values });
}
