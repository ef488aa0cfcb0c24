import { STREAM_USAGE_OPTION_ENDPOINTS, type TokenUsage } from '@modelgate/protocol';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import { AppError } from '../errors/app-error.js';
import type { ChargeService, Reservation, Settlement } from '../domain/billing/charge-service.js';
import { maxOutputTokens } from '../domain/billing/output-bounds.js';
import { PromptMargins } from '../domain/billing/prompt-margins.js';
import { isFixedPrice, quotaFor, resolvePricing, type ModelPricing } from '../domain/billing/pricing.js';
import type { QuotaLedger } from '../domain/billing/quota-ledger.js';
import type { Payer } from '../domain/billing/payer.js';
import { consumeLogRow } from '../domain/logs/consume-log.js';
import type { RelayCache } from '../domain/relay-cache/relay-cache.js';
import type { ResponseStore } from '../domain/responses/response-store.js';
import type { RelayChannel } from '../domain/relay-cache/relay-channel.js';
import type { SensitiveFilter } from '../domain/sensitive/sensitive-filter.js';
import type { WordMatcher } from '../domain/sensitive/word-matcher.js';
import type { ChannelAffinity } from './channel-affinity.js';
import type { ChannelHealth } from './channel-health.js';
import { pickChannel } from './channel-selector.js';
import { convertible, needsChatAttempt, planChatAttempt, type ChatAttempt } from './chat-attempt.js';
import { deliverAnswer } from './deliver-answer.js';
import type { DeliverOptions, Delivery } from './deliver.js';
import type { ImageTokenCounter } from './image-tokens.js';
import type { RelayAuthenticator, RelayCaller } from './relay-auth.js';
import type { RelayReply, RelayRequest } from './relay-exchange.js';
import type { RateLimiter, RateTicket } from './rate-limits/rate-limiter.js';
import type { RelayEndpointSpec } from './relay-endpoints.js';
import type { AttemptTrace, RelayTracer } from './relay-trace.js';
import { readRelayInput, readResponses, responsesInputItems, type RelayInput, type UrlTarget } from './relay-input.js';
import { routeCall, type Route } from './relay-route.js';
import { Call } from './relay-call.js';
import { choicesOf } from './completion-cap.js';
import { promptFactor, ReservationEstimate, type ReservationTerms } from './reservation-estimate.js';
import { sensitivePromptRefusal, sensitivePromptWord } from './sensitive-prompt.js';
import { StreamWatchdog } from './stream-watchdog.js';
import { countedUsage, countPromptTokens } from './token-counter.js';
import { OutputMeter } from './output-meter.js';
import type { UpstreamClient } from '../providers/upstream-client.js';
import { clientErrorForConnection, clientErrorForFailure, readUpstreamFailure } from './upstream-failure.js';
import { finishUpstreamHeaders } from './upstream-headers.js';
import { toAppError } from '../errors/render.js';
import type { RelayMetrics } from '../lib/metrics/relay-metrics.js';

export interface RelayServiceDeps {
  context: AppContext;
  cache: RelayCache;
  auth: RelayAuthenticator;
  charges: ChargeService;
  ledger: QuotaLedger;
  upstream: UpstreamClient;
  health: ChannelHealth;
  /** The sensitive-word checks, read on every call (each undefined while off). */
  sensitive: SensitiveFilter;
  /** Prices a prompt's images by their sizes when its tokens are counted. */
  images: ImageTokenCounter;
  /** Rate limits per token, user, group and model, new-api's ModelRequestRateLimit* among them (rate-limits/). */
  rateLimits: RateLimiter;
  /** Per-call figures for /metrics: plain counters, read only when scraped. */
  metrics: RelayMetrics;
  /** Responses API turns answered by conversion, for previous_response_id. */
  responses: ResponseStore;
  /** Keeps an agent session's calls on one channel and key while it is healthy. */
  affinity: ChannelAffinity;
  /** The calls' spans (relay-trace.ts); undefined while traces are off, so that off costs one field read a call. */
  tracer: RelayTracer | undefined;
}

/** Endpoints whose output limit the relay can lower for a payer who cannot pay for more. */
const CAPPABLE_ENDPOINTS: ReadonlySet<string> = new Set(['chat', 'completions', 'responses']);

/** The response header that tells a capped call's client the output limit it was sent with. */
export const OUTPUT_CAP_HEADER = 'x-modelgate-output-capped';

/** An answer delivered, with what billing it needs. */
interface Delivered {
  reservation: Reservation;
  pricing: ModelPricing;
  delivery: Delivery;
  channel: RelayChannel;
  upstreamModel: string;
  tried: number[];
  startedWall: number;
  /** The index (in channel.keys) of the key that served. */
  keyIndex: number;
  /** What the call owes its rate limits: its tokens are counted when it settles. */
  rateTicket: RateTicket | undefined;
}

type AttemptResult =
  | { kind: 'delivered'; delivery: Delivery; channel: RelayChannel; upstreamModel: string; keyIndex: number }
  /** `deadKey`: the key of a multi-key channel its upstream refused (another of its keys may serve). */
  | { kind: 'failed'; error: AppError; deadKey?: number | undefined }
  | { kind: 'client_gone' };

/**
 * The relay pipeline for one request: authenticate, price, reserve, choose a channel, forward
 * (retrying on another channel when that may help), settle, log.
 */
export class RelayService {
  /** Requests whose accounting is not finished yet, and who waits for there to be none. */
  private active = 0;
  /** How many prompt tokens each model's upstreams report against our count and the request's size. */
  readonly margins = new PromptMargins();
  private idleWaiters: (() => void)[] = [];

  /** Ends streams whose upstream went silent (STREAMING_TIMEOUT; before the first byte, the shorter of it and RELAY_TIMEOUT). */
  readonly watchdog: StreamWatchdog;

  constructor(private readonly deps: RelayServiceDeps) {
    const { streamingTimeoutSeconds, relayTimeoutSeconds } = deps.context.config;
    const firstByteSeconds = relayTimeoutSeconds > 0 ? Math.min(relayTimeoutSeconds, streamingTimeoutSeconds) : streamingTimeoutSeconds;
    this.watchdog = new StreamWatchdog(streamingTimeoutSeconds * 1000, firstByteSeconds * 1000);
  }

  /** Resolves once every request under way has finished its accounting. */
  settled(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * One relayed request. The steps that usually have their answer in memory (authentication,
   * routing, the reservation of a rich payer, settling) return plain values and are awaited only
   * when they did go to the database: every async step costs the hot path an allocation.
   * Resolves to nothing once the answer is sent (or hijacked), so Fastify does not wait on it.
   * Called from Fastify's routes and from the relay lane (http/relay/relay-lane.ts); a call's
   * failure is thrown, for the caller's error handler to answer.
   */
  handle(request: RelayRequest, reply: RelayReply, spec: RelayEndpointSpec, target?: UrlTarget): Promise<RelayReply | undefined> {
    return this.run(request, reply, spec, target, undefined);
  }

  /** The console's playground: the signed-in user of a console session calls (playground-caller.ts). */
  handleSession(request: FastifyRequest, reply: RelayReply, spec: RelayEndpointSpec): Promise<RelayReply | undefined> {
    return this.run(request, reply, spec, undefined, request);
  }

  private async run(
    request: RelayRequest,
    reply: RelayReply,
    spec: RelayEndpointSpec,
    target: UrlTarget | undefined,
    session: FastifyRequest | undefined,
  ): Promise<RelayReply | undefined> {
    this.active += 1;
    const startedAt = performance.now();
    let model = '';
    let rateTicket: RateTicket | undefined;
    const tracer = this.deps.tracer;
    const trace = tracer === undefined ? undefined : tracer.startCall(request, spec);
    try {
      const startedWall = Date.now();
      const { auth, charges, context } = this.deps;
      const authenticated = session !== undefined ? auth.authenticateSession(session) : auth.authenticate(request);
      const caller = authenticated instanceof Promise ? await authenticated : authenticated;
      trace?.caller(caller);
      const read = readRelayInput(spec, request.body, target);
      const input = read instanceof Promise ? await read : read;
      model = input.model;
      trace?.input(input);
      auth.checkModel(caller, input.model);
      // Rate limits: a 429 before anything is held; undefined (nothing to await or give back) while no limit applies.
      const admitted = this.deps.rateLimits.admit(caller, input.model, session !== undefined, reply);
      rateTicket = admitted instanceof Promise ? await admitted : admitted;
      // A Responses call that continues a conversation this gateway keeps: sent whole from here on.
      if (input.previousResponseId !== undefined) await this.continueConversation(caller, input);
      // Before any quota is held or any upstream called; one field read when the check is off.
      const promptWords = this.deps.sensitive.prompt;
      if (promptWords !== undefined) this.refuseSensitivePrompt(promptWords, caller, input);
      const pricing = resolvePricing(context.options, input.model, caller.group, caller.user.acceptUnsetModelRatio);
      const routed = routeCall(this.deps.cache, caller, input);
      const route = routed instanceof Promise ? await routed : routed;
      const payer: Payer = { userId: caller.user.id, tokenId: caller.token.id, limitedToken: !caller.token.unlimited };
      const reserved = this.reserve(payer, input, pricing);
      const reservation = reserved instanceof Promise ? await reserved : reserved;

      const call = new Call(request, reply, caller, input, startedAt, trace);
      if (reservation.cap !== undefined) {
        call.outputCap = reservation.cap;
        call.countedPrompt = reservation.countedPrompt;
        reply.raw.setHeader(OUTPUT_CAP_HEADER, String(reservation.cap));
      }
      let result: Extract<AttemptResult, { kind: 'delivered' }> | undefined;
      let tried: number[] = [];
      try {
        ({ result, tried } = await this.forward(call, route));
      } catch (error) {
        charges.release(reservation);
        throw error;
      }
      if (!result) {
        // The client left before any answer: nothing to send, nothing generated to bill.
        charges.release(reservation);
        trace?.clientGone();
        reply.hijack();
        reply.raw.destroy();
        this.deps.metrics.failed(spec.path, model, 499, performance.now() - startedAt);
        return undefined;
      }
      const { delivery, channel, upstreamModel, keyIndex } = result;
      rateTicket?.succeeded();
      trace?.delivered(channel, upstreamModel, delivery.firstResponseMs);
      try {
        if (delivery.billable) {
          const settled = this.settle(call, { reservation, pricing, delivery, channel, upstreamModel, tried, startedWall, keyIndex, rateTicket });
          if (settled instanceof Promise) await settled;
        } else {
          charges.release(reservation);
        }
      } finally {
        delivery.finish();
      }
      this.deps.metrics.served(spec.path, model, channel.id, reply.statusCode, performance.now() - startedAt, delivery.firstResponseMs);
      // A piped answer is still flowing: handing Fastify the reply makes it wait for the end.
      return reply.sent ? undefined : reply;
    } catch (error) {
      const failure = toAppError(error);
      this.deps.metrics.failed(spec.path, model, failure.status, performance.now() - startedAt);
      trace?.failed(failure);
      throw error;
    } finally {
      // A rate-limit gate's slot: given back now, or when a piped answer's last byte is out.
      rateTicket?.end(reply);
      trace?.end(reply);
      this.active -= 1;
      if (this.active === 0 && this.idleWaiters.length > 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const wake of waiters) wake();
      }
    }
  }

  /**
   * Puts the kept conversation a Responses call names (previous_response_id) in front of its input,
   * so that any channel can serve it. A conversation this gateway does not hold (unknown, expired,
   * another user's) is left to a channel with the Responses API; the others refuse it, saying why.
   */
  private async continueConversation(caller: RelayCaller, input: RelayInput): Promise<void> {
    const id = input.previousResponseId!;
    const found = await this.deps.responses.conversation(id, caller.user.id);
    if ('problem' in found) {
      input.conversionProblem = found.problem;
      return;
    }
    if (input.body.kind !== 'json') return;
    const { previous_response_id: _continued, ...sent } = input.body.json;
    const json = { ...sent, input: [...found.items, ...responsesInputItems(sent.input)] };
    const raw = JSON.stringify(json);
    input.body = { kind: 'json', json, raw };
    input.fields = json;
    input.byteLength = Buffer.byteLength(raw);
    input.previousResponseId = undefined;
    input.conversionProblem = undefined;
    readResponses(input, json);
    input.responsesTurn = { previousId: id, inputItems: responsesInputItems(sent.input), store: sent.store !== false };
  }

  get images(): ImageTokenCounter {
    return this.deps.images;
  }

  /** new-api's prompt check: a listed word in the prompt refuses the call (sensitive-prompt.ts). */
  private refuseSensitivePrompt(matcher: WordMatcher, caller: RelayCaller, input: RelayInput): void {
    const word = sensitivePromptWord(matcher, input.spec.endpoint, input.fields);
    if (word === undefined) return;
    this.deps.context.logger.warn({ userId: caller.user.id, tokenId: caller.token.id, model: input.model, word }, 'prompt refused: sensitive word');
    throw sensitivePromptRefusal(word);
  }

  /**
   * The reservation (charge-service.ts): the call's cost at its output bound (max_tokens, else the
   * model's maximum output), its prompt at an upper bound. A payer whose lease covers the quick
   * bound (the request's size as prompt tokens, times the model's margin) is admitted at once,
   * without the tokenizer; otherwise the prompt is counted, and a balance that cannot pay for the
   * bound gets the call capped at the output it does pay for.
   */
  private reserve(payer: Payer, input: RelayInput, pricing: ModelPricing): Reservation | Promise<Reservation> {
    const { options } = this.deps.context;
    const quotaPerUnit = options.number('QuotaPerUnit');
    const calls = input.calls;
    if (isFixedPrice(pricing)) {
      const cost = quotaFor(pricing, { promptTokens: 0, completionTokens: 0, calls }, quotaPerUnit);
      return this.deps.charges.reserveFromLease(payer, cost) ?? this.deps.charges.reserve(payer, undefined, () => ({ full: cost }));
    }
    const outputBound = this.outputBound(input);
    const choices = choicesOf(input);
    const factor = promptFactor(input, pricing);
    // Less a hair: a margin learned from this very request size must not round up past it.
    const quickPrompt = Math.ceil(input.byteLength * this.margins.ofBytes(input.model) * factor - 1e-6);
    const quick = quotaFor(pricing, { promptTokens: quickPrompt, completionTokens: outputBound * choices, calls }, quotaPerUnit);
    const leased = this.deps.charges.reserveFromLease(payer, quick);
    if (leased !== undefined) return leased;
    const terms: ReservationTerms = {
      pricing,
      quotaPerUnit,
      outputBound,
      choices,
      cappable: CAPPABLE_ENDPOINTS.has(input.spec.endpoint) && input.body.kind === 'json',
      minCappedOutput: options.number('MinCappedOutputTokens'),
    };
    const estimate = new ReservationEstimate(input, terms, this.deps.images, this.margins);
    return this.deps.charges.reserve(payer, quick, estimate.estimate).then((reservation) => {
      reservation.countedPrompt = estimate.counted;
      return reservation;
    });
  }

  /**
   * The most output tokens a call can be billed for, per choice: its max_tokens when given, else
   * the model's maximum output (ModelMaxOutputTokens). 0 for endpoints that generate no tokens.
   */
  outputBound(input: RelayInput): number {
    switch (input.spec.endpoint) {
      case 'chat':
      case 'completions':
      case 'responses':
      case 'images':
      case 'transcriptions':
      case 'translations':
        return input.maxTokens ?? maxOutputTokens(this.deps.context.options, input.model);
      case 'embeddings':
      case 'moderations':
      case 'rerank':
      case 'speech':
        return 0;
      default: {
        const unreachable: never = input.spec.endpoint;
        return unreachable;
      }
    }
  }

  private async forward(call: Call, route: Route): Promise<{ result: Extract<AttemptResult, { kind: 'delivered' }> | undefined; tried: number[] }> {
    const tried: number[] = [];
    const retries = route.pinned ? 0 : Math.max(0, Math.floor(this.deps.context.options.number('RetryTimes')));
    // An agent session's calls go first to the channel that last served it (channel-affinity.ts); undefined without a session key.
    const found = route.pinned ? undefined : this.deps.affinity.session(call.caller, call.input, call.request.headers);
    const affinity = found instanceof Promise ? await found : found;
    const { breakers } = this.deps.health;
    let lastError: AppError | undefined;
    // The span of a failed attempt, ended when it is known whether another attempt follows.
    let failedTrace: AttemptTrace | undefined;
    for (let attempt = 0; attempt <= retries; attempt += 1) {
      const channel =
        route.pinned ??
        (attempt === 0 ? affinity?.channel(route.tiers, breakers) : undefined) ??
        pickChannel(route.tiers, attempt, tried, Math.random, breakers);
      if (!channel) break;
      tried.push(channel.id);
      failedTrace?.close(true);
      let attemptTrace = call.trace?.attempt(channel);
      let result = await this.attempt(call, channel, affinity?.keyFor(channel), attemptTrace);
      // A key its upstream refused: the channel's other keys are tried before another channel (not counted as retries).
      const dead = new Set<number>();
      while (result.kind === 'failed' && result.deadKey !== undefined && dead.size < channel.keys.length && !call.clientGone()) {
        if (dead.has(result.deadKey)) break;
        dead.add(result.deadKey);
        const next = channel.keys.findIndex((_key, index) => !dead.has(index));
        if (next === -1) break;
        attemptTrace?.failed(result.error);
        attemptTrace?.close(true);
        attemptTrace = call.trace?.attempt(channel);
        result = await this.attempt(call, channel, next, attemptTrace);
      }
      if (attemptTrace !== undefined) failedTrace = this.traceOutcome(attemptTrace, result);
      if (result.kind === 'delivered') {
        affinity?.served(channel, result.keyIndex);
        return { result, tried };
      }
      if (result.kind === 'client_gone') return { result: undefined, tried };
      lastError = result.error;
      affinity?.failed(channel, result.error);
      if (!result.error.retryable || call.clientGone()) break;
    }
    affinity?.gaveUp();
    failedTrace?.close(false);
    throw lastError ?? new AppError('channel:no_available_channel', '没有可用的渠道 (no available channel)', { status: 503 });
  }

  /** Records an attempt's outcome on its span; returns the span when it failed (still open, see AttemptTrace.close). */
  private traceOutcome(trace: AttemptTrace, result: AttemptResult): AttemptTrace | undefined {
    if (result.kind === 'delivered') trace.delivered();
    else if (result.kind === 'client_gone') trace.clientGone();
    else {
      trace.failed(result.error);
      return trace;
    }
    return undefined;
  }

  /** `preferredKey`: the key to draw first (the session's, on its pinned channel). `trace`: the attempt's span, while traces are on. */
  private async attempt(call: Call, channel: RelayChannel, preferredKey: number | undefined, trace: AttemptTrace | undefined): Promise<AttemptResult> {
    const adaptor = channel.adaptor;
    // A capped call's request carries the lowered limit in the field this upstream reads.
    const input = adaptor ? call.inputFor(adaptor) : call.input;
    const endpoint = input.spec.endpoint;
    if (!adaptor || !(adaptor.supports(endpoint) || convertible(input, adaptor)) || channel.endpointProblem) {
      const message = channel.endpointProblem ?? `渠道 #${channel.id} 的类型不支持 ${input.spec.path} (this channel cannot serve ${input.spec.path})`;
      return { kind: 'failed', error: new AppError('channel:unsupported_endpoint', message, { status: 400, retryable: true }) };
    }
    const upstreamModel = channel.modelMapping?.get(input.model) ?? input.model;
    const converted = needsChatAttempt(input, channel, adaptor, upstreamModel, this.deps.context.options);
    // A Responses request without a chat form (a conversation kept upstream) needs a channel with the Responses API.
    if (converted && input.conversionProblem !== undefined) {
      return { kind: 'failed', error: new AppError('request:not_convertible', input.conversionProblem, { status: 400, retryable: true }) };
    }
    const askStreamUsage = input.stream && STREAM_USAGE_OPTION_ENDPOINTS.has(endpoint) && adaptor.streamUsageOption && !input.clientAskedUsage;
    // A capped call's stream is metered and ended at its cap, for an upstream that ignores the limit.
    const meter = input.outputCap !== undefined && input.stream ? await this.outputMeter(call, input, input.outputCap) : undefined;
    const { health } = this.deps;
    // A key whose breaker is open is skipped; past its cool-down this request may be its probe.
    const keyIndex = health.breakers.drawKey(channel, Math.random, preferredKey);
    const key = channel.keys[keyIndex]!;
    let upstream;
    let chat: ChatAttempt | undefined;
    try {
      // Another client format, or a provider with its own: converted through the canonical shape.
      // Inside the try: an adaptor may refuse the channel's key while building the request.
      chat = converted ? planChatAttempt(input, channel, adaptor, key, upstreamModel, this.deps.context.options, call.request.headers) : undefined;
      if (chat && chat.warnings.length > 0) {
        this.deps.context.logger.warn(
          { channelId: channel.id, model: input.model, dropped: chat.warnings },
          'request fields the upstream format cannot carry were dropped',
        );
      }
      let upstreamRequest = chat
        ? chat.request
        : adaptor.buildRequest({ endpoint, channel: channel.endpoint, key, model: input.model, upstreamModel, body: input.body, askStreamUsage });
      // Vertex fetches (or reuses) an access token first.
      if (upstreamRequest instanceof Promise) upstreamRequest = await upstreamRequest;
      // The client's session headers when the upstream speaks its format; the channel's header_override.
      finishUpstreamHeaders(
        upstreamRequest,
        chat && !chat.translation.passThrough ? undefined : input.format,
        call.request.headers,
        channel.headerOverride,
        key,
      );
      trace?.sending(upstreamRequest, upstreamModel);
      // A whole answer (not speech's audio, which is piped as it comes) is read to its end first.
      const whole =
        !input.stream &&
        endpoint !== 'speech' &&
        upstreamRequest.method !== 'GET' &&
        (typeof upstreamRequest.body === 'string' || Buffer.isBuffer(upstreamRequest.body));
      upstream = await (whole
        ? this.deps.upstream.collect(upstreamRequest, { abort: call.abort, limit: this.deps.context.config.relayMaxBufferedBytes })
        : this.deps.upstream.send(upstreamRequest, { signal: call.abort, stream: input.stream, method: upstreamRequest.method }));
      trace?.responded(upstream.statusCode, upstream.respondedAt);
    } catch (error) {
      if (call.clientGone()) {
        health.breakers.abandoned(channel, keyIndex);
        return { kind: 'client_gone' };
      }
      this.deps.context.logger.warn({ err: error, channelId: channel.id }, 'upstream request failed');
      // An adaptor's own refusal (a malformed channel key, a token endpoint's answer) says what is wrong.
      if (error instanceof AppError) {
        this.deps.metrics.upstreamError(channel.id, 'request');
        health.onBuildFailure(channel, keyIndex, error);
        return { kind: 'failed', error };
      }
      const unreachable = clientErrorForConnection(error);
      this.deps.metrics.upstreamError(channel.id, 'connection');
      health.onUnreachable(channel, unreachable.message);
      return { kind: 'failed', error: unreachable };
    }
    if (upstream.statusCode >= 300) {
      const failure = await readUpstreamFailure(upstream);
      const verdict = adaptor.classifyError(failure);
      this.deps.metrics.upstreamError(channel.id, 'status');
      health.onUpstreamError(channel, keyIndex, failure, verdict);
      const deadKey = channel.keys.length > 1 && health.disablesChannel(failure, verdict) ? keyIndex : undefined;
      return { kind: 'failed', error: clientErrorForFailure(failure, verdict, channel), deadKey };
    }

    const options: DeliverOptions = {
      reply: call.reply,
      upstream,
      adaptor,
      endpoint,
      startedAt: call.startedAt,
      abort: call.abort,
      completionCheck: this.deps.sensitive.completion,
    };
    try {
      const delivery = await deliverAnswer({ input, adaptor, chat, askedStreamUsage: Boolean(askStreamUsage), meter }, options, {
        watchdog: this.watchdog,
        queueLength: this.deps.context.options.number('StreamCacheQueueLength'),
        maxBufferedBytes: this.deps.context.config.relayMaxBufferedBytes,
      });
      if (meter?.exceeded) delivery.cutAtCap = true;
      const answered = chat?.translation.completedResponse;
      if (answered !== undefined && input.responsesTurn?.store === true) {
        const turn = input.responsesTurn;
        this.deps.responses.save({
          id: answered.id,
          userId: call.caller.user.id,
          previousId: turn.previousId,
          model: input.model,
          items: [...turn.inputItems, ...answered.output],
        });
      }
      // Only a usable answer counts for the breaker: a 200 that stalls or sends garbage is a failure.
      health.onRelaySuccess(channel, keyIndex);
      return { kind: 'delivered', delivery, channel, upstreamModel, keyIndex };
    } catch (error) {
      // Nothing reached the client yet: a whole answer, or a stream that ended before its first byte.
      if (call.clientGone()) {
        health.breakers.abandoned(channel, keyIndex);
        return { kind: 'client_gone' };
      }
      const broken = error instanceof AppError ? error : clientErrorForConnection(error);
      this.deps.context.logger.warn({ err: error, channelId: channel.id }, 'upstream answer unusable');
      this.deps.metrics.upstreamError(channel.id, 'unusable');
      health.onUnreachable(channel, broken.message);
      return { kind: 'failed', error: broken };
    }
  }

  /**
   * The output meter of a capped stream: the cap for each choice the call asks for, and the prompt
   * as counted for the reservation (counted now in the unexpected case it was not).
   */
  private async outputMeter(call: Call, input: RelayInput, cap: number): Promise<OutputMeter> {
    const prompt = call.countedPrompt ?? (await countPromptTokens(input.spec.endpoint, input.fields, this.deps.images));
    return OutputMeter.load(cap * choicesOf(input), prompt);
  }

  /** Charges the call and queues its log; synchronous unless tokens must be counted or the database settles. */
  private settle(call: Call, done: Delivered): void | Promise<void> {
    const usage = done.delivery.usage;
    // A stream cut at its cap may bill our own count of the prompt: that teaches no margin.
    if (usage !== undefined && done.delivery.cutAtCap !== true)
      this.margins.record(call.input.model, usage.promptTokens, call.input.byteLength, done.reservation.countedPrompt);
    if (usage === undefined) {
      return countedUsage(call.input.spec.endpoint, call.input.fields, done.delivery.completionTexts, this.deps.images).then((counted) =>
        this.charge(call, done, counted),
      );
    }
    return this.charge(call, done, usage);
  }

  private charge(call: Call, done: Delivered, usage: TokenUsage): void | Promise<void> {
    // A literal of one shape, not a spread of the usage (whose shape varies by provider): see BufferedSettings.
    const billed = {
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cachedTokens: usage.cachedTokens,
      cacheCreationTokens: usage.cacheCreationTokens,
      cacheCreation1hTokens: usage.cacheCreation1hTokens,
      calls: call.input.calls,
    };
    const quota = quotaFor(done.pricing, billed, this.deps.context.options.number('QuotaPerUnit'));
    done.rateTicket?.settled(usage.promptTokens + usage.completionTokens);
    const settlement = this.deps.charges.settle(done.reservation, quota, done.channel.id);
    if (settlement instanceof Promise) return settlement.then((settled) => this.log(call, done, usage, settled));
    this.log(call, done, usage, settlement);
  }

  /**
   * A capped call, or one whose cost went past its reservation: counted for /metrics, and an
   * overrun recorded against the channel (its upstream returned more than it was held for).
   */
  private noteBound(call: Call, done: Delivered, settlement: Settlement): void {
    const { metrics, context, health } = this.deps;
    if (call.outputCap !== undefined) metrics.capped();
    if (done.delivery.cutAtCap) {
      metrics.cut(done.channel.id);
      health.noteOverrun(done.channel, 0, true);
      context.logger.warn(
        { model: call.input.model, channelId: done.channel.id, outputCap: call.outputCap, held: done.reservation.held },
        'the upstream streamed past the output limit it was sent: the relay ended the stream at the cap',
      );
    }
    if (settlement.unpaid > 0) {
      metrics.unpaid(settlement.unpaid);
      context.logger.error(
        { model: call.input.model, channelId: done.channel.id, unpaid: settlement.unpaid, held: done.reservation.held },
        'a call was charged less than it held: the ledger is wrong',
      );
    }
    if (settlement.overrun > 0) {
      metrics.overrun(done.channel.id, settlement.overrun);
      context.logger.warn(
        { model: call.input.model, channelId: done.channel.id, overrun: settlement.overrun, held: done.reservation.held, outputCap: call.outputCap },
        'the upstream returned more than the call was held for: the excess is not charged',
      );
      health.noteOverrun(done.channel, settlement.overrun);
    }
  }

  private log(call: Call, done: Delivered, usage: TokenUsage, settlement: Settlement): void {
    const { context, ledger } = this.deps;
    const { input, caller } = call;
    const { delivery, pricing, channel } = done;
    this.deps.metrics.charged(input.model, channel.id, settlement.charged);
    call.trace?.charged(usage, settlement.charged);
    if (settlement.unpaid > 0 || settlement.overrun > 0 || call.outputCap !== undefined) this.noteBound(call, done, settlement);
    if (!context.options.bool('LogConsumeEnabled')) return;
    ledger.logs.push(
      consumeLogRow({
        createdAt: Math.floor(done.startedWall / 1000),
        userId: caller.user.id,
        username: caller.user.username,
        tokenId: caller.token.id,
        tokenName: caller.token.name,
        model: input.model,
        upstreamModel: done.upstreamModel,
        channelId: channel.id,
        channelName: channel.name,
        group: caller.group,
        quota: settlement.charged,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        cachedTokens: usage.cachedTokens ?? 0,
        cacheCreationTokens: usage.cacheCreationTokens ?? 0,
        cacheCreation1hTokens: usage.cacheCreation1hTokens ?? 0,
        useTimeSeconds: Math.floor((Date.now() - done.startedWall) / 1000),
        isStream: delivery.isStream,
        pricing,
        firstResponseMs: delivery.firstResponseMs,
        triedChannelIds: done.tried,
        multiKeyIndex: channel.allKeys.length > 1 ? channel.keyIndexes[done.keyIndex] : undefined,
        unpaidQuota: settlement.unpaid,
        overrunQuota: settlement.overrun,
        outputCap: call.outputCap,
        outputCut: delivery.cutAtCap,
        sensitiveWords: delivery.sensitiveWords,
        ip: caller.user.recordIpLog ? caller.clientIp : '',
      }),
    );
  }
}
