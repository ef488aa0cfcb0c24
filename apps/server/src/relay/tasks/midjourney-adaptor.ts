import { ChannelType } from '@modelgate/contract';
import type { OptionService } from '../../domain/options/option-service.js';
import type { MidjourneyRepository, NewMidjourney } from '../../domain/tasks/midjourney-repository.js';
import { NOTIFY_HOOK_PROPERTY } from '../../domain/tasks/midjourney-task-state.js';
import {
  clearModeFlags,
  isFreeAction,
  MjRequestRefusal,
  planSubmit,
  priceKeyOf,
  type MjAction,
  type MjSubmitKind,
} from '../../providers/midjourney/midjourney-actions.js';
import type { MidjourneyClient, MjAnswer } from '../../providers/midjourney/midjourney-client.js';
import { MJ_ACCEPTED_CODES, MJ_NO_INSTANCE, MJ_REQUEST_ERROR, MjSubmitAnswer, MjSubmitRequest } from '../../providers/midjourney/midjourney-wire.js';
import type { RelayCaller } from '../relay-caller.js';
import { mjRefusal, mjUpstreamError, MjReply } from './midjourney-replies.js';
import { upstreamOf, type MidjourneyPoller } from './midjourney-poller.js';
import type { TaskAdaptor, TaskParse, TaskPlan, TaskRecord, TaskRefusal, TaskSubmitted, TaskTarget } from './task-adaptor.js';

const SUBMIT_TIMEOUT_MS = 60_000;
const MJ_TYPES: ReadonlySet<number> = new Set([ChannelType.Midjourney, ChannelType.MidjourneyPlus]);

/** A submit as the route read it: which endpoint, the caller's JSON body, and the path the proxy is asked. */
export interface MjSubmitInput {
  kind: MjSubmitKind;
  body: Record<string, unknown>;
  upstreamPath: string;
}

export interface MjPlan extends TaskPlan {
  action: MjAction;
  kind: MjSubmitKind;
  /** What goes upstream: the caller's body, less what the options keep back. */
  body: Record<string, unknown>;
  upstreamPath: string;
  /** The task a follow-up works on (upscale, variation, modal...). */
  originTaskId: string | undefined;
  /** The prompt the row keeps: the caller's, or a follow-up's original one. */
  prompt: string;
  /** The caller's notifyHook, kept while the proxy calls our /mj/notify. */
  callerHook: string | undefined;
}

export interface MjSubmitted extends TaskSubmitted {
  /** The proxy's HTTP status, passed on to the caller. */
  status: number;
  /** The proxy's answer as the caller gets it. */
  reply: Record<string, unknown>;
  /** The `midjourneys` row, less who paid, where and when. */
  row: Omit<NewMidjourney, 'userId' | 'tokenId' | 'channelId' | 'quota' | 'submitTime'>;
}

/**
 * Midjourney as a task kind (new-api's RelayMidjourneySubmit): the endpoint's action and its price
 * key, a follow-up sent to its original task's channel, one channel per submit, the proxy's codes
 * 1, 21 and 22 charged (a face swap 1 only), and every answered submit recorded in `midjourneys`,
 * a refused one as FAILURE. Its rows are polled by MidjourneyPoller.
 */
export class MidjourneyAdaptor implements TaskAdaptor<MjSubmitInput, MjPlan, MjAnswer, MjSubmitted> {
  readonly platform = 'midjourney';
  readonly channelTypes = MJ_TYPES;

  constructor(
    private readonly options: OptionService,
    private readonly repository: MidjourneyRepository,
    private readonly client: MidjourneyClient,
    private readonly poller: MidjourneyPoller,
  ) {}

  validate(_caller: RelayCaller, { kind, body, upstreamPath }: MjSubmitInput): MjPlan {
    const { options } = this;
    const parsed = MjSubmitRequest.safeParse(body);
    if (!parsed.success) throw mjRefusal('bind_request_body_failed');
    let submit;
    try {
      submit = planSubmit(kind, parsed.data);
    } catch (error) {
      if (error instanceof MjRequestRefusal) throw mjRefusal(error.message);
      throw error;
    }
    // What goes upstream: new-api drops accountFilter and notifyHook unless their options allow them.
    const upstream = { ...body };
    let callerHook: string | undefined;
    if (!options.bool('MjAccountFilterEnabled')) delete upstream.accountFilter;
    if (!options.bool('MjNotifyEnabled')) delete upstream.notifyHook;
    else if (typeof upstream.notifyHook === 'string' && upstream.notifyHook !== '') {
      const serverAddress = options.string('ServerAddress').replace(/\/+$/, '');
      // With our own address known the proxy calls us and we pass the callback on; else, as new-api, the caller's hook goes as is.
      if (serverAddress !== '') {
        callerHook = upstream.notifyHook;
        upstream.notifyHook = `${serverAddress}/mj/notify`;
      }
    }
    if (options.bool('MjModeClearEnabled') && typeof upstream.prompt === 'string') upstream.prompt = clearModeFlags(upstream.prompt);
    if (submit.index !== undefined && kind === 'change') upstream.index = submit.index;
    return {
      action: submit.action,
      priceKey: priceKeyOf(submit.action),
      free: isFreeAction(submit.action),
      kind,
      body: upstream,
      upstreamPath,
      originTaskId: submit.originTaskId,
      prompt: parsed.data.prompt ?? '',
      callerHook,
    };
  }

  async origin(caller: RelayCaller, plan: MjPlan): Promise<number | undefined> {
    if (plan.originTaskId === undefined) return undefined;
    const origin = await this.repository.byUserMjId(caller.user.id, plan.originTaskId);
    if (!origin) throw mjRefusal('task_not_found');
    if (this.options.bool('MjActionCheckSuccessEnabled') && origin.status !== 'SUCCESS' && plan.kind !== 'modal') throw mjRefusal('task_status_not_success');
    plan.prompt = origin.prompt;
    return Number(origin.channel_id);
  }

  submit({ channel, key }: TaskTarget, plan: MjPlan): Promise<MjAnswer> {
    return this.client.call(upstreamOf(channel, key), 'POST', plan.upstreamPath, plan.body, SUBMIT_TIMEOUT_MS);
  }

  parse(answer: MjAnswer, plan: MjPlan): TaskParse<MjSubmitted> {
    const submitted = MjSubmitAnswer.safeParse(answer.json);
    if (!submitted.success) {
      return {
        kind: 'failed',
        error: mjUpstreamError(answer.text === '' ? 'empty_response_body' : 'unmarshal_response_body_failed', answer.status >= 400 ? answer.status : 502),
        upstreamError: answer.status >= 300 ? 'status' : 'unusable',
      };
    }
    const result = submitted.data;
    const mjId = typeof result.result === 'string' ? result.result : '';
    // new-api charges a face swap only on code 1; the drawings on 1, 21 and 22.
    const accepted = answer.status === 200 && (plan.kind === 'swap-face' ? result.code === 1 : MJ_ACCEPTED_CODES.has(result.code));
    const row: MjSubmitted['row'] = {
      code: result.code,
      action: plan.action,
      mjId,
      prompt: plan.kind === 'swap-face' ? 'InsightFace' : plan.prompt,
      description: result.description,
      status: accepted ? 'SUBMITTED' : 'FAILURE',
      progress: accepted ? '0%' : '100%',
      failReason: accepted ? '' : result.description,
      properties: plan.callerHook ? JSON.stringify({ [NOTIFY_HOOK_PROPERTY]: plan.callerHook }) : '',
      imageUrl: '',
      startTime: 0,
      finishTime: 0,
    };
    const reply = { ...(answer.json as Record<string, unknown>) };
    if (result.code === 21) {
      // Already there: with a result the task is finished, and the caller is told it was submitted.
      const properties = result.properties as Record<string, unknown> | undefined;
      if (typeof properties?.imageUrl === 'string' && typeof properties.status === 'string') {
        row.imageUrl = properties.imageUrl;
        row.status = properties.status;
        if (properties.status === 'SUCCESS') Object.assign(row, { progress: '100%', startTime: Date.now(), finishTime: Date.now(), code: 1 });
      }
      if (!plan.free) reply.code = 1;
    }
    if (result.code === 22) reply.code = 1;
    if (result.code === 1 && plan.action === 'UPLOAD') Object.assign(row, { progress: '100%', status: 'SUCCESS' });
    return {
      kind: 'submitted',
      submitted: {
        accepted,
        taskId: mjId,
        logDetail: `ID ${mjId}`,
        disableChannel: result.code === MJ_NO_INSTANCE ? 'No available account instance' : undefined,
        status: answer.status,
        reply,
        row,
      },
    };
  }

  refusal(refusal: TaskRefusal): Error {
    switch (refusal.kind) {
      case 'origin_channel_missing':
        return mjRefusal('get_channel_info_failed');
      case 'origin_channel_disabled':
        return mjRefusal('该任务所属渠道已被禁用');
      case 'pinned_channel_unusable':
        return new MjReply(403, MJ_REQUEST_ERROR, `渠道 #${refusal.channelId} 不可用 (channel unavailable)`, 'new_api_error');
      case 'no_channel':
        return new MjReply(
          503,
          MJ_REQUEST_ERROR,
          `当前分组 ${refusal.group} 下对于模型 ${refusal.priceKey} 无可用渠道 (no available channel)`,
          'new_api_error',
        );
      case 'quota_short':
        return refusal.error;
      case 'unreachable':
        return mjUpstreamError('do_request_failed');
      default: {
        const unreachable: never = refusal;
        throw new Error(`unknown task refusal ${String(unreachable)}`);
      }
    }
  }

  /** Every answered submit is a row, a refused one as FAILURE with nothing charged (as new-api records them). */
  async record({ caller, submitted, channel, quota, submittedAt, keyHash }: TaskRecord<MjPlan, MjSubmitted>): Promise<void> {
    await this.repository.insert({
      ...submitted.row,
      userId: caller.user.id,
      tokenId: caller.token.id,
      channelId: channel.id,
      quota,
      submitTime: submittedAt,
      keyHash,
    });
  }

  poll(): Promise<number> {
    return this.poller.pollTasks();
  }
}
