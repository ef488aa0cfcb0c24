import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, where `npm start` runs. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface ServerProcess {
  process: ChildProcess;
  url: string;
  output: string[];
  /** SIGTERM, then SIGKILL if it has not exited within 10 s. */
  stop(): Promise<void>;
}

export interface ServerProcessOptions {
  /** False: the test never reads the process's stdout (a stalled log shipper); `output` then holds stderr only. */
  readStdout?: boolean;
  /** The port (default: a free one; a node restarted behind a balancer keeps its port). */
  port?: number;
}

/** A real modelgate process (main.ts through tsx, as `npm start` runs it); resolves once /api/status answers. */
export async function startServerProcess(env: Record<string, string>, { readStdout = true, port }: ServerProcessOptions = {}): Promise<ServerProcess> {
  port ??= await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'apps/server/src/main.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  if (readStdout) child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  // Unread, the pipe would hold the test process open after the server is gone.
  else child.once('exit', () => child.stdout!.destroy());
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited at start: ${output.join('')}`);
    try {
      if ((await fetch(`${url}/api/status`)).ok) return { process: child, url, output, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server did not start: ${output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
