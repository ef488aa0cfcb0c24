import type { EventEmitter } from 'node:events';
import { Pool, type Dispatcher } from 'undici';
import type { UpstreamRequest } from '../providers/provider-types.js';

const DEFAULT_TIMEOUT_MS = 300_000;

export interface UpstreamClientOptions {
  /** How long an upstream may take to send its headers (RELAY_TIMEOUT; 0 = undici's 300 s). */
  headersTimeoutMs: number;
}

/**
 * Upstream HTTP through one undici Pool per origin, kept alive across requests. The global fetch
 * is several times slower on this path and is not used.
 */
export class UpstreamClient {
  private readonly pools = new Map<string, Pool>();
  private readonly headersTimeout: number;

  constructor(options: UpstreamClientOptions) {
    this.headersTimeout = options.headersTimeoutMs > 0 ? options.headersTimeoutMs : DEFAULT_TIMEOUT_MS;
  }

  /**
   * Sends a request. `stream` turns off undici's body timeout: the relay watches streams for
   * silence itself (STREAMING_TIMEOUT) so that it can end them with an error event.
   */
  send(request: UpstreamRequest, options: { signal: AbortSignal | EventEmitter; stream: boolean; method?: 'GET' | 'POST' }): Promise<Dispatcher.ResponseData> {
    return this.pool(request.origin).request({
      method: options.method ?? 'POST',
      path: request.path,
      headers: request.headers,
      body: options.method === 'GET' ? null : request.body,
      signal: options.signal,
      headersTimeout: this.headersTimeout,
      bodyTimeout: options.stream ? 0 : this.headersTimeout,
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
