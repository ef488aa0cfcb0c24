import type { AppContext } from '../../app-context.js';
import { MidjourneyClient } from '../../providers/midjourney/midjourney-client.js';
import type { RelayRuntime } from '../../relay/relay-runtime.js';
import { MidjourneyChannels } from './midjourney-channels.js';
import { MidjourneyHooks } from './midjourney-notify.js';
import { MidjourneyPoller } from './midjourney-poller.js';
import { MidjourneyRepository } from './midjourney-repository.js';
import { taskPollerOf } from './task-poller.js';

/** The Midjourney relay's long-lived parts for one process. */
export interface MidjourneyRuntime {
  relay: RelayRuntime;
  repository: MidjourneyRepository;
  channels: MidjourneyChannels;
  client: MidjourneyClient;
  /** Its rounds run in the shared TaskPoller (master only, every TASK_POLL_INTERVAL s); `pollOnce()` for a round now. */
  poller: MidjourneyPoller;
  /** Posts callbacks to callers' notifyHooks; tests swap in one that may reach local addresses. */
  hooks: MidjourneyHooks;
}

const runtimes = new WeakMap<AppContext, MidjourneyRuntime>();

/** The Midjourney runtime of a context (tests use it to run poll rounds and swap the hook sender). */
export function midjourneyOf(context: AppContext): MidjourneyRuntime {
  const runtime = runtimes.get(context);
  if (!runtime) throw new Error('the midjourney routes are not registered on this context');
  return runtime;
}

export function createMidjourneyRuntime(context: AppContext, relay: RelayRuntime): MidjourneyRuntime {
  const existing = runtimes.get(context);
  if (existing) return existing;
  const repository = new MidjourneyRepository(context.db);
  const channels = new MidjourneyChannels(context.db, relay.cache);
  const client = new MidjourneyClient();
  const poller = new MidjourneyPoller(context, repository, channels, client, relay.tasks);
  const runtime: MidjourneyRuntime = { relay, repository, channels, client, poller, hooks: new MidjourneyHooks() };
  runtimes.set(context, runtime);
  taskPollerOf(context, relay.tasks).add('midjourney', async () => {
    await poller.pollTasks();
  });
  // Registered after the relay's closer, so it runs before it: no poll round writes after the last flush.
  context.onClose(async () => {
    await poller.settled();
    await client.close();
    await runtime.hooks.close();
  });
  return runtime;
}
