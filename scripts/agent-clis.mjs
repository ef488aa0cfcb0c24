#!/usr/bin/env node
// Installs the coding-agent CLIs the relay's agent tests run (apps/server/src/relay/coding-agents.test.ts)
// into a cache folder of their own, never into the workspaces: together they are about 900 MB
// unpacked (370 MB of tarballs), which `npm install` for users must not pull.
//
//   node scripts/agent-clis.mjs          install when missing (scripts/test.sh runs it before Vitest)
//   node scripts/agent-clis.mjs --dir    print the folder
//
// The folder is $MODELGATE_AGENT_CLI_DIR, else ~/.cache/modelgate/agent-clis/<hash of the versions>.
// An install goes to a staging folder renamed into place, under a lock folder beside it, so two
// Vitest workers (or two `npm test` runs) never install into one folder at once; a folder whose
// .installed.json names these versions is used as it is.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * Pinned versions. Claude Code and Codex are native binaries shipped as per-platform optional
 * dependencies (Claude Code's engines say node >=22, but its binary does not run on Node); Gemini
 * CLI is a Node bundle (node >=20).
 */
export const AGENT_CLIS = {
  claude: { package: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'node_modules/@anthropic-ai/claude-code/bin/claude.exe', node: false },
  codex: { package: '@openai/codex', version: '0.171.0', bin: 'node_modules/@openai/codex/bin/codex.js', node: true },
  gemini: { package: '@google/gemini-cli', version: '0.61.0', bin: 'node_modules/@google/gemini-cli/bundle/gemini.js', node: true },
};

const MARKER = '.installed.json';
const LOCK_STALE_MS = 20 * 60 * 1000;
const LOCK_WAIT_MS = 20 * 60 * 1000;

const wanted = () => Object.fromEntries(Object.values(AGENT_CLIS).map((cli) => [cli.package, cli.version]));

function defaultRoot(env) {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'modelgate', 'agent-clis');
}

/** The folder the CLIs are (or will be) installed in. */
export function agentCliDir(env = process.env) {
  if (env.MODELGATE_AGENT_CLI_DIR) return env.MODELGATE_AGENT_CLI_DIR;
  const hash = createHash('sha256').update(JSON.stringify(wanted())).digest('hex').slice(0, 12);
  return join(defaultRoot(env), hash);
}

/** How to run one CLI: the command and the arguments before the CLI's own. */
export function agentCliCommand(name, dir = agentCliDir()) {
  const cli = AGENT_CLIS[name];
  const bin = join(dir, cli.bin);
  return cli.node ? { command: process.execPath, args: [bin] } : { command: bin, args: [] };
}

/** Whether `dir` holds these versions, installed completely. */
export function agentClisInstalled(dir = agentCliDir()) {
  try {
    const marker = JSON.parse(readFileSync(join(dir, MARKER), 'utf8'));
    return JSON.stringify(marker.packages) === JSON.stringify(wanted()) && Object.values(AGENT_CLIS).every((cli) => existsSync(join(dir, cli.bin)));
  } catch {
    return false;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** mkdir is atomic: whoever creates the lock folder installs; the others wait for it to go. */
async function withLock(dir, work) {
  const lock = `${dir}.lock`;
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'owner.json'), JSON.stringify({ pid: process.pid, since: Date.now() }));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      let owner;
      try {
        owner = JSON.parse(readFileSync(join(lock, 'owner.json'), 'utf8'));
      } catch {
        owner = undefined; // being written, or left half-written by a crash: judged by its age
      }
      const since = owner?.since ?? statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if ((owner && !processAlive(owner.pid)) || Date.now() - since > LOCK_STALE_MS) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`gave up waiting for ${lock} (held by pid ${owner?.pid})`);
      await sleep(500);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function run(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n');
    throw new Error(`${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${output}`);
  }
  return result.stdout;
}

/** Old versions' folders under the default root (only ours: they hold the marker). */
function pruneOthers(dir, env) {
  const root = defaultRoot(env);
  if (dirname(dir) !== root) return;
  for (const name of readdirSync(root)) {
    const other = join(root, name);
    if (name !== basename(dir) && existsSync(join(other, MARKER))) rmSync(other, { recursive: true, force: true });
  }
}

/**
 * Installs the pinned CLIs into `dir` unless they are there. Install scripts are not run (node-pty
 * would compile, keytar copy prebuilds: Gemini CLI needs neither to run headless); Claude Code's
 * own postinstall, which only links its platform binary into bin/claude.exe, is run explicitly.
 */
export async function ensureAgentClis({ dir = agentCliDir(), env = process.env, log = () => {} } = {}) {
  if (agentClisInstalled(dir)) return { dir, installed: false };
  mkdirSync(dirname(dir), { recursive: true });
  return withLock(dir, async () => {
    if (agentClisInstalled(dir)) return { dir, installed: false };
    const staging = `${dir}.staging-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    try {
      writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ name: 'modelgate-agent-clis', private: true, dependencies: wanted() }, null, 2)}\n`);
      log(
        `installing ${Object.entries(wanted())
          .map(([name, version]) => `${name}@${version}`)
          .join(', ')} into ${dir}`,
      );
      // npm's own variables from a surrounding `npm test` (prefix, workspace) must not redirect this install.
      const npmEnv = Object.fromEntries(
        Object.entries(env).filter(([key]) => !/^npm_(config_(prefix|local_prefix|global|workspaces?|include_workspace_root)|package_)/i.test(key)),
      );
      run('npm', ['install', '--prefix', staging, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: staging, env: npmEnv });
      const claudePackage = join(staging, 'node_modules', AGENT_CLIS.claude.package);
      run(process.execPath, ['install.cjs'], { cwd: claudePackage, env: npmEnv });
      if (statSync(join(staging, AGENT_CLIS.claude.bin)).size < 1_000_000) throw new Error('Claude Code has no native binary for this platform');
      // Each one runs: the binary fits this platform and is the version pinned.
      const home = mkdtempSync(join(tmpdir(), 'agent-clis-home-'));
      try {
        for (const name of Object.keys(AGENT_CLIS)) {
          const { command, args } = agentCliCommand(name, staging);
          const version = run(command, [...args, '--version'], { env: { PATH: env.PATH, HOME: home, DISABLE_AUTOUPDATER: '1' }, timeout: 60_000 });
          if (!version.includes(AGENT_CLIS[name].version)) throw new Error(`${name} --version printed ${version.trim()}, not ${AGENT_CLIS[name].version}`);
        }
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
      writeFileSync(join(staging, MARKER), `${JSON.stringify({ packages: wanted(), installedAt: new Date().toISOString() }, null, 2)}\n`);
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging, dir);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    }
    pruneOthers(dir, env);
    return { dir, installed: true };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--dir')) {
    console.log(agentCliDir());
  } else {
    const started = Date.now();
    try {
      const { dir, installed } = await ensureAgentClis({ log: (line) => console.log(`[agent-clis] ${line}`) });
      console.log(`[agent-clis] ${installed ? 'installed' : 'already installed'} in ${dir} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (error) {
      console.error(`[agent-clis] ${error.message}`);
      process.exit(1);
    }
  }
}
