import { medianRatio, type TargetFigures } from './measure.js';

/** Formats the bench's measurements: one table of runs, then the ratios against the bars. */

export interface RunRow {
  target: string;
  mode: 'non-stream' | 'stream';
  connections: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMicrosPerRequest: number;
  rssMb: number;
  /** Share of one core the mock used during the run: near 100 % - wrk's part means core 1 was the limit. */
  mockCpuPercent: number;
  /** CPU used on the relay core by anything but the measured relay (other work on the machine, kernel). */
  relayCoreOtherPercent: number;
  errors: number;
  /** modelgate only: how late its event loop ran during the run (p99 and the worst), in ms. */
  loopP99Ms?: number | undefined;
  loopMaxMs?: number | undefined;
}

export interface Bar {
  name: string;
  value: string;
  limit: string;
  pass: boolean | undefined;
  note?: string;
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

export function formatTable(rows: RunRow[]): string {
  const header = ['target', 'mode', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'RSS MB', 'mock CPU', 'core0 other', 'errors', 'loop late p99/max ms'];
  const widths = [21, 11, 6, 9, 8, 8, 11, 8, 9, 12, 7, 21];
  const line = (cells: string[]) => cells.map((cell, index) => pad(cell, widths[index]!, index >= 2)).join(' ');
  const out = [line(header), line(widths.map((width) => '-'.repeat(width)))];
  for (const row of rows) {
    out.push(
      line([
        row.target,
        row.mode,
        String(row.connections),
        row.requestsPerSecond.toFixed(0),
        row.p50Ms.toFixed(3),
        row.p99Ms.toFixed(3),
        row.cpuMicrosPerRequest.toFixed(0),
        row.rssMb.toFixed(1),
        `${row.mockCpuPercent.toFixed(0)} %`,
        `${row.relayCoreOtherPercent.toFixed(0)} %`,
        String(row.errors),
        row.loopP99Ms === undefined || row.loopMaxMs === undefined ? '' : `${row.loopP99Ms.toFixed(1)} / ${row.loopMaxMs.toFixed(1)}`,
      ]),
    );
  }
  return out.join('\n');
}

export function formatBars(bars: Bar[]): string {
  const out: string[] = [];
  for (const bar of bars) {
    const verdict = bar.pass === undefined ? ' n/a' : bar.pass ? 'PASS' : 'FAIL';
    out.push(`${verdict}  ${pad(bar.name, 52)} ${pad(bar.value, 16, true)}   bar ${bar.limit}${bar.note ? `   (${bar.note})` : ''}`);
  }
  return out.join('\n');
}

export const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

export interface BarInputs {
  /** Straight to the mock: if even this misses the pace, the load core is the limit. */
  direct: TargetFigures;
  reference: TargetFigures;
  modelgate: TargetFigures;
  pacedMs: number;
  streamCount: number;
  /** Non-stream, 50 connections, on a new process with 10 channels. */
  tenFresh: RunRow;
  /** The same on a new process, on a model served by 10,000 channels (10,010 in the table). */
  tenThousand: RunRow;
  /** The same process, on the model served by 10 channels. */
  tenOfMany: RunRow;
  crowdedStartupMs: number;
}

/** The issue's bars, modelgate against the reference proxy. */
export function barsFor({ direct, reference, modelgate, pacedMs, streamCount, tenFresh, tenThousand, tenOfMany, crowdedStartupMs }: BarInputs): Bar[] {
  // Medians of the per-round ratios (each round ran modelgate beside the proxy).
  const share = (key: 'nonStream50' | 'stream50') => medianRatio(modelgate.rounds[key], reference.rounds[key], (row) => row.requestsPerSecond);
  const cpuMultiple = (key: 'nonStream50' | 'stream50') => medianRatio(modelgate.rounds[key], reference.rounds[key], (row) => row.cpuMicrosPerRequest);
  const p99Multiple = (key: 'nonStream50' | 'stream50') => medianRatio(modelgate.rounds[key], reference.rounds[key], (row) => row.p99Ms);
  const loopNote = (key: 'nonStream50' | 'stream50') => {
    const row = modelgate.runs[key];
    return row.loopP99Ms === undefined || row.loopMaxMs === undefined
      ? undefined
      : `modelgate ${fixed(row.p99Ms, 1)} ms against ${fixed(reference.runs[key].p99Ms, 1)}; its event loop late p99 ${fixed(row.loopP99Ms, 1)} ms, max ${fixed(row.loopMaxMs, 1)} ms`;
  };
  const addedP50 = (key: 'nonStream1' | 'stream1') => modelgate.runs[key].p50Ms - reference.runs[key].p50Ms;
  const addedFirstChunk = modelgate.firstChunk.p50Ms - reference.firstChunk.p50Ms;
  const streams = modelgate.streams;
  const notes: string[] = [];
  if (streams.failures > 0) notes.push(`${streams.failures} failed: ${streams.firstFailure}`);
  if (streams.listenOverflows > 0) notes.push(`${streams.listenOverflows} listen-queue overflows`);
  const directPace = direct.streams.slowestMs / pacedMs;
  const pace = streams.slowestMs / pacedMs;
  // A load side that cannot keep the pace without any relay cannot judge a relay against it.
  const loadSideTooSlow = directPace > 1.1;
  if (loadSideTooSlow) notes.push(`not judged: straight to the mock took ${fixed(directPace, 3)} x, the load core is the limit`);
  const streamsNote = notes.length > 0 ? notes.join('; ') : undefined;
  const channelRatio = tenThousand.requestsPerSecond / tenFresh.requestsPerSecond;
  const smallModelRatio = tenOfMany.requestsPerSecond / tenFresh.requestsPerSecond;
  const percent = (value: number) => `${fixed(100 * value, 1)} %`;
  return [
    { name: 'throughput vs proxy, non-stream, 50 conns', value: percent(share('nonStream50')), limit: '>= 80 %', pass: share('nonStream50') >= 0.8 },
    { name: 'throughput vs proxy, stream, 50 conns', value: percent(share('stream50')), limit: '>= 75 %', pass: share('stream50') >= 0.75 },
    {
      name: 'CPU per request vs proxy, non-stream, 50 conns',
      value: `${fixed(cpuMultiple('nonStream50'), 2)} x`,
      limit: '<= 1.3 x',
      pass: cpuMultiple('nonStream50') <= 1.3,
    },
    {
      name: 'CPU per request vs proxy, stream, 50 conns',
      value: `${fixed(cpuMultiple('stream50'), 2)} x`,
      limit: '<= 1.3 x',
      pass: cpuMultiple('stream50') <= 1.3,
    },
    {
      name: 'p99 latency vs proxy, non-stream, 50 conns',
      value: `${fixed(p99Multiple('nonStream50'), 2)} x`,
      limit: '<= 2 x',
      pass: p99Multiple('nonStream50') <= 2,
      note: loopNote('nonStream50'),
    },
    {
      name: 'p99 latency vs proxy, stream, 50 conns',
      value: `${fixed(p99Multiple('stream50'), 2)} x`,
      limit: '<= 2 x',
      pass: p99Multiple('stream50') <= 2,
      note: loopNote('stream50'),
    },
    { name: 'added p50 latency, non-stream, 1 conn', value: `${fixed(addedP50('nonStream1'), 3)} ms`, limit: '<= 0.3 ms', pass: addedP50('nonStream1') <= 0.3 },
    { name: 'added p50 latency, whole stream, 1 conn', value: `${fixed(addedP50('stream1'), 3)} ms`, limit: '<= 0.3 ms', pass: addedP50('stream1') <= 0.3 },
    { name: 'added time to first chunk (p50), 1 conn', value: `${fixed(addedFirstChunk, 3)} ms`, limit: '<= 0.5 ms', pass: addedFirstChunk <= 0.5 },
    {
      name: `${streamCount} paced streams: slowest stream / pace (${pacedMs} ms)`,
      value: `${fixed(pace, 3)} x`,
      limit: '<= 1.1 x',
      pass: streams.failures > 0 ? false : loadSideTooSlow && pace > 1.1 ? undefined : pace <= 1.1,
      note: streamsNote,
    },
    {
      name: `${streamCount} paced streams: RSS per stream`,
      value: `${fixed(streams.rssPerStreamKb, 1)} KB`,
      limit: '<= 120 KB',
      pass: streams.failures === 0 && streams.rssPerStreamKb <= 120,
    },
    {
      name: 'throughput, 10,000 channels vs 10',
      value: percent(channelRatio),
      limit: '>= 90 % (same)',
      pass: channelRatio >= 0.9,
      note: `10-channel model among 10,010: ${percent(smallModelRatio)}; startup ${crowdedStartupMs.toFixed(0)} ms`,
    },
  ];
}
