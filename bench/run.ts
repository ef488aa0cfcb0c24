import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { parseArgs } from 'node:util';
import { chatBody, checkAnswer, type Target } from './clients.js';
import { Measurer, medianRun, type BenchSettings, type Measured, type TargetFigures } from './measure.js';
import { coreBusyMicros } from './proc.js';
import { acquireBenchLock, firstJsonLine, freePort, gatewayEnv, spawnPinned, stopAll, waitForHttp, type Pinned } from './processes.js';
import { summarizeProfile } from './profile.js';
import { buildServer } from '../scripts/build-server.mjs';
import { SERVER_NODE_FLAGS } from '../scripts/server-node-flags.mjs';
import { barsFor, fixed, formatBars, formatTable, type RunRow } from './report.js';
import { runFormatsBench } from './formats-bench.js';
import { runLogsBench, type LogsDialect } from './logs-bench.js';
import { runRateLimitsBench } from './ratelimits-bench.js';
import { runSensitiveBench } from './sensitive-bench.js';
import { MAIN_MODEL, MANY_CHANNELS_MODEL, seedChannels, seedUserAndToken } from './seed.js';

/**
 * modelgate's relay benchmark: the same chat requests straight to a mock upstream, through a
 * minimal reference proxy and through modelgate (auth, routing, billing, logging on), on a
 * two-core split: the relays on core 0; the mock, wrk and this script on core 1.
 * See bench/README.md for what each figure means.
 */

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '2' },
    repeat: { type: 'string', default: '3' },
    streams: { type: 'string', default: '1000' },
    'cpu-prof': { type: 'boolean', default: false },
    priority: { type: 'boolean', default: false },
    /** `relay`, `formats`, `logs`, `sensitive` or `ratelimits`: run one section only. */
    only: { type: 'string' },
    'log-rows': { type: 'string', default: '1000000' },
    'log-runs': { type: 'string', default: '20' },
    'log-dialects': { type: 'string', default: 'sqlite,postgres' },
    'keep-db': { type: 'boolean', default: false },
    /** `tsx`: run the gateway's TypeScript through tsx instead of the built bundle, to compare the two. */
    server: { type: 'string', default: 'built' },
  },
});
const profile = flags['cpu-prof'];
/** The mock paces streams for this model (see mock-upstream.ts). */
const PACED_MODEL = 'gpt-4o';
/** Alternating rounds of the channel-count runs (each figure is the median of as many). */
const CHANNEL_ROUNDS = 5;

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const settings: BenchSettings = {
  durationSeconds: Number(flags.duration),
  warmupSeconds: Number(flags.warmup),
  repeat: Math.max(3, Number(flags.repeat)),
  streamCount: Number(flags.streams),
  // One stream sent a millisecond: a thousand over one second.
  streamSpreadMs: Number(flags.streams),
  pacedChunks: 100,
  paceMs: 50,
  firstChunkRequests: 200,
  relayCore: 0,
  loadCore: '1',
  mainModel: MAIN_MODEL,
  pacedModel: PACED_MODEL,
  chatBody,
  log,
};

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const workDir = mkdtempSync(join(tmpdir(), 'modelgate-bench-'));
const profileDir = join(repoRoot, 'bench', '.profiles');

function ensureWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk --version exits 1 after printing; only a missing binary throws ENOENT.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return;
    log('wrk is missing: installing the Debian package');
    execFileSync('apt-get', ['update'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
  }
}

/**
 * nice -10 for this process and, through inheritance, everything it starts. With the kernel's
 * autogroups, nice only ranks processes within one session, so the session's group is raised too.
 */
function raisePriority(): void {
  setPriority(process.pid, -10);
  try {
    writeFileSync('/proc/self/autogroup', '-10');
    log('running at nice -10, session group included (--priority)');
  } catch (error) {
    log(`running at nice -10; the session group stays as it was (${(error as Error).message})`);
  }
}

/** How busy both cores are before we start anything: figures taken on a busy machine are not comparable. */
async function machineLoadPercent(): Promise<number> {
  const before = coreBusyMicros(0) + coreBusyMicros(1);
  await new Promise((done) => setTimeout(done, 1000));
  return (100 * (coreBusyMicros(0) + coreBusyMicros(1) - before)) / 2_000_000;
}

async function startNodeScript(name: string, script: string, cpu: string, env: Record<string, string>): Promise<{ process: Pinned; port: number }> {
  const pinned = spawnPinned(name, cpu, ['node', '--import', 'tsx', join(repoRoot, script)], env, join(workDir, `${name}.log`));
  const { port } = await firstJsonLine<{ port: number }>(pinned);
  return { process: pinned, port };
}

let serverBuild: Promise<string> | undefined;
const builtServer = (): Promise<string> => (serverBuild ??= buildServer());

async function startGateway(
  sqlitePath: string,
  label: string,
  extraEnv: Record<string, string> = {},
): Promise<{ process: Pinned; port: number; startupMs: number }> {
  const port = await freePort();
  // The flags `npm start` runs the gateway with.
  const nodeArgs = ['node', ...SERVER_NODE_FLAGS];
  if (profile) {
    // One directory per process: Node writes one file per thread.
    const directory = join(profileDir, `modelgate-${label}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    mkdirSync(directory, { recursive: true });
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', directory);
  }
  // The JavaScript `npm start` runs (scripts/build-server.mjs), built once per bench run; --server tsx for the sources.
  if (flags.server === 'tsx') nodeArgs.push('--import', 'tsx', join(repoRoot, 'apps/server/src/main.ts'));
  else nodeArgs.push(await builtServer());
  const env = { ...gatewayEnv(port, sqlitePath), ...extraEnv };
  const pinned = spawnPinned(`modelgate-${label}`, String(settings.relayCore), nodeArgs, env, join(workDir, `modelgate-${label}.log`));
  const startupMs = await waitForHttp(`http://127.0.0.1:${port}/api/status`, pinned);
  return { process: pinned, port, startupMs };
}

async function answerProblem(target: Target, model = MAIN_MODEL): Promise<string | undefined> {
  for (const stream of [false, true]) {
    const problem = await checkAnswer(target, chatBody(model, stream), stream);
    if (problem) return `${target.name} does not answer a ${stream ? 'stream' : 'non-stream'} ${model} chat request correctly: ${problem}`;
  }
  return undefined;
}

function pathFigures(results: Record<string, TargetFigures>): string[] {
  const pace = settings.pacedChunks * settings.paceMs;
  const out = [`time to first stream chunk, 1 connection (${settings.firstChunkRequests} sequential requests in interleaved blocks, after the wrk runs):`];
  for (const [name, figures] of Object.entries(results))
    out.push(`  ${name.padEnd(10)} p50 ${fixed(figures.firstChunk.p50Ms, 3)} ms   p99 ${fixed(figures.firstChunk.p99Ms, 3)} ms`);
  out.push(
    `${settings.streamCount} concurrent paced streams (${settings.pacedChunks} chunks, one every ${settings.paceMs} ms; pace ${pace} ms), ` +
      `sent over ${settings.streamSpreadMs} ms on connections a first round opened; each stream's time from its send to its last byte:`,
  );
  for (const [name, { streams }] of Object.entries(results)) {
    out.push(
      `  ${name.padEnd(10)} p50 ${streams.streamP50Ms.toFixed(0)} ms   p99 ${streams.streamP99Ms.toFixed(0)} ms   slowest ${streams.slowestMs.toFixed(0)} ms (${fixed(streams.slowestMs / pace, 3)} x pace)   ` +
        `all ${streams.wallMs.toFixed(0)} ms   RSS/stream ${fixed(streams.rssPerStreamKb, 1)} KB   ` +
        `failed ${streams.failures}   first round (${settings.streamCount} new connections, fast streams) ${streams.connectRoundMs.toFixed(0)} ms, ` +
        `listen-queue overflows ${streams.listenOverflows}`,
    );
  }
  return out;
}

/** The main thread's profile (thread id 0 in Node's file name) of the newest run with this label. */
/** A consistent copy of a closed SQLite database (its WAL folded in), through SQLite's own backup. */
async function copySqlite(from: string, to: string): Promise<void> {
  const database = new SqliteDatabase(from, { readonly: true });
  try {
    await database.backup(to);
  } finally {
    database.close();
  }
  // The channel keys are sealed with the file's key (db/secret-key.ts): the copy needs it beside it.
  if (existsSync(`${from}.key`)) copyFileSync(`${from}.key`, `${to}.key`);
}

function newestProfile(label: string): string | undefined {
  try {
    const runs = readdirSync(profileDir)
      .filter((name) => name.startsWith(`modelgate-${label}-`))
      .sort();
    if (runs.length === 0) return undefined;
    const directory = join(profileDir, runs.at(-1)!);
    const main = readdirSync(directory).find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name));
    return main ? join(directory, main) : undefined;
  } catch {
    return undefined;
  }
}

async function relayBench(): Promise<void> {
  execFileSync('taskset', ['-cp', settings.loadCore, String(process.pid)], { stdio: 'ignore' });
  ensureWrk();
  const idleLoad = await machineLoadPercent();
  log(
    `work files in ${workDir}; ${settings.durationSeconds} s runs after ${settings.warmupSeconds} s warm-up; machine ${idleLoad.toFixed(0)} % busy before start`,
  );
  if (idleLoad > 15) log('WARNING: other processes are using the CPUs; figures will be noisy (see the "core0 other" column)');

  const mock = await startNodeScript('mock', 'bench/mock-upstream.ts', settings.loadCore, {
    MOCK_PORT: '0',
    MOCK_PACED_MODEL: PACED_MODEL,
    MOCK_PACED_CHUNKS: String(settings.pacedChunks),
    MOCK_PACE_MS: String(settings.paceMs),
  });
  const mockOrigin = `http://127.0.0.1:${mock.port}`;
  const proxy = await startNodeScript('reference-proxy', 'bench/reference-proxy.ts', String(settings.relayCore), { PORT: '0', UPSTREAM: mockOrigin });

  const sqlitePath = join(workDir, 'modelgate.db');
  const tokenKey = await seedUserAndToken(sqlitePath);
  await seedChannels(sqlitePath, { models: [MAIN_MODEL, PACED_MODEL], count: 10, baseUrl: mockOrigin, namePrefix: 'mock' });
  const gateway = await startGateway(sqlitePath, 'main');
  log(`modelgate started in ${gateway.startupMs.toFixed(0)} ms with 10 channels`);

  const headers = { 'content-type': 'application/json', authorization: `Bearer sk-${tokenKey}` };
  const path = '/v1/chat/completions';
  const targets = {
    direct: { target: { name: 'direct (mock)', origin: mockOrigin, path, headers }, process: mock.process },
    reference: { target: { name: 'reference proxy', origin: `http://127.0.0.1:${proxy.port}`, path, headers }, process: proxy.process },
    modelgate: {
      target: { name: 'modelgate', origin: `http://127.0.0.1:${gateway.port}`, path, headers },
      process: gateway.process,
      metricsUrl: `http://127.0.0.1:${gateway.port}/metrics`,
    },
  } satisfies Record<string, Measured>;
  for (const measured of [targets.direct, targets.reference]) {
    const problem = await answerProblem(measured.target);
    if (problem) throw new Error(problem);
  }
  const measurer = new Measurer(settings, mock.process);
  const header = `\nmodelgate relay benchmark: relays on core ${settings.relayCore}; mock, wrk and this script on core ${settings.loadCore}; ${settings.durationSeconds} s per run, ${settings.repeat} interleaved rounds: each row is a target's median run, each bar the median of its per-round ratios\n`;

  // Without a working relay the bench still measures the floor, then says why modelgate is missing.
  const gatewayProblem = (await answerProblem(targets.modelgate.target)) ?? (await answerProblem(targets.modelgate.target, PACED_MODEL));
  if (gatewayProblem) {
    log(gatewayProblem);
    const floor = await measurer.measureAll({ direct: targets.direct, reference: targets.reference });
    await stopAll();
    process.stdout.write(`${[header, formatTable(measurer.rows), '', ...pathFigures(floor), '', `modelgate NOT MEASURED: ${gatewayProblem}`].join('\n')}\n`);
    process.exitCode = 1;
    return;
  }

  const results = await measurer.measureAll(targets);
  await gateway.process.stop();

  // Channel count: two new processes side by side, one over a copy of the 10-channel database and
  // one over 10 + 10,000 channels, so a per-request cost that grows with the channel table (or with
  // one model's candidates) shows, and a long-warmed process is not set against a cold one. The
  // three runs (10-channel model on the first; 10,000-channel and 10-channel models on the second)
  // alternate for CHANNEL_ROUNDS rounds and each keeps its median, so neither a burst of load from
  // elsewhere nor the host's speed drifting during the rounds decides.
  const tenChannelPath = join(workDir, 'modelgate-10-channels.db');
  await copySqlite(sqlitePath, tenChannelPath);
  await seedChannels(sqlitePath, { models: [MANY_CHANNELS_MODEL], count: 10_000, baseUrl: mockOrigin, namePrefix: 'many' });
  const fresh = await startGateway(tenChannelPath, 'fresh');
  const crowded = await startGateway(sqlitePath, 'channels');
  log(`modelgate started in ${fresh.startupMs.toFixed(0)} ms with 10 channels, ${crowded.startupMs.toFixed(0)} ms with 10,010`);
  const freshTarget: Measured = { target: { ...targets.modelgate.target, origin: `http://127.0.0.1:${fresh.port}` }, process: fresh.process };
  const crowdedTarget: Measured = { target: { ...targets.modelgate.target, origin: `http://127.0.0.1:${crowded.port}` }, process: crowded.process };
  const problem = await answerProblem(crowdedTarget.target, MANY_CHANNELS_MODEL);
  if (problem) throw new Error(`with 10,010 channels: ${problem}`);
  const channelRuns = [
    { label: 'mg new, 10 ch', measured: freshTarget, model: MAIN_MODEL, rows: [] as RunRow[] },
    { label: 'mg new, 10k-ch model', measured: crowdedTarget, model: MANY_CHANNELS_MODEL, rows: [] as RunRow[] },
    { label: 'mg new, 10 of 10,010', measured: crowdedTarget, model: MAIN_MODEL, rows: [] as RunRow[] },
  ];
  for (let round = 0; round < CHANNEL_ROUNDS; round += 1) {
    for (const run of channelRuns) {
      run.rows.push(await measurer.wrkRow(run.measured, run.model, false, 50, { label: run.label, record: false, warmUp: round === 0 }));
    }
  }
  const [tenFresh, tenThousand, tenOfMany] = channelRuns.map((run) => medianRun(run.rows)) as [RunRow, RunRow, RunRow];
  measurer.rows.push(tenFresh, tenThousand, tenOfMany);
  await stopAll();

  const bars = barsFor({
    direct: results.direct,
    reference: results.reference,
    modelgate: results.modelgate,
    pacedMs: settings.pacedChunks * settings.paceMs,
    streamCount: settings.streamCount,
    tenFresh,
    tenThousand,
    tenOfMany,
    crowdedStartupMs: crowded.startupMs,
  });
  const out = [
    header,
    formatTable(measurer.rows),
    '',
    ...pathFigures(results),
    '',
    'modelgate against the bars (reference proxy = 100 %):',
    formatBars(bars),
    '',
  ];
  const erroredRows = measurer.rows.filter((row) => row.errors > 0);
  if (erroredRows.length > 0) out.push(`WARNING: ${erroredRows.length} runs had non-2xx answers or socket errors; their figures are not comparable.`);
  const failed = bars.filter((bar) => bar.pass === false).length;
  out.push(failed === 0 ? 'all bars met' : `${failed} of ${bars.length} bars missed`);
  if (profile) {
    const file = newestProfile('main');
    if (file) out.push('', `CPU profile of modelgate (main run): ${file}`, ...summarizeProfile(file).lines);
    const crowdedFile = newestProfile('channels');
    if (crowdedFile) out.push('', `CPU profile of modelgate with 10,010 channels: ${crowdedFile}`, ...summarizeProfile(crowdedFile, 8).lines);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Anthropic's pass-through and the format conversions against OpenAI's pass-through (formats-bench.ts). */
async function formatsBench(): Promise<void> {
  execFileSync('taskset', ['-cp', settings.loadCore, String(process.pid)], { stdio: 'ignore' });
  ensureWrk();
  const { lines, failed } = await runFormatsBench({ settings, workDir, machineLoadPercent, startNodeScript, startGateway, stopAll, log });
  process.stdout.write(`${lines.join('\n')}\n`);
  if (profile) {
    const file = newestProfile('formats');
    if (file) process.stdout.write(`${['', `CPU profile of modelgate (formats): ${file}`, ...summarizeProfile(file).lines].join('\n')}\n`);
  }
  if (failed > 0) process.exitCode = 1;
}

async function logsBench(): Promise<void> {
  const dialects = flags['log-dialects'].split(',').map((name) => name.trim());
  const unknown = dialects.filter((name) => name !== 'sqlite' && name !== 'postgres');
  if (unknown.length > 0) throw new Error(`--log-dialects takes sqlite and postgres, not ${unknown.join(', ')}`);
  const rows = Number(flags['log-rows']);
  const runs = Number(flags['log-runs']);
  if (!Number.isInteger(rows) || rows < 1) throw new Error('--log-rows must be a positive integer');
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--log-runs must be a positive integer');
  log(`logs: work files in ${workDir}`);
  const { lines, failed } = await runLogsBench({
    rows,
    runs,
    warmup: 3,
    dialects: dialects as LogsDialect[],
    keepDb: flags['keep-db'],
    workDir,
    repoRoot,
    log,
  });
  process.stdout.write(`${lines.join('\n')}\n`);
  if (failed > 0) process.exitCode = 1;
}

/** In process, a few seconds: the prompt check's cost per call with 10,000 words (sensitive-bench.ts). */
function sensitiveBench(): void {
  const { lines, failed } = runSensitiveBench();
  process.stdout.write(`${lines.join('\n')}\n`);
  if (failed > 0) process.exitCode = 1;
}

/** Limits set never to refuse against none, on one gateway (ratelimits-bench.ts): not part of the full run. */
async function rateLimitsBench(): Promise<void> {
  execFileSync('taskset', ['-cp', settings.loadCore, String(process.pid)], { stdio: 'ignore' });
  ensureWrk();
  const { lines, failed } = await runRateLimitsBench({ settings, workDir, machineLoadPercent, startNodeScript, startGateway, stopAll, log });
  process.stdout.write(`${lines.join('\n')}\n`);
  if (failed > 0) process.exitCode = 1;
}

const SECTIONS = ['relay', 'formats', 'logs', 'sensitive', 'ratelimits'] as const;

async function main(): Promise<void> {
  const only = flags.only;
  if (only !== undefined && !(SECTIONS as readonly string[]).includes(only)) throw new Error(`--only takes ${SECTIONS.join(', ')}, not ${only}`);
  await acquireBenchLock(log);
  if (flags.priority) raisePriority();
  if (only === undefined || only === 'relay') await relayBench();
  if (only === undefined || only === 'formats') await formatsBench();
  if (only === undefined || only === 'logs') await logsBench();
  if (only === undefined || only === 'sensitive') sensitiveBench();
  if (only === 'ratelimits') await rateLimitsBench();
}

process.on('SIGINT', () => {
  void stopAll().then(() => process.exit(130));
});
main().catch(async (error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  await stopAll();
  process.exit(1);
});
