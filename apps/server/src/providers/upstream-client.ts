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
   * A whole answer, read to its end before it is handed over: through undici's dispatch, without
   * the body stream and its promise that `request` makes for every answer (a relayed non-stream
   * call: 130 against 139 µs of CPU in A/B rounds, lower in 6 of 8). An answer that grows past
   * `limit` bytes is handed over as a stream from there (what it has so far first), paused while
   * nobody reads it, as `request` would have given it; the timeouts are `send`'s. `abort` cancels
   * it at any point.
   */
  collect(request: UpstreamRequest, options: { abort: CollectAbort; limit: number }): Promise<UpstreamResponse> {
    const { abort, limit } = options;
    return new Promise<UpstreamResponse>((resolve, reject) => {
      let controller: Dispatcher.DispatchController | undefined;
      let statusCode = 0;
      let headers: IncomingHttpHeaders = {};
      let respondedAt = 0;
      let parts: Buffer[] = [];
      let size = 0;
      /** Set once the answer grew past the limit: the body handed over, fed from here on. */
      let spill: Readable | undefined;
      let done = false;
      const finish = () => {
        done = true;
        abort.onAbort = undefined;
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
        onResponseStart(_controller, status, responseHeaders) {
          statusCode = status;
          headers = responseHeaders as IncomingHttpHeaders;
          respondedAt = performance.now();
        },
        onResponseData(current, chunk) {
          if (spill !== undefined) {
            if (!spill.push(chunk)) current.pause();
            return;
          }
          parts.push(chunk);
          size += chunk.length;
          if (size <= limit) return;
          // Too large to hold: the rest flows as a stream, read at the reader's pace.
          spill = new Readable({
            read: () => current.resume(),
            destroy: (error, callback) => {
              if (!done) current.abort(error ?? new errors.RequestAbortedError());
              callback(error);
            },
          });
          for (const part of parts) spill.push(part);
          parts = [];
          resolve(new CollectedResponse(statusCode, headers, undefined, spill, respondedAt) as unknown as UpstreamResponse);
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
          bodyTimeout: this.silenceTimeout,
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

/** A collected body as a stream with the reading helpers of undici's. */
function collectedBody(bytes: Buffer): Readable {
  return Object.assign(Readable.from([bytes], { objectMode: false }), {
    text: async () => bytes.toString('utf8'),
    json: async () => JSON.parse(bytes.toString('utf8')) as unknown,
    arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
    dump: async () => undefined,
  });
}
