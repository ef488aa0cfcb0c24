import type { AppContext } from '../../app-context.js';
import type { RelayChannel } from '../../domain/relay-cache/relay-channel.js';
import { keyWithFingerprint } from '../../domain/channels/multi-key.js';
import type { MidjourneyRepository, MidjourneyRow } from '../../domain/tasks/midjourney-repository.js';
import { nextState } from '../../domain/tasks/midjourney-task-state.js';
import { MjUpstreamUnreachable, type MidjourneyClient, type MjUpstream } from '../../providers/midjourney/midjourney-client.js';
import type { MjTaskDto } from '../../providers/midjourney/midjourney-wire.js';
import type { TaskBilling } from './task-billing.js';
import type { TaskChannels } from './task-channels.js';

/** Ids per list-by-condition call. */
const BATCH = 50;
/** Unfinished rows read per round. */
const ROUND_LIMIT = 2_000;

export interface PollRound {
  updated: number;
  refunded: number;
}

/**
 * The Midjourney share of the master's task poll (new-api's UpdateMidjourneyTaskBulk), run by the
 * shared TaskPoller every TASK_POLL_INTERVAL seconds: rows grouped by channel, asked from each
 * channel's proxy in batches (POST /mj/task/list-by-condition {ids}), each change written if no one
 * else wrote the row first. The TaskPoller then refunds every failed, unrefunded task once
 * (TaskBilling.refundPending: also those a crash left behind).
 */
export class MidjourneyPoller {
  private running: Promise<number> | undefined;

  constructor(
    private readonly context: AppContext,
    private readonly repository: MidjourneyRepository,
    private readonly channels: TaskChannels,
    private readonly client: MidjourneyClient,
    private readonly billing: TaskBilling,
  ) {}

  /** Asks the proxies about every unfinished task; the rows changed. A call while one runs waits for it. */
  pollTasks(): Promise<number> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** One Midjourney round and the refund sweep, now (tests; the TaskPoller does both on its own). */
  async pollOnce(): Promise<PollRound> {
    const updated = await this.pollTasks();
    return { updated, refunded: await this.billing.refundPending() };
  }

  /** Waits for a round under way (at shutdown). */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private async round(): Promise<number> {
    const rows = await this.repository.unfinished(ROUND_LIMIT);
    const withoutId = rows.filter((row) => row.mj_id === '').map((row) => Number(row.id));
    await this.repository.failWithoutId(withoutId);
    const byChannel = new Map<number, MidjourneyRow[]>();
    for (const row of rows) {
      if (row.mj_id === '') continue;
      const list = byChannel.get(Number(row.channel_id)) ?? [];
      list.push(row);
      byChannel.set(Number(row.channel_id), list);
    }
    let updated = 0;
    for (const [channelId, tasks] of byChannel) updated += await this.pollChannel(channelId, tasks);
    return updated;
  }

  private async pollChannel(channelId: number, tasks: MidjourneyRow[]): Promise<number> {
    const channel = await this.channels.byId(channelId);
    if (!channel) {
      // new-api's words when the channel is gone.
      let updated = 0;
      for (const task of tasks) {
        const failed = await this.repository.updateIfStatus(Number(task.id), task.status, {
          ...stateOf(task),
          status: 'FAILURE',
          progress: '100%',
          fail_reason: `获取渠道信息失败，请联系管理员，渠道ID：${channelId}`,
        });
        if (failed) updated += 1;
      }
      return updated;
    }
    // A disabled channel is still asked: its proxy may be finishing the tasks it took.
    if (channel.keys.length === 0) return 0;
    let updated = 0;
    // Each task is asked about with the key it was submitted with, which alone may see it (new-api #6870).
    const byKey = new Map<string, MidjourneyRow[]>();
    for (const task of tasks) {
      const key = keyWithFingerprint(channel.allKeys, task.key_hash) ?? '';
      byKey.set(key, [...(byKey.get(key) ?? []), task]);
    }
    for (const [key, keyTasks] of byKey) updated += await this.pollWithKey(channel, key === '' ? undefined : key, keyTasks);
    return updated;
  }

  private async pollWithKey(channel: RelayChannel, key: string | undefined, tasks: MidjourneyRow[]): Promise<number> {
    const channelId = channel.id;
    let updated = 0;
    for (let start = 0; start < tasks.length; start += BATCH) {
      const batch = tasks.slice(start, start + BATCH);
      let reported: MjTaskDto[];
      try {
        reported = await this.client.listByCondition(
          upstreamOf(channel, key),
          batch.map((task) => task.mj_id),
        );
      } catch (error) {
        const reason = error instanceof MjUpstreamUnreachable ? error.message : String(error);
        this.context.logger.warn({ channelId, reason }, 'midjourney poll: the proxy did not list its tasks');
        continue;
      }
      const byMjId = new Map(batch.map((task) => [task.mj_id, task]));
      for (const item of reported) {
        const task = byMjId.get(item.id);
        if (task && (await applyReported(this.repository, task, item))) updated += 1;
      }
    }
    return updated;
  }
}

/** Where a channel's proxy listens, and the secret it is sent (one of the channel's keys, at random unless given). */
export const upstreamOf = (channel: RelayChannel, key?: string): MjUpstream => ({
  baseUrl: `${channel.endpoint.origin}${channel.endpoint.basePath}`,
  secret: key ?? channel.keys[Math.floor(Math.random() * channel.keys.length)]!,
});

/** Writes what the proxy reported about a task (poll or callback); true when the row changed. */
export async function applyReported(repository: MidjourneyRepository, task: MidjourneyRow, reported: MjTaskDto, now = Date.now()): Promise<boolean> {
  const next = nextState(task, reported, now);
  if (!next) return false;
  return repository.updateIfStatus(Number(task.id), task.status, next);
}

const stateOf = (row: MidjourneyRow) => ({
  code: Number(row.code),
  progress: row.progress,
  prompt_en: row.prompt_en,
  state: row.state,
  submit_time: Number(row.submit_time),
  start_time: Number(row.start_time),
  finish_time: Number(row.finish_time),
  image_url: row.image_url,
  status: row.status,
  fail_reason: row.fail_reason,
  properties: row.properties,
  buttons: row.buttons,
});
