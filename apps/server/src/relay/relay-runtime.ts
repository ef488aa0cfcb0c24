import type { AppContext } from '../app-context.js';
import { ChargeService, type QuotaViews } from '../domain/billing/charge-service.js';
import { QuotaLedger, type FlushResult } from '../domain/billing/quota-ledger.js';
import { QuotaStore } from '../domain/billing/quota-store.js';
import { RelayCache } from '../domain/relay-cache/relay-cache.js';
import { ChannelHealth } from './channel-health.js';
import { RelayAuthenticator } from './relay-auth.js';
import { RelayService } from './relay-service.js';
import { UpstreamClient } from './upstream-client.js';

/** The relay's long-lived parts for one process, built once per AppContext. */
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
  const ledger = new QuotaLedger(context.db);
  const cache = new RelayCache(context, ledger);
  const views: QuotaViews = {
    userQuota: (userId) => cache.users.peek(userId)?.quota,
    tokenQuota: (tokenId) => cache.tokens.byTokenId(tokenId)?.remainQuota,
    adjust: (payer, delta) => {
      cache.users.adjustQuota(payer.userId, delta);
      if (payer.limitedToken) cache.tokens.adjustQuota(payer.tokenId, delta);
    },
    invalidate: (payer) => {
      cache.users.invalidate(payer.userId);
      const token = cache.tokens.byTokenId(payer.tokenId);
      if (token) cache.tokens.invalidate(token.key);
    },
  };
  const charges = new ChargeService(new QuotaStore(context.db), ledger, views, context.options);
  const upstream = new UpstreamClient({ headersTimeoutMs: config.relayTimeoutSeconds * 1000 });
  const health = new ChannelHealth(context, upstream);
  const auth = new RelayAuthenticator(context, cache);
  const service = new RelayService({ context, cache, auth, charges, ledger, upstream, health });
  const flush = () => cache.lock.run(() => ledger.flush());
  // A full log buffer is written at once rather than at the next interval; one such flush at a time.
  let backlogFlush: Promise<unknown> | undefined;
  ledger.logs.onBacklog(() => {
    backlogFlush ??= flush()
      .catch((error: unknown) => context.logger.error({ err: error }, 'relay batch flush failed; the batch stays queued'))
      .finally(() => {
        backlogFlush = undefined;
      });
  });

  const runtime: RelayRuntime = {
    cache,
    ledger,
    charges,
    auth,
    upstream,
    health,
    service,
    ready: cache.start(),
    flush,
    async drain() {
      await service.settled();
      return flush();
    },
  };
  runtimes.set(context, runtime);

  context.schedule(config.batchUpdateIntervalSeconds, flush, 'relay batch flush');
  context.schedule(config.syncFrequencySeconds, () => cache.sync(), 'relay cache sync');
  if (config.isMaster && config.channelTestFrequencyMinutes > 0) {
    context.schedule(config.channelTestFrequencyMinutes * 60, () => health.runTestAll(), 'scheduled channel test');
  }
  context.onClose(async () => {
    try {
      await runtime.drain();
    } catch (error) {
      context.logger.error({ err: error }, 'final flush of relay counters failed: the last batch is lost');
    }
    service.watchdog.close();
    await upstream.close();
  });
  return runtime;
}
