import { ChannelType } from '@modelgate/contract';
import type { OptionService } from '../../domain/options/option-service.js';
import type { RelayChannel } from '../../domain/relay-cache/relay-channel.js';
import { sunoTaskChange } from '../../domain/tasks/suno-task-state.js';
import type { TaskRepository, TaskRow } from '../../domain/tasks/task-repository.js';
import { AppError } from '../../errors/app-error.js';
import { maskSecrets } from '../../lib/mask-secrets.js';
import type { SunoAnswer, SunoClient } from '../../providers/suno/suno-client.js';
import {
  sunoFetchAnswerSchema,
  sunoPriceKey,
  sunoSubmitAnswerSchema,
  sunoSubmitRequestSchema,
  sunoTaskItemSchema,
  upstreamSubmitBody,
  type SunoAction,
  type SunoSubmitRequest,
  type SunoTaskItem,
} from '../../providers/suno/suno-wire.js';
import type { RelayCaller } from '../relay-caller.js';
import type { TaskAdaptor, TaskParse, TaskPlan, TaskRefusal, TaskSubmitted, TaskTarget, TaskUpdate } from './task-adaptor.js';

export const SUNO_PLATFORM = 'suno';
const SUNO_TYPES: ReadonlySet<number> = new Set([ChannelType.SunoAPI]);

/**
 * A failure answered in new-api's task error shape, {code, message, data: null}, with `status`.
 * (Failures before the task stage — the key, the model limits, no channel — keep the relay's
 * namespaced codes, which the /suno scope renders in the same shape.)
 */
export const taskError = (code: string, message: string, status: number, cause?: unknown) => new AppError(`task:${code}`, message, { status, cause });

/** Whether another channel may do better (new-api's retry rule: 429 and 5xx but 504/524). */
const retryable = (status: number) => status === 429 || (status >= 500 && status !== 504 && status !== 524);

/** A submit as the route read it: the action of its path and its JSON body. */
export interface SunoSubmitInput {
  action: SunoAction;
  body: unknown;
}

export interface SunoPlan extends TaskPlan {
  action: SunoAction;
  request: SunoSubmitRequest;
  /** What goes upstream (new-api re-encodes the request). */
  body: string;
}

export interface SunoSubmitted extends TaskSubmitted {
  /** The upstream's answer ({code:'success', message, data:<task id>}), passed back as it came. */
  answer: unknown;
}

/**
 * Suno as a task kind (new-api's Suno task adaptor): MUSIC or LYRICS validated as new-api does, a
 * continuation sent to the channel of the song it continues, retried on another channel where
 * new-api would, an accepted task a `tasks` row; polled in batches through the upstream's
 * POST /suno/fetch.
 */
export class SunoAdaptor implements TaskAdaptor<SunoSubmitInput, SunoPlan, SunoAnswer, SunoSubmitted> {
  readonly platform = SUNO_PLATFORM;
  readonly channelTypes = SUNO_TYPES;
  readonly retries = true;

  constructor(
    private readonly options: OptionService,
    private readonly repository: TaskRepository,
    private readonly client: SunoClient,
  ) {}

  validate(_caller: RelayCaller, { action, body }: SunoSubmitInput): SunoPlan {
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
    if (!request.callBackUrl) request.callBackUrl = `${this.options.string('ServerAddress')}/suno/callback`;
    if (request.continue_clip_id && !request.task_id) throw taskError('invalid_request', 'task id is empty', 400);
    return { action, priceKey: sunoPriceKey(action), request, body: upstreamSubmitBody(request) };
  }

  /** A continuation goes to the channel that made the song it continues. */
  async origin(caller: RelayCaller, { request }: SunoPlan): Promise<number | undefined> {
    if (!request.continue_clip_id || !request.task_id) return undefined;
    const origin = await this.repository.byTaskId(caller.user.id, request.task_id);
    if (!origin) throw taskError('task_not_exist', 'task_origin_not_exist', 400);
    return Number(origin.channel_id);
  }

  submit({ channel, key }: TaskTarget, plan: SunoPlan): Promise<SunoAnswer> {
    return this.client.submit(channel.endpoint, key, plan.action, plan.body);
  }

  /** A 200's body is new-api's TaskResponse[string]: code 'success' and the task id as data. */
  parse({ status, text }: SunoAnswer, _plan: SunoPlan, channel: RelayChannel): TaskParse<SunoSubmitted> {
    const words = maskSecrets(text, channel.allKeys);
    if (status !== 200) {
      return {
        kind: 'failed',
        error: taskError('fail_to_fetch_task', words || `upstream status ${status}`, status),
        retry: retryable(status),
        upstreamError: 'status',
      };
    }
    const unreadable = (): TaskParse<SunoSubmitted> => ({
      kind: 'failed',
      error: taskError('unmarshal_response_body_failed', `response body: ${words.slice(0, 500)}`, 500),
      upstreamError: 'unusable',
    });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return unreadable();
    }
    const answer = sunoSubmitAnswerSchema.safeParse(json);
    if (!answer.success) return unreadable();
    if (answer.data.code !== 'success') {
      return { kind: 'failed', error: taskError(answer.data.code || 'fail_to_fetch_task', maskSecrets(answer.data.message ?? ''), 500) };
    }
    // The tasks table keeps ids of up to 191 characters (new-api's varchar).
    const taskId = answer.data.data;
    if (typeof taskId !== 'string' || taskId === '' || taskId.length > 191) {
      return {
        kind: 'failed',
        error: taskError('unmarshal_response_body_failed', 'the upstream accepted the task without a usable task id', 500),
        upstreamError: 'unusable',
      };
    }
    return { kind: 'submitted', submitted: { accepted: true, taskId, answer: json } };
  }

  refusal(refusal: TaskRefusal): Error {
    switch (refusal.kind) {
      case 'origin_channel_missing':
        return taskError('channel_not_found', `渠道 #${refusal.channelId} 不存在 (channel not found)`, 400);
      case 'origin_channel_disabled':
        return taskError('task_channel_disable', '该任务所属渠道已被禁用', 400);
      case 'pinned_channel_unusable': {
        const id = refusal.channelId;
        if (refusal.problem === 'disabled') return new AppError('channel:disabled', `渠道 #${id} 已被禁用 (channel ${id} is disabled)`, { status: 403 });
        return new AppError('channel:not_found', `渠道 #${id} 不存在或不是 Suno 渠道 (no Suno channel ${id})`, { status: 400 });
      }
      case 'no_channel': {
        const { group, priceKey } = refusal;
        return new AppError(
          'channel:no_available_channel',
          `当前分组 ${group} 下对于模型 ${priceKey} 无可用渠道 (no available channel for model ${priceKey} in group ${group})`,
          { status: 503, type: 'new_api_error' },
        );
      }
      case 'quota_short':
        return taskError('quota_not_enough', refusal.error.message, 403, refusal.error);
      case 'unreachable':
        return taskError('do_request_failed', '请求上游地址失败', 500, refusal.cause);
      default: {
        const unreachable: never = refusal;
        throw new Error(`unknown task refusal ${String(unreachable)}`);
      }
    }
  }

  /** What Suno-API reports about a batch of tasks (POST /suno/fetch {ids}). */
  async fetchTasks({ channel, key }: TaskTarget, tasks: readonly TaskRow[]): Promise<TaskUpdate[]> {
    const byTaskId = new Map(tasks.map((task) => [task.task_id, task]));
    const answer = await this.client.fetch(channel.endpoint, key, [...byTaskId.keys()]);
    if (answer.status !== 200) throw new Error(`fetch refused (HTTP ${answer.status}): ${answer.text.slice(0, 300)}`);
    const items = parseItems(answer.text);
    if (!items) throw new Error(`fetch answer unreadable: ${answer.text.slice(0, 300)}`);
    const updates: TaskUpdate[] = [];
    for (const item of items) {
      const task = byTaskId.get(item.task_id);
      const change = task && sunoTaskChange(task, item);
      if (task && change) updates.push({ task, change });
    }
    return updates;
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
