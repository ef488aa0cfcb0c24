import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Runs wrk (pinned to the load core) with a POST body and reads its summary. */

const execFileAsync = promisify(execFile);
const scriptDir = mkdtempSync(join(tmpdir(), 'modelgate-bench-wrk-'));
let scriptCount = 0;

export interface WrkOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** CPU list for taskset. */
  cpu: string;
}

export interface WrkResult {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 2xx/3xx. */
  non2xx: number;
  /** connect + read + write + timeout errors. */
  socketErrors: number;
  raw: string;
}

/** A Lua long string needs a closing bracket that the text itself does not contain. */
function luaLongString(text: string): string {
  let level = 0;
  while (text.includes(`]${'='.repeat(level)}]`)) level += 1;
  const equals = '='.repeat(level);
  return `[${equals}[${text}]${equals}]`;
}

function writeScript(body: string, headers: Record<string, string>): string {
  const lines = ['wrk.method = "POST"', `wrk.body = ${luaLongString(body)}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`wrk.headers[ ${luaLongString(name)} ] = ${luaLongString(value)}`);
  scriptCount += 1;
  const path = join(scriptDir, `post-${scriptCount}.lua`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function toMs(value: string, unit: string): number {
  const number = Number(value);
  switch (unit) {
    case 'us':
      return number / 1000;
    case 'ms':
      return number;
    case 's':
      return number * 1000;
    case 'm':
      return number * 60_000;
    default:
      throw new Error(`unknown wrk time unit "${unit}"`);
  }
}

export function parseWrk(output: string): WrkResult {
  const percentile = (label: string) => {
    const match = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(output);
    if (!match) throw new Error(`wrk output has no ${label}% line:\n${output}`);
    return toMs(match[1]!, match[2]!);
  };
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(output);
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(output);
  if (!total || !rate) throw new Error(`unexpected wrk output:\n${output}`);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(output);
  return {
    requests: Number(total[1]),
    seconds: toMs(total[2]!, total[3]!) / 1000,
    requestsPerSecond: Number(rate[1]),
    p50Ms: percentile('50'),
    p99Ms: percentile('99'),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: socket ? socket.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0,
    raw: output,
  };
}

export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const script = writeScript(options.body, options.headers);
  const args = [
    '-c',
    options.cpu,
    'wrk',
    '-t1',
    `-c${options.connections}`,
    `-d${options.durationSeconds}s`,
    '--timeout',
    '10s',
    '--latency',
    '-s',
    script,
    options.url,
  ];
  const { stdout, stderr } = await execFileAsync('taskset', args, { maxBuffer: 1 << 20 });
  // wrk reports a broken script on stderr and then runs plain GETs anyway.
  if (stderr.trim() !== '') throw new Error(`wrk complained: ${stderr.trim()}`);
  return parseWrk(stdout);
}
