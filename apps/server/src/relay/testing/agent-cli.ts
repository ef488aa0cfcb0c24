import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AGENT_CLIS, type AgentCliName, agentCliCommand, agentCliDir, ensureAgentClis } from '../../../../../scripts/agent-clis.mjs';

/**
 * Runs a real coding-agent CLI (Claude Code, Codex, Gemini CLI, installed by scripts/agent-clis.mjs)
 * once, non-interactively, against a gateway: a fresh home folder with the CLI's config in it, the
 * given working folder, and an environment of its own (nothing of the test process's, so no proxy
 * or key of the machine leaks in). Telemetry, update checks, plugin syncs and every other call
 * beyond the gateway are turned off: a run reaches nothing but loopback. The README's "Coding
 * agents" section documents the same settings.
 */
export type { AgentCliName };

export interface AgentRunOptions {
  /** The gateway's base URL, e.g. http://127.0.0.1:1234 */
  gateway: string;
  /** An sk- key of the gateway. */
  apiKey: string;
  model: string;
  prompt: string;
  /** The folder the agent works in. */
  workdir: string;
  /** Claude Code: send the key as x-api-key (ANTHROPIC_API_KEY) or as a bearer token (ANTHROPIC_AUTH_TOKEN). */
  claudeKeyAs?: 'x-api-key' | 'bearer';
  timeoutMs?: number;
}

export interface AgentRun {
  /** The agent's final answer, read from its machine-readable output. */
  answer: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  ms: number;
}

/** Fails with how to install when the CLIs are missing and cannot be installed here. */
export async function requireAgentClis(): Promise<void> {
  try {
    await ensureAgentClis();
  } catch (error) {
    throw new Error(
      `The coding-agent CLIs (${Object.values(AGENT_CLIS)
        .map((cli) => `${cli.package}@${cli.version}`)
        .join(', ')}) are not installed in ${agentCliDir()} and installing them failed: ${(error as Error).message}\n` +
        'Install them with `node scripts/agent-clis.mjs` (scripts/test.sh runs it before Vitest; MODELGATE_AGENT_CLI_DIR chooses the folder).',
    );
  }
}

/** Codex's config.toml: a model provider on the gateway's /v1 speaking the Responses API, nothing else reached. */
export function codexConfig(gateway: string, model: string): string {
  return `model = "${model}"
model_provider = "modelgate"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.modelgate]
name = "modelgate"
base_url = "${gateway}/v1"
env_key = "MODELGATE_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[feedback]
enabled = false

# The curated plugin marketplace is synced from GitHub at start (git ls-remote, then api.github.com).
[features]
plugins = false
`;
}

/** Gemini CLI's ~/.gemini/settings.json: API-key auth, no usage statistics, telemetry or update checks. */
export const GEMINI_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
};

interface Invocation {
  env: Record<string, string>;
  args: string[];
  answer(stdout: string): string;
}

function invocation(name: AgentCliName, options: AgentRunOptions, home: string): Invocation {
  switch (name) {
    case 'claude': {
      const key = options.claudeKeyAs === 'bearer' ? 'ANTHROPIC_AUTH_TOKEN' : 'ANTHROPIC_API_KEY';
      return {
        env: {
          ANTHROPIC_BASE_URL: options.gateway,
          [key]: options.apiKey,
          // Turns off the auto-updater, telemetry, error reports and a probe of the base URL (HEAD /api/hello):
          // strace then sees one connection, to the gateway.
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        args: ['-p', options.prompt, '--model', options.model, '--output-format', 'json', '--allowedTools', 'Read', '--max-turns', '4'],
        answer: (stdout) => {
          const result = JSON.parse(stdout) as { result?: string; is_error?: boolean };
          if (result.is_error) throw new Error(`Claude Code reported an error: ${result.result}`);
          return result.result ?? '';
        },
      };
    }
    case 'gemini': {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(GEMINI_SETTINGS, null, 2));
      return {
        env: {
          GEMINI_CLI_HOME: home,
          GOOGLE_GEMINI_BASE_URL: options.gateway,
          GEMINI_API_KEY: options.apiKey,
          // Headless runs must trust the folder (else it refuses to start).
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
        },
        args: ['-p', options.prompt, '-m', options.model, '--output-format', 'json'],
        answer: (stdout) => {
          const result = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { response?: string; error?: { message?: string } };
          if (result.error) throw new Error(`Gemini CLI reported an error: ${result.error.message}`);
          return result.response ?? '';
        },
      };
    }
    case 'codex': {
      mkdirSync(join(home, '.codex'), { recursive: true });
      writeFileSync(join(home, '.codex', 'config.toml'), codexConfig(options.gateway, options.model));
      const last = join(home, 'last-message.txt');
      return {
        env: { CODEX_HOME: join(home, '.codex'), MODELGATE_API_KEY: options.apiKey },
        args: ['exec', '--skip-git-repo-check', '--output-last-message', last, options.prompt],
        answer: () => readFileSync(last, 'utf8'),
      };
    }
    default: {
      const unexpected: never = name;
      throw new Error(`unknown CLI ${String(unexpected)}`);
    }
  }
}

/** Runs one CLI to its end (or kills it and its children at the timeout). */
export async function runAgentCli(name: AgentCliName, options: AgentRunOptions): Promise<AgentRun> {
  const home = mkdtempSync(join(tmpdir(), `agent-${name}-home-`));
  try {
    const { env, args, answer } = invocation(name, options, home);
    const { command, args: prefix } = agentCliCommand(name);
    const started = Date.now();
    const child = spawn(command, [...prefix, ...args], {
      cwd: options.workdir,
      // Its own process group, so a timeout ends the agent's children (shells, sandboxes) too.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const timeoutMs = options.timeoutMs ?? 45_000;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
    }).finally(() => clearTimeout(timer));
    const ms = Date.now() - started;
    const failure = (why: string) => new Error(`${name} ${why} after ${ms} ms\n--- stdout\n${stdout.slice(-4000)}\n--- stderr\n${stderr.slice(-4000)}`);
    if (timedOut) throw failure(`did not finish within ${timeoutMs} ms`);
    if (exitCode !== 0) throw failure(`exited with ${exitCode}`);
    try {
      return { answer: answer(stdout), stdout, stderr, exitCode, ms };
    } catch (error) {
      throw failure(`gave no answer (${(error as Error).message})`);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
