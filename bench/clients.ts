import { Client, Pool } from 'undici';

/** The bench's own undici clients, for what wrk cannot see: first-chunk time and many slow streams. */

export interface Target {
  name: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
}

/** The chat request every relay run sends (the mock answers any): the main or another seeded model, whole or streamed. */
export const chatBody = (model: string, stream: boolean): string =>
  JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are a helpful assistant that answers briefly.' },
      { role: 'user', content: 'Write one sentence about a fox that relays messages between two forests.' },
    ],
    max_tokens: 256,
    temperature: 0.7,
    ...(stream ? { stream: true } : {}),
  });

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

/** One answer checked the way a client would: status, and the pieces the bench relies on. */
export async function checkAnswer(target: Target, body: string, stream: boolean): Promise<string | undefined> {
  // Short limits: a relay that hangs should fail the check now, not after undici's five minutes.
  const client = new Client(target.origin, { headersTimeout: 15_000, bodyTimeout: 15_000 });
  try {
    const answer = await client.request({ method: 'POST', path: target.path, headers: target.headers, body });
    const text = await answer.body.text();
    if (answer.statusCode !== 200) return `HTTP ${answer.statusCode}: ${text.slice(0, 300)}`;
    if (stream) {
      if (!text.trimEnd().endsWith('data: [DONE]')) return `stream did not end with [DONE]: ${text.slice(-200)}`;
      return undefined;
    }
    const parsed = JSON.parse(text) as { choices?: unknown[]; usage?: unknown };
    if (!Array.isArray(parsed.choices) || parsed.usage === undefined) return `answer lacks choices or usage: ${text.slice(0, 300)}`;
    return undefined;
  } catch (error) {
    return String(error);
  } finally {
    await client.close();
  }
}

export interface FirstChunkResult {
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

/**
 * Sequential streaming requests on one kept-alive connection; the times from sending to the first
 * body chunk (after `warmup` untimed requests), and how many failed. Through undici's dispatch
 * handler, as manyStreams: a Readable body and its async iterator would add a few hundred
 * microseconds of the client's own to every figure (and their noise).
 */
export async function firstChunkTimes(target: Target, body: string, count: number, warmup: number): Promise<{ times: number[]; failures: number }> {
  const client = new Client(target.origin, { pipelining: 1 });
  const times: number[] = [];
  let failures = 0;
  const one = () =>
    new Promise<number>((done) => {
      const start = performance.now();
      let first = Number.NaN;
      let status = 0;
      client.dispatch(
        { method: 'POST', path: target.path, headers: target.headers, body },
        {
          onRequestStart() {},
          onResponseStart(_controller, statusCode) {
            status = statusCode;
          },
          onResponseData(_controller, chunk) {
            if (Number.isNaN(first) && chunk.length > 0) first = performance.now() - start;
          },
          onResponseEnd() {
            done(status === 200 ? first : Number.NaN);
          },
          onResponseError() {
            done(Number.NaN);
          },
        },
      );
    });
  try {
    for (let index = 0; index < warmup + count; index += 1) {
      const first = await one();
      if (Number.isNaN(first)) failures += 1;
      else if (index >= warmup) times.push(first);
    }
  } finally {
    await client.close();
  }
  return { times, failures };
}

export interface ManyStreamsResult {
  /** From the first send to the last stream's end. */
  wallMs: number;
  /** Each stream's own time, from its send to its last byte: median, 99th percentile, slowest. */
  streamP50Ms: number;
  streamP99Ms: number;
  slowestMs: number;
  completed: number;
  failures: number;
  firstFailure?: string;
}

/** Counts SSE events (blank-line separators) across reads without keeping the body. */
class EventCounter {
  events = 0;
  private previousByte = 0;
  private tail = Buffer.alloc(0);

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.previousByte === 0x0a && chunk[0] === 0x0a) this.events += 1;
    for (let at = chunk.indexOf('\n\n'); at !== -1; at = chunk.indexOf('\n\n', at + 2)) this.events += 1;
    this.previousByte = chunk[chunk.length - 1]!;
    this.tail = Buffer.concat([this.tail, chunk]).subarray(-32);
  }

  endsWithDone(): boolean {
    return this.tail.toString('latin1').trimEnd().endsWith('data: [DONE]');
  }
}

/** A pool with a connection for every stream (see manyStreams), so no stream waits for another. */
export function streamsPool(target: Target, count: number): Pool {
  return new Pool(target.origin, { connections: count + 16, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000, keepAliveTimeout: 60_000 });
}

/**
 * Opens `count` streaming requests, all at once or, with `spreadMs`, evenly over that time, and
 * waits for all; a stream counts as complete when it ends with [DONE] after at least `minEvents`
 * events. The pool (streamsPool) is the caller's, so a first round can open the connections that a
 * second one reuses. Uses undici's dispatch handler directly: this client shares its core with the
 * mock, and a Readable per stream would cost more than the mock does.
 */
export async function manyStreams(pool: Pool, target: Target, body: string, count: number, minEvents: number, spreadMs = 0): Promise<ManyStreamsResult> {
  let completed = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const durations: number[] = [];
  const fail = (reason: string) => {
    failures += 1;
    firstFailure ??= reason;
  };
  const one = () =>
    new Promise<void>((done) => {
      const sent = performance.now();
      const counter = new EventCounter();
      let status = 0;
      pool.dispatch(
        { origin: target.origin, method: 'POST', path: target.path, headers: target.headers, body },
        {
          onRequestStart() {},
          onResponseStart(_controller, statusCode) {
            status = statusCode;
          },
          onResponseData(_controller, chunk) {
            counter.push(chunk);
          },
          onResponseEnd() {
            durations.push(performance.now() - sent);
            if (status !== 200) fail(`HTTP ${status}`);
            else if (!counter.endsWithDone() || counter.events < minEvents) fail(`incomplete stream: ${counter.events} events`);
            else completed += 1;
            done();
          },
          onResponseError(_controller, error) {
            fail(String(error));
            done();
          },
        },
      );
    });
  // Each stream is sent at its own offset from the start (absolute, so timer lateness does not add up).
  const later = (index: number) =>
    new Promise<void>((done) => {
      setTimeout(() => void one().then(done), Math.max(0, start + (index * spreadMs) / count - performance.now()));
    });
  const start = performance.now();
  await Promise.all(Array.from({ length: count }, (_, index) => (spreadMs > 0 ? later(index) : one())));
  const wallMs = performance.now() - start;
  durations.sort((a, b) => a - b);
  return {
    wallMs,
    streamP50Ms: percentile(durations, 0.5),
    streamP99Ms: percentile(durations, 0.99),
    slowestMs: durations.at(-1) ?? Number.NaN,
    completed,
    failures,
    firstFailure,
  };
}
