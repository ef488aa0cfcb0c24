import type { AppContext } from '../../app-context.js';
import { maskSecrets } from '../../lib/mask-secrets.js';
import type { SunoClient } from '../../providers/suno/suno-client.js';
import { isProgressText, knownStatus, sunoFetchAnswerSchema, sunoTaskItemSchema, type SunoTaskItem } from '../../providers/suno/suno-wire.js';
import type { TaskBilling } from './task-billing.js';
import type { TaskChannels } from './task-channels.js';
import type { TaskChange, TaskRepository, TaskRow } from './task-repository.js';
import { SUNO_PLATFORM } from './suno-tasks.js';

/** Ids asked of an upstream per fetch. */
const FETCH_BATCH = 100;

export interface SunoPollDeps {
  context: AppContext;
  billing: TaskBilling;
  channels: TaskChannels;
  repository: TaskRepository;
  client: SunoClient;
}

const now = () => Math.floor(Date.now() / 1000);

/**
 * What an upstream's report changes in a task (new-api's updateSunoTaskAll): status, fail reason
 * and times where the report has them; progress as reported, 100% once finished; data as reported.
 * Undefined when nothing changes.
 */
export function sunoTaskChange(row: TaskRow, item: SunoTaskItem, at = now()): TaskChange | undefined {
  const reported = item.status === undefined || item.status === '' ? undefined : (knownStatus(item.status) ?? 'UNKNOWN');
  const status = reported ?? row.status;
  const finished = status === 'SUCCESS' || status === 'FAILURE';
  const change: TaskChange = {
    status,
    failReason: item.fail_reason ? item.fail_reason : row.fail_reason,
    submitTime: item.submit_time ? item.submit_time : Number(row.submit_time),
    startTime: item.start_time ? item.start_time : Number(row.start_time),
    finishTime: item.finish_time ? item.finish_time : Number(row.finish_time),
    progress: finished ? '100%' : isProgressText(item.progress) ? item.progress : row.progress,
    data: item.data === undefined || item.data === null ? row.data : JSON.stringify(item.data),
  };
  if (finished && change.finishTime === 0) change.finishTime = at;
  if (status === 'IN_PROGRESS' && change.startTime === 0) change.startTime = at;
  if (status === 'FAILURE' && change.failReason === '') change.failReason = '任务执行失败 (the task failed upstream)';
  const same =
    change.status === row.status &&
    change.failReason === row.fail_reason &&
    change.submitTime === Number(row.submit_time) &&
    change.startTime === Number(row.start_time) &&
    change.finishTime === Number(row.finish_time) &&
    change.progress === row.progress &&
    change.data === row.data;
  return same ? undefined : change;
}

/**
 * One poll of the unfinished Suno tasks: per channel, their ids in batches through the upstream's
 * POST /suno/fetch; what changed is recorded, and a task that failed is refunded at once (the
 * poller's refundPending catches any left over). A task whose channel is gone fails, as in new-api.
 */
export async function pollSunoTasks(deps: SunoPollDeps): Promise<void> {
  const rows = await deps.repository.unfinished(SUNO_PLATFORM);
  const byChannel = new Map<number, TaskRow[]>();
  for (const row of rows) {
    const channelId = Number(row.channel_id);
    const list = byChannel.get(channelId);
    if (list) list.push(row);
    else byChannel.set(channelId, [row]);
  }
  for (const [channelId, tasks] of byChannel) {
    try {
      await pollChannel(deps, channelId, tasks);
    } catch (error) {
      deps.context.logger.error({ err: error, channelId }, 'suno poll: channel round failed');
    }
  }
}

async function pollChannel(deps: SunoPollDeps, channelId: number, tasks: TaskRow[]): Promise<void> {
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
  const key = channel.keys[0]!;
  for (let start = 0; start < tasks.length; start += FETCH_BATCH) {
    const batch = tasks.slice(start, start + FETCH_BATCH);
    const byTaskId = new Map(batch.map((task) => [task.task_id, task]));
    let answer;
    try {
      answer = await deps.client.fetch(channel.endpoint, key, [...byTaskId.keys()]);
    } catch (error) {
      deps.context.logger.warn({ channelId, err: maskSecrets(String(error), channel.keys) }, 'suno poll: upstream unreachable');
      return;
    }
    if (answer.status !== 200) {
      deps.context.logger.warn({ channelId, status: answer.status, body: maskSecrets(answer.text.slice(0, 300), channel.keys) }, 'suno poll: fetch refused');
      return;
    }
    const items = parseItems(answer.text);
    if (!items) {
      deps.context.logger.warn({ channelId, body: maskSecrets(answer.text.slice(0, 300), channel.keys) }, 'suno poll: fetch answer unreadable');
      return;
    }
    for (const item of items) {
      const task = byTaskId.get(item.task_id);
      if (!task) continue;
      const change = sunoTaskChange(task, item);
      if (change) await record(deps, task, change);
    }
  }
}

function parseItems(text: string): SunoTaskItem[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const answer = sunoFetchAnswerSchema.safeParse(json);
  if (!answer.success || answer.data.code !== 'success') return undefined;
  const items: SunoTaskItem[] = [];
  for (const raw of answer.data.data ?? []) {
    const item = sunoTaskItemSchema.safeParse(raw);
    if (item.success) items.push(item.data);
  }
  return items;
}

async function record(deps: SunoPollDeps, task: TaskRow, change: TaskChange): Promise<void> {
  const updated = await deps.repository.update(Number(task.id), change);
  if (updated && change.status === 'FAILURE') await deps.billing.refund('tasks', Number(task.id));
}
