import type { EventEmitter } from 'node:events';
import { Pool, type Dispatcher } from 'undici';
import type { UpstreamRequest } from './provider-types.js';

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
  send(request: UpstreamRequest, options: { signal: AbortSignal | EventEmitter; stream: boolean; method?: 'GET' | 'POST' }): Promise<Dispatcher.ResponseData> {
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
