import { randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { ChargeService, type QuotaViews } from '../domain/billing/charge-service.js';
import { QuotaLedger, type FlushResult } from '../domain/billing/quota-ledger.js';
import { LeaseStore } from '../domain/billing/lease-store.js';
import { SpendableQuota } from '../domain/billing/spendable-quota.js';
import { LeaseKind } from '../domain/billing/lease-book.js';
import { QuotaReminders } from '../domain/notifications/quota-reminder.js';
import { startQuotaDataExport, type QuotaDataExport } from '../domain/usage/quota-data-export.js';
import { RelayCache } from '../domain/relay-cache/relay-cache.js';
import { SensitiveFilter } from '../domain/sensitive/sensitive-filter.js';
import { UserUrlFetcher } from '../lib/user-url-fetch.js';
import { RelayMetrics } from '../lib/metrics/relay-metrics.js';
import { ChannelHealth } from './channel-health.js';
import { ImageTokens } from './image-tokens.js';
import { TaskBilling } from '../domain/tasks/task-billing.js';
import { ModelRequestLimits } from './model-request-limit.js';
import { RelayAuthenticator } from './relay-auth.js';
import { RelayService } from './relay-service.js';
import { UpstreamClient } from './upstream-client.js';

/** The relay's long-lived parts for one process, built once per AppContext. */
export interface RelayRuntime {
  cache: RelayCache;
  ledger: QuotaLedger;
  charges: ChargeService;
  /** The money of Midjourney and Suno tasks: fixed prices charged on submit, refunded once on failure. */
  tasks: TaskBilling;
  auth: RelayAuthenticator;
  upstream: UpstreamClient;
  health: ChannelHealth;
  service: RelayService;
  /** Resolves when the channel index has been loaded the first time. */
  ready: Promise<void>;
  leaseStore: LeaseStore;
  /** What payers can spend, the leases counted in: for the console, the billing endpoints and admins' subtracts (spendable-quota.ts). */
  balances: SpendableQuota;
  /** The low-balance mails, checked after each flush for the users it charged. */
  reminders: QuotaReminders;
  /** The master's dashboard sums (quota_data); undefined on other nodes. */
  usageExport: QuotaDataExport | undefined;
  /** The sensitive-word checks, rebuilt when their options change. */
  sensitive: SensitiveFilter;
  /** Fetches addresses callers name (images), through the worker when WorkerUrl is set. */
  userUrls: UserUrlFetcher;
  /** The relay's per-call figures, read by GET /metrics. */
  metrics: RelayMetrics;
  /** Writes the batched counters and logs now. */
  flush(): Promise<FlushResult>;
  /** Waits for the requests under way to finish their accounting, then flushes. */
  drain(): Promise<FlushResult>;
}

const runtimes = new WeakMap<AppContext, RelayRuntime>();

/** The relay runtime of a context (tests use it to flush before reading totals). */
export function relayRuntimeOf(context: AppContext): RelayRuntime {
  const runtime = runtimes.get(context);
  if (!runtime) throw new Error('the relay routes are not registered on this context');
  return runtime;
}

export function createRelayRuntime(context: AppContext): RelayRuntime {
  const existing = runtimes.get(context);
  if (existing) return existing;
  const { config } = context;
  const leaseStore = new LeaseStore(context.db, `${config.nodeName}/${randomBytes(6).toString('hex')}`, config.nodeName);
  const ledger = new QuotaLedger(context.db, leaseStore, (error) => context.logger.error({ err: error }, 'relay leases were given back by another node'));
  const cache = new RelayCache(context, ledger, leaseStore.holder);
  const reminders = new QuotaReminders({
    db: context.db,
    options: context.options,
    logger: context.logger,
    cachedBalance: (userId) => cache.users.peek(userId)?.quota,
    unflushedCharges: (userId) => ledger.leases.peek(LeaseKind.User, userId)?.charged ?? 0,
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
  const upstream = new UpstreamClient({ silenceTimeoutMs: config.relayTimeoutSeconds * 1000 });
  const health = new ChannelHealth(context, upstream);
  const auth = new RelayAuthenticator(context, cache);
  const sensitive = new SensitiveFilter(context.options);
  const userUrls = new UserUrlFetcher(context.options);
  const images = new ImageTokens(userUrls, (error) => context.logger.info({ err: error }, 'image size unread; counted at the fallback'));
  const modelLimits = new ModelRequestLimits(context.options, context.redis, (error) =>
    context.logger.error({ err: error }, 'model request limit: Redis failed'),
  );
  const metrics = new RelayMetrics();
  const service = new RelayService({ context, cache, auth, charges, ledger, upstream, health, sensitive, images, modelLimits, metrics });
  const flush = (returnAll = false) => cache.lock.run(() => reminders.afterFlush(() => ledger.flush(returnAll)));
  // A process silent this long is taken for dead and its leases given back (heartbeats come with every flush).
  const staleSeconds = Math.max(60, 12 * config.batchUpdateIntervalSeconds);
  const reclaimDead = async () => {
    const { holders, amount } = await leaseStore.reclaimDead(staleSeconds);
    if (holders > 0 || amount > 0) context.logger.warn({ holders, amount }, 'gave back the balance held by relay processes that are gone');
  };
  const register = async () => {
    await reclaimDead();
    await leaseStore.register();
  };
  // A full log buffer is written at once rather than at the next interval; one such flush at a time.
  let backlogFlushing = false;
  ledger.logs.onBacklog(() => {
    if (backlogFlushing) return;
    backlogFlushing = true;
    flush()
      .catch((error: unknown) => context.logger.error({ err: error }, 'relay batch flush failed; the batch stays queued'))
      .finally(() => {
        backlogFlushing = false;
      });
  });

  // Before the relay's closer, so at shutdown it runs after the last calls have queued their logs.
  const usageExport = startQuotaDataExport(context, ledger.logs);

  const balances = new SpendableQuota(context.db, ledger, leaseStore.holder, (kind, entityId) => charges.giveBackFree(kind, entityId));
  const tasks = new TaskBilling(context, charges, ledger, metrics, balances);
  const runtime: RelayRuntime = {
    tasks,
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
    ready: Promise.all([cache.start(), register()]).then(() => undefined),
    flush: () => flush(),
    async drain() {
      await service.settled();
      await charges.settled();
      return flush(true);
    },
  };
  runtimes.set(context, runtime);

  context.schedule(config.batchUpdateIntervalSeconds, () => flush(), 'relay batch flush');
  context.schedule(config.syncFrequencySeconds, () => cache.sync(), 'relay cache sync');
  context.schedule(config.syncFrequencySeconds, reclaimDead, 'relay lease reclaim');
  if (config.isMaster && config.channelTestFrequencyMinutes > 0) {
    context.schedule(config.channelTestFrequencyMinutes * 60, () => health.runTestAll(), 'scheduled channel test');
  }
  // Registered before the relay's closer, so it runs after it: the reminders of the last flush finish before the database closes.
  context.onClose(() => reminders.settled());
  context.onClose(async () => {
    try {
      await runtime.ready;
      await service.settled();
      await charges.settled();
      // Everything held goes back to the balances, and this process leaves the node list.
      await flush(true);
      await leaseStore.unregister();
    } catch (error) {
      context.logger.error({ err: error }, 'final flush of relay counters failed: its charges and logs are given back at the next start');
    }
    service.watchdog.close();
    await upstream.close();
    await userUrls.close();
  });
  return runtime;
}
