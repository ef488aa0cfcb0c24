/**
 * The relay's per-request figures, kept as plain numbers in nested Maps and turned into
 * Prometheus metrics only when /metrics is scraped (prometheus.ts). The hot path pays a few
 * Map lookups and additions per call: no label objects, no composed key strings, no prom-client
 * child lookups (its labels() hashes a fresh object per call).
 */

/** Request latency, seconds: from the request's arrival to the end of its accounting (a stream's end). */
export const LATENCY_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];
/** Time to the upstream's first byte (a stream's first token), seconds. */
export const FIRST_TOKEN_BUCKETS: readonly number[] = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

/**
 * Distinct label sets kept per figure. A failed call's model is whatever the client sent, so a
 * caller could otherwise grow the series without bound; past the cap new models count as OTHER_MODEL.
 */
export const MAX_SERIES = 5000;
export const OTHER_MODEL = '_other_';

/** Why an attempt on a channel failed. */
export const UPSTREAM_ERROR_KINDS = ['status', 'connection', 'unusable', 'request'] as const;
export type UpstreamErrorKind = (typeof UPSTREAM_ERROR_KINDS)[number];

/** Observations in buckets; `counts[i]` holds those in (bounds[i-1], bounds[i]], the last slot those above every bound. */
export class BucketCounts {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let slot = 0;
    while (slot < bounds.length && value > bounds[slot]!) slot += 1;
    this.counts[slot]! += 1;
    this.sum += value;
    this.count += 1;
  }

  /** Cumulative counts per bound (Prometheus' `le`), the last one being +Inf. */
  cumulative(): number[] {
    const out: number[] = [];
    let running = 0;
    for (const count of this.counts) {
      running += count;
      out.push(running);
    }
    return out;
  }
}

/** One (route, model, channel, status) combination. channel 0: the call failed before an answer was delivered. */
export interface RequestSeries {
  readonly route: string;
  readonly model: string;
  readonly channel: number;
  readonly status: number;
  count: number;
  readonly latency: BucketCounts;
  /** Only served calls have a first byte; failed ones leave it empty. */
  readonly firstToken: BucketCounts;
}

export interface QuotaSeries {
  readonly model: string;
  readonly channel: number;
  quota: number;
  calls: number;
}

export interface UpstreamErrorSeries {
  readonly channel: number;
  readonly kind: UpstreamErrorKind;
  count: number;
}

type Nested<V> = Map<string, Map<string, Map<number, Map<number, V>>>>;

export class RelayMetrics {
  /** Every series, in creation order, for the scrape. */
  readonly requests: RequestSeries[] = [];
  readonly quota: QuotaSeries[] = [];
  readonly upstreamErrors: UpstreamErrorSeries[] = [];

  /** Quota calls held for and not charged: the money path's alarm, 0 unless the ledger is wrong. */
  unpaidQuota = 0;
  /** Calls sent upstream with a lower output limit, what their payer's balance paid for. */
  cappedCalls = 0;
  /** Relay calls read and answered by the relay lane (http/relay/relay-lane.ts) rather than Fastify's routes. */
  laneCalls = 0;
  /** Per channel: cost its upstream returned beyond what the calls were held for (not charged). */
  readonly overrunQuota = new Map<number, number>();
  /** Per channel: streams cut at their output cap because the upstream went past the limit it was sent. */
  readonly cutCalls = new Map<number, number>();

  private readonly requestIndex: Nested<RequestSeries> = new Map();
  private readonly quotaIndex = new Map<string, Map<number, QuotaSeries>>();
  private readonly errorIndex = new Map<number, UpstreamErrorSeries[]>();

  /**
   * A call answered through `channel`: latency to the end of its accounting, the upstream's first
   * byte (negative: none to observe, as for a task call's whole answer).
   */
  served(route: string, model: string, channel: number, status: number, latencyMs: number, firstTokenMs: number): void {
    const series = this.requestSeries(route, model, channel, status);
    series.count += 1;
    series.latency.observe(latencyMs / 1000);
    if (firstTokenMs >= 0) series.firstToken.observe(firstTokenMs / 1000);
  }

  /** A call refused or failed with `status` (channel 0); model '' when it failed before the body was read. */
  failed(route: string, model: string, status: number, latencyMs: number): void {
    const series = this.requestSeries(route, model, 0, status);
    series.count += 1;
    series.latency.observe(latencyMs / 1000);
  }

  /** Quota charged for one call, as its consume log records it. */
  charged(model: string, channel: number, quota: number): void {
    let byChannel = this.quotaIndex.get(model);
    if (byChannel === undefined) {
      if (this.quota.length >= MAX_SERIES && model !== OTHER_MODEL) return this.charged(OTHER_MODEL, 0, quota);
      byChannel = new Map();
      this.quotaIndex.set(model, byChannel);
    }
    let series = byChannel.get(channel);
    if (series === undefined) {
      // Past the cap a new channel of a known model folds too: 10,000 channels of one model would grow it as far.
      if (this.quota.length >= MAX_SERIES && !(model === OTHER_MODEL && channel === 0)) return this.charged(OTHER_MODEL, 0, quota);
      series = { model, channel, quota: 0, calls: 0 };
      byChannel.set(channel, series);
      this.quota.push(series);
    }
    series.quota += quota;
    series.calls += 1;
  }

  unpaid(quota: number): void {
    this.unpaidQuota += quota;
  }

  capped(): void {
    this.cappedCalls += 1;
  }

  overrun(channel: number, quota: number): void {
    // Bounded by the channels that ever overran, which the console flags for an admin to look at.
    this.overrunQuota.set(channel, (this.overrunQuota.get(channel) ?? 0) + quota);
  }

  cut(channel: number): void {
    this.cutCalls.set(channel, (this.cutCalls.get(channel) ?? 0) + 1);
  }

  /** One attempt on a channel that failed (the call may still have been served by another). */
  upstreamError(channel: number, kind: UpstreamErrorKind): void {
    let kinds = this.errorIndex.get(channel);
    if (kinds === undefined) {
      kinds = UPSTREAM_ERROR_KINDS.map((each) => ({ channel, kind: each, count: 0 }));
      this.errorIndex.set(channel, kinds);
      this.upstreamErrors.push(...kinds);
    }
    kinds[UPSTREAM_ERROR_KINDS.indexOf(kind)]!.count += 1;
  }

  private requestSeries(route: string, model: string, channel: number, status: number): RequestSeries {
    let byModel = this.requestIndex.get(route);
    if (byModel === undefined) {
      byModel = new Map();
      this.requestIndex.set(route, byModel);
    }
    let byChannel = byModel.get(model);
    if (byChannel === undefined) {
      if (this.requests.length >= MAX_SERIES && model !== OTHER_MODEL) return this.requestSeries(route, OTHER_MODEL, channel, status);
      byChannel = new Map();
      byModel.set(model, byChannel);
    }
    let byStatus = byChannel.get(channel);
    let series = byStatus?.get(status);
    if (series === undefined) {
      // Past the cap nothing new is kept, not even an empty Map per channel (10,000 channels of one model).
      if (this.requests.length >= MAX_SERIES && !(model === OTHER_MODEL && channel === 0)) return this.requestSeries(route, OTHER_MODEL, 0, status);
      if (byStatus === undefined) {
        byStatus = new Map();
        byChannel.set(channel, byStatus);
      }
      series = { route, model, channel, status, count: 0, latency: new BucketCounts(LATENCY_BUCKETS), firstToken: new BucketCounts(FIRST_TOKEN_BUCKETS) };
      byStatus.set(status, series);
      this.requests.push(series);
    }
    return series;
  }
}
