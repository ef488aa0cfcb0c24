import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { isOptionKey } from '../apps/server/src/config/option-registry.js';
import { SERVER_NODE_FLAGS } from '../scripts/server-node-flags.mjs';
import { cpuMicros } from './proc.js';
import { acquireBenchLock, firstJsonLine, freePort, gatewayEnv, spawnPinned, stopAll, waitForHttp, type Pinned } from './processes.js';
import { chatBody } from './clients.js';
import { MAIN_MODEL, MANY_CHANNELS_MODEL, seedChannels, seedUserAndToken } from './seed.js';
import { runWrk } from './wrk.js';

/**
 * A/B rounds of gateway builds: each build a process of its own on a copy of one seeded database,
 * all on the relay core beside the reference proxy, wrk at 50 connections against each in turn,
 * round after round, the order reversed every other round (the second-started process tends to
 * measure a few percent faster on a shared VM). A build is a git revision (built into a temporary
 * worktree, removed afterwards) or a built bundle's path; `@flag,flag` after it adds Node flags and
 * `#Option=value,...` sets console options in that build's copy of the database (`nolog=HEAD#LogConsumeEnabled=false`).
 * The database is seeded with this checkout's migrations, so every build must have the same ones.
 *
 *   npm run bench:ab -- base=HEAD~1 head=HEAD
 *   npm run bench:ab -- --stream --rounds 12 plain=HEAD semi64=HEAD@--max-semi-space-size=64
 *   npm run bench:ab -- --channels 10000 head=HEAD
 *
 * `--channels N` adds N channels serving a model of their own (`gpt-4.1-mini`) beside the usual ten:
 * each build is then measured twice a round on the same process, once for the ten-channel model
 * (`label`) and once for the model with N channels (`label+N`).
 * Prints each round and, per build, the median CPU per call, requests a second and p99, their ratio
 * to the proxy's, and in how many rounds it cost less CPU than the first build.
 */

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    stream: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '8' },
    duration: { type: 'string', default: '5' },
    channels: { type: 'string', default: '0' },
  },
});
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (message: string) => process.stderr.write(`[ab] ${message}\n`);

interface Build {
  label: string;
  bundle: string;
  nodeFlags: string[];
  /** Options rows written into this build's copy of the database before it starts. */
  options: [key: string, value: string][];
}

/** A worktree of `revision` whose node_modules point at this checkout's (its own workspace packages excepted), with the server built. */
function buildRevision(revision: string, into: string): string {
  execFileSync('git', ['worktree', 'add', '--quiet', '--detach', into, revision], { cwd: repoRoot, stdio: 'inherit' });
  const modules = join(into, 'node_modules');
  mkdirSync(join(modules, '@modelgate'), { recursive: true });
  for (const name of readdirSync(join(repoRoot, 'node_modules'))) {
    if (name !== '@modelgate') symlinkSync(join(repoRoot, 'node_modules', name), join(modules, name));
  }
  for (const [name, path] of [
    ['contract', 'packages/contract'],
    ['protocol', 'packages/protocol'],
    ['server', 'apps/server'],
    ['web', 'apps/web'],
  ] as const) {
    symlinkSync(join(into, path), join(modules, '@modelgate', name));
  }
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: into, stdio: ['ignore', 'ignore', 'inherit'] });
  return join(into, 'apps/server/dist/main.mjs');
}

/** The builds named on the command line; the worktrees made for revisions are added to `worktrees` as they are made. */
function parseBuilds(workDir: string, worktrees: string[]): Build[] {
  if (positionals.length === 0) throw new Error('name at least one build: label=<git revision or bundle path>[@--node-flag,...]');
  const built = new Map<string, string>();
  const builds = positionals.map((argument) => {
    const equals = argument.indexOf('=');
    if (equals <= 0) throw new Error(`"${argument}" is not label=<revision or bundle>`);
    const label = argument.slice(0, equals);
    const [spec, optionList] = argument.slice(equals + 1).split('#') as [string, string | undefined];
    const [target, flagList] = spec.split('@') as [string, string | undefined];
    const options = (optionList ? optionList.split(',') : []).map((pair): [string, string] => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`"${pair}" in ${argument} is not Option=value`);
      if (!isOptionKey(pair.slice(0, at))) throw new Error(`"${pair.slice(0, at)}" in ${argument} is not a console option (config/option-registry.ts)`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    });
    let bundle = existsSync(target) ? resolve(target) : built.get(target);
    if (bundle === undefined) {
      const into = join(workDir, `build-${built.size}`);
      log(`building ${target}`);
      bundle = buildRevision(target, into);
      worktrees.push(into);
      built.set(target, bundle);
    }
    return { label, bundle, nodeFlags: flagList ? flagList.split(',') : [], options };
  });
  return builds;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const release = await acquireBenchLock(log);
  const workDir = mkdtempSync(join(tmpdir(), 'modelgate-ab-'));
  const worktrees: string[] = [];
  try {
    const builds = parseBuilds(workDir, worktrees);
    const script = async (name: string, file: string, cpu: string, env: Record<string, string>) => {
      const pinned = spawnPinned(name, cpu, ['node', '--import', 'tsx', join(repoRoot, file)], env, join(workDir, `${name}.log`));
      return { pinned, port: (await firstJsonLine<{ port: number }>(pinned)).port };
    };
    const mock = await script('mock', 'bench/mock-upstream.ts', '1', { MOCK_PORT: '0' });
    const upstream = `http://127.0.0.1:${mock.port}`;
    const proxy = await script('reference-proxy', 'bench/reference-proxy.ts', '0', { PORT: '0', UPSTREAM: upstream });
    const seeded = join(workDir, 'seed.db');
    const key = await seedUserAndToken(seeded);
    await seedChannels(seeded, { models: [MAIN_MODEL, 'gpt-4o'], count: 10, baseUrl: upstream, namePrefix: 'mock' });
    const manyChannels = Number(flags.channels);
    if (!Number.isInteger(manyChannels) || manyChannels < 0) throw new Error(`--channels ${flags.channels}: a whole number of channels`);
    if (manyChannels > 0) await seedChannels(seeded, { models: [MANY_CHANNELS_MODEL], count: manyChannels, baseUrl: upstream, namePrefix: 'many' });

    const targets: { label: string; pinned: Pinned; port: number; model: string }[] = [
      { label: 'proxy', pinned: proxy.pinned, port: proxy.port, model: MAIN_MODEL },
    ];
    for (const build of builds) {
      const database = join(workDir, `${build.label}.db`);
      copyFileSync(seeded, database);
      copyFileSync(`${seeded}.key`, `${database}.key`);
      if (build.options.length > 0) {
        const sqlite = new SqliteDatabase(database);
        const upsert = sqlite.prepare('insert into options (key, value) values (?, ?) on conflict (key) do update set value = excluded.value');
        for (const [key, value] of build.options) upsert.run(key, value);
        sqlite.close();
      }
      const port = await freePort();
      const pinned = spawnPinned(
        build.label,
        '0',
        ['node', ...SERVER_NODE_FLAGS, ...build.nodeFlags, build.bundle],
        gatewayEnv(port, database),
        join(workDir, `${build.label}.log`),
      );
      await waitForHttp(`http://127.0.0.1:${port}/api/status`, pinned).catch((error: unknown) => {
        // The database is seeded by this checkout's migrations: a build from before one of them refuses it.
        throw new Error(`${build.label} did not start (${(error as Error).message}); builds must have this checkout's migrations`);
      });
      targets.push({ label: build.label, pinned, port, model: MAIN_MODEL });
      if (manyChannels > 0) targets.push({ label: `${build.label}+${manyChannels}`, pinned, port, model: MANY_CHANNELS_MODEL });
    }

    const headers = { 'content-type': 'application/json', authorization: `Bearer sk-${key}` };
    const measure = async (target: (typeof targets)[number], seconds: number) => {
      const before = cpuMicros(target.pinned.pid);
      const result = await runWrk({
        url: `http://127.0.0.1:${target.port}/v1/chat/completions`,
        body: chatBody(target.model, flags.stream),
        headers,
        connections: 50,
        durationSeconds: seconds,
        cpu: '1',
      });
      const cpu = cpuMicros(target.pinned.pid) - before;
      if (result.non2xx > 0 || result.socketErrors > 0)
        throw new Error(`${target.label}: ${result.non2xx} answers not 2xx, ${result.socketErrors} socket errors`);
      return { cpu: cpu / result.requests, rps: result.requestsPerSecond, p99: result.p99Ms };
    };
    for (const target of targets) await measure(target, 3);
    const figures = new Map(targets.map((target) => [target.label, { cpu: [] as number[], rps: [] as number[], p99: [] as number[] }]));
    const rounds = Math.max(1, Number(flags.rounds));
    for (let round = 0; round < rounds; round += 1) {
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
        const measured = await measure(target, Number(flags.duration));
        const kept = figures.get(target.label)!;
        kept.cpu.push(measured.cpu);
        kept.rps.push(measured.rps);
        kept.p99.push(measured.p99);
      }
      log(`round ${round + 1}: ${targets.map((target) => `${target.label} ${figures.get(target.label)!.cpu.at(-1)!.toFixed(0)} µs`).join(', ')}`);
    }

    const proxyFigures = figures.get('proxy')!;
    const first = figures.get(builds[0]!.label)!;
    const lines = [
      '',
      `A/B, ${flags.stream ? 'stream' : 'non-stream'}, 50 connections, ${rounds} rounds of ${flags.duration} s (medians; ratios against the reference proxy)`,
      '',
      'build             CPU µs/call   req/s   p99 ms   CPU vs proxy   req/s vs proxy   CPU below the first build',
    ];
    for (const target of targets) {
      const kept = figures.get(target.label)!;
      const below =
        target.label === 'proxy' || target.label === builds[0]!.label
          ? ''
          : `${kept.cpu.filter((cpu, round) => cpu < first.cpu[round]!).length} of ${rounds} rounds`;
      lines.push(
        `${target.label.padEnd(16)} ${median(kept.cpu).toFixed(1).padStart(12)} ${median(kept.rps).toFixed(0).padStart(7)} ${median(kept.p99).toFixed(1).padStart(8)} ${`${(median(kept.cpu) / median(proxyFigures.cpu)).toFixed(2)}x`.padStart(14)} ${`${((100 * median(kept.rps)) / median(proxyFigures.rps)).toFixed(1)} %`.padStart(16)}   ${below}`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stopAll();
    for (const worktree of worktrees) execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: repoRoot });
    release();
  }
}

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    log(error instanceof Error ? error.message : String(error));
    await stopAll();
    process.exit(1);
  },
);
