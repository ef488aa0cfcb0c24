import { firstChunkTimes, manyStreams, percentile, streamsPool, type FirstChunkResult, type Target } from './clients.js';
import { coreBusyMicros, cpuMicros, listenOverflows, rssKb, sampleRss } from './proc.js';
import type { Pinned } from './processes.js';
import type { RunRow } from './report.js';
import { runWrk } from './wrk.js';

/**
 * The measurements, run target after target for each configuration (interleaved), so a burst of
 * load from elsewhere on the machine hits the proxy and modelgate alike instead of one of them.
 */

export interface Measured {
  target: Target;
  process: Pinned;
  /** modelgate's /metrics: its event-loop delay is read around each run. */
  metricsUrl?: string;
}

/**
 * The event loop's delays during a run, from prom-client's monitorEventLoopDelay histogram (reset
 * at each scrape, so a scrape before the run starts it afresh). It samples every 10 ms and each
 * sample includes that interval: the interval is taken off, leaving how late the loop was.
 */
async function eventLoopDelay(metricsUrl: string): Promise<{ p99Ms: number; maxMs: number } | undefined> {
  try {
    const text = await (await fetch(metricsUrl)).text();
    const read = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? Number.NaN) * 1000;
    const sampling = 10;
    return {
      p99Ms: Math.max(0, read('nodejs_eventloop_lag_p99_seconds') - sampling),
      maxMs: Math.max(0, read('nodejs_eventloop_lag_max_seconds') - sampling),
    };
  } catch {
    return undefined;
  }
}

export interface BenchSettings {
  durationSeconds: number;
  warmupSeconds: number;
  /**
   * Interleaved wrk rounds per configuration (at least three): each target's table row is its
   * median run, and a ratio between two targets is the median of its per-round values.
   */
  repeat: number;
  streamCount: number;
  /** The paced streams are sent evenly over this many milliseconds (see pacedStreams). */
  streamSpreadMs: number;
  pacedChunks: number;
  paceMs: number;
  firstChunkRequests: number;
  relayCore: number;
  loadCore: string;
  mainModel: string;
  pacedModel: string;
  chatBody(model: string, stream: boolean): string;
  log(message: string): void;
}

export interface StreamsFigures {
  /** The paced round, on connections the first round opened: from its first send to its last end. */
  wallMs: number;
  /** Each paced stream's own time, from its send to its last byte. */
  streamP50Ms: number;
  streamP99Ms: number;
  slowestMs: number;
  /** The first round: as many fast streams, each on a new connection. */
  connectRoundMs: number;
  rssPerStreamKb: number;
  failures: number;
  firstFailure?: string;
  /** Connections the kernel dropped from full listen queues meanwhile (each costs a 1 s SYN retry). */
  listenOverflows: number;
}

export type RunKey = 'nonStream50' | 'stream50' | 'nonStream1' | 'stream1';

export interface TargetFigures {
  firstChunk: FirstChunkResult;
  streams: StreamsFigures;
  /** Each configuration's median run (by throughput). */
  runs: Record<RunKey, RunRow>;
  /** Every round's run, in round order: round i of one target ran beside round i of the others. */
  rounds: Record<RunKey, RunRow[]>;
}

/** The run with the median throughput (the upper middle one of an even count). */
export function medianRun(rows: readonly RunRow[]): RunRow {
  const sorted = [...rows].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * The median over interleaved rounds of `figure(a) / figure(b)`, each round's runs taken side by
 * side: a slow spell of the host falls on both runs of a round, so the ratio is steadier than a
 * ratio of two medians.
 */
export function medianRatio(a: readonly RunRow[], b: readonly RunRow[], figure: (row: RunRow) => number): number {
  const ratios = a.map((row, index) => figure(row) / figure(b[index]!)).sort((x, y) => x - y);
  return ratios[Math.floor(ratios.length / 2)]!;
}

const CONFIGS: { key: RunKey; stream: boolean; connections: number }[] = [
  { key: 'nonStream50', stream: false, connections: 50 },
  { key: 'stream50', stream: true, connections: 50 },
  { key: 'nonStream1', stream: false, connections: 1 },
  { key: 'stream1', stream: true, connections: 1 },
];

export class Measurer {
  readonly rows: RunRow[] = [];

  constructor(
    private readonly settings: BenchSettings,
    private readonly mock: Pinned,
  ) {}

  /**
   * A wrk run against one target: throughput and latency from wrk, CPU and RSS from /proc. After
   * a warm-up run unless `warmUp` is false (a target already warmed on the same requests).
   */
  async wrkRow(
    measured: Measured,
    model: string,
    stream: boolean,
    connections: number,
    { label = measured.target.name, record = true, warmUp = true }: { label?: string; record?: boolean; warmUp?: boolean } = {},
  ): Promise<RunRow> {
    const { settings } = this;
    const options = {
      url: `${measured.target.origin}${measured.target.path}`,
      body: settings.chatBody(model, stream),
      headers: measured.target.headers,
      connections,
      cpu: settings.loadCore,
    };
    if (warmUp) await runWrk({ ...options, durationSeconds: settings.warmupSeconds });
    const onRelayCore = measured.process !== this.mock;
    const pids = [measured.process.pid, this.mock.pid];
    const before = pids.map(cpuMicros);
    if (measured.metricsUrl) await eventLoopDelay(measured.metricsUrl);
    const coreBefore = coreBusyMicros(settings.relayCore);
    const result = await runWrk({ ...options, durationSeconds: settings.durationSeconds });
    const coreAfter = coreBusyMicros(settings.relayCore);
    const loop = measured.metricsUrl ? await eventLoopDelay(measured.metricsUrl) : undefined;
    const after = pids.map(cpuMicros);
    const wallMicros = result.seconds * 1_000_000;
    const targetCpu = after[0]! - before[0]!;
    const row: RunRow = {
      target: label,
      mode: stream ? 'stream' : 'non-stream',
      connections,
      requestsPerSecond: result.requestsPerSecond,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      cpuMicrosPerRequest: targetCpu / Math.max(1, result.requests),
      rssMb: rssKb(measured.process.pid) / 1024,
      mockCpuPercent: (100 * (after[1]! - before[1]!)) / wallMicros,
      relayCoreOtherPercent: Math.max(0, (100 * (coreAfter - coreBefore - (onRelayCore ? targetCpu : 0))) / wallMicros),
      errors: result.non2xx + result.socketErrors,
      loopP99Ms: loop?.p99Ms,
      loopMaxMs: loop?.maxMs,
    };
    if (record) this.rows.push(row);
    settings.log(
      `${label} ${row.mode} c${connections}: ${row.requestsPerSecond.toFixed(0)} req/s, p50 ${row.p50Ms.toFixed(3)} ms, ` +
        `${row.cpuMicrosPerRequest.toFixed(0)} µs CPU/req${loop ? `, event loop late p99 ${loop.p99Ms.toFixed(1)} / max ${loop.maxMs.toFixed(1)} ms` : ''}` +
        `${row.errors ? `, ${row.errors} ERRORS` : ''}`,
    );
    return row;
  }

  /**
   * Many slow streams at once: each stream's time against the pace, and the relay's RSS growth per
   * stream. A first round of fast streams, all sent in the same instant, opens the connections on
   * both hops (client to relay, relay to mock) and shows how a relay takes a burst (its time and
   * the kernel's listen-queue overflows are reported). The paced round then reuses those
   * connections, its streams sent evenly over streamSpreadMs (one a millisecond), so all of them
   * are live together for most of the pace and each stream's own time shows what the relay does
   * with a thousand live streams, not how long a thousand requests queue behind one another on one
   * core (that burst, through the load core too, takes even the mock alone most of a second). RSS
   * is measured from before the first round, so the connections a stream needs count in its share.
   */
  async pacedStreams(measured: Measured): Promise<StreamsFigures> {
    const { settings } = this;
    const baseline = rssKb(measured.process.pid);
    const overflowsBefore = listenOverflows();
    const sampler = sampleRss(measured.process.pid);
    const pool = streamsPool(measured.target, settings.streamCount);
    try {
      const connect = await manyStreams(pool, measured.target, settings.chatBody(settings.mainModel, true), settings.streamCount, 1);
      const result = await manyStreams(
        pool,
        measured.target,
        settings.chatBody(settings.pacedModel, true),
        settings.streamCount,
        settings.pacedChunks,
        settings.streamSpreadMs,
      );
      const peak = sampler.stop();
      const failures = connect.failures + result.failures;
      const figures: StreamsFigures = {
        wallMs: result.wallMs,
        streamP50Ms: result.streamP50Ms,
        streamP99Ms: result.streamP99Ms,
        slowestMs: result.slowestMs,
        connectRoundMs: connect.wallMs,
        rssPerStreamKb: (peak - baseline) / settings.streamCount,
        failures,
        firstFailure: connect.firstFailure ?? result.firstFailure,
        listenOverflows: listenOverflows() - overflowsBefore,
      };
      settings.log(
        `${measured.target.name}: ${settings.streamCount} paced streams, each ${result.streamP50Ms.toFixed(0)} ms (p50) to ${result.slowestMs.toFixed(0)} ms, ` +
          `all in ${result.wallMs.toFixed(0)} ms (connecting round ${connect.wallMs.toFixed(0)} ms), ` +
          `${figures.rssPerStreamKb.toFixed(1)} KB RSS each, ${failures} failed${figures.firstFailure ? ` (${figures.firstFailure})` : ''}, ` +
          `${figures.listenOverflows} listen-queue overflows`,
      );
      return figures;
    } finally {
      sampler.stop();
      await pool.close();
    }
  }

  /**
   * The paced streams first (while each relay's RSS is still near its resting size, so growth is
   * visible), then the wrk configurations, then first-chunk times (on relays that have served
   * traffic, as a gateway in service has: a freshly started one is still compiling its code). Each
   * configuration runs `repeat` rounds across all targets in turn and keeps every run (the table
   * shows each target's median run, the bars take medians of per-round ratios); the first-chunk
   * requests go in blocks, target after target, for the same reason.
   */
  async measureAll<K extends string>(targets: Record<K, Measured>): Promise<Record<K, TargetFigures>> {
    const { settings } = this;
    const keys = Object.keys(targets) as K[];
    const partial = {} as Record<
      K,
      { firstChunk?: FirstChunkResult; streams?: StreamsFigures; runs: Partial<Record<RunKey, RunRow>>; rounds: Partial<Record<RunKey, RunRow[]>> }
    >;
    for (const key of keys) partial[key] = { runs: {}, rounds: {} };
    for (const key of keys) partial[key].streams = await this.pacedStreams(targets[key]);
    for (const config of CONFIGS) {
      for (let round = 0; round < settings.repeat; round += 1) {
        for (const key of keys) {
          const row = await this.wrkRow(targets[key], settings.mainModel, config.stream, config.connections, { record: false, warmUp: round === 0 });
          (partial[key].rounds[config.key] ??= []).push(row);
        }
      }
      for (const key of keys) {
        const median = medianRun(partial[key].rounds[config.key]!);
        partial[key].runs[config.key] = median;
        this.rows.push(median);
      }
    }
    const firstChunks = await this.firstChunks(keys.map((key) => targets[key]));
    keys.forEach((key, index) => (partial[key].firstChunk = firstChunks[index]));
    return partial as unknown as Record<K, TargetFigures>;
  }

  /** Time to the first stream chunk, in FIRST_CHUNK_BLOCKS blocks of sequential requests per target, interleaved. */
  private async firstChunks(list: Measured[]): Promise<FirstChunkResult[]> {
    const { settings } = this;
    const body = settings.chatBody(settings.mainModel, true);
    const perBlock = Math.ceil(settings.firstChunkRequests / FIRST_CHUNK_BLOCKS);
    const times = list.map(() => [] as number[]);
    const failures = list.map(() => 0);
    for (let block = 0; block < FIRST_CHUNK_BLOCKS; block += 1) {
      for (const [index, measured] of list.entries()) {
        const result = await firstChunkTimes(measured.target, body, perBlock, block === 0 ? 50 : 5);
        times[index]!.push(...result.times);
        failures[index]! += result.failures;
      }
    }
    return list.map((measured, index) => {
      const sorted = times[index]!.sort((a, b) => a - b);
      const result = { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), failures: failures[index]! };
      settings.log(`${measured.target.name}: first chunk p50 ${result.p50Ms.toFixed(3)} ms, p99 ${result.p99Ms.toFixed(3)} ms`);
      return result;
    });
  }
}

const FIRST_CHUNK_BLOCKS = 4;
