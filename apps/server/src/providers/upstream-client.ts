import type { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { errors, Pool, type Dispatcher } from 'undici';
import type { UpstreamRequest } from './provider-types.js';

/**
 * An upstream's answer. `collected`: the whole body, read by `UpstreamClient.collect` before the
 * answer was handed over (its `body` is then made only if something reads it as a stream).
 * `respondedAt`: when its headers arrived (performance.now()), where that was before the body.
 */
export type UpstreamResponse = Dispatcher.ResponseData & { collected?: Buffer | undefined; respondedAt?: number | undefined };

/** A relay call's cancel: `onAbort` is called once when it aborts (request-abort.ts). */
export interface CollectAbort {
  aborted: boolean;
  onAbort: ((reason: Error) => void) | undefined;
}

export interface UpstreamClientOptions {
  /**
   * How long an upstream may stay silent: before its headers, and between the bytes of a whole
   * answer (RELAY_TIMEOUT; 0 = no limit).
   */
  silenceTimeoutMs: number;
}

/**
 * Upstream HTTP through one undici Pool per origin, kept alive across requests. The global fetch
 * is several times slower on this path and is not used.
 */
export class UpstreamClient {
  private readonly pools = new Map<string, Pool>();
  private readonly silenceTimeout: number;

  constructor(options: UpstreamClientOptions) {
    this.silenceTimeout = options.silenceTimeoutMs;
  }

  /**
   * Sends a request. undici's body timeout is measured between body bytes and costs nothing per
   * request (one parser timer per connection, refreshed by each read). `stream` turns it off: the
   * relay watches streams for silence itself (stream-watchdog.ts) so that it can end them with an
   * error event, or try another channel before their first byte.
   */
  send(request: UpstreamRequest, options: { signal: AbortSignal | EventEmitter; stream: boolean; method?: 'GET' | 'POST' }): Promise<UpstreamResponse> {
    return this.pool(request.origin).request({
      method: options.method ?? 'POST',
      path: request.path,
      headers: request.headers,
      body: options.method === 'GET' ? null : request.body,
      signal: options.signal,
      headersTimeout: this.silenceTimeout,
      bodyTimeout: options.stream ? 0 : this.silenceTimeout,
    });
  }

  /**
   * An answer through undici's dispatch, without the body stream and its promise that `request`
   * makes for every answer (a relayed non-stream call: 130 against 139 µs of CPU in A/B rounds,
   * lower in 6 of 8). A whole answer (`stream` false) is read to its end before it is handed over;
   * one that grows past `limit` bytes is handed over as a stream from there (what it has so far
   * first), paused while nobody reads it, as `request` would have given it. A stream (`stream`
   * true) is handed over once the socket read that brought its headers is parsed: whole
   * (`collected`) when that read held its end too, as an upstream that answers at once sends it,
   * else as a body stream fed from here on, with no body timeout (the relay watches a stream's
   * silence itself, as with `send`). `abort` cancels it at any point.
   */
  collect(request: UpstreamRequest, options: { abort: CollectAbort; limit: number; stream?: boolean }): Promise<UpstreamResponse> {
    const { abort, limit } = options;
    const stream = options.stream === true;
    return new Promise<UpstreamResponse>((resolve, reject) => {
      let controller: Dispatcher.DispatchController | undefined;
      let statusCode = 0;
      let headers: IncomingHttpHeaders = {};
      let respondedAt = 0;
      let parts: Buffer[] = [];
      let size = 0;
      /** Set once the answer grew past the limit: the body handed over, fed from here on. */
      let spill: LiveBody | undefined;
      let done = false;
      const finish = () => {
        done = true;
        abort.onAbort = undefined;
      };
      /** Hands the answer over as a stream: what has arrived first, the rest as it comes. */
      const handOver = (current: Dispatcher.DispatchController) => {
        spill = new LiveBody(
          () => current.resume(),
          (error) => done || current.abort(error ?? new errors.RequestAbortedError()),
        );
        for (const part of parts) spill.push(part);
        parts = [];
        resolve(new CollectedResponse(statusCode, headers, undefined, spill, respondedAt) as unknown as UpstreamResponse);
      };
      if (abort.aborted) {
        reject(new errors.RequestAbortedError());
        return;
      }
      abort.onAbort = (reason) => {
        if (controller !== undefined) controller.abort(reason);
        else {
          finish();
          reject(reason);
        }
      };
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(started) {
          controller = started;
          if (abort.aborted) started.abort(new errors.RequestAbortedError());
        },
        onResponseStart(current, status, responseHeaders) {
          statusCode = status;
          headers = responseHeaders as IncomingHttpHeaders;
          respondedAt = performance.now();
          // undici parses a socket read to its end in one go: by the next microtask this read's
          // body bytes, and its end if it held it, have been handed to this handler.
          if (stream) queueMicrotask(() => done || spill !== undefined || handOver(current));
        },
        onResponseData(current, chunk) {
          if (spill !== undefined) {
            if (!spill.push(chunk)) current.pause();
            return;
          }
          parts.push(chunk);
          size += chunk.length;
          // Too large to hold: the rest flows as a stream, read at the reader's pace.
          if (size > limit && !stream) handOver(current);
        },
        onResponseEnd() {
          finish();
          if (spill !== undefined) {
            spill.push(null);
            return;
          }
          const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
          resolve(new CollectedResponse(statusCode, headers, body, undefined, respondedAt) as unknown as UpstreamResponse);
        },
        onResponseError(_controller, error) {
          finish();
          if (spill !== undefined) spill.destroy(error);
          else reject(error);
        },
      };
      this.pool(request.origin).dispatch(
        {
          method: request.method ?? 'POST',
          path: request.path,
          headers: request.headers,
          body: request.body as string | Buffer,
          headersTimeout: this.silenceTimeout,
          bodyTimeout: stream ? 0 : this.silenceTimeout,
        },
        handler,
      );
    });
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy().catch(() => undefined)));
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: null, pipelining: 1, keepAliveTimeout: 30_000, connect: { timeout: 10_000 } });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}

const NO_TRAILERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** An answer as `request` gives it: a collected one's body stream is made only if something reads it. */
class CollectedResponse {
  readonly trailers = NO_TRAILERS;
  readonly opaque = null;
  readonly context = NO_TRAILERS;
  private stream: Readable | undefined;

  constructor(
    readonly statusCode: number,
    readonly headers: IncomingHttpHeaders,
    readonly collected: Buffer | undefined,
    stream: Readable | undefined,
    readonly respondedAt: number,
  ) {
    this.stream = stream;
  }

  get body(): Dispatcher.ResponseData['body'] {
    this.stream ??= collectedBody(this.collected!);
    return this.stream as unknown as Dispatcher.ResponseData['body'];
  }
}

/**
 * The body of an answer handed over before its end, fed by the dispatch handler: `pull` resumes
 * the upstream read when the reader wants more, `cancel` aborts the request when the body is
 * destroyed before its end. It has the reading helpers of undici's body.
 */
class LiveBody extends Readable {
  constructor(
    private readonly pull: () => void,
    private readonly cancel: (error: Error | null) => void,
  ) {
    super();
  }

  override _read(): void {
    this.pull();
  }

  /** As undici's body: destroyed before its end, it errors (its readers are waiting for one of the two). */
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const reason = error ?? (this.readableEnded ? null : new errors.RequestAbortedError());
    this.cancel(reason);
    callback(reason);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return (await this.bytes()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async dump(): Promise<void> {
    this.destroy();
  }

  private async bytes(): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const part of this) parts.push(part as Buffer);
    return Buffer.concat(parts);
  }
}

/** A collected body as a stream with the reading helpers of undici's. */
function collectedBody(bytes: Buffer): Readable {
  return Object.assign(Readable.from([bytes], { objectMode: false }), {
    text: async () => bytes.toString('utf8'),
    json: async () => JSON.parse(bytes.toString('utf8')) as unknown,
    arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
    dump: async () => undefined,
  });
}
