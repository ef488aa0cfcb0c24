import type { WebSocket } from 'ws';
import type { AppError } from '../../errors/app-error.js';
import { RealtimeBilling, type OpenResponse } from './realtime-billing.js';
import { REALTIME_ROUTE, type RealtimeSessionParts } from './realtime-deps.js';
import {
  closeCodeFor,
  eventTypeOf,
  gatewayErrorEvent,
  itemCreateSchema,
  parseEvent,
  quotaMessage,
  responseCreateSchema,
  responseEventSchema,
  sessionEventSchema,
  SHUTTING_DOWN,
  tokenLimit,
  usageOf,
} from './realtime-events.js';
import { realtimeHold } from './realtime-pricing.js';

/** Bytes waiting for a slow reader past which the other side is paused, and below which it resumes. */
const PAUSE_BYTES = 4 * 1024 * 1024;
const RESUME_BYTES = 1024 * 1024;
/** How long a session whose client left waits for its responses under way to report their usage once cancelled. */
const CANCEL_GRACE_MS = 5000;

interface Frame {
  data: Buffer;
  isBinary: boolean;
}

/** How a session ends for the client: an error event of the gateway's first, then the close frame. */
interface Ending {
  code: number;
  reason: string;
  event?: string | undefined;
}

type State = 'connected' | 'open' | 'ending' | 'ended';

/**
 * One Realtime session: the client's WebSocket and the upstream's, every frame passed on as it came
 * (text or binary, never re-encoded), billed per response.
 *
 * - Before a client's response.create goes upstream, the spare hold must cover the response's bound
 *   (realtime-holds.ts); the client's later events wait behind it, in order. A spare that cannot be
 *   held ends the session with an `error` event (insufficient_quota): at once when no response is
 *   under way, else after the last one's response.done.
 * - A response.created takes the spare; a response the upstream started with no spare to take
 *   (server VAD after the balance ran out) is not passed on: the session ends.
 * - Each response.done is settled from its usage (realtime-pricing.ts) and logged once.
 * - A session that ends with responses under way (the client left, the balance ran out) cancels
 *   them upstream and bills the usage their response.done reports, waiting at most CANCEL_GRACE_MS;
 *   a response that reports none is not billed.
 */
export class RealtimeSession {
  private state: State = 'connected';
  private client: WebSocket | undefined;
  /** Upstream frames that arrived before the client's upgrade finished. */
  private early: Frame[] | undefined = [];
  /** Client frames waiting behind a response.create whose hold is being taken. */
  private waiting: Frame[] | undefined;
  /** Output limits of the client's response.create events not started yet, in order. */
  private readonly limits: (number | undefined)[] = [];
  private readonly responses = new Map<string, OpenResponse>();
  /** The balance cannot pay for another response. */
  private shortfall: AppError | undefined;
  private draining = false;
  private toClientBytes = 0;
  private toUpstreamBytes = 0;
  private graceTimer: NodeJS.Timeout | undefined;
  private readonly billing: RealtimeBilling;
  private endResolve!: () => void;
  /** Resolves when both sides are closed and every hold is settled or given back. */
  readonly ended: Promise<void>;
  private readonly quotaPerUnit: () => number;

  constructor(private readonly parts: RealtimeSessionParts) {
    this.ended = new Promise((resolve) => {
      this.endResolve = resolve;
    });
    this.quotaPerUnit = () => parts.deps.context.options.number('QuotaPerUnit');
    this.billing = new RealtimeBilling(parts);
    const { upstream, early } = parts;
    upstream.removeListener('message', early.listener);
    upstream.on('message', (data: Buffer, isBinary: boolean) => this.fromUpstream(data, isBinary));
    upstream.on('close', (code: number, reason: Buffer) => this.upstreamClosed(code, reason.toString('utf8')));
    upstream.on('error', (error) => parts.deps.context.logger.warn({ err: error, channelId: parts.channel.id }, 'realtime upstream connection failed'));
    for (const frame of early.frames) this.fromUpstream(frame.data, frame.isBinary);
    early.frames.length = 0;
    if (upstream.readyState === upstream.CLOSING || upstream.readyState === upstream.CLOSED) this.upstreamClosed(1006, '');
  }

  get model(): string {
    return this.parts.model;
  }

  /** The client's WebSocket is open: the frames that came meanwhile go first. */
  start(client: WebSocket): void {
    this.client = client;
    client.on('message', (data: Buffer, isBinary: boolean) => this.fromClient({ data, isBinary }));
    client.on('close', () => this.clientClosed());
    if (this.state === 'ended') {
      client.close(1011, 'upstream closed');
      return;
    }
    this.state = 'open';
    const early = this.early ?? [];
    this.early = undefined;
    for (const frame of early) this.toClient(frame);
    // The session's instructions and tools are known now (session.created).
    this.growSpare();
    // A shutdown began while the client's upgrade finished.
    if (this.draining) this.end({ code: 1001, reason: 'server shutting down' });
  }

  /** The client went away before its upgrade finished. */
  abandon(): void {
    if (this.state === 'ended') return;
    this.early = undefined;
    this.finish(499);
  }

  /** Shutdown: no new response is let through; the session closes once none is under way. */
  drain(): void {
    this.draining = true;
    if (this.state === 'open' && this.responses.size === 0) this.end({ code: 1001, reason: 'server shutting down' });
  }

  /** Ends the session now, whatever is under way (the responses are cancelled and billed for what they report). */
  stop(): void {
    if (this.state === 'connected') this.abandon();
    else if (this.state === 'open') this.end({ code: 1001, reason: 'server shutting down' });
    else if (this.state === 'ending') this.finish(101);
  }

  /** Resolves when the settlements under way are done. */
  async settled(): Promise<void> {
    await this.billing.settled();
    await this.parts.holds.settled();
  }

  // Client → upstream.

  private fromClient(frame: Frame): void {
    if (this.state !== 'open') return;
    if (this.waiting) {
      this.waiting.push(frame);
      return;
    }
    this.clientFrame(frame);
  }

  private clientFrame(frame: Frame): void {
    const { conversation } = this.parts;
    const type = frame.isBinary ? undefined : eventTypeOf(frame.data);
    switch (type) {
      case 'input_audio_buffer.append':
        conversation.addAudio(frame.data.length);
        this.toUpstream(frame);
        this.growSpare();
        return;
      case 'conversation.item.create': {
        const item = itemCreateSchema.safeParse(parseEvent(frame.data));
        const audio = item.success ? (item.data.item?.content ?? []).reduce((sum, part) => sum + (part.audio?.length ?? 0), 0) : 0;
        conversation.addAudio(audio);
        conversation.addText(Math.max(0, frame.data.length - audio));
        this.toUpstream(frame);
        this.growSpare();
        return;
      }
      case 'response.create':
        this.createResponse(frame);
        return;
      default:
        // A frame the relay cannot read may still add to the conversation: counted as text, the dearer bound per byte.
        if (type === undefined) conversation.addText(frame.data.length);
        this.toUpstream(frame);
    }
  }

  /** A client's response.create goes upstream once the spare covers the response's bound. */
  private createResponse(frame: Frame): void {
    if (this.draining) {
      this.end({ code: 1001, reason: 'server shutting down', event: gatewayErrorEvent('server_error', 'server_shutting_down', SHUTTING_DOWN) });
      return;
    }
    const parsed = responseCreateSchema.safeParse(parseEvent(frame.data));
    const response = parsed.success ? parsed.data.response : undefined;
    const limit = tokenLimit(response?.max_output_tokens) ?? tokenLimit(response?.max_response_output_tokens);
    const need = realtimeHold(this.parts.pricing, this.parts.conversation.next(frame.data.length, limit), this.quotaPerUnit());
    const held = this.parts.holds.ensure(need);
    if (held === true) {
      this.limits.push(limit);
      this.toUpstream(frame);
      return;
    }
    this.waiting = [];
    void held.then((result) => {
      if (this.state !== 'open') return;
      if (result !== true) {
        // Not sent: the responses under way finish (paid for), then the session ends; the client's later events wait until then.
        this.shortfall = result;
        if (this.responses.size === 0) this.endForQuota();
        return;
      }
      this.limits.push(limit);
      this.toUpstream(frame);
      const waiting = this.waiting ?? [];
      this.waiting = undefined;
      for (let index = 0; index < waiting.length; index += 1) {
        this.clientFrame(waiting[index]!);
        // Another response.create waits for its own hold: the rest stays behind it.
        if (this.waiting !== undefined) {
          (this.waiting as Frame[]).push(...waiting.slice(index + 1));
          return;
        }
      }
    });
  }

  /** The conversation grew: the spare grows with it, since the upstream may start a response on its own (server VAD). */
  private growSpare(): void {
    const need = realtimeHold(this.parts.pricing, this.parts.conversation.next(), this.quotaPerUnit());
    if (need <= this.parts.holds.spareHeld) return;
    const held = this.parts.holds.ensure(need);
    if (held === true) return;
    void held.then((result) => {
      if (result === true || this.state !== 'open') return;
      this.shortfall = result;
      if (this.responses.size === 0) this.endForQuota();
    });
  }

  private toUpstream(frame: Frame): void {
    const { upstream } = this.parts;
    if (upstream.readyState !== upstream.OPEN) return;
    this.toUpstreamBytes += frame.data.length;
    if (this.toUpstreamBytes > PAUSE_BYTES && this.client && !this.client.isPaused) this.client.pause();
    upstream.send(frame.data, { binary: frame.isBinary }, () => {
      this.toUpstreamBytes -= frame.data.length;
      if (this.toUpstreamBytes < RESUME_BYTES && this.client?.isPaused) this.client.resume();
    });
  }

  // Upstream → client.

  private fromUpstream(data: Buffer, isBinary: boolean): void {
    if (this.state === 'ended') return;
    const type = isBinary ? undefined : eventTypeOf(data);
    if (type === 'response.created') {
      if (!this.responseStarted(data)) return;
    } else if (type === 'response.done') {
      this.toClient({ data, isBinary });
      this.responseEnded(data);
      return;
    } else if (type === 'session.created' || type === 'session.updated') {
      const parsed = sessionEventSchema.safeParse(parseEvent(data));
      if (parsed.success && parsed.data.session) this.parts.conversation.noteSession(parsed.data.session);
      if (this.state === 'open') this.growSpare();
    } else if (type?.endsWith('.delta') && this.responses.size > 0) {
      for (const response of this.responses.values()) if (response.firstMs < 0) response.firstMs = Date.now() - response.createdWall;
    }
    this.toClient({ data, isBinary });
  }

  private toClient(frame: Frame): void {
    if (this.early) {
      this.early.push(frame);
      return;
    }
    const { client } = this;
    if (this.state !== 'open' || !client || client.readyState !== client.OPEN) return;
    this.toClientBytes += frame.data.length;
    const { upstream } = this.parts;
    if (this.toClientBytes > PAUSE_BYTES && !upstream.isPaused) upstream.pause();
    client.send(frame.data, { binary: frame.isBinary }, () => {
      this.toClientBytes -= frame.data.length;
      if (this.toClientBytes < RESUME_BYTES && upstream.isPaused) upstream.resume();
    });
  }

  /** A response started upstream: it takes the spare, and the next spare is held. False: it is not passed on. */
  private responseStarted(data: Buffer): boolean {
    const parsed = responseEventSchema.safeParse(parseEvent(data));
    const id = (parsed.success ? parsed.data.response?.id : undefined) ?? '';
    const { holds, conversation, pricing } = this.parts;
    const limit = this.limits.shift();
    this.responses.set(id, { createdWall: Date.now(), firstMs: -1 });
    // Nobody to serve it to (the session is ending), or started by the upstream itself (server VAD)
    // after the balance ran out: not passed on, cancelled, not charged (bill() of a response without a hold).
    if (this.state !== 'open') {
      this.cancel(id);
      return false;
    }
    if (!holds.take(id)) {
      this.endForQuota();
      return false;
    }
    conversation.started(id, conversation.outputLimit(limit));
    const held = holds.ensure(realtimeHold(pricing, conversation.next(), this.quotaPerUnit()));
    if (held !== true) {
      void held.then((result) => {
        if (result === true) return;
        this.shortfall = result;
        // The take may be refused only once this response is done (it waits for what the response holds).
        if (this.state === 'open' && this.responses.size === 0) this.endForQuota();
      });
    }
    return true;
  }

  /** A response ended: its usage is billed and logged, and the session ends if it was waiting for that. */
  private responseEnded(data: Buffer): void {
    const parsed = responseEventSchema.safeParse(parseEvent(data));
    const response = parsed.success ? parsed.data.response : undefined;
    const id = response?.id ?? '';
    const usage = usageOf(response?.usage);
    const open = this.responses.get(id);
    this.responses.delete(id);
    this.parts.conversation.ended(id, usage);
    this.billing.bill(id, usage, open);
    if (this.state === 'open' && this.responses.size === 0) {
      if (this.shortfall) this.endForQuota();
      else if (this.draining) this.end({ code: 1001, reason: 'server shutting down' });
    } else if (this.state === 'ending' && this.responses.size === 0) {
      this.finish(101);
    }
  }

  // Ends.

  private endForQuota(): void {
    const code = this.shortfall?.shortCode ?? 'insufficient_user_quota';
    const message = quotaMessage(code === 'insufficient_token_quota');
    this.end({ code: 1008, reason: 'insufficient quota', event: gatewayErrorEvent('insufficient_quota', code, message) });
  }

  /** The session ends on our side: the client is told (and closed), the responses under way are cancelled upstream. */
  private end(ending: Ending): void {
    if (this.state !== 'open') return;
    this.state = 'ending';
    const { client } = this;
    if (client && client.readyState === client.OPEN) {
      if (ending.event) client.send(ending.event);
      client.close(ending.code, ending.reason);
    }
    this.waitForResponses();
  }

  private clientClosed(): void {
    if (this.state !== 'open') return;
    this.state = 'ending';
    this.waitForResponses();
  }

  /** Cancels what is under way and waits (a while) for its usage; then the upstream is closed. */
  private waitForResponses(): void {
    if (this.responses.size === 0 || this.parts.upstream.readyState !== this.parts.upstream.OPEN) {
      this.finish(101);
      return;
    }
    for (const id of this.responses.keys()) this.cancel(id);
    this.graceTimer = setTimeout(() => this.finish(101), CANCEL_GRACE_MS);
  }

  private cancel(id: string): void {
    const { upstream } = this.parts;
    if (upstream.readyState === upstream.OPEN) upstream.send(JSON.stringify({ type: 'response.cancel', response_id: id }));
  }

  private upstreamClosed(code: number, reason: string): void {
    if (this.state === 'ended') return;
    if (this.state === 'connected') {
      this.finish(502);
      return;
    }
    const { client } = this;
    if (this.state === 'open' && client && client.readyState === client.OPEN) {
      const passed = closeCodeFor(code);
      client.close(passed, passed === code ? reason.slice(0, 120) : 'upstream connection lost');
    }
    this.finish(101);
  }

  /** Both sides closed; what no response.done settled goes back; the session is counted. */
  private finish(status: number): void {
    if (this.state === 'ended') return;
    const served = this.state !== 'connected';
    this.state = 'ended';
    if (this.graceTimer) clearTimeout(this.graceTimer);
    const { upstream, holds, deps, model, channel, startedAt, connectMs, rateTicket } = this.parts;
    holds.releaseAll();
    rateTicket?.settled(this.billing.tokens);
    this.parts.endRateTicket();
    this.responses.clear();
    if (upstream.readyState === upstream.OPEN || upstream.readyState === upstream.CONNECTING) upstream.close(1000);
    const client = this.client;
    if (client && client.readyState === client.OPEN) client.close(1000);
    if (served) deps.metrics.served(REALTIME_ROUTE, model, channel.id, status, performance.now() - startedAt, connectMs);
    else deps.metrics.failed(REALTIME_ROUTE, model, status, performance.now() - startedAt);
    void this.settled().then(() => this.endResolve());
  }
}
