import type { FormatRunKey } from './formats-bench.js';
import type { ConversionKey } from './formats-readers.js';
import type { RunKey } from './measure.js';
import { fixed, type RunRow } from './report.js';

/** The formats section's verdicts and ratios (formats-bench.ts measures them). */

export type FormatRuns = Record<RunKey, RunRow>;

/** What the mock received and what the client got back for one request through modelgate. */
export interface Check {
  format: 'openai' | 'anthropic';
  stream: boolean;
  /** The upstream received exactly the client's bytes. */
  sameRequest: boolean;
  /** The client received exactly the upstream's bytes. */
  sameAnswer: boolean;
  /** Held to documented changes instead of byte equality (OpenAI streams: the usage option). */
  expectedChanges: boolean;
  note: string;
}

const FORMAT_NAMES = { openai: 'OpenAI→OpenAI', anthropic: 'Anthropic→Anthropic' } as const;

export function formatChecks(checks: Check[]): string[] {
  const out = ['pass-through check (one request each through modelgate; the mock hashes the body it received):'];
  for (const check of checks) {
    out.push(
      `  ${FORMAT_NAMES[check.format].padEnd(20)} ${(check.stream ? 'stream' : 'non-stream').padEnd(11)} ` +
        `request ${check.sameRequest ? (check.expectedChanges ? '= as expected' : "= client's bytes") : 'CHANGED'}   ` +
        `answer ${check.sameAnswer ? (check.expectedChanges ? '= as expected' : "= upstream's bytes") : 'CHANGED'}   (${check.note})`,
    );
  }
  return out;
}

const percent = (value: number) => `${fixed(100 * value, 1)} %`;
const times = (value: number) => `${fixed(value, 2)} x`;
const ms = (value: number) => `${value >= 0 ? '+' : ''}${fixed(value, 3)} ms`;

function table(header: string[], rows: string[][], widths: number[]): string[] {
  const line = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[index]!))).join('  ');
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}

/**
 * Two summaries: the pass-through of each format against its own run through the reference proxy
 * (the relay section's bars, judged for Anthropic; OpenAI's column is the relay section's fast
 * path, measured again in these rounds), and each conversion against modelgate's OpenAI-to-OpenAI
 * pass-through of the same rounds.
 */
export function formatsSummary(runs: Record<FormatRunKey, FormatRuns>, checks: Check[], failedElsewhere = 0): { lines: string[]; failed: number } {
  const share = (relay: FormatRunKey, proxy: FormatRunKey, key: RunKey) => runs[relay][key].requestsPerSecond / runs[proxy][key].requestsPerSecond;
  const cpu = (relay: FormatRunKey, proxy: FormatRunKey, key: RunKey) => runs[relay][key].cpuMicrosPerRequest / runs[proxy][key].cpuMicrosPerRequest;
  const added = (relay: FormatRunKey, proxy: FormatRunKey, key: RunKey) => runs[relay][key].p50Ms - runs[proxy][key].p50Ms;
  const figures: {
    name: string;
    value(relay: FormatRunKey, proxy: FormatRunKey): number;
    show(value: number): string;
    limit: string;
    pass(value: number): boolean;
  }[] = [
    { name: 'throughput vs proxy, non-stream, 50 conns', value: (r, p) => share(r, p, 'nonStream50'), show: percent, limit: '>= 50 %', pass: (v) => v >= 0.5 },
    { name: 'throughput vs proxy, stream, 50 conns', value: (r, p) => share(r, p, 'stream50'), show: percent, limit: '>= 50 %', pass: (v) => v >= 0.5 },
    { name: 'CPU per request vs proxy, non-stream, 50 conns', value: (r, p) => cpu(r, p, 'nonStream50'), show: times, limit: '<= 2 x', pass: (v) => v <= 2 },
    { name: 'CPU per request vs proxy, stream, 50 conns', value: (r, p) => cpu(r, p, 'stream50'), show: times, limit: '<= 2 x', pass: (v) => v <= 2 },
    { name: 'added p50 latency, non-stream, 1 conn', value: (r, p) => added(r, p, 'nonStream1'), show: ms, limit: '<= 0.3 ms', pass: (v) => v <= 0.3 },
    { name: 'added p50 latency, whole stream, 1 conn', value: (r, p) => added(r, p, 'stream1'), show: ms, limit: '<= 0.3 ms', pass: (v) => v <= 0.3 },
  ];
  let failed = 0;
  const passRows = figures.map((figure) => {
    const openai = figure.value('openaiToOpenai', 'proxyOpenai');
    const anthropic = figure.value('anthropicToAnthropic', 'proxyAnthropic');
    const pass = figure.pass(anthropic);
    if (!pass) failed += 1;
    return [figure.name, figure.show(openai), figure.show(anthropic), figure.limit, pass ? 'PASS' : 'FAIL'];
  });
  const passThroughBroken = checks.filter((check) => !(check.sameRequest && check.sameAnswer));
  failed += passThroughBroken.length;

  const base = runs.openaiToOpenai;
  const conversions: [string, FormatRunKey][] = [
    ['Anthropic→Anthropic (pass-through)', 'anthropicToAnthropic'],
    ['OpenAI→Anthropic→OpenAI', 'openaiToAnthropic'],
    ['Anthropic→OpenAI→Anthropic', 'anthropicToOpenai'],
  ];
  const conversionRows = conversions.map(([name, key]) => {
    const row = runs[key];
    const extraCpu = (config: RunKey) => row[config].cpuMicrosPerRequest - base[config].cpuMicrosPerRequest;
    return [
      name,
      percent(row.nonStream50.requestsPerSecond / base.nonStream50.requestsPerSecond),
      percent(row.stream50.requestsPerSecond / base.stream50.requestsPerSecond),
      `${times(row.nonStream50.cpuMicrosPerRequest / base.nonStream50.cpuMicrosPerRequest)} (${extraCpu('nonStream50') >= 0 ? '+' : ''}${extraCpu('nonStream50').toFixed(0)} µs)`,
      `${times(row.stream50.cpuMicrosPerRequest / base.stream50.cpuMicrosPerRequest)} (${extraCpu('stream50') >= 0 ? '+' : ''}${extraCpu('stream50').toFixed(0)} µs)`,
      ms(row.nonStream1.p50Ms - base.nonStream1.p50Ms),
      ms(row.stream1.p50Ms - base.stream1.p50Ms),
    ];
  });

  const lines = [
    'pass-through, modelgate against the reference proxy on the same format (bars of the relay section; judged for Anthropic):',
    ...table(['figure', 'OpenAI→OpenAI', 'Anthropic→Anthropic', 'bar', ''], passRows, [48, 14, 20, 10, 4]),
    '',
    `modelgate against its own OpenAI→OpenAI pass-through in the same rounds (${base.nonStream50.requestsPerSecond.toFixed(0)} req/s non-stream and ` +
      `${base.stream50.requestsPerSecond.toFixed(0)} req/s stream at 50 conns; ${base.nonStream50.cpuMicrosPerRequest.toFixed(0)} and ${base.stream50.cpuMicrosPerRequest.toFixed(0)} µs CPU/req):`,
    ...table(
      ['client → channel (→ client)', 'req/s ns 50c', 'req/s st 50c', 'CPU/req ns 50c', 'CPU/req st 50c', 'p50 ns 1c', 'p50 st 1c'],
      conversionRows,
      [36, 12, 12, 18, 18, 11, 11],
    ),
  ];
  if (passThroughBroken.length > 0)
    lines.push(
      '',
      `FAIL: the pass-through changed ${passThroughBroken.length} of ${checks.length} requests or answers beyond what is expected (see the check above)`,
    );
  const missed = failed + failedElsewhere;
  lines.push('', missed === 0 ? 'formats: all bars met' : `formats: ${missed} bars or checks missed`);
  return { lines, failed };
}

/**
 * The Responses API's conversions, judged with the bars Anthropic's pass-through is held to,
 * measured in process (formats-readers.ts; this section's mock has no /v1/responses for a wrk run):
 * the CPU of each against Anthropic's same conversion in the same blocks at most 2 x (the "CPU per
 * request at most 2 x, throughput at least 50 %" bars, with Anthropic's conversion as the floor),
 * and the time it adds to a call at most 0.3 ms (the added-latency bar).
 */
export function responsesConversionBars(micros: Record<ConversionKey, number>): { lines: string[]; failed: number } {
  const pairs: [string, ConversionKey, ConversionKey][] = [
    ['chat client, Responses channel: stream', 'streamOpenaiToResponses', 'streamOpenaiToAnthropic'],
    ['Responses client, chat channel: stream', 'streamResponsesToOpenai', 'streamAnthropicToOpenai'],
    ['chat client, Responses channel: request + whole answer', 'wholeOpenaiToResponses', 'wholeOpenaiToAnthropic'],
    ['Responses client, chat channel: request + whole answer', 'wholeResponsesToOpenai', 'wholeAnthropicToOpenai'],
  ];
  let failed = 0;
  const rows = pairs.map(([name, responses, anthropic]) => {
    const ratio = micros[responses] / micros[anthropic];
    const cpuPass = ratio <= 2;
    const timePass = micros[responses] <= 300;
    failed += Number(!cpuPass) + Number(!timePass);
    return [
      name,
      `${micros[responses].toFixed(1)} µs`,
      `${micros[anthropic].toFixed(1)} µs`,
      `${times(ratio)} ${cpuPass ? 'PASS' : 'FAIL'}`,
      `${ms(micros[responses] / 1000)} ${timePass ? 'PASS' : 'FAIL'}`,
    ];
  });
  return {
    lines: [
      "Responses conversions in process against Anthropic's same conversion (bars: CPU <= 2 x Anthropic's, added time <= 0.3 ms a call):",
      ...table(['conversion', 'Responses', 'Anthropic', 'CPU vs Anthropic', 'added per call'], rows, [56, 10, 10, 16, 18]),
    ],
    failed,
  };
}
