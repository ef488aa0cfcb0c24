import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../test-support/server-process.js';
import { LOG_BUFFER_LIMIT_BYTES, LogOutput } from './log-output.js';

/**
 * The process log (issue 30): written to stdout without blocking the gateway, through a bounded
 * buffer. A real server process whose stdout pipe nobody reads keeps answering at full speed,
 * counts the lines it drops in /metrics and still exits 0 on SIGTERM; one whose stdout is read
 * drops nothing and writes its lines in order.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function start(readStdout: boolean): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-log-output-'));
  dirs.push(dir);
  const env = {
    SQLITE_PATH: join(dir, 'modelgate.db'),
    SESSION_SECRET: 'log-output-test',
    LOG_LEVEL: 'info',
    GLOBAL_API_RATE_LIMIT: '0',
    GLOBAL_WEB_RATE_LIMIT: '0',
  };
  return startServerProcess(env, { readStdout });
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  if (value === undefined) throw new Error(`${name} is not in /metrics`);
  return Number(value);
}

/** SIGTERM; resolves with the exit code and how long the exit took. */
async function terminate(server: ServerProcess): Promise<{ code: number | null; ms: number }> {
  const started = performance.now();
  const exited = once(server.process, 'exit') as Promise<[number | null]>;
  server.process.kill('SIGTERM');
  const [code] = await exited;
  return { code, ms: performance.now() - started };
}

// A relay path no route serves (501, logged at warn with its path): about 4 KB a line.
const longPath = (index: number, tag: string) => `/v1/${tag}-${index}-${'x'.repeat(4000)}`;

describe('the process log on stdout', () => {
  // Both servers start together: starting one through tsx takes seconds.
  let stalled: ServerProcess;
  let read: ServerProcess;
  beforeAll(async () => {
    [stalled, read] = await Promise.all([start(false), start(true)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([stalled?.stop(), read?.stop()]);
  });

  it('keeps answering, counts what it drops and exits on SIGTERM while nobody reads stdout', async () => {
    const server = stalled;
    const pool = new Pool(server.url, { connections: 8 });
    try {
      // 2,000 calls, two in three logged (a relay 401 and a 4 KB 501 line): about 3 MB of log
      // lines against a pipe of a few hundred KB and a buffer of 1 MiB.
      const calls = 2000;
      const latencies: number[] = [];
      const statuses: number[] = [];
      let next = 0;
      const worker = async () => {
        while (next < calls) {
          const index = next++;
          const started = performance.now();
          const answer =
            index % 3 === 0
              ? await pool.request({ method: 'GET', path: '/api/status' })
              : index % 3 === 1
                ? await pool.request({ method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: '{}' })
                : await pool.request({ method: 'GET', path: longPath(index, 'stalled') });
          await answer.body.dump();
          latencies.push(performance.now() - started);
          statuses.push(answer.statusCode);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));

      expect(statuses).toHaveLength(calls);
      expect(statuses.filter((status) => ![200, 401, 501].includes(status))).toEqual([]);
      latencies.sort((a, b) => a - b);
      const p99 = latencies[Math.floor(calls * 0.99)]!;
      expect(p99, `p50 ${latencies[calls / 2]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`).toBeLessThan(200);
      expect(latencies.at(-1)!).toBeLessThan(2000);

      expect(await metric(server.url, 'modelgate_log_lines_dropped_total')).toBeGreaterThan(0);
      const buffered = await metric(server.url, 'modelgate_log_buffered_bytes');
      expect(buffered).toBeGreaterThan(0);
      expect(buffered).toBeLessThanOrEqual(LOG_BUFFER_LIMIT_BYTES + 64 * 1024);

      await pool.close();
      // stdout still unread: the last lines get their bounded wait (2 s), then the process exits.
      const { code, ms } = await terminate(server);
      expect(code).toBe(0);
      expect(ms).toBeLessThan(5000);
    } finally {
      await pool.close().catch(() => undefined);
    }
  }, 30_000);

  it('drops nothing and writes the lines in order when stdout is read', async () => {
    const server = read;
    const stdout: Buffer[] = [];
    server.process.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
    const calls = 300;
    for (let index = 0; index < calls; index += 1) {
      const answer = await fetch(`${server.url}${longPath(index, 'ordered')}`);
      expect(answer.status).toBe(501);
      await answer.arrayBuffer();
    }
    expect(await metric(server.url, 'modelgate_log_lines_dropped_total')).toBe(0);

    const closed = once(server.process, 'close');
    const { code } = await terminate(server);
    expect(code).toBe(0);
    // 'close': every byte the process wrote has been read.
    await closed;
    const lines = Buffer.concat(stdout)
      .toString()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; url?: string });
    const logged = lines.flatMap((line) => /^\/v1\/ordered-(\d+)-/.exec(line.url ?? '')?.[1] ?? []).map(Number);
    expect(logged).toEqual(Array.from({ length: calls }, (_, index) => index));
    // The shutdown's last line reached the reader before the exit.
    expect(lines.at(-1)).toMatchObject({ msg: 'shut down' });
  }, 30_000);
});

/** A stdout whose reader takes a write only when the test says so. */
class HeldSink extends Writable {
  received = '';
  private held: Array<() => void> = [];

  constructor() {
    super({ highWaterMark: 100, decodeStrings: false });
  }

  override _write(chunk: string, _encoding: BufferEncoding, callback: () => void): void {
    this.held.push(() => {
      this.received += chunk;
      callback();
    });
  }

  /** The reader takes everything written so far (and what the stream hands it meanwhile). */
  takeAll(): void {
    while (this.held.length > 0) this.held.shift()!();
  }
}

describe('LogOutput', () => {
  const line = (index: number) => `${JSON.stringify({ index, pad: 'y'.repeat(40) })}\n`;

  it('holds lines up to its limit while the reader is behind, drops the rest, then writes what it held in order', () => {
    const sink = new HeldSink();
    const output = new LogOutput(sink, 1000);
    for (let index = 0; index < 100; index += 1) output.write(line(index));
    // 100 lines of 55 bytes against 1,000 bytes: the first ones fit, the others are dropped.
    const kept = 100 - output.droppedLines;
    expect(kept).toBeGreaterThan(10);
    expect(kept).toBeLessThan(20);
    expect(output.bufferedBytes).toBeLessThanOrEqual(1000);
    sink.takeAll();
    expect(output.bufferedBytes).toBe(0);
    expect(sink.received).toBe(Array.from({ length: kept }, (_, index) => line(index)).join(''));
    // Caught up: nothing more is dropped.
    output.write(line(100));
    sink.takeAll();
    expect(output.droppedLines).toBe(100 - kept);
    expect(sink.received.endsWith(line(100))).toBe(true);
  });

  it('calls flush back once the reader has taken every line, and at once after stdout failed', () => {
    const sink = new HeldSink();
    const output = new LogOutput(sink, 1000);
    for (let index = 0; index < 5; index += 1) output.write(line(index));
    let flushed = false;
    output.flush(() => {
      flushed = true;
    });
    expect(flushed).toBe(false);
    sink.takeAll();
    expect(flushed).toBe(true);

    output.write(line(5));
    let flushedAfterFailure = false;
    output.flush(() => {
      flushedAfterFailure = true;
    });
    sink.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(flushedAfterFailure).toBe(true);
    const dropped = output.droppedLines;
    output.write(line(6));
    expect(output.droppedLines).toBe(dropped + 1);
  });
});
