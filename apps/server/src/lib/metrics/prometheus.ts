import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LogOutputStats } from '../log-output.js';
import type { BucketCounts, RelayMetrics, RequestSeries } from './relay-metrics.js';

/** What the scrape reads besides the relay's own counters. */
export interface MetricSources {
  relay: RelayMetrics;
  /** Entries in the relay's memory caches. */
  cacheSizes(): { tokens: number; users: number; channels: number } | Promise<{ tokens: number; users: number; channels: number }>;
  /** Consume logs waiting for the next batch write. */
  logQueueRows(): number;
  /** The process log's destination (main.ts); absent when the app logs elsewhere (tests): both read 0. */
  logOutput?: LogOutputStats | undefined;
}

type HistogramValue = { metricName: string; labels: Record<string, string | number>; value: number };
type Snapshot = Awaited<ReturnType<Histogram<string>['get']>>;

/**
 * A histogram whose buckets are counted elsewhere (BucketCounts, on the hot path) and only
 * read here: prom-client's own observe() would hash a label object per call.
 */
class SnapshotHistogram extends Histogram<string> {
  constructor(
    private readonly metricName: string,
    private readonly metricHelp: string,
    registry: Registry,
    private readonly read: () => Iterable<{ labels: Record<string, string | number>; buckets: BucketCounts }>,
  ) {
    super({ name: metricName, help: metricHelp, labelNames: ['route', 'model', 'channel', 'status'], registers: [registry] });
  }

  override async get(): Promise<Snapshot> {
    return this.getForPromString();
  }

  async getForPromString(): Promise<Snapshot> {
    const values: HistogramValue[] = [];
    for (const { labels, buckets } of this.read()) {
      if (buckets.count === 0) continue;
      const cumulative = buckets.cumulative();
      buckets.bounds.forEach((bound, index) =>
        values.push({ metricName: `${this.metricName}_bucket`, labels: { ...labels, le: bound }, value: cumulative[index]! }),
      );
      values.push({ metricName: `${this.metricName}_bucket`, labels: { ...labels, le: '+Inf' }, value: buckets.count });
      values.push({ metricName: `${this.metricName}_sum`, labels, value: buckets.sum });
      values.push({ metricName: `${this.metricName}_count`, labels, value: buckets.count });
    }
    // The shape prom-client's own histogram returns (its typings also ask for the collect callback).
    return { name: this.metricName, help: this.metricHelp, type: 'histogram', aggregator: 'sum', values } as unknown as Snapshot;
  }
}

const requestLabels = (series: RequestSeries) => ({
  route: series.route,
  model: series.model,
  channel: series.channel === 0 ? '' : String(series.channel),
  status: String(series.status),
});

/** The metric names /metrics serves (besides prom-client's default process_* and nodejs_* ones). */
export const METRIC_NAMES = {
  requests: 'modelgate_relay_requests_total',
  duration: 'modelgate_relay_request_duration_seconds',
  firstToken: 'modelgate_relay_first_token_seconds',
  upstreamErrors: 'modelgate_relay_upstream_errors_total',
  quota: 'modelgate_relay_quota_charged_total',
  quotaCalls: 'modelgate_relay_charged_calls_total',
  unpaid: 'modelgate_relay_unpaid_quota_total',
  overrun: 'modelgate_relay_overrun_quota_total',
  capped: 'modelgate_relay_capped_calls_total',
  lane: 'modelgate_relay_lane_calls_total',
  cut: 'modelgate_relay_cut_calls_total',
  cacheEntries: 'modelgate_relay_cache_entries',
  logQueue: 'modelgate_relay_log_queue_rows',
  logLinesDropped: 'modelgate_log_lines_dropped_total',
  logBuffered: 'modelgate_log_buffered_bytes',
} as const;

/**
 * One registry per app (never prom-client's global one, so several apps in one process do not
 * collide): prom-client's default process metrics (CPU, memory, GC, event-loop lag) and the
 * relay's figures, read from `sources` at each scrape.
 */
export function createMetricsRegistry(sources: MetricSources): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const { relay } = sources;

  new Counter({
    name: METRIC_NAMES.requests,
    help: 'Relayed API calls by route, model, channel (empty: failed before an answer, or a task read answered from our own rows) and HTTP status',
    labelNames: ['route', 'model', 'channel', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const series of relay.requests) this.inc(requestLabels(series), series.count);
    },
  });
  new SnapshotHistogram(METRIC_NAMES.duration, 'Relayed call duration in seconds, to the end of its accounting (a stream: its end)', registry, function* () {
    for (const series of relay.requests) yield { labels: requestLabels(series), buckets: series.latency };
  });
  new SnapshotHistogram(
    METRIC_NAMES.firstToken,
    "Seconds to the upstream answer's first byte (a stream's first token), served calls only",
    registry,
    function* () {
      for (const series of relay.requests) yield { labels: requestLabels(series), buckets: series.firstToken };
    },
  );
  new Counter({
    name: METRIC_NAMES.upstreamErrors,
    help: 'Failed upstream attempts by channel and kind (status: an error answer, connection: unreachable or timed out, unusable: a broken 2xx answer, request: the request could not be built)',
    labelNames: ['channel', 'kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const series of relay.upstreamErrors) if (series.count > 0) this.inc({ channel: String(series.channel), kind: series.kind }, series.count);
    },
  });
  new Counter({
    name: METRIC_NAMES.quota,
    help: 'Quota charged for relayed calls (the sum of their consume logs), by model and channel',
    labelNames: ['model', 'channel'],
    registers: [registry],
    collect() {
      this.reset();
      for (const series of relay.quota) this.inc({ model: series.model, channel: String(series.channel) }, series.quota);
    },
  });
  new Counter({
    name: METRIC_NAMES.quotaCalls,
    help: 'Relayed calls charged, by model and channel',
    labelNames: ['model', 'channel'],
    registers: [registry],
    collect() {
      this.reset();
      for (const series of relay.quota) this.inc({ model: series.model, channel: String(series.channel) }, series.calls);
    },
  });
  new Counter({
    name: METRIC_NAMES.unpaid,
    help: 'Quota that calls held for and were not charged: an alarm, 0 unless the ledger is wrong',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(relay.unpaidQuota);
    },
  });
  new Counter({
    name: METRIC_NAMES.overrun,
    help: 'Cost an upstream returned beyond what its calls were held for (an output past the limit it was sent), not charged, by channel',
    labelNames: ['channel'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [channel, quota] of relay.overrunQuota) this.inc({ channel: String(channel) }, quota);
    },
  });
  new Counter({
    name: METRIC_NAMES.cut,
    help: 'Capped streams the relay ended at their output cap because the upstream went past the limit it was sent, by channel',
    labelNames: ['channel'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [channel, calls] of relay.cutCalls) this.inc({ channel: String(channel) }, calls);
    },
  });
  new Counter({
    name: METRIC_NAMES.capped,
    help: "Calls sent upstream with a lower output limit: what their payer's balance paid for",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(relay.cappedCalls);
    },
  });
  new Counter({
    name: METRIC_NAMES.lane,
    help: "Relay calls read and answered straight from Node's HTTP server, without Fastify's request cycle (the usual calls; the rest take Fastify's routes)",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(relay.laneCalls);
    },
  });
  new Gauge({
    name: METRIC_NAMES.cacheEntries,
    help: "Entries in the relay's memory caches (tokens by key, users, channels in the routing index)",
    labelNames: ['cache'],
    registers: [registry],
    async collect() {
      const sizes = await sources.cacheSizes();
      this.set({ cache: 'tokens' }, sizes.tokens);
      this.set({ cache: 'users' }, sizes.users);
      this.set({ cache: 'channels' }, sizes.channels);
    },
  });
  new Gauge({
    name: METRIC_NAMES.logQueue,
    help: 'Consume logs queued for the next batch write',
    registers: [registry],
    collect() {
      this.set(sources.logQueueRows());
    },
  });
  new Counter({
    name: METRIC_NAMES.logLinesDropped,
    help: 'Process log lines (stdout) dropped because their reader fell behind by more than the log buffer (1 MiB) or was gone',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.logOutput?.droppedLines ?? 0);
    },
  });
  new Gauge({
    name: METRIC_NAMES.logBuffered,
    help: 'Process log bytes written and not yet taken by the reader of stdout',
    registers: [registry],
    collect() {
      this.set(sources.logOutput?.bufferedBytes ?? 0);
    },
  });
  return registry;
}
