import type { AppContext } from '../../app-context.js';
import { MidjourneyRepository } from '../../domain/tasks/midjourney-repository.js';
import { TaskRepository } from '../../domain/tasks/task-repository.js';
import { MidjourneyClient } from '../../providers/midjourney/midjourney-client.js';
import { SunoClient } from '../../providers/suno/suno-client.js';
import type { RelayRuntime } from '../relay-runtime.js';
import { MidjourneyTasks } from './midjourney-tasks.js';
import { SunoTasks } from './suno-tasks.js';
import type { AnyTaskAdaptor } from './task-adaptor.js';
import { TaskBilling } from './task-billing.js';
import { TaskChannels } from './task-channels.js';
import { TaskLifecycle } from './task-lifecycle.js';
import { TaskPoller, type PollRound } from './task-poller.js';
import { pollTaskTable, type TaskTablePollDeps } from './task-table-poll.js';

/** What the task relays use of the process: its context and the relay's parts they share. */
export interface TaskRuntimeDeps {
  context: AppContext;
  relay: Pick<RelayRuntime, 'cache' | 'charges' | 'ledger' | 'metrics' | 'balances' | 'auth' | 'upstream' | 'health'>;
}

/** The asynchronous task relays' long-lived parts for one process. */
export interface TaskRuntime {
  /** The money of tasks: fixed prices charged on submit, refunded once on failure. */
  billing: TaskBilling;
  /** Routing by (group, price key) among the task channels, rebuilt with the relay's channel index. */
  channels: TaskChannels;
  /** The `tasks` table (Suno, and the task kinds after it). */
  repository: TaskRepository;
  /** The master's poll of unfinished tasks: every kind's round, then the pending refunds. */
  poller: TaskPoller;
  midjourney: MidjourneyTasks;
  suno: SunoTasks;
}

/**
 * Builds the task relays over the relay's parts: one lifecycle, the Midjourney and Suno adaptors,
 * and a poller holding each kind's round. The caller schedules `poller.tick()` on the master. Call
 * it after the relay runtime is started: its closer then runs before the relay's, so no poll round
 * writes after the last flush.
 */
export function createTaskRuntime({ context, relay }: TaskRuntimeDeps): TaskRuntime {
  const billing = new TaskBilling(context, relay.charges, relay.ledger, relay.metrics, relay.balances);
  const channels = new TaskChannels(context.db, relay.cache.channels);
  const repository = new TaskRepository(context.db);
  const lifecycle = new TaskLifecycle({ context, auth: relay.auth, billing, channels, repository, metrics: relay.metrics, health: relay.health });
  const midjourney = new MidjourneyTasks({
    context,
    lifecycle,
    billing,
    channels,
    repository: new MidjourneyRepository(context.db),
    client: new MidjourneyClient(),
  });
  const suno = new SunoTasks({ options: context.options, lifecycle, repository, client: new SunoClient(relay.upstream) });

  const poller = new TaskPoller(context, billing);
  const table: TaskTablePollDeps = { context, billing, channels, repository };
  for (const adaptor of [midjourney.adaptor, suno.adaptor]) {
    const round = pollRoundOf(adaptor, table);
    if (round) poller.add(adaptor.platform, round);
  }

  context.onClose(async () => {
    await poller.settled();
    await midjourney.close();
  });
  return { billing, channels, repository, poller, midjourney, suno };
}

/** A kind's share of the poll: its own round, or its `tasks` rows asked through fetchTasks. */
function pollRoundOf(adaptor: AnyTaskAdaptor, table: TaskTablePollDeps): PollRound | undefined {
  const { poll, fetchTasks, platform } = adaptor;
  if (poll) return () => poll.call(adaptor);
  if (fetchTasks) return () => pollTaskTable(table, { platform, fetchTasks: fetchTasks.bind(adaptor) });
  return undefined;
}
