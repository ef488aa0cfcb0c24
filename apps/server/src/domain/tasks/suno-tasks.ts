import { ChannelStatus, ChannelType } from '@modelgate/contract';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../errors/app-error.js';
import { maskSecrets } from '../../lib/mask-secrets.js';
import type { SunoClient } from '../../providers/suno/suno-client.js';
import {
  sunoPriceKey,
  sunoSubmitAnswerSchema,
  sunoSubmitRequestSchema,
  upstreamSubmitBody,
  type SunoAction,
  type SunoSubmitRequest,
} from '../../providers/suno/suno-wire.js';
import type { RelayAuthenticator, RelayCaller } from '../../relay/relay-auth.js';
import { pickChannel } from '../../relay/channel-selector.js';
import type { PriorityTier } from '../relay-cache/channel-index.js';
import type { RelayChannel } from '../relay-cache/relay-channel.js';
import type { TaskBilling, TaskHold } from './task-billing.js';
import type { TaskChannels } from './task-channels.js';
import type { TaskRepository, TaskRow } from './task-repository.js';

export const SUNO_PLATFORM = 'suno';
const SUNO_TYPES: ReadonlySet<number> = new Set([ChannelType.SunoAPI]);

/**
 * A failure answered in new-api's task error shape, {code, message, data: null}, with `status`.
 * (Failures before the task stage — the key, the model limits, no channel — keep the relay's
 * OpenAI shape, as new-api's middleware answers them.)
 */
export const taskError = (code: string, message: string, status: number, cause?: unknown) => new AppError(`task:${code}`, message, { status, cause });
export const isTaskError = (error: AppError): boolean => error.code.startsWith('task:');

/** new-api's TaskDto, as /suno/fetch answers a task. */
export interface SunoTaskDto {
  task_id: string;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  data: unknown;
}

/** The `data` column as JSON: '' is null, text that is not JSON stays text. */
export function taskDataOf(data: string): unknown {
  if (data === '') return null;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}

export const toSunoTaskDto = (row: TaskRow): SunoTaskDto => ({
  task_id: row.task_id,
  action: row.action,
  status: row.status,
  fail_reason: row.fail_reason,
  submit_time: Number(row.submit_time),
  start_time: Number(row.start_time),
  finish_time: Number(row.finish_time),
  progress: row.progress,
  data: taskDataOf(row.data),
});

/** Whether another channel may do better (new-api's retry rule: 429 and 5xx but 504/524). */
const retryable = (status: number) => status === 429 || (status >= 500 && status !== 504 && status !== 524);

interface Route {
  /** A channel fixed by the caller (sk-key-id) or by the task being continued. */
  fixed?: RelayChannel;
  tiers?: readonly PriorityTier[];
}

export interface SunoTaskDeps {
  context: AppContext;
  auth: RelayAuthenticator;
  billing: TaskBilling;
  channels: TaskChannels;
  repository: TaskRepository;
  client: SunoClient;
}

/** The Suno relay (new-api's relay_task.go with the Suno task adaptor): submit, charge, record; fetch from the table. */
export class SunoTasks {
  constructor(private readonly deps: SunoTaskDeps) {}

  /**
   * POST /suno/submit/{music,lyrics}: validated as new-api does, routed to a Suno channel by the
   * price key, held, sent on; the upstream's acceptance is charged and recorded as a task, its
   * answer ({code:'success', message, data:<task id>}) passed back, with the price key and the
   * channel for the relay's metrics.
   */
  async submit(caller: RelayCaller, action: SunoAction, body: unknown): Promise<{ answer: unknown; priceKey: string; channelId: number }> {
    const request = this.validate(action, body);
    const priceKey = sunoPriceKey(action);
    this.deps.auth.checkModel(caller, priceKey);
    const route = await this.route(caller, request, priceKey);
    const hold = await this.hold(caller, priceKey);
    try {
      const { channel, taskId, answer } = await this.send(route, action, upstreamSubmitBody(request));
      const id = await this.deps.repository.insert({
        taskId,
        platform: SUNO_PLATFORM,
        action,
        userId: caller.user.id,
        tokenId: caller.token.id,
        group: caller.group,
        channelId: channel.id,
        quota: hold.quota,
      });
      const charged = await this.deps.billing.charge(hold, channel, `操作 ${action}`);
      if (charged !== hold.quota) await this.deps.context.db.kysely.updateTable('tasks').set({ quota: charged }).where('id', '=', id).execute();
      return { answer, priceKey, channelId: channel.id };
    } catch (error) {
      this.deps.billing.release(hold);
      throw error;
    }
  }

  /** GET /suno/fetch/{id}: the caller's own task. */
  async fetchOne(caller: RelayCaller, taskId: string): Promise<SunoTaskDto> {
    const row = await this.deps.repository.byTaskId(caller.user.id, taskId);
    if (!row) throw taskError('task_not_exist', 'task_not_exist', 400);
    return toSunoTaskDto(row);
  }

  /** POST /suno/fetch {ids}: those of the caller's own tasks. */
  async fetchMany(caller: RelayCaller, ids: readonly string[]): Promise<SunoTaskDto[]> {
    const rows = await this.deps.repository.byTaskIds(caller.user.id, ids);
    return rows.map(toSunoTaskDto);
  }

  private validate(action: SunoAction, body: unknown): SunoSubmitRequest {
    const parsed = sunoSubmitRequestSchema.safeParse(body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw taskError('invalid_request', `请求参数错误：${issue ? `${issue.path.join('.') || 'body'} ${issue.message}` : 'invalid body'}`, 400);
    }
    const request = { ...parsed.data };
    switch (action) {
      case 'MUSIC':
        if (!request.mv) request.mv = 'chirp-v3-0';
        break;
      case 'LYRICS':
        if (!request.prompt) throw taskError('invalid_request', 'prompt_empty', 400);
        break;
      default: {
        const unreachable: never = action;
        throw taskError('invalid_request', `invalid_action ${String(unreachable)}`, 400);
      }
    }
    // new-api fills the callback the upstream requires with its own address.
    if (!request.callBackUrl) request.callBackUrl = `${this.deps.context.options.string('ServerAddress')}/suno/callback`;
    if (request.continue_clip_id && !request.task_id) throw taskError('invalid_request', 'task id is empty', 400);
    return request;
  }

  private async route(caller: RelayCaller, request: SunoSubmitRequest, priceKey: string): Promise<Route> {
    const { channels, repository } = this.deps;
    if (request.continue_clip_id && request.task_id) {
      // A continuation goes to the channel that made the song it continues.
      const origin = await repository.byTaskId(caller.user.id, request.task_id);
      if (!origin) throw taskError('task_not_exist', 'task_origin_not_exist', 400);
      const channel = await channels.byId(Number(origin.channel_id));
      if (!channel) throw taskError('channel_not_found', `渠道 #${origin.channel_id} 不存在 (channel not found)`, 400);
      if (channel.status !== ChannelStatus.Enabled) throw taskError('task_channel_disable', '该任务所属渠道已被禁用', 400);
      return { fixed: channel };
    }
    if (caller.pinnedChannelId !== undefined) {
      const channel = await channels.byId(caller.pinnedChannelId);
      if (!channel || channel.type !== ChannelType.SunoAPI) {
        throw new AppError('channel:not_found', `渠道 #${caller.pinnedChannelId} 不存在或不是 Suno 渠道 (no Suno channel ${caller.pinnedChannelId})`, {
          status: 400,
        });
      }
      if (channel.status !== ChannelStatus.Enabled) {
        throw new AppError('channel:disabled', `渠道 #${channel.id} 已被禁用 (channel ${channel.id} is disabled)`, { status: 403 });
      }
      return { fixed: channel };
    }
    const tiers = await channels.tiers(caller.group, priceKey, SUNO_TYPES);
    if (!tiers) {
      throw new AppError(
        'channel:no_available_channel',
        `当前分组 ${caller.group} 下对于模型 ${priceKey} 无可用渠道 (no available channel for model ${priceKey} in group ${caller.group})`,
        { status: 503, type: 'new_api_error' },
      );
    }
    return { tiers };
  }

  private async hold(caller: RelayCaller, priceKey: string): Promise<TaskHold> {
    try {
      return await this.deps.billing.hold(caller, priceKey);
    } catch (error) {
      if (error instanceof AppError && error.status === 403) throw taskError('quota_not_enough', error.message, 403, error);
      throw error;
    }
  }

  /** Sends the submit, stepping to another channel (up to RetryTimes) where new-api would retry. */
  private async send(route: Route, action: SunoAction, body: string): Promise<{ channel: RelayChannel; taskId: string; answer: unknown }> {
    const retries = route.fixed ? 0 : Math.max(0, Math.floor(this.deps.context.options.number('RetryTimes')));
    const tried: number[] = [];
    let failure: AppError | undefined;
    for (let attempt = 0; attempt <= retries; attempt += 1) {
      const channel = route.fixed ?? (route.tiers ? pickChannel(route.tiers, attempt, tried) : undefined);
      if (!channel) break;
      tried.push(channel.id);
      const key = channel.keys[Math.floor(Math.random() * channel.keys.length)] ?? '';
      let status: number;
      let text: string;
      try {
        ({ status, text } = await this.deps.client.submit(channel.endpoint, key, action, body));
      } catch (error) {
        this.deps.context.logger.warn({ channelId: channel.id, err: maskSecrets(String(error), channel.keys) }, 'suno submit: upstream unreachable');
        failure = taskError('do_request_failed', '请求上游地址失败', 500, error);
        continue;
      }
      const words = maskSecrets(text, channel.keys);
      if (status !== 200) {
        failure = taskError('fail_to_fetch_task', words || `upstream status ${status}`, status);
        if (retryable(status)) continue;
        throw failure;
      }
      return { channel, ...this.accepted(words, text) };
    }
    throw failure ?? taskError('do_request_failed', '请求上游地址失败', 500);
  }

  /** A 200's body: new-api's TaskResponse[string], its code 'success' and data the task id. */
  private accepted(masked: string, text: string): { taskId: string; answer: unknown } {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw taskError('unmarshal_response_body_failed', `response body: ${masked.slice(0, 500)}`, 500);
    }
    const answer = sunoSubmitAnswerSchema.safeParse(json);
    if (!answer.success) throw taskError('unmarshal_response_body_failed', `response body: ${masked.slice(0, 500)}`, 500);
    if (answer.data.code !== 'success') throw taskError(answer.data.code || 'fail_to_fetch_task', maskSecrets(answer.data.message ?? ''), 500);
    // The tasks table keeps ids of up to 191 characters (new-api's varchar).
    if (typeof answer.data.data !== 'string' || answer.data.data === '' || answer.data.data.length > 191) {
      throw taskError('unmarshal_response_body_failed', 'the upstream accepted the task without a usable task id', 500);
    }
    return { taskId: answer.data.data, answer: json };
  }
}
