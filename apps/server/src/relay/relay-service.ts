import { ChannelStatus } from '@modelgate/contract';
import { STREAM_USAGE_OPTION_ENDPOINTS } from '@modelgate/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import { AppError, badRequest } from '../errors/app-error.js';
import type { ChargeService, Reservation } from '../domain/billing/charge-service.js';
import { estimateQuota, isFixedPrice, quotaFor, resolvePricing, type ModelPricing } from '../domain/billing/pricing.js';
import type { QuotaLedger } from '../domain/billing/quota-ledger.js';
import type { Payer } from '../domain/billing/quota-store.js';
import { consumeLogRow } from '../domain/logs/consume-log.js';
import type { PriorityTier } from '../domain/relay-cache/channel-index.js';
import type { RelayCache } from '../domain/relay-cache/relay-cache.js';
import type { RelayChannel } from '../domain/relay-cache/relay-channel.js';
import type { ChannelHealth } from './channel-health.js';
import { pickChannel } from './channel-selector.js';
import { deliverBuffered, deliverPiped, deliverStream, type Delivery } from './deliver.js';
import type { RelayAuthenticator, RelayCaller } from './relay-auth.js';
import type { RelayEndpointSpec } from './relay-endpoints.js';
import { readRelayInput, type RelayInput } from './relay-input.js';
import { RequestAbort } from './request-abort.js';
import { countedUsage, countPromptTokens } from './token-counter.js';
import type { UpstreamClient } from './upstream-client.js';
import { clientErrorForConnection, clientErrorForFailure, readUpstreamFailure } from './upstream-failure.js';

export interface RelayServiceDeps {
  context: AppContext;
  cache: RelayCache;
  auth: RelayAuthenticator;
  charges: ChargeService;
  ledger: QuotaLedger;
  upstream: UpstreamClient;
  health: ChannelHealth;
}

/** Where a request may go: one pinned channel, or the priority tiers of (group, model). */
type Route = { pinned: RelayChannel; tiers?: undefined } | { pinned?: undefined; tiers: readonly PriorityTier[] };

interface Call {
  request: FastifyRequest;
  reply: FastifyReply;
  caller: RelayCaller;
  input: RelayInput;
  startedAt: number;
  abort: RequestAbort;
  clientGone: () => boolean;
}

type AttemptResult = { kind: 'delivered'; delivery: Delivery; channel: RelayChannel; upstreamModel: string } | { kind: 'failed'; error: AppError } | { kind: 'client_gone' };

/**
 * The relay pipeline for one request: authenticate, price, reserve, choose a channel, forward
 * (retrying on another channel when that may help), settle, log.
 */
export class RelayService {
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(private readonly deps: RelayServiceDeps) {}

  async handle(request: FastifyRequest, reply: FastifyReply, spec: RelayEndpointSpec): Promise<void> {
    const work = this.relay(request, reply, spec);
    this.inflight.add(work);
    try {
      await work;
    } finally {
      this.inflight.delete(work);
    }
  }

  /** Resolves once every request under way has finished its accounting. */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private async relay(request: FastifyRequest, reply: FastifyReply, spec: RelayEndpointSpec): Promise<void> {
    const startedAt = performance.now();
    const startedWall = Date.now();
    const { auth, charges, context } = this.deps;
    const caller = await auth.authenticate(request);
    const input = await readRelayInput(spec, request.body);
    auth.checkModel(caller, input.model);
    const pricing = resolvePricing(context.options, input.model, caller.group);
    const route = await this.route(caller, input);
    const payer: Payer = { userId: caller.user.id, tokenId: caller.token.id, limitedToken: !caller.token.unlimited };
    const reservation = await this.reserve(payer, input, pricing);

    const abort = new RequestAbort();
    let gone = false;
    const leave = () => {
      if (gone || reply.raw.writableFinished) return;
      gone = true;
      abort.abort();
    };
    reply.raw.once('close', leave);
    // The client may have hung up while we were authenticating and reserving.
    if (request.raw.socket?.destroyed || reply.raw.destroyed) leave();
    const call: Call = { request, reply, caller, input, startedAt, abort, clientGone: () => gone };

    let result: Extract<AttemptResult, { kind: 'delivered' }> | undefined;
    let tried: number[] = [];
    try {
      ({ result, tried } = await this.forward(call, route));
    } catch (error) {
      await charges.release(reservation);
      throw error;
    }
    if (!result) {
      // The client left before any answer: nothing to send, nothing generated to bill.
      await charges.release(reservation);
      reply.hijack();
      reply.raw.destroy();
      return;
    }
    const { delivery, channel, upstreamModel } = result;
    try {
      if (!delivery.billable) {
        await charges.release(reservation);
        return;
      }
      await this.settle(call, { reservation, pricing, delivery, channel, upstreamModel, tried, startedWall });
    } finally {
      delivery.finish();
    }
  }

  private async route(caller: RelayCaller, input: RelayInput): Promise<Route> {
    const current = this.deps.cache.channels.current();
    const index = current instanceof Promise ? await current : current;
    if (caller.pinnedChannelId !== undefined) {
      const channel = index.byId.get(caller.pinnedChannelId);
      if (!channel) throw badRequest(`渠道 #${caller.pinnedChannelId} 不存在 (no channel ${caller.pinnedChannelId})`, 'channel:not_found');
      if (channel.status !== ChannelStatus.Enabled) {
        throw new AppError('channel:disabled', `渠道 #${channel.id} 已被禁用 (channel ${channel.id} is disabled)`, { status: 403 });
      }
      if (!channel.adaptor) throw badRequest(`渠道 #${channel.id} 的类型暂不支持 (channel type ${channel.type} is not supported yet)`, 'channel:unsupported_type');
      return { pinned: channel };
    }
    const tiers = index.tiers(caller.group, input.model);
    if (!tiers) {
      throw new AppError(
        'channel:no_available_channel',
        `当前分组 ${caller.group} 下对于模型 ${input.model} 无可用渠道 (no available channel for model ${input.model} in group ${caller.group})`,
        { status: 503, type: 'new_api_error' },
      );
    }
    return { tiers };
  }

  /**
   * The pre-consume. A cheap upper bound (the request's byte size as prompt tokens) lets rich
   * payers skip the tokenizer; everyone else gets the counted estimate reserved.
   */
  private async reserve(payer: Payer, input: RelayInput, pricing: ModelPricing): Promise<Reservation> {
    const { options } = this.deps.context;
    const quotaPerUnit = options.number('QuotaPerUnit');
    const outputTokens = this.outputEstimate(input);
    const calls = input.calls;
    if (!isFixedPrice(pricing)) {
      const upperBound = estimateQuota(pricing, { promptTokens: input.byteLength, outputTokens, calls }, quotaPerUnit);
      if (this.deps.charges.skipsReservation(payer, upperBound)) return { payer, preConsumed: 0 };
    }
    const promptTokens = isFixedPrice(pricing) ? 0 : await countPromptTokens(input.spec.endpoint, input.fields);
    return this.deps.charges.reserve(payer, estimateQuota(pricing, { promptTokens, outputTokens, calls }, quotaPerUnit));
  }

  /** Output tokens to hold for: max_tokens when given, else PreConsumedQuota for generating endpoints. */
  private outputEstimate(input: RelayInput): number {
    switch (input.spec.endpoint) {
      case 'chat':
      case 'completions':
      case 'responses':
      case 'images':
      case 'transcriptions':
      case 'translations':
        return input.maxTokens ?? this.deps.context.options.number('PreConsumedQuota');
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
    let lastError: AppError | undefined;
    for (let attempt = 0; attempt <= retries; attempt += 1) {
      const channel = route.pinned ?? pickChannel(route.tiers, attempt, tried);
      if (!channel) break;
      tried.push(channel.id);
      const result = await this.attempt(call, channel);
      if (result.kind === 'delivered') return { result, tried };
      if (result.kind === 'client_gone') return { result: undefined, tried };
      lastError = result.error;
      if (!result.error.retryable || call.clientGone()) break;
    }
    throw lastError ?? new AppError('channel:no_available_channel', '没有可用的渠道 (no available channel)', { status: 503 });
  }

  private async attempt(call: Call, channel: RelayChannel): Promise<AttemptResult> {
    const { input } = call;
    const endpoint = input.spec.endpoint;
    const adaptor = channel.adaptor;
    if (!adaptor || !adaptor.supports(endpoint) || channel.endpointProblem) {
      const message = channel.endpointProblem ?? `渠道 #${channel.id} 的类型不支持 ${input.spec.path} (this channel cannot serve ${input.spec.path})`;
      return { kind: 'failed', error: new AppError('channel:unsupported_endpoint', message, { status: 400, retryable: true }) };
    }
    const upstreamModel = channel.modelMapping?.get(input.model) ?? input.model;
    const askStreamUsage = input.stream && STREAM_USAGE_OPTION_ENDPOINTS.has(endpoint) && adaptor.streamUsageOption && !input.clientAskedUsage;
    const upstreamRequest = adaptor.buildRequest({
      endpoint,
      channel: channel.endpoint,
      key: channel.keys.length === 1 ? channel.keys[0]! : channel.keys[Math.floor(Math.random() * channel.keys.length)]!,
      model: input.model,
      upstreamModel,
      body: input.body,
      askStreamUsage,
    });

    let upstream;
    try {
      upstream = await this.deps.upstream.send(upstreamRequest, { signal: call.abort, stream: input.stream });
    } catch (error) {
      if (call.clientGone()) return { kind: 'client_gone' };
      this.deps.context.logger.warn({ err: error, channelId: channel.id }, 'upstream request failed');
      return { kind: 'failed', error: clientErrorForConnection(error) };
    }
    if (upstream.statusCode >= 300) {
      const failure = await readUpstreamFailure(upstream);
      const verdict = adaptor.classifyError(failure);
      if (verdict.disableChannel) this.deps.health.onRelayFailure(channel, failure);
      return { kind: 'failed', error: clientErrorForFailure(failure, verdict, channel) };
    }

    const contentType = String(upstream.headers['content-type'] ?? '');
    const options = {
      reply: call.reply,
      upstream,
      adaptor,
      endpoint,
      startedAt: call.startedAt,
      abort: call.abort,
      clientGone: call.clientGone,
    };
    try {
      let delivery: Delivery;
      if (contentType.includes('text/event-stream')) {
        delivery = await deliverStream({
          ...options,
          forwardUsage: !askStreamUsage,
          idleTimeoutMs: this.deps.context.config.streamingTimeoutSeconds * 1000,
        });
      } else if (endpoint === 'speech' || !/json|text/.test(contentType)) {
        delivery = deliverPiped(options);
      } else {
        delivery = await deliverBuffered(options);
      }
      return { kind: 'delivered', delivery, channel, upstreamModel };
    } catch (error) {
      // Only a buffered answer can fail here, before anything reached the client.
      if (call.clientGone()) return { kind: 'client_gone' };
      return { kind: 'failed', error: clientErrorForConnection(error) };
    }
  }

  private async settle(
    call: Call,
    done: {
      reservation: Reservation;
      pricing: ModelPricing;
      delivery: Delivery;
      channel: RelayChannel;
      upstreamModel: string;
      tried: number[];
      startedWall: number;
    },
  ): Promise<void> {
    const { context, charges, ledger } = this.deps;
    const { input, caller } = call;
    const { delivery, pricing, channel } = done;
    const usage = delivery.usage ?? (await countedUsage(input.spec.endpoint, input.fields, delivery.completionTexts));
    const quota = quotaFor(pricing, { ...usage, calls: input.calls }, context.options.number('QuotaPerUnit'));
    const settlement = await charges.settle(done.reservation, quota, channel.id);
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
        useTimeSeconds: Math.floor((Date.now() - done.startedWall) / 1000),
        isStream: delivery.isStream,
        pricing,
        firstResponseMs: delivery.firstResponseMs,
        triedChannelIds: done.tried,
        unpaidQuota: settlement.unpaid,
      }),
    );
  }
}
