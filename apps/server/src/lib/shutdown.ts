import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../app-context.js';
import { ConfigError } from '../config/env.js';

/**
 * Graceful shutdown (issue 16). On SIGTERM or SIGINT the process:
 *  1. marks itself draining, so `GET /readyz` answers 503 and load balancers stop sending; every
 *     answer from then on carries `Connection: close`. With SHUTDOWN_DRAIN_DELAY set it goes on
 *     serving, new connections included, for that many seconds: long enough for a balancer's
 *     health check to take the node out, so no request is sent to a socket that is closing;
 *  2. closes the listening socket (new connections are refused) and idle keep-alive connections;
 *     a request that still arrives on a busy keep-alive connection gets Fastify's 503 with
 *     `Connection: close`;
 *  3. lets the requests and streams under way finish, up to SHUTDOWN_TIMEOUT seconds; connections
 *     still open at that limit are closed (the socket is destroyed: no error event is written, the
 *     client sees the stream cut). The relay then bills what the call delivered, as for any client
 *     that goes away;
 *  4. runs the context's closers: the relay waits for its calls to settle, flushes its counters
 *     and logs and gives back what it held, and the database and Redis are closed;
 *  5. gives the log lines still buffered up to LOG_FLUSH_LIMIT_MS to reach stdout's reader, then
 *     exits whether or not a stalled reader took them (lib/log-output.ts).
 * A second signal while this runs ends the process at once with exit code 1.
 */

export const DEFAULT_SHUTDOWN_TIMEOUT_SECONDS = 30;
/** Past this a drain delay would eat most of a supervisor's grace period. */
const MAX_DRAIN_DELAY_SECONDS = 60;
/** How long step 4 (settle, flush, close) may take after the requests are done. */
const CLOSE_LIMIT_MS = 30_000;
/** How long the last log lines may wait for the reader of stdout before the process exits anyway. */
export const LOG_FLUSH_LIMIT_MS = 2_000;

const shutdownEnv = z.object({
  SHUTDOWN_TIMEOUT: z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return DEFAULT_SHUTDOWN_TIMEOUT_SECONDS;
      if (!/^\d+$/.test(raw)) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number of seconds (0 or more), got "${raw}"` });
        return z.NEVER;
      }
      return Number(raw);
    }),
});

const drainDelayEnv = z.object({
  SHUTDOWN_DRAIN_DELAY: z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return 0;
      if (!/^\d+$/.test(raw) || Number(raw) > MAX_DRAIN_DELAY_SECONDS) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number of seconds from 0 to ${MAX_DRAIN_DELAY_SECONDS}, got "${raw}"` });
        return z.NEVER;
      }
      return Number(raw);
    }),
});

/** SHUTDOWN_TIMEOUT in seconds (default 30; 0 closes open connections at once). */
export function shutdownTimeoutFrom(env: NodeJS.ProcessEnv = process.env): number {
  const parsed = shutdownEnv.safeParse(env);
  if (!parsed.success) throw new ConfigError(`invalid configuration: SHUTDOWN_TIMEOUT ${parsed.error.issues[0]!.message}`);
  return parsed.data.SHUTDOWN_TIMEOUT;
}

/** SHUTDOWN_DRAIN_DELAY in seconds (default 0: the listener closes at once). */
export function drainDelayFrom(env: NodeJS.ProcessEnv = process.env): number {
  const parsed = drainDelayEnv.safeParse(env);
  if (!parsed.success) throw new ConfigError(`invalid configuration: SHUTDOWN_DRAIN_DELAY ${parsed.error.issues[0]!.message}`);
  return parsed.data.SHUTDOWN_DRAIN_DELAY;
}

export interface ShutdownResult {
  /** Connections still open at the limit, closed by force. */
  forcedConnections: number;
  /** False when settling, flushing or closing failed or overran its limit. */
  clean: boolean;
}

export interface ShutdownOptions {
  app: FastifyInstance;
  context: AppContext;
  timeoutSeconds: number;
  /** Seconds between /readyz turning 503 and the listener closing (default 0). */
  drainDelaySeconds?: number;
  /** Limit for the final settle, flush and close (default 30 s). */
  closeLimitMs?: number;
}

type Outcome = 'done' | 'timeout';

function within(promise: Promise<unknown>, ms: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return Promise.race([promise.then((): Outcome => 'done'), limit]).finally(() => clearTimeout(timer));
}

function openConnections(app: FastifyInstance): Promise<number> {
  return new Promise((resolve) => {
    app.server.getConnections((error, count) => resolve(error ? 0 : count));
  });
}

/** Steps 1 to 4 above; never throws. The caller exits afterwards (0 when `clean`). */
export async function shutdownGracefully({
  app,
  context,
  timeoutSeconds,
  drainDelaySeconds = 0,
  closeLimitMs = CLOSE_LIMIT_MS,
}: ShutdownOptions): Promise<ShutdownResult> {
  const { logger } = context;
  // From now on /readyz answers 503, and each connection ends after its current answer, so
  // keep-alive connections (a balancer's pooled ones) are not left to be cut by the close below.
  context.draining = true;
  app.server.prependListener('request', (_request, response) => {
    if (!response.headersSent) response.setHeader('connection', 'close');
  });
  if (drainDelaySeconds > 0) {
    logger.info({ drainDelaySeconds }, 'draining: serving on until the load balancer has taken this node out');
    await new Promise((resolve) => setTimeout(resolve, drainDelaySeconds * 1000));
  }
  let clean = true;
  let forcedConnections = 0;
  const closing = app.close().then(
    () => undefined,
    (error: unknown) => {
      clean = false;
      logger.error({ err: error }, 'closing the HTTP server failed');
    },
  );
  if ((await within(closing, timeoutSeconds * 1000)) === 'timeout') {
    forcedConnections = await openConnections(app);
    logger.warn({ connections: forcedConnections, timeoutSeconds }, 'SHUTDOWN_TIMEOUT reached: closing the connections still open');
    app.server.closeAllConnections();
    if ((await within(closing, 5_000)) === 'timeout') {
      clean = false;
      logger.error('the HTTP server did not close after its connections were closed');
    }
  }
  const closed = context.close().catch((error: unknown) => {
    clean = false;
    logger.error({ err: error }, 'flushing counters and closing the database failed');
  });
  if ((await within(closed, closeLimitMs)) === 'timeout') {
    clean = false;
    logger.error({ limitMs: closeLimitMs }, 'settling calls, flushing counters and closing connections did not finish in time');
  }
  return { forcedConnections, clean };
}

/**
 * Runs shutdownGracefully on the first SIGTERM or SIGINT and exits with 0 (1 when it was not
 * clean); a second signal exits at once with 1.
 */
export function installShutdownSignals(options: ShutdownOptions, exit: (code: number) => void = (code) => process.exit(code)): void {
  const { logger } = options.context;
  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal: exiting without waiting for requests or flushes');
      exit(1);
      return;
    }
    shuttingDown = true;
    logger.info({ signal, timeoutSeconds: options.timeoutSeconds }, 'shutting down: refusing new connections, finishing requests under way');
    void shutdownGracefully(options).then(({ clean }) => {
      logger.info({ clean }, 'shut down');
      void within(new Promise<void>((resolve) => logger.flush(() => resolve())), LOG_FLUSH_LIMIT_MS).then(() => exit(clean ? 0 : 1));
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
