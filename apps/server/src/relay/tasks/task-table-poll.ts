import type { AppContext } from '../../app-context.js';
import type { TaskChange, TaskRepository, TaskRow } from '../../domain/tasks/task-repository.js';
import { maskSecrets } from '../../lib/mask-secrets.js';
import { keyWithFingerprint } from '../../domain/channels/multi-key.js';
import type { RelayChannel } from '../../domain/relay-cache/relay-channel.js';
import type { AnyTaskAdaptor } from './task-adaptor.js';
import type { TaskBilling } from './task-billing.js';
import type { TaskChannels } from './task-channels.js';

/** Ids asked of an upstream per fetch. */
const FETCH_BATCH = 100;

export interface TaskTablePollDeps {
  context: AppContext;
  billing: TaskBilling;
  channels: TaskChannels;
  repository: TaskRepository;
}

type Fetching = Pick<AnyTaskAdaptor, 'platform'> & Required<Pick<AnyTaskAdaptor, 'fetchTasks'>>;

const now = () => Math.floor(Date.now() / 1000);

/**
 * One poll of a platform's unfinished rows of the `tasks` table (new-api's UpdateTaskBulk): per
 * channel, their ids in batches through the adaptor's fetchTasks; what changed is recorded, and a
 * task that failed is refunded at once (the poller's refundPending catches any left over). A task
 * whose channel is gone fails, as in new-api.
 */
export async function pollTaskTable(deps: TaskTablePollDeps, adaptor: Fetching): Promise<void> {
  const rows = await deps.repository.unfinished(adaptor.platform);
  const byChannel = new Map<number, TaskRow[]>();
  for (const row of rows) {
    const channelId = Number(row.channel_id);
    const list = byChannel.get(channelId);
    if (list) list.push(row);
    else byChannel.set(channelId, [row]);
  }
  for (const [channelId, tasks] of byChannel) {
    try {
      await pollChannel(deps, adaptor, channelId, tasks);
    } catch (error) {
      deps.context.logger.error({ err: error, platform: adaptor.platform, channelId }, 'task poll: channel round failed');
    }
  }
}

async function pollChannel(deps: TaskTablePollDeps, adaptor: Fetching, channelId: number, tasks: TaskRow[]): Promise<void> {
  const channel = await deps.channels.byId(channelId);
  if (!channel || channel.keys.length === 0 || channel.endpointProblem !== undefined) {
    for (const task of tasks) {
      await record(deps, task, {
        status: 'FAILURE',
        progress: '100%',
        failReason: `获取渠道信息失败，请联系管理员，渠道ID：${channelId}`,
        submitTime: Number(task.submit_time),
        startTime: Number(task.start_time),
        finishTime: now(),
        data: task.data,
      });
    }
    return;
  }
  // Each task is asked about with the key it was submitted with, which alone may see it (new-api #6870).
  const byKey = new Map<string, TaskRow[]>();
  for (const task of tasks) {
    const key = keyWithFingerprint(channel.allKeys, task.key_hash) ?? channel.keys[0]!;
    const list = byKey.get(key);
    if (list) list.push(task);
    else byKey.set(key, [task]);
  }
  for (const [key, keyTasks] of byKey) await pollWithKey(deps, adaptor, channel, key, keyTasks);
}

async function pollWithKey(deps: TaskTablePollDeps, adaptor: Fetching, channel: RelayChannel, key: string, tasks: TaskRow[]): Promise<void> {
  const channelId = channel.id;
  for (let start = 0; start < tasks.length; start += FETCH_BATCH) {
    let updates;
    try {
      updates = await adaptor.fetchTasks({ channel, key }, tasks.slice(start, start + FETCH_BATCH));
    } catch (error) {
      const reason = maskSecrets(error instanceof Error ? error.message : String(error), channel.allKeys);
      deps.context.logger.warn({ platform: adaptor.platform, channelId, reason }, 'task poll: the upstream did not report its tasks');
      return;
    }
    for (const { task, change } of updates) await record(deps, task, change);
  }
}

async function record(deps: TaskTablePollDeps, task: TaskRow, change: TaskChange): Promise<void> {
  const updated = await deps.repository.update(Number(task.id), change);
  if (updated && change.status === 'FAILURE') await deps.billing.refund('tasks', Number(task.id));
}
