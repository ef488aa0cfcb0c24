import type { WebSocket } from 'ws';
import type { AppContext } from '../../app-context.js';
import type { ChargeService } from '../../domain/billing/charge-service.js';
import type { QuotaLedger } from '../../domain/billing/quota-ledger.js';
import type { RelayCache } from '../../domain/relay-cache/relay-cache.js';
import type { RelayMetrics } from '../../lib/metrics/relay-metrics.js';
import type { ChannelHealth } from '../channel-health.js';
import type { RelayAuthenticator } from '../relay-auth.js';
import type { RateLimiter, RateTicket } from '../rate-limits/rate-limiter.js';
import type { RelayCaller } from '../relay-caller.js';
import type { RelayChannel } from '../../domain/relay-cache/relay-channel.js';
import type { RealtimeContext } from './realtime-context.js';
import type { RealtimeHolds } from './realtime-holds.js';
import type { RealtimePricing } from './realtime-pricing.js';

/** The route Realtime sessions are counted under in /metrics. */
export const REALTIME_ROUTE = '/v1/realtime';

/** The relay's services a Realtime session uses. */
export interface RealtimeDeps {
  context: AppContext;
  cache: RelayCache;
  auth: RelayAuthenticator;
  charges: ChargeService;
  ledger: QuotaLedger;
  health: ChannelHealth;
  metrics: RelayMetrics;
  /** Rate limits per token, user, group and model: a session is one request, its gate slot held while it lasts. */
  rateLimits: RateLimiter;
}

/** An upstream's frames that arrive before its session takes over (the first, session.created, comes with the handshake). */
export interface EarlyFrames {
  frames: { data: Buffer; isBinary: boolean }[];
  listener: (data: Buffer, isBinary: boolean) => void;
}

/** What the session was opened with (realtime-relay.ts). */
export interface RealtimeSessionParts {
  deps: RealtimeDeps;
  caller: RelayCaller;
  model: string;
  upstreamModel: string;
  channel: RelayChannel;
  keyIndex: number;
  tried: readonly number[];
  pricing: RealtimePricing;
  holds: RealtimeHolds;
  conversation: RealtimeContext;
  upstream: WebSocket;
  /** What the upstream sent before the session took over. */
  early: EarlyFrames;
  /** performance.now() when the client asked. */
  startedAt: number;
  /** Milliseconds from the client's request to the upstream's handshake. */
  connectMs: number;
  /** What the session owes its rate limits: its tokens and its gate slot, when it ends. */
  rateTicket: RateTicket | undefined;
  /** Gives the ticket's slot back once the client's connection is gone. */
  endRateTicket: () => void;
}
