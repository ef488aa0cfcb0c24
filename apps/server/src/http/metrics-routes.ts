import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { AppContext } from '../app-context.js';
import type { LogOutputStats } from '../lib/log-output.js';
import { createMetricsRegistry } from '../lib/metrics/prometheus.js';
import type { RelayRuntime } from '../relay/relay-runtime.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** True when `Authorization: Bearer <token>` names `expected` (compared in constant time). */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  return timingSafeEqual(digest(match[1]!), digest(expected));
}

/**
 * `GET /metrics`: Prometheus text format, outside /api's envelope and rate limits. With
 * METRICS_TOKEN set, only `Authorization: Bearer <METRICS_TOKEN>` is answered. The registry (with
 * prom-client's event-loop and GC observers) is made at the first scrape, so an instance nobody
 * scrapes pays nothing for it.
 */
export function metricsRoutes(app: FastifyInstance, context: AppContext, relay: RelayRuntime, logOutput?: LogOutputStats): void {
  let registry: Registry | undefined;
  const token = context.config.metricsToken;

  app.get('/metrics', async (request, reply) => {
    if (token && !bearerMatches(request.headers.authorization, token)) {
      return reply
        .status(401)
        .header('WWW-Authenticate', 'Bearer realm="metrics"')
        .type('text/plain; charset=utf-8')
        .send('401 Unauthorized: /metrics needs Authorization: Bearer <METRICS_TOKEN>\n');
    }
    registry ??= createRegistry(relay, logOutput);
    const body = await registry.metrics();
    return reply.header('Cache-Control', 'no-store').type(registry.contentType).send(body);
  });
}

function createRegistry(runtime: RelayRuntime, logOutput: LogOutputStats | undefined): Registry {
  return createMetricsRegistry({
    relay: runtime.metrics,
    async cacheSizes() {
      const index = await runtime.cache.channels.current();
      return { tokens: runtime.cache.tokens.size, users: runtime.cache.users.size, channels: index.byId.size };
    },
    logQueueRows: () => runtime.ledger.logs.size,
    logOutput,
  });
}

/** /metrics is never rate limited: a scraper polls it from one address. */
export const isMetricsPath = (url: string): boolean => url === '/metrics' || url.startsWith('/metrics?');
