import type { AppContext } from '../app-context.js';
import type { ChargeService } from '../domain/billing/charge-service.js';
import type { FlushResult, QuotaLedger } from '../domain/billing/quota-ledger.js';
import type { LeaseStore } from '../domain/billing/lease-store.js';
import type { SpendableQuota } from '../domain/billing/spendable-quota.js';
import type { QuotaReminders } from '../domain/notifications/quota-reminder.js';
import type { QuotaDataExport } from '../domain/usage/quota-data-export.js';
import type { RelayCache } from '../domain/relay-cache/relay-cache.js';
import type { SensitiveFilter } from '../domain/sensitive/sensitive-filter.js';
import type { UserUrlFetcher } from '../lib/user-url-fetch.js';
import type { RelayMetrics } from '../lib/metrics/relay-metrics.js';
import type { ChannelAffinity } from './channel-affinity.js';
import type { ChannelHealth } from './channel-health.js';
import type { RelayAuthenticator } from './relay-auth.js';
import type { RelayService } from './relay-service.js';
import type { UpstreamClient } from '../providers/upstream-client.js';

/** The relay's long-lived parts for one process, built by the composition root and handed to the routes that use them. */
export interface RelayRuntime {
  cache: RelayCache;
  ledger: QuotaLedger;
  charges: ChargeService;
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
  usageExport: QuotaDataExport;
  /** The sensitive-word checks, rebuilt when their options change. */
  sensitive: SensitiveFilter;
  /** Fetches addresses callers name (images), through the worker when WorkerUrl is set. */
  userUrls: UserUrlFetcher;
  /** The relay's per-call figures, read by GET /metrics. */
  metrics: RelayMetrics;
  /** Agent sessions' channel pins (channel-affinity.ts). */
  affinity: ChannelAffinity;
  /** Writes the batched counters and logs now. */
  flush(): Promise<FlushResult>;
  /** Waits for the requests under way to finish their accounting, then flushes. */
  drain(): Promise<FlushResult>;
  /** Gives back the balance held by relay processes that stopped heartbeating. */
  reclaimDead(): Promise<void>;
}

/** The parts the composition root builds; the runtime adds the flushes and its lifecycle. */
export type RelayParts = Omit<RelayRuntime, 'ready' | 'flush' | 'drain' | 'reclaimDead'>;

/**
 * The relay's flushes and lifecycle over its parts: a flush runs under the cache's sync lock and
 * checks the low-balance reminders of the users it charged; a full log buffer is written at once;
 * at close, the calls under way settle, everything held goes back to the balances, and this
 * process leaves the node list.
 */
export function startRelayRuntime(context: AppContext, parts: RelayParts): RelayRuntime {
  const { config, logger } = context;
  const { cache, ledger, reminders, leaseStore, service, charges } = parts;
  const reclaimDead = async () => {
    // A process silent for NODE_STALE_SECONDS is taken for dead and its leases given back (heartbeats come with every flush).
    const { holders, amount } = await leaseStore.reclaimDead(config.nodeStaleSeconds);
    if (holders > 0 || amount > 0) logger.warn({ holders, amount }, 'gave back the balance held by relay processes that are gone');
  };
  const register = async () => {
    await reclaimDead();
    await leaseStore.register();
  };
  const registered = register();
  // Not before this process is in the node list: a flush that found no row of its own would take
  // itself for given back and register again, and the registration under way would then fail.
  const flush = async (returnAll = false) => {
    await registered;
    return cache.lock.run(() => reminders.afterFlush(() => ledger.flush(returnAll)));
  };
  // A full log buffer is written at once rather than at the next interval; one such flush at a time.
  let backlogFlushing = false;
  ledger.logs.onBacklog(() => {
    if (backlogFlushing) return;
    backlogFlushing = true;
    flush()
      .catch((error: unknown) => logger.error({ err: error }, 'relay batch flush failed; the batch stays queued'))
      .finally(() => {
        backlogFlushing = false;
      });
  });

  const runtime: RelayRuntime = {
    ...parts,
    ready: Promise.all([cache.start(), registered]).then(() => undefined),
    flush: () => flush(),
    reclaimDead,
    async drain() {
      await service.settled();
      await charges.settled();
      return flush(true);
    },
  };

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
      logger.error({ err: error }, 'final flush of relay counters failed: its charges and logs are given back at the next start');
    }
    service.watchdog.close();
    await parts.upstream.close();
    await parts.userUrls.close();
  });
  return runtime;
}
