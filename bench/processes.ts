import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Child processes pinned to a core, each with its output kept in a log file for post-mortems. */

export interface Pinned {
  name: string;
  child: ChildProcess;
  /** The pid of the measured process itself (taskset execs it, so it is the child's pid). */
  pid: number;
  logPath: string;
  /** Sends SIGTERM and waits for the exit; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<Pinned>();

/** The gateway's environment in every bench: its port and database, a fixed session secret, rate limits off, warnings only. */
export function gatewayEnv(port: number, sqlitePath: string): Record<string, string> {
  return {
    PORT: String(port),
    SQLITE_PATH: sqlitePath,
    SESSION_SECRET: 'bench-session-secret-bench-session-secret',
    GLOBAL_API_RATE_LIMIT: '0',
    GLOBAL_WEB_RATE_LIMIT: '0',
    CRITICAL_RATE_LIMIT: '0',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  };
}

export function spawnPinned(name: string, cpu: string, args: string[], env: NodeJS.ProcessEnv, logPath: string): Pinned {
  const child = spawn('taskset', ['-c', cpu, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  const log = createWriteStream(logPath);
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pinned: Pinned = {
    name,
    child,
    pid: child.pid,
    logPath,
    async stop(graceMs = 10_000) {
      running.delete(pinned);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      log.end();
    },
  };
  running.add(pinned);
  return pinned;
}

/** Waits for the child's first stdout line that parses as JSON (the mock and the proxy print their port). */
export function firstJsonLine<T>(pinned: Pinned, timeoutMs = 20_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: pinned.child.stdout! });
    const timer = setTimeout(() => reject(new Error(`${pinned.name} did not start in time; see ${pinned.logPath}`)), timeoutMs);
    pinned.child.once('exit', (code) => reject(new Error(`${pinned.name} exited with ${code}; see ${pinned.logPath}`)));
    lines.on('line', (line) => {
      try {
        const value = JSON.parse(line) as T;
        clearTimeout(timer);
        lines.close();
        resolve(value);
      } catch {
        // not the ready line
      }
    });
  });
}

/** Polls `url` until it answers 2xx. */
export async function waitForHttp(url: string, pinned: Pinned, timeoutMs = 60_000): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < timeoutMs) {
    if (pinned.child.exitCode !== null) throw new Error(`${pinned.name} exited with ${pinned.child.exitCode}; see ${pinned.logPath}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return performance.now() - start;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${pinned.name} did not answer ${url} within ${timeoutMs} ms; see ${pinned.logPath}`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Stops whatever is still running (on error or Ctrl-C), so no pinned process outlives the bench. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((pinned) => pinned.stop(3_000)));
}

const LOCK_PATH = join(tmpdir(), 'modelgate-bench.lock');

/**
 * One bench at a time on a machine: two runs would measure each other. Waits for a running bench
 * to finish; a lock whose process is gone is taken over.
 */
export async function acquireBenchLock(log: (message: string) => void, timeoutMs = 15 * 60_000): Promise<() => void> {
  const start = performance.now();
  let announced = false;
  for (;;) {
    try {
      writeFileSync(LOCK_PATH, String(process.pid), { flag: 'wx' });
      const release = () => {
        try {
          if (readFileSync(LOCK_PATH, 'utf8') === String(process.pid)) unlinkSync(LOCK_PATH);
        } catch {
          // already gone
        }
      };
      process.once('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(readFileSync(LOCK_PATH, 'utf8').trim());
    if (!Number.isInteger(holder) || holder <= 0 || !isAlive(holder)) {
      unlinkSync(LOCK_PATH);
      continue;
    }
    if (performance.now() - start > timeoutMs) throw new Error(`another bench (pid ${holder}) has held ${LOCK_PATH} for too long`);
    if (!announced) log(`another bench run (pid ${holder}) is measuring; waiting for it to finish`);
    announced = true;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
