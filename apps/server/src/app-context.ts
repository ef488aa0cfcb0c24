import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AppConfig } from './config/env.js';
import type { Db } from './db/index.js';
import { OptionService } from './domain/options/option-service.js';
import { AuditLog } from './domain/audit/audit-log.js';
import { ClusterChanges } from './lib/cluster-changes.js';
import { Tracing } from './lib/telemetry/tracing.js';
import { UserService } from './domain/users/user-service.js';
import { FreshVerification } from './domain/users/fresh-verification.js';
import { TwoFactor } from './domain/users/two-factor.js';
import { MemoryRateLimitStore, RedisRateLimitStore, type RateLimitStore } from './lib/rate-limit.js';
import { MemoryVerificationStore, RedisVerificationStore, type VerificationStore } from './domain/verification/code-store.js';

/**
 * The services one process shares. Built once by the composition root (or per test) and handed
 * to the routes; nothing here is a module-level global.
 */
export interface AppContext {
  config: AppConfig;
  db: Db;
  logger: Logger;
  options: OptionService;
  users: UserService;
  /** What administrators do (domain/audit/): written in batches, read by GET /api/audit/. */
  audit: AuditLog;
  /** Re-verification before secrets (POST /api/verify); second factors register themselves here. */
  freshVerification: FreshVerification;
  /** TOTP two-factor sign-in with backup codes: the '2fa' factor of freshVerification. */
  twoFactor: TwoFactor;
  rateLimits: RateLimitStore;
  /** Email codes and reset links: in Redis when set (shared by the nodes), else in memory. */
  verification: VerificationStore;
  redis: Redis | undefined;
  changes: ClusterChanges;
  /** OpenTelemetry traces (lib/telemetry/): undefined while off, and then nothing is built or sent. */
  tracing: Tracing | undefined;
  /** Unix seconds when this process started. */
  startTime: number;
  version: string;
  /** Set when shutdown begins: /readyz answers 503 from then on (lib/shutdown.ts). */
  draining: boolean;
  /** Runs `task` every `seconds` until close(); failures are logged, never thrown. */
  schedule(seconds: number, task: () => Promise<unknown>, name: string): void;
  /** Registers work for close(), run in reverse order before the database closes. */
  onClose(closer: () => Promise<void>): void;
  /** Stops timers, runs the closers (flushes) and closes connections. */
  close(): Promise<void>;
}

export interface CreateContextOptions {
  config: AppConfig;
  db: Db;
  logger: Logger;
  version: string;
}

export async function createAppContext({ config, db, logger, version }: CreateContextOptions): Promise<AppContext> {
  const options = new OptionService(db);
  await options.refresh();
  const users = new UserService(db);
  if (config.isMaster && (await users.ensureRootUser())) {
    logger.warn('created the super administrator root with password 123456: sign in and change it now');
  }
  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 }) : undefined;
  if (redis) await redis.connect();
  const changes = new ClusterChanges(config.nodeName, logger);
  if (redis) await changes.connect(redis);
  // A write here reaches the other nodes; a write there reloads the options here.
  options.onWrite((key) => changes.emit('option', key));
  changes.on('option', () => {
    options.refresh().catch((error: unknown) => logger.error({ err: error }, 'option reload after another node’s change failed'));
  });
  const rateLimits: RateLimitStore = redis ? new RedisRateLimitStore(redis) : new MemoryRateLimitStore();

  const timers: NodeJS.Timeout[] = [];
  const schedule = (seconds: number, task: () => Promise<unknown>, name: string) => {
    const timer = setInterval(() => {
      task().catch((error: unknown) => logger.error({ err: error }, `${name} failed`));
    }, seconds * 1000);
    timer.unref();
    timers.push(timer);
  };

  const freshVerification = new FreshVerification(users.repository.sessions, options);
  const twoFactor = new TwoFactor(db, rateLimits, options);
  freshVerification.register(twoFactor);

  const tracing = config.tracing ? new Tracing(config.tracing, version, logger) : undefined;
  if (tracing)
    logger.info(
      {
        endpoint: tracing.config.url.replace(/\/\/[^/@]*@/, '//').replace(/\?.*$/, ''),
        protocol: tracing.config.protocol,
        service: tracing.config.serviceName,
      },
      'traces: exporting spans over OTLP/HTTP',
    );

  const closers: (() => Promise<void>)[] = [];
  const context: AppContext = {
    config,
    db,
    logger,
    options,
    users,
    audit: new AuditLog(db, logger),
    freshVerification,
    twoFactor,
    rateLimits,
    verification: redis ? new RedisVerificationStore(redis) : new MemoryVerificationStore(),
    redis,
    changes,
    tracing,
    startTime: Math.floor(Date.now() / 1000),
    version,
    draining: false,
    schedule,
    onClose: (closer) => {
      closers.push(closer);
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const closer of closers.reverse()) await closer();
      // After every closer: the spans of the last calls are ended by now; the wait is bounded.
      await tracing?.shutdown();
      await changes.close();
      if (redis) await redis.quit().catch(() => undefined);
      await db.close();
    },
  };
  return context;
}
