import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { connectDb, type Db } from '../db/index.js';
import { testSecretKey } from '../test-support/dialects.js';
import { insertChannel, insertToken, insertUser } from '../test-support/seed-rows.js';
import { freePort } from '../test-support/server-process.js';
import { chatChunk, usageChunk, MockUpstream } from '../relay/testing/mock-upstream.js';
import { drainDelayFrom, shutdownTimeoutFrom } from './shutdown.js';

/**
 * Graceful shutdown of a real server process (issue 16): SIGTERM while a slow stream is under way.
 * Logs are flushed only at shutdown here (BATCH_UPDATE_INTERVAL is long), so a call found billed
 * in the database after exit was billed by the shutdown's flush.
 */

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const USAGE = { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 };
const WORDS = ['one ', 'two ', 'three ', 'four ', 'five '];

interface Running {
  child: ChildProcess;
  port: number;
  url: string;
  output: string[];
  exited: Promise<number | null>;
}

async function startServer(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      SESSION_SECRET: 'shutdown-test',
      NODE_NAME: `shutdown-${port}`,
      BATCH_UPDATE_INTERVAL: '600',
      LOG_LEVEL: 'info',
      REDIS_CONN_STRING: '',
      SQL_DSN: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited at start: ${output.join('')}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { child, port, url, output, exited };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Resolves with the connection error code, or 'connected'. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** The Connection header of GET /healthz answered on a keep-alive HTTP/1.1 request. */
function rawConnectionHeader(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n'));
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (!answer.includes('\r\n\r\n')) return;
      socket.destroy();
      resolve(/^connection: *(\S+)/im.exec(answer)?.[1] ?? 'none');
    });
    socket.on('error', reject);
  });
}

async function seed(db: Db, upstream: string) {
  const channelId = await insertChannel(db, { key: 'sk-upstream-shutdown', name: 'c', baseUrl: upstream, models: ['gpt-4o-mini'], groups: ['default'] });
  const userId = await insertUser(db, { username: 'drain', quota: 1_000_000_000 });
  const token = await insertToken(db, userId);
  return { channelId, userId, key: token.apiKey };
}

/** A stream call; resolves `firstChunk` when the first bytes arrive and `text` with everything. */
function streamCall(url: string, key: string) {
  let gotFirst!: () => void;
  const firstChunk = new Promise<void>((resolve) => (gotFirst = resolve));
  const text = (async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const decoder = new TextDecoder();
    let all = '';
    try {
      for await (const part of response.body!) {
        all += decoder.decode(part as Uint8Array, { stream: true });
        gotFirst();
      }
    } catch {
      all += '<cut>';
    }
    return { status: response.status, all };
  })();
  return { firstChunk, text };
}

describe('graceful shutdown of a server process', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function setUp(env: Record<string, string>, pauseMs: number) {
    const upstream = await new MockUpstream().start();
    cleanups.push(() => upstream.close());
    upstream.respond(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const word of WORDS) {
        if (response.destroyed) return;
        response.write(chatChunk({ content: word }));
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
      response.end(chatChunk({}, 'stop') + usageChunk(USAGE) + 'data: [DONE]\n\n');
    });
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-shutdown-'));
    const sqlitePath = join(dir, 'modelgate.db');
    const db = await connectDb({ sqlitePath, sqlDsn: '', migrate: true, secretKey: testSecretKey });
    cleanups.push(async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const seeded = await seed(db, upstream.url);
    const server = await startServer({ SQLITE_PATH: sqlitePath, ...env });
    cleanups.push(async () => void server.child.kill('SIGKILL'));
    return { db, seeded, server };
  }

  it('finishes a stream under way, refuses new connections, bills the call and exits 0', async () => {
    const { db, seeded, server } = await setUp({ SHUTDOWN_TIMEOUT: '30' }, 400);
    const call = streamCall(server.url, seeded.key);
    await call.firstChunk;
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await tryConnect(server.port)).toBe('ECONNREFUSED');

    const { status, all } = await call.text;
    expect(status).toBe(200);
    expect(all).not.toContain('<cut>');
    for (const word of WORDS) expect(all).toContain(word.trim());
    expect(all).toContain('data: [DONE]');
    expect(await server.exited, server.output.join('')).toBe(0);
    expect(Date.now() - signalledAt).toBeGreaterThan(1000);

    const logs = await db.kysely.selectFrom('logs').select(['quota', 'prompt_tokens', 'completion_tokens', 'channel_id']).where('type', '=', 2).execute();
    expect(logs).toHaveLength(1);
    expect(Number(logs[0]!.prompt_tokens)).toBe(USAGE.prompt_tokens);
    expect(Number(logs[0]!.completion_tokens)).toBe(USAGE.completion_tokens);
    expect(Number(logs[0]!.quota)).toBeGreaterThan(0);
    const user = await db.kysely.selectFrom('users').select(['used_quota', 'quota']).where('id', '=', seeded.userId).executeTakeFirstOrThrow();
    expect(Number(user.used_quota)).toBe(Number(logs[0]!.quota));
    expect(Number(user.quota) + Number(user.used_quota)).toBe(1_000_000_000);
    const channel = await db.kysely.selectFrom('channels').select('used_quota').where('id', '=', seeded.channelId).executeTakeFirstOrThrow();
    expect(Number(channel.used_quota)).toBe(Number(logs[0]!.quota));
    expect(await db.kysely.selectFrom('quota_leases').select('amount').execute()).toEqual([]);
    expect(server.output.join('')).toContain('shutting down');
  }, 60_000);

  it('with SHUTDOWN_DRAIN_DELAY, serves on (readyz 503, Connection: close) for the delay before it closes its listener', async () => {
    const { seeded, server } = await setUp({ SHUTDOWN_DRAIN_DELAY: '2' }, 10);
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    // Until the signal has been handled: then /readyz says draining while the listener stays open.
    for (;;) {
      const readiness = await fetch(`${server.url}/readyz`);
      if (readiness.status === 503) {
        expect(((await readiness.json()) as { status: string }).status).toBe('draining');
        break;
      }
      await readiness.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A new connection is still served, told to close after its answer.
    const { status, all } = await streamCall(server.url, seeded.key).text;
    expect(status).toBe(200);
    expect(all).toContain('data: [DONE]');
    expect(await rawConnectionHeader(server.port)).toBe('close');
    while ((await tryConnect(server.port)) === 'connected') await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(2_000);
    expect(await server.exited, server.output.join('')).toBe(0);
    expect(server.output.join('')).toContain('draining: serving on until the load balancer has taken this node out');
  }, 60_000);

  it('closes a stream still open at SHUTDOWN_TIMEOUT, then flushes and exits 0', async () => {
    const { db, seeded, server } = await setUp({ SHUTDOWN_TIMEOUT: '1' }, 3_000);
    const call = streamCall(server.url, seeded.key);
    await call.firstChunk;
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const { all } = await call.text;
    expect(all).not.toContain('data: [DONE]');
    expect(await server.exited, server.output.join('')).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    expect(server.output.join('')).toContain('SHUTDOWN_TIMEOUT reached');
    // The balance is whole: whatever the cut call was charged is in its log, nothing is left held.
    const user = await db.kysely.selectFrom('users').select(['used_quota', 'quota']).where('id', '=', seeded.userId).executeTakeFirstOrThrow();
    expect(Number(user.quota) + Number(user.used_quota)).toBe(1_000_000_000);
    const logs = await db.kysely.selectFrom('logs').select('quota').where('type', '=', 2).execute();
    expect(logs.reduce((total, log) => total + Number(log.quota), 0)).toBe(Number(user.used_quota));
    expect(await db.kysely.selectFrom('quota_leases').select('amount').execute()).toEqual([]);
  }, 60_000);

  it('exits at once with 1 on a second signal, without waiting for the stream', async () => {
    const { seeded, server } = await setUp({ SHUTDOWN_TIMEOUT: '60' }, 5_000);
    const call = streamCall(server.url, seeded.key);
    await call.firstChunk;
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const signalledAt = Date.now();
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(1);
    expect(Date.now() - signalledAt).toBeLessThan(3_000);
    expect(server.output.join('')).toContain('second signal');
    expect((await call.text).all).not.toContain('data: [DONE]');
  }, 60_000);
});

describe('SHUTDOWN_DRAIN_DELAY', () => {
  it('defaults to 0 and takes whole seconds up to 60', () => {
    expect(drainDelayFrom({})).toBe(0);
    expect(drainDelayFrom({ SHUTDOWN_DRAIN_DELAY: ' 3 ' })).toBe(3);
    expect(drainDelayFrom({ SHUTDOWN_DRAIN_DELAY: '60' })).toBe(60);
    expect(() => drainDelayFrom({ SHUTDOWN_DRAIN_DELAY: '61' })).toThrow(/SHUTDOWN_DRAIN_DELAY must be a whole number of seconds from 0 to 60/);
    expect(() => drainDelayFrom({ SHUTDOWN_DRAIN_DELAY: '2s' })).toThrow(/SHUTDOWN_DRAIN_DELAY/);
  });
});

describe('SHUTDOWN_TIMEOUT', () => {
  it('defaults to 30 seconds and takes whole seconds, 0 included', () => {
    expect(shutdownTimeoutFrom({})).toBe(30);
    expect(shutdownTimeoutFrom({ SHUTDOWN_TIMEOUT: '' })).toBe(30);
    expect(shutdownTimeoutFrom({ SHUTDOWN_TIMEOUT: ' 5 ' })).toBe(5);
    expect(shutdownTimeoutFrom({ SHUTDOWN_TIMEOUT: '0' })).toBe(0);
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => shutdownTimeoutFrom({ SHUTDOWN_TIMEOUT: '1.5' })).toThrow(/SHUTDOWN_TIMEOUT must be a whole number/);
    expect(() => shutdownTimeoutFrom({ SHUTDOWN_TIMEOUT: '-1' })).toThrow(/SHUTDOWN_TIMEOUT/);
    expect(() => shutdownTimeoutFrom({ SHUTDOWN_TIMEOUT: '30s' })).toThrow(/SHUTDOWN_TIMEOUT/);
  });
});
