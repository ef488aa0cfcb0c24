import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, REPO_ROOT } from './server-process.js';

/**
 * A real HAProxy (Debian's package, installed by scripts/services.sh) in front of test nodes, run
 * from the documented config, docs/haproxy.cfg, with only its addresses swapped: the frontend on a
 * free local port, the servers on the nodes' ports, the stats socket and the log in a temporary
 * directory. Every other setting (health check, timings, retries, timeouts) is the document's.
 */

export const HAPROXY_CONFIG = join(REPO_ROOT, 'docs/haproxy.cfg');
/** The backend's name in docs/haproxy.cfg. */
const BACKEND = 'modelgate_nodes';

export interface BalancedNode {
  name: string;
  port: number;
}

export interface Balancer {
  url: string;
  /** HAProxy's own lines (notices and warnings: servers going down and up). */
  output: string[];
  /** Each server's `show stat` row by column name (`scur`, `stot`, `eresp`, `srv_abrt`, `wredis`, `status` ...). */
  serverStats(): Promise<Map<string, Record<string, string>>>;
  /** Each server's status as `show stat` gives it: `UP`, `DOWN`, `UP 1/2` (going down), `DOWN 1/2` (coming up), `MAINT`. */
  serverStatus(): Promise<Map<string, string>>;
  close(): Promise<void>;
}

/** Replaces `pattern` in `text`, failing when it does not occur exactly `count` times (the document changed shape). */
function replaceExactly(text: string, pattern: RegExp, replacement: (match: string, ...groups: string[]) => string, count = 1): string {
  const found = text.match(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))?.length ?? 0;
  if (found !== count) throw new Error(`docs/haproxy.cfg: expected ${count} line(s) matching ${pattern}, found ${found}`);
  return text.replace(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`), replacement);
}

/**
 * The documented config for these nodes; `servedBy` adds a response header naming the server
 * that answered (HAProxy's own 502 included), which the tests read.
 */
export function balancerConfig(template: string, { port, nodes, dir }: { port: number; nodes: BalancedNode[]; dir: string }): string {
  let config = replaceExactly(template, /^(\s*)log \/dev\/log local0$/m, (_match, indent) => `${indent}log stdout format raw local0 notice`);
  config = replaceExactly(config, /^(\s*stats socket )\S+/m, (_match, start) => `${start}${join(dir, 'admin.sock')}`);
  config = replaceExactly(config, /^(\s*bind )\S+$/m, (_match, start) => `${start}127.0.0.1:${port}`);
  let index = 0;
  config = replaceExactly(
    config,
    /^(\s*server )\S+ \S+( check.*)$/m,
    (_match, start, rest) => {
      const node = nodes[index++]!;
      return `${start}${node.name} 127.0.0.1:${node.port}${rest}`;
    },
    nodes.length,
  );
  config = replaceExactly(config, /^(\s*)balance .*$/m, (line, indent) => `${line}\n${indent}http-after-response set-header x-served-by %s`);
  return config;
}

/** One command on the stats socket; resolves with the whole answer. */
function statsCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${command}\n`));
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

export async function startBalancer(nodes: BalancedNode[]): Promise<Balancer> {
  const probe = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error("haproxy is not installed: `bash scripts/services.sh` installs it (Debian's haproxy package), or `apt-get install haproxy`");
  }
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-haproxy-'));
  const port = await freePort();
  const configPath = join(dir, 'haproxy.cfg');
  writeFileSync(configPath, balancerConfig(readFileSync(HAPROXY_CONFIG, 'utf8'), { port, nodes, dir }));
  // -db: in the foreground, not as a daemon; the test owns the process and kills it.
  const child = spawn('haproxy', ['-db', '-f', configPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const socketPath = join(dir, 'admin.sock');
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const serverStats = async () => {
    const lines = (await statsCommand(socketPath, 'show stat')).split('\n');
    const columns = lines[0]!.replace(/^# /, '').split(',');
    const found = new Map<string, Record<string, string>>();
    for (const line of lines.slice(1)) {
      const fields = line.split(',');
      const row = Object.fromEntries(columns.map((column, index) => [column, fields[index] ?? '']));
      if (row.pxname === BACKEND && row.svname !== 'BACKEND') found.set(row.svname!, row);
    }
    return found;
  };
  const serverStatus = async () => new Map([...(await serverStats())].map(([server, row]) => [server, row.status!]));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`haproxy exited at start: ${output.join('')}`);
    }
    try {
      await serverStatus();
      return { serverStats, url: `http://127.0.0.1:${port}`, output, serverStatus, close };
    } catch {
      // the stats socket is not there yet
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`haproxy did not start: ${output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
