import { buildServer } from '../scripts/build-server.mjs';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { connectDb } from '../apps/server/src/db/index.js';
import { monthPartition } from '../apps/server/src/db/log-partitions.js';
import { TEST_PG_URL } from '../apps/server/src/test-support/dialects.js';
import { SERVER_NODE_FLAGS } from '../scripts/server-node-flags.mjs';
import { Expectations, logCases, pathOf, PAGE_SIZE, type Expected, type LogCase } from './logs-cases.js';
import { SEED_PASSWORD, seedLogs, seedUsers, userName, type SeedPlan } from './logs-seed.js';
import { freePort, gatewayEnv, spawnPinned, waitForHttp, type Pinned } from './processes.js';

/**
 * The logs bench: a fresh database per dialect, migrated by the server's own migrations and filled
 * with `rows` consume logs, then the real server (built to JavaScript, as `npm start` runs it)
 * on it, and every log-screen request timed over HTTP as root and as the heaviest user.
 */

export type LogsDialect = 'sqlite' | 'postgres';

export interface LogsBenchOptions {
  rows: number;
  runs: number;
  warmup: number;
  dialects: LogsDialect[];
  /** Keep each seeded database (and print where it is) instead of dropping it. */
  keepDb: boolean;
  workDir: string;
  repoRoot: string;
  log: (message: string) => void;
}

/** Every case's p95 (and so its p50) must be under this. */
export const TARGET_P95_MS = 100;
/** The PostgreSQL server the bench creates its database on (the tests' server by default). */
const BENCH_PG_URL = process.env.MODELGATE_BENCH_PG ?? TEST_PG_URL;
/** The key the seeding and the server share for the secrets sealed at rest (PostgreSQL refuses to start without one). */
const BENCH_SECRET_KEY = randomBytes(32);

interface Timing {
  p50Ms: number;
  p95Ms: number;
  /** Why the answer is wrong, when it is. */
  wrong?: string;
}

interface Session {
  headers: Record<string, string>;
}

const percentile = (sorted: number[], share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;

interface FreshDatabase {
  sqlitePath: string;
  sqlDsn: string;
  where: string;
  drop(): Promise<void>;
}

async function freshDatabase(dialect: LogsDialect, workDir: string): Promise<FreshDatabase> {
  if (dialect === 'sqlite') {
    const sqlitePath = join(workDir, 'logs-bench.db');
    const drop = async () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqlitePath}${suffix}`, { force: true });
    };
    return { sqlitePath, sqlDsn: '', where: sqlitePath, drop };
  }
  const name = `modelgate_bench_logs_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BENCH_PG_URL });
  await admin.connect().catch((error: Error) => {
    throw new Error(`PostgreSQL unreachable at ${BENCH_PG_URL} (run scripts/services.sh or set MODELGATE_BENCH_PG): ${error.message}`);
  });
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(BENCH_PG_URL);
  url.pathname = `/${name}`;
  const sqlDsn = url.toString();
  return {
    sqlitePath: '',
    sqlDsn,
    where: sqlDsn,
    drop: async () => {
      const cleaner = new pg.Client({ connectionString: BENCH_PG_URL });
      await cleaner.connect();
      await cleaner.query(`DROP DATABASE IF EXISTS ${name}`);
      await cleaner.end();
    },
  };
}

async function startServer(options: LogsBenchOptions, database: FreshDatabase, dialect: LogsDialect): Promise<{ process: Pinned; origin: string }> {
  const port = await freePort();
  const env = {
    ...gatewayEnv(port, database.sqlitePath === '' ? join(options.workDir, 'unused.db') : database.sqlitePath),
    SQL_DSN: database.sqlDsn,
    MODELGATE_SECRET_KEY: BENCH_SECRET_KEY.toString('base64'),
  };
  // Every core, as a deployment has them (the relay bench pins this script to one).
  const cores = `0-${availableParallelism() - 1}`;
  // The JavaScript `npm start` runs (scripts/build-server.mjs).
  const args = ['node', ...SERVER_NODE_FLAGS, await buildServer()];
  const server = spawnPinned(`modelgate-logs-${dialect}`, cores, args, env, join(options.workDir, `modelgate-logs-${dialect}.log`));
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/api/status`, server);
  return { process: server, origin };
}

async function signIn(origin: string, username: string, password: string): Promise<Session> {
  const response = await fetch(`${origin}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = (await response.json()) as { success: boolean; message: string; data?: { id: number } };
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('session='));
  if (!body.success || !body.data || !cookie) throw new Error(`sign-in as ${username} failed: ${body.message}`);
  return { headers: { cookie: cookie.split(';')[0]!, 'new-api-user': String(body.data.id) } };
}

/** What is wrong with an answer, measured against the rows the seed wrote; undefined when it is right. */
function problemWith(logCase: LogCase, expected: Expected, body: unknown): string | undefined {
  const envelope = body as { success?: boolean; message?: string; data?: Record<string, unknown> };
  if (envelope.success !== true || !envelope.data) return `answered success:false (${envelope.message ?? ''})`;
  const data = envelope.data;
  if (logCase.kind === 'stat') {
    return data.quota === expected.quota ? undefined : `quota ${String(data.quota)}, the rows sum to ${expected.quota}`;
  }
  if (logCase.kind === 'dashboard') {
    const points = envelope.data as unknown as { count: number; quota: number }[];
    const count = points.reduce((sum, point) => sum + Number(point.count), 0);
    const quota = points.reduce((sum, point) => sum + Number(point.quota), 0);
    if (count !== expected.count) return `${count} calls charted, ${expected.count} rows match`;
    return quota === expected.quota ? undefined : `quota ${quota} charted, the rows sum to ${expected.quota}`;
  }
  const items = (data.items ?? []) as { id: number }[];
  if (data.total !== expected.count) return `total ${String(data.total)}, ${expected.count} rows match`;
  if (items.length !== Math.min(PAGE_SIZE, expected.count)) return `${items.length} rows on page 1`;
  if (expected.count > 0 && items[0]!.id !== expected.newestId) return `newest id ${items[0]!.id}, expected ${expected.newestId}`;
  return undefined;
}

async function timeCase(origin: string, session: Session, logCase: LogCase, expected: Expected, options: LogsBenchOptions): Promise<Timing> {
  const url = `${origin}${pathOf(logCase)}`;
  const durations: number[] = [];
  let wrong: string | undefined;
  for (let run = 0; run < options.warmup + options.runs; run += 1) {
    const start = performance.now();
    const response = await fetch(url, { headers: session.headers });
    const text = await response.text();
    const elapsed = performance.now() - start;
    if (run === 0) wrong = response.ok ? problemWith(logCase, expected, JSON.parse(text)) : `HTTP ${response.status}`;
    if (run >= options.warmup) durations.push(elapsed);
  }
  durations.sort((a, b) => a - b);
  return { p50Ms: percentile(durations, 0.5), p95Ms: percentile(durations, 0.95), wrong };
}

/** The admin's clearing of the oldest month of rows (DELETE /api/log/), and what the server answered meanwhile. */
interface ClearTiming {
  rows: number;
  seconds: number;
  wrong?: string;
  /** Sequential GET /api/status during the clear: how long a request waited for the event loop. */
  probes: number;
  probeP50Ms: number;
  probeP99Ms: number;
  probeMaxMs: number;
}

/** The first month boundary at least 30 days after the first row: a month (30 to 60 days) of the oldest rows. */
const clearCutoff = (plan: SeedPlan) => monthPartition(plan.firstAt + 30 * 86_400 - 1).to;

async function timeClear(origin: string, session: Session, cutoff: number, expectedRows: number): Promise<ClearTiming> {
  let done = false;
  const started = performance.now();
  // undici's own request: no 300 s headers timeout (fetch's), a month of SQLite rows takes minutes.
  const clearing = request(`${origin}/api/log/?target_timestamp=${cutoff}`, { method: 'DELETE', headers: session.headers, headersTimeout: 0, bodyTimeout: 0 })
    .then(async (response) => (await response.body.json()) as { success: boolean; data?: number; message?: string })
    .finally(() => {
      done = true;
    });
  const probes: number[] = [];
  while (!done) {
    const start = performance.now();
    await (await fetch(`${origin}/api/status`)).arrayBuffer();
    probes.push(performance.now() - start);
  }
  const answer = await clearing;
  const seconds = (performance.now() - started) / 1000;
  probes.sort((a, b) => a - b);
  const wrong =
    answer.success !== true
      ? `answered success:false (${answer.message ?? ''})`
      : answer.data !== expectedRows
        ? `deleted ${String(answer.data)}, ${expectedRows} rows were older`
        : undefined;
  return {
    rows: expectedRows,
    seconds,
    wrong,
    probes: probes.length,
    probeP50Ms: probes.length > 0 ? percentile(probes, 0.5) : 0,
    probeP99Ms: probes.length > 0 ? percentile(probes, 0.99) : 0,
    probeMaxMs: probes.at(-1) ?? 0,
  };
}

interface DialectResult {
  cases: LogCase[];
  timings: Timing[];
  seedSeconds: number;
  clear: ClearTiming;
}

async function measureDialect(dialect: LogsDialect, options: LogsBenchOptions, cases: (plan: SeedPlan) => LogCase[]): Promise<DialectResult> {
  const database = await freshDatabase(dialect, options.workDir);
  let server: Pinned | undefined;
  try {
    const db = await connectDb({ sqlitePath: database.sqlitePath, sqlDsn: database.sqlDsn, migrate: true, secretKey: BENCH_SECRET_KEY });
    let plan: SeedPlan;
    let chosen: LogCase[];
    let expectations: Expectations;
    let seedSeconds: number;
    let olderRows = 0;
    try {
      const userIds = await seedUsers(db);
      const lastAt = Math.floor(Date.now() / 1000);
      plan = { rows: options.rows, firstAt: lastAt - 90 * 86_400, lastAt, userIds };
      chosen = cases(plan);
      expectations = new Expectations(chosen);
      const started = performance.now();
      const cutoff = clearCutoff(plan);
      await seedLogs(
        db,
        plan,
        (row, id) => {
          expectations.visit(row, id);
          if (row.created_at < cutoff) olderRows += 1;
        },
        options.log,
      );
      seedSeconds = (performance.now() - started) / 1000;
      options.log(`${dialect}: ${options.rows.toLocaleString('en')} logs seeded in ${seedSeconds.toFixed(1)} s`);
    } finally {
      await db.close();
    }
    const started = await startServer(options, database, dialect);
    server = started.process;
    const sessions = { admin: await signIn(started.origin, 'root', '123456'), self: await signIn(started.origin, userName(0), SEED_PASSWORD) };
    const timings: Timing[] = [];
    for (const [index, logCase] of chosen.entries()) {
      const timing = await timeCase(started.origin, sessions[logCase.caller], logCase, expectations.byCase[index]!, options);
      timings.push(timing);
      // As it goes: a run cut short keeps what it measured.
      options.log(
        `${dialect}: ${logCase.caller} ${logCase.kind} '${logCase.label}' ${fixedMs(timing.p50Ms)} / ${fixedMs(timing.p95Ms)} ms${timing.wrong === undefined ? '' : ` WRONG: ${timing.wrong}`}`,
      );
    }
    // Last: it changes the rows the cases count.
    const clear = await timeClear(started.origin, sessions.admin, clearCutoff(plan), olderRows);
    options.log(`${dialect}: cleared ${olderRows.toLocaleString('en')} rows in ${clear.seconds.toFixed(1)} s`);
    return { cases: chosen, timings, seedSeconds, clear };
  } finally {
    await server?.stop();
    if (options.keepDb) options.log(`${dialect}: database kept at ${database.where}`);
    else await database.drop();
  }
}

const fixedMs = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0));

/** Runs the logs bench on each dialect; the lines to print and how many case × dialect missed. */
export async function runLogsBench(options: LogsBenchOptions): Promise<{ lines: string[]; failed: number }> {
  const results = new Map<LogsDialect, Timing[]>();
  const measuredBy = new Map<LogsDialect, DialectResult>();
  let cases: LogCase[] = [];
  for (const dialect of options.dialects) {
    const measured = await measureDialect(dialect, options, logCases);
    cases = measured.cases;
    results.set(dialect, measured.timings);
    measuredBy.set(dialect, measured);
  }
  const names: Record<LogsDialect, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
  const widths = [8, 10, 30];
  const header = ['route', 'kind', 'filter'].map((cell, index) => cell.padEnd(widths[index]!));
  for (const dialect of options.dialects) header.push(`${names[dialect]} p50 / p95 ms`.padStart(28), 'result'.padEnd(6));
  const lines = [
    '',
    `modelgate logs benchmark: ${options.rows.toLocaleString('en')} consume logs; page 1 (${PAGE_SIZE} rows) and stat over HTTP; ` +
      `${options.runs} timed requests per case after ${options.warmup} warm-up; target p95 < ${TARGET_P95_MS} ms`,
    header.join(' '),
  ];
  let failed = 0;
  const wrongs: string[] = [];
  for (const [index, logCase] of cases.entries()) {
    const cells = [logCase.caller, logCase.kind, logCase.label].map((cell, position) => cell.padEnd(widths[position]!));
    for (const dialect of options.dialects) {
      const timing = results.get(dialect)![index]!;
      const pass = timing.wrong === undefined && timing.p95Ms < TARGET_P95_MS;
      if (!pass) failed += 1;
      if (timing.wrong !== undefined) wrongs.push(`${names[dialect]} ${logCase.caller} ${logCase.kind} '${logCase.label}': ${timing.wrong}`);
      cells.push(`${fixedMs(timing.p50Ms)} / ${fixedMs(timing.p95Ms)}`.padStart(28), (timing.wrong !== undefined ? 'WRONG' : pass ? 'PASS' : 'FAIL').padEnd(6));
    }
    lines.push(cells.join(' '));
  }
  if (wrongs.length > 0) lines.push('', 'wrong answers (checked against the seeded rows):', ...wrongs.map((wrong) => `  ${wrong}`));
  lines.push('');
  for (const dialect of options.dialects) {
    const { seedSeconds, clear } = measuredBy.get(dialect)!;
    lines.push(
      `${names[dialect]}: seeded in ${seedSeconds.toFixed(0)} s; cleared the oldest ${clear.rows.toLocaleString('en')} rows in ${clear.seconds.toFixed(1)} s` +
        `${clear.wrong === undefined ? '' : ` (WRONG: ${clear.wrong})`}; meanwhile ${clear.probes} GET /api/status took p50 ${fixedMs(clear.probeP50Ms)}, ` +
        `p99 ${fixedMs(clear.probeP99Ms)}, max ${fixedMs(clear.probeMaxMs)} ms`,
    );
    if (clear.wrong !== undefined) failed += 1;
  }
  const total = cases.length * options.dialects.length;
  lines.push(
    '',
    failed === 0 ? `logs: all ${total} cases under ${TARGET_P95_MS} ms p95, every answer exact` : `logs: ${failed} of ${total} cases (or clears) missed`,
  );
  return { lines, failed };
}
