import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { ChannelStatus, TokenStatus } from '@modelgate/contract';
import { connectDb } from '../apps/server/src/db/index.js';
import { hashPassword } from '../apps/server/src/domain/users/password.js';
import { randomAlphanumeric } from '../apps/server/src/domain/users/user-service.js';
import { Measurer, medianRatio, medianRun, type BenchSettings, type Measured } from './measure.js';
import type { Pinned } from './processes.js';
import { formatBars, formatTable, type Bar, type RunRow } from './report.js';
import { seedChannels, seedUserAndToken } from './seed.js';

/**
 * The rate-limits section (issue 27): what the limiter costs a call whose limits are set high
 * enough never to refuse, against a call with none, on one gateway process. Token "none" (a user
 * of the group "plain", no limits anywhere) and token "limited" (a user of the group "limited"
 * with every kind set on the token, on the user and on the group through GroupRateLimits: twelve
 * checks a call, a concurrency slot taken and given back, tokens counted when the call ends)
 * take turns on the same process in interleaved wrk rounds, so each ratio is of runs of
 * one process at the same time. Counters in memory; then, when a Redis answers at
 * MODELGATE_TEST_REDIS (or 127.0.0.1:6379/15), again on a gateway sharing them through Redis.
 * See bench/README.md.
 */

export interface RateLimitsContext {
  settings: BenchSettings;
  workDir: string;
  machineLoadPercent(): Promise<number>;
  startNodeScript(name: string, script: string, cpu: string, env: Record<string, string>): Promise<{ process: Pinned; port: number }>;
  startGateway(sqlitePath: string, label: string, env?: Record<string, string>): Promise<{ process: Pinned; port: number; startupMs: number }>;
  stopAll(): Promise<void>;
  log(message: string): void;
}

/** The bar: limits that never refuse take less than this share of the throughput (memory counters). */
export const MAX_COST_PERCENT = 3;
/** High enough never to refuse at the bench's load (and within a 32-bit column). */
const NEVER = { rpm: 2_000_000_000, tpm: 2_000_000_000, rpd: 2_000_000_000, concurrency: 1_000_000 };
const CHANNELS = 10;
const PATH = '/v1/chat/completions';

const limitColumns = {
  rpm_limit: NEVER.rpm,
  tpm_limit: NEVER.tpm,
  rpd_limit: NEVER.rpd,
  concurrency_limit: NEVER.concurrency,
};

/**
 * A user of a group of its own, with a token, served by the bench's channels: "limited" has every
 * limit set on itself, its token and its group (GroupRateLimits); "plain" none. Returns the key.
 */
async function seedCaller(
  sqlitePath: string,
  baseUrl: string,
  model: string,
  group: string,
  limited: boolean,
  limits: object = limited ? limitColumns : {},
): Promise<string> {
  const db = await connectDb({ sqlitePath, sqlDsn: '', migrate: true });
  try {
    const now = Math.floor(Date.now() / 1000);
    const username = `bench${group}`;
    await db.kysely
      .insertInto('users')
      .values({ username, password: await hashPassword(randomAlphanumeric(16)), quota: 1_000_000_000_000, group, created_at: now, ...limits })
      .execute();
    const user = await db.kysely.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
    const key = randomAlphanumeric(48);
    await db.kysely
      .insertInto('tokens')
      .values({
        user_id: user.id,
        key,
        status: TokenStatus.Enabled,
        name: `bench-${group}`,
        created_time: now,
        expired_time: -1,
        remain_quota: 0,
        unlimited_quota: 1,
        group: '',
        ...limits,
      })
      .execute();
    if (limited) {
      await db.kysely
        .insertInto('options')
        .values({ key: 'GroupRateLimits', value: JSON.stringify({ [group]: NEVER }) })
        .execute();
    }
    // The channels the default group has (seedChannels), for this group too.
    const channels = await db.kysely.selectFrom('channels').select('id').where('base_url', '=', baseUrl).execute();
    await db.kysely
      .insertInto('abilities')
      .values(channels.map(({ id }) => ({ group, model, channel_id: id, enabled: ChannelStatus.Enabled, priority: 0, weight: 1, tag: '' })))
      .execute();
    return key;
  } finally {
    await db.close();
  }
}

async function redisUrl(): Promise<string | undefined> {
  const url = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15';
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000 });
  try {
    await redis.connect();
    await redis.ping();
    return url;
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

/** Both tokens answer; the probe token (one request a minute) is refused on its second call, so the limiter is on. */
async function checkTargets(none: Measured, limited: Measured, probeKey: string, body: string): Promise<string | undefined> {
  const call = async (origin: string, headers: Record<string, string>) => {
    const answer = await request(`${origin}${PATH}`, { method: 'POST', headers, body });
    return { status: answer.statusCode, text: await answer.body.text() };
  };
  for (const measured of [none, limited]) {
    const answer = await call(measured.target.origin, measured.target.headers);
    if (answer.status !== 200) return `${measured.target.name} answered ${answer.status}: ${answer.text.slice(0, 200)}`;
  }
  const probe = { 'content-type': 'application/json', authorization: `Bearer sk-${probeKey}` };
  const statuses = [(await call(none.target.origin, probe)).status, (await call(none.target.origin, probe)).status];
  // With Redis an earlier run's count may still be in the probe's window: then the first is refused too.
  if (statuses[1] !== 429) return `the probe token (RPM 1) answered ${statuses.join(', ')}, its second call not 429: the limiter is not on`;
  return undefined;
}

/**
 * Redis runs beside the bench on this machine, where a deployment has it on a host of its own:
 * while the shared counters are measured its processes are kept to the load core, off the
 * gateway's. Returns what gives them their cores back.
 */
function pinRedis(core: string, log: (message: string) => void): () => void {
  let pids: string[] = [];
  try {
    pids = execFileSync('pgrep', ['-x', 'redis-server'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    log('rate limits: no redis-server process found to keep off the gateway core (a remote Redis?)');
    return () => {};
  }
  const before = pids.map((pid) => [pid, execFileSync('taskset', ['-p', pid], { encoding: 'utf8' }).trim().split(/\s+/).pop()!] as const);
  for (const pid of pids) execFileSync('taskset', ['-a', '-cp', core, pid], { stdio: 'ignore' });
  return () => {
    for (const [pid, mask] of before) {
      try {
        execFileSync('taskset', ['-a', '-p', mask, pid], { stdio: 'ignore' });
      } catch {
        // The process has ended meanwhile.
      }
    }
  };
}

interface ModeFigures {
  label: string;
  none: RunRow[];
  limited: RunRow[];
}

/** A cost of a few per cent is within one round's spread: this section takes at least 7 rounds. */
const roundsOf = (settings: BenchSettings): number => Math.max(7, settings.repeat);

/** Alternating rounds on one process: none then limited, then limited then none, ... */
async function rounds(context: RateLimitsContext, measurer: Measurer, none: Measured, limited: Measured, stream: boolean, label: string): Promise<ModeFigures> {
  const figures: ModeFigures = { label: `${label}, ${stream ? 'stream' : 'non-stream'}`, none: [], limited: [] };
  const { settings } = context;
  for (let round = 0; round < roundsOf(settings); round += 1) {
    const order = round % 2 === 0 ? (['none', 'limited'] as const) : (['limited', 'none'] as const);
    for (const which of order) {
      const measured = which === 'none' ? none : limited;
      const row = await measurer.wrkRow(measured, settings.mainModel, stream, 50, {
        label: `${label} ${which}`,
        record: false,
        warmUp: round === 0,
      });
      figures[which].push(row);
    }
  }
  return figures;
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

export async function runRateLimitsBench(context: RateLimitsContext): Promise<{ lines: string[]; failed: number }> {
  const { settings, workDir, log } = context;
  const idleLoad = await context.machineLoadPercent();
  log(`rate limits: work files in ${workDir}; machine ${idleLoad.toFixed(0)} % busy before start`);
  const mock = await context.startNodeScript('mock-ratelimits', 'bench/mock-upstream.ts', settings.loadCore, { MOCK_PORT: '0' });
  const mockOrigin = `http://127.0.0.1:${mock.port}`;
  const sqlitePath = join(workDir, 'modelgate-ratelimits.db');
  await seedUserAndToken(sqlitePath);
  await seedChannels(sqlitePath, { models: [settings.mainModel], count: CHANNELS, baseUrl: mockOrigin, namePrefix: 'rl' });
  const noneKey = await seedCaller(sqlitePath, mockOrigin, settings.mainModel, 'plain', false);
  const limitedKey = await seedCaller(sqlitePath, mockOrigin, settings.mainModel, 'limited', true);
  const probeKey = await seedCaller(sqlitePath, mockOrigin, settings.mainModel, 'probe', false, { rpm_limit: 1 });
  const redisPath = join(workDir, 'modelgate-ratelimits-redis.db');
  copyFileSync(sqlitePath, redisPath);

  const measurer = new Measurer(settings, mock.process);
  const body = settings.chatBody(settings.mainModel, false);
  const targetsOf = (port: number, pinned: Pinned, label: string) => {
    const origin = `http://127.0.0.1:${port}`;
    const target = (name: string, key: string): Measured => ({
      target: { name, origin, path: PATH, headers: { 'content-type': 'application/json', authorization: `Bearer sk-${key}` } },
      process: pinned,
    });
    return { none: target(`${label} none`, noneKey), limited: target(`${label} limited`, limitedKey) };
  };

  const modes: ModeFigures[] = [];
  const memory = await context.startGateway(sqlitePath, 'ratelimits');
  const memoryTargets = targetsOf(memory.port, memory.process, 'memory');
  const problem = await checkTargets(memoryTargets.none, memoryTargets.limited, probeKey, body);
  if (problem) throw new Error(`rate limits: ${problem}`);
  for (const stream of [false, true]) modes.push(await rounds(context, measurer, memoryTargets.none, memoryTargets.limited, stream, 'memory'));
  await memory.process.stop();

  const redis = await redisUrl();
  if (redis) {
    const unpin = pinRedis(settings.loadCore, log);
    const shared = await context.startGateway(redisPath, 'ratelimits-redis', { REDIS_CONN_STRING: redis });
    const redisTargets = targetsOf(shared.port, shared.process, 'redis');
    const redisProblem = await checkTargets(redisTargets.none, redisTargets.limited, probeKey, body);
    if (redisProblem) throw new Error(`rate limits with Redis: ${redisProblem}`);
    for (const stream of [false, true]) modes.push(await rounds(context, measurer, redisTargets.none, redisTargets.limited, stream, 'redis'));
    await shared.process.stop();
    unpin();
  } else {
    log('rate limits: no Redis answered; the shared counters are not measured');
  }
  await context.stopAll();

  const rows: RunRow[] = [];
  const bars: Bar[] = [];
  const details: string[] = [];
  for (const mode of modes) {
    rows.push(medianRun(mode.none), medianRun(mode.limited));
    const throughput = medianRatio(mode.limited, mode.none, (row) => row.requestsPerSecond);
    const cpu = medianRatio(mode.limited, mode.none, (row) => row.cpuMicrosPerRequest);
    const cost = 1 - throughput;
    const cpuAdded = medianRun(mode.limited).cpuMicrosPerRequest - medianRun(mode.none).cpuMicrosPerRequest;
    details.push(
      `  ${mode.label.padEnd(22)} throughput limited/none ${percent(throughput)} (rounds ${mode.limited
        .map((row, index) => percent(row.requestsPerSecond / mode.none[index]!.requestsPerSecond))
        .join(', ')}), CPU per call ${cpu.toFixed(3)}x (${cpuAdded >= 0 ? '+' : ''}${cpuAdded.toFixed(1)} µs)`,
    );
    const judged = mode.label.startsWith('memory');
    bars.push({
      name: `limiter cost, ${mode.label}, 50 connections`,
      value: percent(cost),
      limit: judged ? `< ${MAX_COST_PERCENT} %` : 'reported',
      pass: judged ? cost * 100 < MAX_COST_PERCENT : undefined,
    });
  }
  const lines = [
    '',
    `rate limits: one gateway, token "none" (no limit anywhere) against token "limited" (rpm, tpm, rpd and concurrency set never to refuse on the token, the user and the group: 12 checks a call), ${roundsOf(settings)} interleaved rounds of ${settings.durationSeconds} s at 50 connections; each ratio is the median of its per-round ratios`,
    formatTable(rows),
    '',
    ...details,
    '',
    formatBars(bars),
  ];
  const failed = bars.filter((bar) => bar.pass === false).length;
  lines.push(failed === 0 ? 'rate limits: all bars met' : `rate limits: ${failed} of the bars missed`);
  return { lines, failed };
}
