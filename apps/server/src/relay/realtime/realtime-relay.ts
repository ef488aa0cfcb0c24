import { parseUpstreamErrorBody } from '@modelgate/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import { maxOutputTokens } from '../../domain/billing/output-bounds.js';
import type { Payer } from '../../domain/billing/payer.js';
import type { RelayChannel } from '../../domain/relay-cache/relay-channel.js';
import { AppError, badRequest } from '../../errors/app-error.js';
import { toAppError } from '../../errors/render.js';
import { maskSecrets } from '../../lib/mask-secrets.js';
import type { UpstreamFailure } from '../../providers/provider-types.js';
import { pickChannel } from '../channel-selector.js';
import { routeCall, type Route } from '../relay-route.js';
import type { RateTicket } from '../rate-limits/rate-limiter.js';
import { clientErrorForConnection, clientErrorForFailure } from '../upstream-failure.js';
import { finishUpstreamHeaders } from '../upstream-headers.js';
import { RealtimeContext } from './realtime-context.js';
import { REALTIME_ROUTE, type EarlyFrames, type RealtimeDeps } from './realtime-deps.js';
import { RealtimeHolds } from './realtime-holds.js';
import { audioIsDearer, realtimeHold, resolveRealtimePricing } from './realtime-pricing.js';
import { RealtimeSession } from './realtime-session.js';

/** The largest event either side may send: OpenAI takes events of up to 15 MiB (a long audio chunk). */
export const REALTIME_MAX_EVENT_BYTES = 32 * 1024 * 1024;
/** An upstream's error answer to the handshake is read up to this size, for its message. */
const MAX_ERROR_BYTES = 64 * 1024;
/** The handshake's limit when RELAY_TIMEOUT is 0 (no limit): a WebSocket that never opens must not hold its hold for ever. */
const DEFAULT_HANDSHAKE_MS = 30_000;

/** The browser's way to send a key (a WebSocket cannot set headers there): a subprotocol. */
const KEY_PROTOCOL = 'openai-insecure-api-key.';
/** The browser's way to ask for the beta protocol: `openai-beta.realtime-v1` is `OpenAI-Beta: realtime=v1`. */
const BETA_PROTOCOL = 'openai-beta.';

type Attempt =
  | { kind: 'open'; upstream: WebSocket; early: EarlyFrames }
  | { kind: 'failed'; error: AppError; deadKey?: number | undefined }
  | { kind: 'client_gone' };

/**
 * The Realtime API (`GET /v1/realtime?model=`, a WebSocket) relayed to a channel whose adaptor serves
 * it (`ProviderAdaptor.realtimeTarget`: OpenAI's wire and Azure). `open` does everything that can
 * still be answered with an HTTP error, before the client's upgrade: the key, the model, its price,
 * the channel, the first hold, and the upstream's handshake (another channel when one fails, as the
 * relay retries). The session (realtime-session.ts) then relays and bills. Sessions are tracked so
 * that a shutdown can drain them and the books are settled before the last flush.
 */
export class RealtimeRelay {
  private readonly sessions = new Set<RealtimeSession>();
  private draining = false;
  private drainTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: RealtimeDeps) {}

  /** Sessions open now. */
  get size(): number {
    return this.sessions.size;
  }

  /**
   * Opens the upstream session for a client's upgrade request; throws the relay's usual errors
   * (401 bad key, 403 model or balance, 503 no channel, the upstream's own) while it still can.
   * `clientGone` says whether the client hung up meanwhile.
   */
  async open(request: FastifyRequest, reply: FastifyReply, clientGone: () => boolean): Promise<RealtimeSession | undefined> {
    const startedAt = performance.now();
    const { auth, context, cache, charges } = this.deps;
    let model = '';
    let rateTicket: RateTicket | undefined;
    let opened = false;
    try {
      if (this.draining) throw new AppError('server:shutting_down', '服务器正在关闭 (the server is shutting down)', { status: 503, retryable: true });
      // Read first, so that a refused key is counted under its model too; checked after the key.
      model = modelOf(request);
      adoptProtocolKey(request);
      const authenticated = auth.authenticate(request);
      const caller = authenticated instanceof Promise ? await authenticated : authenticated;
      if (model === '')
        throw badRequest('缺少 model 参数：请以 /v1/realtime?model=<模型> 连接 (the model query parameter is required)', 'request:missing_model');
      auth.checkModel(caller, model);
      // A 429 before anything is held, as for every relayed call.
      const admitted = this.deps.rateLimits.admit(caller, model, false, reply);
      rateTicket = admitted instanceof Promise ? await admitted : admitted;
      const pricing = resolveRealtimePricing(context.options, model, caller.group, caller.user.acceptUnsetModelRatio);
      const routed = routeCall(cache, caller, { model });
      const route = routed instanceof Promise ? await routed : routed;
      const payer: Payer = { userId: caller.user.id, tokenId: caller.token.id, limitedToken: !caller.token.unlimited };
      const conversation = new RealtimeContext(maxOutputTokens(context.options, model), audioIsDearer(pricing));
      const holds = new RealtimeHolds(charges, payer);
      await holds.start(realtimeHold(pricing, conversation.next(), context.options.number('QuotaPerUnit')));
      let connected;
      try {
        connected = await this.connect(request, model, route, clientGone);
      } finally {
        if (!connected) holds.releaseAll();
      }
      if (!connected) {
        this.deps.metrics.failed(REALTIME_ROUTE, model, 499, performance.now() - startedAt);
        return undefined;
      }
      const session = new RealtimeSession({
        deps: this.deps,
        caller,
        model,
        ...connected,
        pricing,
        holds,
        conversation,
        startedAt,
        connectMs: performance.now() - startedAt,
        rateTicket,
        endRateTicket: () => rateTicket?.end(reply),
      });
      opened = true;
      rateTicket?.succeeded();
      this.sessions.add(session);
      void session.ended.then(() => this.sessions.delete(session));
      if (this.draining) session.drain();
      return session;
    } catch (error) {
      this.deps.metrics.failed(REALTIME_ROUTE, model, toAppError(error).status, performance.now() - startedAt);
      throw error;
    } finally {
      // Refused or given up: the gate's slot goes back with the answer (the session gives it back itself).
      if (!opened) rateTicket?.end(reply);
    }
  }

  /** The upstream's handshake on the route's channels, in the relay's order (tiers, weights, breakers, retries). */
  private async connect(
    request: FastifyRequest,
    model: string,
    route: Route,
    clientGone: () => boolean,
  ): Promise<{ upstream: WebSocket; early: EarlyFrames; channel: RelayChannel; keyIndex: number; upstreamModel: string; tried: number[] } | undefined> {
    const tried: number[] = [];
    const retries = route.pinned ? 0 : Math.max(0, Math.floor(this.deps.context.options.number('RetryTimes')));
    const { breakers } = this.deps.health;
    let lastError: AppError | undefined;
    for (let attempt = 0; attempt <= retries; attempt += 1) {
      const channel = route.pinned ?? pickChannel(route.tiers, attempt, tried, Math.random, breakers);
      if (!channel) break;
      tried.push(channel.id);
      const upstreamModel = channel.modelMapping?.get(model) ?? model;
      // A key its upstream refused: the channel's other keys go before another channel (not counted as retries).
      const dead = new Set<number>();
      let keyIndex = breakers.drawKey(channel, Math.random);
      let result = await this.handshake(request, channel, keyIndex, upstreamModel, clientGone);
      while (result.kind === 'failed' && result.deadKey !== undefined && !dead.has(result.deadKey) && !clientGone()) {
        dead.add(result.deadKey);
        const next = channel.keys.findIndex((_key, index) => !dead.has(index));
        if (next === -1) break;
        keyIndex = next;
        result = await this.handshake(request, channel, keyIndex, upstreamModel, clientGone);
      }
      if (result.kind === 'open') return { upstream: result.upstream, early: result.early, channel, keyIndex, upstreamModel, tried };
      if (result.kind === 'client_gone') return undefined;
      lastError = result.error;
      if (!result.error.retryable || clientGone()) break;
    }
    if (clientGone()) return undefined;
    throw lastError ?? new AppError('channel:no_available_channel', '没有可用的渠道 (no available channel)', { status: 503 });
  }

  private async handshake(
    request: FastifyRequest,
    channel: RelayChannel,
    keyIndex: number,
    upstreamModel: string,
    clientGone: () => boolean,
  ): Promise<Attempt> {
    const { health, metrics, context } = this.deps;
    const adaptor = channel.adaptor;
    if (!adaptor?.realtimeTarget || channel.endpointProblem) {
      const message = channel.endpointProblem ?? `渠道 #${channel.id} 的类型不支持 Realtime API (this channel cannot serve /v1/realtime)`;
      return { kind: 'failed', error: new AppError('channel:unsupported_endpoint', message, { status: 400, retryable: true }) };
    }
    const key = channel.keys[keyIndex]!;
    const target = adaptor.realtimeTarget({ channel: channel.endpoint, key, upstreamModel });
    const beta = betaHeaderOf(request);
    if (beta !== undefined) target.headers['openai-beta'] = beta;
    // The channel's header_override, as on every relayed call.
    finishUpstreamHeaders({ origin: '', path: '', headers: target.headers, body: '' }, undefined, request.headers, channel.headerOverride, key);
    const { relayTimeoutSeconds } = context.config;
    const early: EarlyFrames = { frames: [], listener: (data, isBinary) => early.frames.push({ data, isBinary }) };
    const outcome = await new Promise<{ upstream: WebSocket } | { failure: UpstreamFailure } | { error: Error }>((resolve) => {
      const upstream = new WebSocket(target.url, {
        headers: target.headers,
        perMessageDeflate: false,
        maxPayload: REALTIME_MAX_EVENT_BYTES,
        handshakeTimeout: relayTimeoutSeconds > 0 ? relayTimeoutSeconds * 1000 : DEFAULT_HANDSHAKE_MS,
      });
      // From the start: frames that came with the handshake are emitted before any await resumes.
      upstream.on('message', early.listener);
      upstream.once('open', () => resolve({ upstream }));
      upstream.once('unexpected-response', (_request, response: IncomingMessage) => {
        void readFailure(response, channel.allKeys).then((failure) => {
          resolve({ failure });
          upstream.terminate();
        });
      });
      // Kept after the outcome: a refused handshake aborted below still emits its error.
      upstream.on('error', (error) => resolve({ error }));
    });
    if ('upstream' in outcome) {
      if (clientGone()) {
        outcome.upstream.close(1000);
        health.breakers.abandoned(channel, keyIndex);
        return { kind: 'client_gone' };
      }
      health.onRelaySuccess(channel, keyIndex);
      return { kind: 'open', upstream: outcome.upstream, early };
    }
    if ('failure' in outcome) {
      const verdict = adaptor.classifyError(outcome.failure);
      metrics.upstreamError(channel.id, 'status');
      health.onUpstreamError(channel, keyIndex, outcome.failure, verdict);
      const deadKey = channel.keys.length > 1 && health.disablesChannel(outcome.failure, verdict) ? keyIndex : undefined;
      return { kind: 'failed', error: clientErrorForFailure(outcome.failure, verdict, channel), deadKey };
    }
    if (clientGone()) {
      health.breakers.abandoned(channel, keyIndex);
      return { kind: 'client_gone' };
    }
    context.logger.warn({ err: outcome.error, channelId: channel.id }, 'realtime upstream unreachable');
    metrics.upstreamError(channel.id, 'connection');
    const unreachable = clientErrorForConnection(outcome.error);
    health.onUnreachable(channel, unreachable.message);
    return { kind: 'failed', error: unreachable };
  }

  /**
   * Shutdown: no new session opens; each open one closes once no response is under way, and those
   * still busy after STREAMING_TIMEOUT are ended (their responses cancelled and billed as reported).
   */
  drain(): void {
    if (this.draining) return;
    this.draining = true;
    for (const session of this.sessions) session.drain();
    this.drainTimer = setTimeout(() => {
      for (const session of this.sessions) session.stop();
    }, this.deps.context.config.streamingTimeoutSeconds * 1000);
    this.drainTimer.unref();
  }

  /** Ends every session now and waits for their books: before the relay's last flush. */
  async close(): Promise<void> {
    this.draining = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    const sessions = [...this.sessions];
    for (const session of sessions) session.stop();
    await Promise.all(sessions.map((session) => session.ended));
  }
}

/** `?model=` is the session's model ('' when absent; GA's `call_id` sideband sessions are not relayed). */
function modelOf(request: FastifyRequest): string {
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.model === 'string' ? query.model.trim() : '';
}

/** The browser's subprotocol key, when no header carries one: authenticated like `Authorization: Bearer`. */
function adoptProtocolKey(request: FastifyRequest): void {
  if (request.headers.authorization) return;
  const apiKey = request.headers['api-key'];
  if (typeof apiKey === 'string' && apiKey !== '') {
    request.headers.authorization = `Bearer ${apiKey}`;
    return;
  }
  const key = protocolsOf(request).find((protocol) => protocol.startsWith(KEY_PROTOCOL));
  if (key !== undefined) request.headers.authorization = `Bearer ${key.slice(KEY_PROTOCOL.length)}`;
}

/** The client's `OpenAI-Beta` header, or the subprotocol that says the same; passed on to the upstream. */
function betaHeaderOf(request: FastifyRequest): string | undefined {
  const header = request.headers['openai-beta'];
  if (typeof header === 'string' && header !== '') return header;
  const protocol = protocolsOf(request).find((each) => each.startsWith(BETA_PROTOCOL));
  // `openai-beta.realtime-v1` → `realtime=v1`.
  return protocol === undefined ? undefined : protocol.slice(BETA_PROTOCOL.length).replace(/-(v\d+)$/, '=$1');
}

const protocolsOf = (request: FastifyRequest): string[] =>
  String(request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((each) => each.trim())
    .filter(Boolean);

/** An upstream's refusal of the handshake, read like any error answer, its keys masked. */
async function readFailure(response: IncomingMessage, secrets: readonly string[]): Promise<UpstreamFailure> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const part of response) {
      const buffer = part as Buffer;
      parts.push(buffer);
      size += buffer.length;
      if (size >= MAX_ERROR_BYTES) break;
    }
  } catch {
    // A body cut short still tells the status.
  }
  const status = response.statusCode ?? 502;
  const body = parseUpstreamErrorBody(Buffer.concat(parts).toString('utf8').slice(0, MAX_ERROR_BYTES));
  return {
    status,
    message: maskSecrets(body.message, secrets) || `上游返回 HTTP ${status} (upstream answered HTTP ${status})`,
    type: maskSecrets(body.type, secrets),
    code: maskSecrets(body.code, secrets),
  };
}
