import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../app-context.js';
import { maskSecrets } from '../lib/mask-secrets.js';

/**
 * Probes for load balancers and orchestrators (issue 16). They live outside /api on purpose: a
 * probe reads the HTTP status, so these answer 200 or 503 by what they found rather than /api's
 * envelope (always 200 with `success`), and they are neither rate limited nor behind sign-in, so a
 * balancer polling every second from one address is never refused for its own polling.
 *
 * - `GET /healthz`: the process is up and serving; touches nothing else.
 * - `GET /readyz`: this node can serve calls: the database answers a trivial query and, when
 *   REDIS_CONN_STRING is set, Redis answers PING, each within CHECK_TIMEOUT_MS; 503 while the
 *   process is shutting down, so balancers stop sending before it closes.
 */

export const CHECK_TIMEOUT_MS = 2_000;

export interface CheckResult {
  ok: boolean;
  /** Milliseconds the check took. */
  ms: number;
  error?: string;
}

export interface ReadinessBody {
  status: 'ok' | 'unavailable' | 'draining';
  checks: { database: CheckResult; redis?: CheckResult };
  /** The checks that failed, by name. */
  failed?: string[];
}

async function timed(check: () => Promise<unknown>): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (error) {
    // Driver messages name hosts and users, never passwords; masked all the same.
    const message = maskSecrets(error instanceof Error ? error.message : String(error), []);
    return { ok: false, ms: Math.round(performance.now() - started), error: message || 'failed' };
  } finally {
    clearTimeout(timer);
  }
}

/** The readiness of this node: what /readyz answers. */
export async function readiness(context: AppContext): Promise<{ statusCode: 200 | 503; body: ReadinessBody }> {
  const { db, redis } = context;
  const [database, redisCheck] = await Promise.all([
    timed(() => sql`select 1`.execute(db.kysely)),
    redis
      ? timed(async () => {
          // A client that is reconnecting would queue the PING; say so at once instead.
          if (redis.status !== 'ready') throw new Error(`not connected (${redis.status})`);
          await redis.ping();
        })
      : undefined,
  ]);
  const checks: ReadinessBody['checks'] = redisCheck ? { database, redis: redisCheck } : { database };
  const failed = Object.entries(checks)
    .filter(([, result]) => !result.ok)
    .map(([name]) => name);
  if (context.draining) return { statusCode: 503, body: { status: 'draining', checks, failed: [...failed, 'draining'] } };
  if (failed.length > 0) return { statusCode: 503, body: { status: 'unavailable', checks, failed } };
  return { statusCode: 200, body: { status: 'ok', checks } };
}

export function healthRoutes(app: FastifyInstance, context: AppContext): void {
  app.get('/healthz', (_request, reply) => {
    void reply.header('cache-control', 'no-store').send({ status: 'ok' });
  });
  app.get('/readyz', async (_request, reply) => {
    const { statusCode, body } = await readiness(context);
    return reply.status(statusCode).header('cache-control', 'no-store').send(body);
  });
}

/** Paths the rate limiter leaves alone (see app.ts). */
export const isHealthPath = (url: string) => url === '/healthz' || url === '/readyz' || url.startsWith('/healthz?') || url.startsWith('/readyz?');
