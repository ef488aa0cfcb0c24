import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createAppContext, type AppContext } from './app-context.js';
import { buildApp } from './app.js';
import type { AppConfig } from './config/env.js';
import { connectDb } from './db/index.js';
import { ChargeService, type QuotaViews } from './domain/billing/charge-service.js';
import { LeaseKind } from './domain/billing/lease-book.js';
import { LeaseStore } from './domain/billing/lease-store.js';
import { QuotaLedger } from './domain/billing/quota-ledger.js';
import { SpendableQuota } from './domain/billing/spendable-quota.js';
import { LogRetention } from './domain/logs/log-retention.js';
import { QuotaReminders } from './domain/notifications/quota-reminder.js';
import { RelayCache } from './domain/relay-cache/relay-cache.js';
import { ResponseStore } from './domain/responses/response-store.js';
import { SensitiveFilter } from './domain/sensitive/sensitive-filter.js';
import { startQuotaDataExport } from './domain/usage/quota-data-export.js';
import { UsageChart } from './domain/usage/usage-chart.js';
import type { LogOutputStats } from './lib/log-output.js';
import { RelayMetrics } from './lib/metrics/relay-metrics.js';
import { UserUrlFetcher } from './lib/user-url-fetch.js';
import { ChannelAffinity } from './relay/channel-affinity.js';
import { ChannelHealth } from './relay/channel-health.js';
import { ImageTokens } from './relay/image-tokens.js';
import { RateLimiter } from './relay/rate-limits/rate-limiter.js';
import { RelayAuthenticator } from './relay/relay-auth.js';
import { startRelayRuntime, type RelayRuntime } from './relay/relay-runtime.js';
import { RelayService } from './relay/relay-service.js';
import { RelayTracer } from './relay/relay-trace.js';
import { createTaskRuntime, type TaskRuntime } from './relay/tasks/task-runtime.js';
import { RealtimeRelay } from './relay/realtime/realtime-relay.js';
import { UpstreamClient } from './providers/upstream-client.js';
import { PasskeyRepository } from './domain/passkeys/passkey-repository.js';
import { PasskeyService } from './domain/passkeys/passkey-service.js';

/** Everything one process runs: its services, and the HTTP app over them. */
export interface Server {
  context: AppContext;
  relay: RelayRuntime;
  tasks: TaskRuntime;
  app: FastifyInstance;
}

export interface ComposeOptions {
  config: AppConfig;
  logger: Logger;
  version: string;
  /** The log destination's figures for /metrics (main.ts's LogOutput); tests log elsewhere. */
  logOutput?: LogOutputStats;
}

/**
 * The composition root: every long-lived service of a process is built here, once, in the order
 * it depends on the others, and handed to what uses it; nothing is looked up later. main.ts starts
 * the gateway through it, and so does every whole-app test (test-support/test-app.ts).
 */
export async function composeServer({ config, logger, version, logOutput }: ComposeOptions): Promise<Server> {
  // The database: migrated by the master node only; its secrets unlocked with MODELGATE_SECRET_KEY or the key file.
  const db = await connectDb({
    sqlitePath: config.sqlitePath,
    sqlDsn: config.sqlDsn,
    migrate: config.isMaster,
    secretKey: config.secretKey,
    backgroundCheckpoints: { onError: (message) => logger.warn(`SQLite checkpoint on the worker thread failed: ${message}`) },
    onKeyFileCreated: (path) => logger.warn(`wrote a new secret key to ${path}: back it up with the database, its secrets cannot be read without it`),
  });

  // Shared services: options, users, Redis, change events between nodes, rate limits, verification codes.
  const context = await createAppContext({ config, db, logger, version });
  // Registered first among the closers, so it runs last: after every route and job that records.
  context.onClose(() => context.audit.flush());

  // Passkeys: a second factor of re-verification for the users who have one.
  const passkeys = new PasskeyService(new PasskeyRepository(db), context.options);
  context.freshVerification.register(passkeys.secondFactor());

  // The ledger and the caches. This process holds slices of payers' balances (leases, one row
  // each in quota_leases); the ledger batches counters and logs; the relay cache keeps channels,
  // tokens and users in memory and applies each charge to its copy at once.
  const leaseStore = new LeaseStore(db, `${config.nodeName}/${randomBytes(6).toString('hex')}`, config.nodeName);
  const ledger = new QuotaLedger(db, leaseStore, (error) => logger.error({ err: error }, 'relay leases were given back by another node'));
  const cache = new RelayCache(context, ledger, leaseStore.holder);
  const reminders = new QuotaReminders({
    db,
    options: context.options,
    logger,
    cachedBalance: (userId) => cache.users.peek(userId)?.quota,
    // `balances` is built below (it needs the charges, which tell the reminders of each charge); the reminders read it only later.
    spendable: async (userIds) => new Map([...(await balances.of(LeaseKind.User, userIds))].map(([id, payer]) => [id, payer.balance])),
  });
  const views: QuotaViews = {
    charged: (payer, amount) => {
      cache.users.adjustQuota(payer.userId, -amount);
      reminders.noteCharge(payer.userId);
      if (payer.limitedToken) cache.tokens.adjustQuota(payer.tokenId, -amount);
    },
    invalidate: (payer) => {
      cache.users.invalidate(payer.userId);
      const token = cache.tokens.byTokenId(payer.tokenId);
      if (token) cache.tokens.invalidate(token.key);
    },
  };
  const charges = new ChargeService(leaseStore, ledger, views, context.options, config.quotaWaitSeconds * 1000);
  const balances = new SpendableQuota(db, ledger, leaseStore.holder, (kind, entityId) => charges.giveBackFree(kind, entityId));
  // The dashboard's sums of this node's calls. Its closer is registered before the relay's, so at shutdown it
  // runs after the last calls have queued their logs.
  const usageExport = startQuotaDataExport(context, ledger.logs);
  const usageChart = new UsageChart(db, usageExport);

  // The relay.
  const metrics = new RelayMetrics();
  const upstream = new UpstreamClient({ silenceTimeoutMs: config.relayTimeoutSeconds * 1000 });
  const health = new ChannelHealth(context, upstream);
  const auth = new RelayAuthenticator(context, cache);
  const sensitive = new SensitiveFilter(context.options);
  const userUrls = new UserUrlFetcher(context.options);
  const images = new ImageTokens(userUrls, (error) => logger.info({ err: error }, 'image size unread; counted at the fallback'));
  const rateLimits = new RateLimiter(context.options, context.redis, logger);
  context.onClose(async () => rateLimits.close());
  const affinity = new ChannelAffinity(context.options, context.redis, logger);
  const responses = new ResponseStore(db, context.options, logger);
  context.onClose(() => responses.flush());
  // Spans of relayed calls while OTEL_EXPORTER_OTLP_ENDPOINT is set (lib/telemetry/); undefined otherwise.
  const tracer = context.tracing ? new RelayTracer(context.tracing) : undefined;
  const service = new RelayService({
    context,
    cache,
    auth,
    charges,
    ledger,
    upstream,
    health,
    sensitive,
    images,
    rateLimits,
    metrics,
    affinity,
    responses,
    tracer,
  });
  const relay = startRelayRuntime(context, {
    cache,
    ledger,
    charges,
    auth,
    upstream,
    health,
    service,
    leaseStore,
    balances,
    reminders,
    usageExport,
    sensitive,
    userUrls,
    metrics,
    affinity,
  });

  // The Realtime API's sessions: after the relay, so that at close they end and settle before its last flush.
  const realtime = new RealtimeRelay({ context, cache, auth, charges, ledger, health, metrics, rateLimits });
  context.onClose(() => realtime.close());

  // The task relays (Midjourney, Suno): after the relay, so they close before it.
  const tasks = createTaskRuntime({ context, relay });

  // Jobs: each runs every so many seconds until close; a failure is logged, never thrown.
  context.schedule(config.syncFrequencySeconds, () => context.options.refresh(), 'option sync');
  context.schedule(config.batchUpdateIntervalSeconds, () => relay.flush(), 'relay batch flush');
  context.schedule(config.syncFrequencySeconds, () => cache.sync(), 'relay cache sync');
  // Checked every quarter of the stale period (at most every SYNC_FREQUENCY): a dead node's leases come back within 1.25 × NODE_STALE_SECONDS.
  const reclaimEverySeconds = Math.min(config.syncFrequencySeconds, Math.max(1, Math.ceil(config.nodeStaleSeconds / 4)));
  context.schedule(reclaimEverySeconds, () => relay.reclaimDead(), 'relay lease reclaim');
  if (config.isMaster && config.channelTestFrequencyMinutes > 0) {
    context.schedule(config.channelTestFrequencyMinutes * 60, () => health.runTestAll(), 'scheduled channel test');
  }
  if (config.isMaster) context.schedule(config.taskPollIntervalSeconds, () => tasks.poller.tick(), 'task poll');
  if (config.isMaster) context.schedule(600, () => responses.deleteExpired(), 'stored responses expiry');
  if (config.isMaster) context.schedule(3600, () => context.audit.purge(context.options.number('AuditLogRetentionDays')), 'audit log retention');
  if (config.isMaster) {
    // PostgreSQL's log partitions: this month's and the next ones exist before a log is written.
    const logRetention = new LogRetention(db);
    // A failure is not fatal: rows land in the default partition until the hourly run succeeds.
    await logRetention.ensurePartitions().catch((error: unknown) => logger.error({ err: error }, 'log partitions could not be created'));
    context.schedule(
      3600,
      async () => {
        await logRetention.ensurePartitions();
        await logRetention.apply(context.options.number('LogRetentionDays'));
      },
      'log partitions and retention',
    );
  }

  // HTTP: the console's API, the relay and the console itself.
  const app = await buildApp({ context, relay, tasks, realtime, passkeys, usageChart, logOutput });
  return { context, relay, tasks, app };
}
