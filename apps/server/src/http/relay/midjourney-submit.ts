import { ChannelStatus } from '@modelgate/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { upstreamOf } from '../../domain/tasks/midjourney-channels.js';
import type { MidjourneyRuntime } from '../../domain/tasks/midjourney-runtime.js';
import { NOTIFY_HOOK_PROPERTY } from '../../domain/tasks/midjourney-task-state.js';
import type { TaskHold } from '../../domain/tasks/task-billing.js';
import type { RelayChannel } from '../../domain/relay-cache/relay-channel.js';
import type { RelayCaller } from '../../relay/relay-auth.js';
import { clearModeFlags, isFreeAction, MjRequestRefusal, planSubmit, priceKeyOf, type MjSubmitKind } from '../../providers/midjourney/midjourney-actions.js';
import { MjUpstreamUnreachable } from '../../providers/midjourney/midjourney-client.js';
import { MJ_ACCEPTED_CODES, MJ_NO_INSTANCE, MjSubmitAnswer, MjSubmitRequest } from '../../providers/midjourney/midjourney-wire.js';
import { mjRefusal, mjUpstreamError, MjReply } from './midjourney-answers.js';
import { noteTaskCall } from '../../lib/metrics/task-call-metrics.js';

const SUBMIT_TIMEOUT_MS = 60_000;

export interface MjRelayed {
  status: number;
  body: unknown;
}

/** The caller's JSON body as an object (the relay's body parser read it). */
export function jsonBodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body as { kind?: string; json?: unknown } | undefined;
  if (body?.kind !== 'json' || typeof body.json !== 'object' || body.json === null || Array.isArray(body.json)) {
    throw mjRefusal('bind_request_body_failed');
  }
  return { ...(body.json as Record<string, unknown>) };
}

/**
 * One submit, as new-api's RelayMidjourneySubmit: read the action, find the channel (a follow-up
 * goes to its original task's channel), hold the price, ask the proxy, charge when it accepted
 * (codes 1, 21, 22) or give the hold back, and record the task.
 */
export async function relaySubmit(
  context: AppContext,
  mj: MidjourneyRuntime,
  caller: RelayCaller,
  kind: MjSubmitKind,
  request: FastifyRequest,
  upstreamPath: string,
): Promise<MjRelayed> {
  const { options } = context;
  const body = jsonBodyOf(request);
  const parsed = MjSubmitRequest.safeParse(body);
  if (!parsed.success) throw mjRefusal('bind_request_body_failed');
  let plan;
  try {
    plan = planSubmit(kind, parsed.data);
  } catch (error) {
    if (error instanceof MjRequestRefusal) throw mjRefusal(error.message);
    throw error;
  }
  const priceKey = priceKeyOf(plan.action);
  mj.relay.auth.checkModel(caller, priceKey);

  let prompt = parsed.data.prompt ?? '';
  let channel: RelayChannel | undefined;
  if (plan.originTaskId !== undefined) {
    const origin = await mj.repository.byUserMjId(caller.user.id, plan.originTaskId);
    if (!origin) throw mjRefusal('task_not_found');
    if (options.bool('MjActionCheckSuccessEnabled') && origin.status !== 'SUCCESS' && kind !== 'modal') throw mjRefusal('task_status_not_success');
    channel = await mj.channels.byId(Number(origin.channel_id));
    if (!channel) throw mjRefusal('get_channel_info_failed');
    if (channel.status !== ChannelStatus.Enabled) throw mjRefusal('该任务所属渠道已被禁用');
    prompt = origin.prompt;
  } else if (caller.pinnedChannelId !== undefined) {
    channel = await mj.channels.byId(caller.pinnedChannelId);
    if (!channel || channel.status !== ChannelStatus.Enabled)
      throw new MjReply(403, 4, `渠道 #${caller.pinnedChannelId} 不可用 (channel unavailable)`, 'new_api_error');
  } else {
    channel = await mj.channels.pick(caller.group, priceKey);
    if (!channel) throw new MjReply(503, 4, `当前分组 ${caller.group} 下对于模型 ${priceKey} 无可用渠道 (no available channel)`, 'new_api_error');
  }

  // What goes upstream: new-api drops accountFilter and notifyHook unless their options allow them.
  let callerHook: string | undefined;
  if (!options.bool('MjAccountFilterEnabled')) delete body.accountFilter;
  if (!options.bool('MjNotifyEnabled')) delete body.notifyHook;
  else if (typeof body.notifyHook === 'string' && body.notifyHook !== '') {
    const serverAddress = options.string('ServerAddress').replace(/\/+$/, '');
    // With our own address known the proxy calls us and we pass the callback on; else, as new-api, the caller's hook goes as is.
    if (serverAddress !== '') {
      callerHook = body.notifyHook;
      body.notifyHook = `${serverAddress}/mj/notify`;
    }
  }
  if (options.bool('MjModeClearEnabled') && typeof body.prompt === 'string') body.prompt = clearModeFlags(body.prompt);
  if (plan.index !== undefined && kind === 'change') body.index = plan.index;

  noteTaskCall(request, priceKey, channel.id);
  const hold: TaskHold | undefined = isFreeAction(plan.action) ? undefined : await mj.relay.tasks.hold(caller, priceKey);
  const submitTime = Date.now();
  let answer;
  try {
    answer = await mj.client.call(upstreamOf(channel), 'POST', upstreamPath, body, SUBMIT_TIMEOUT_MS);
  } catch (error) {
    if (hold) mj.relay.tasks.release(hold);
    if (error instanceof MjUpstreamUnreachable) {
      mj.relay.metrics.upstreamError(channel.id, 'connection');
      context.logger.warn({ channelId: channel.id, reason: error.message }, 'midjourney submit: the proxy did not answer');
      throw mjUpstreamError('do_request_failed');
    }
    throw error;
  }
  const submitted = MjSubmitAnswer.safeParse(answer.json);
  if (!submitted.success) {
    if (hold) mj.relay.tasks.release(hold);
    mj.relay.metrics.upstreamError(channel.id, answer.status >= 300 ? 'status' : 'unusable');
    throw mjUpstreamError(answer.text === '' ? 'empty_response_body' : 'unmarshal_response_body_failed', answer.status >= 400 ? answer.status : 502);
  }
  const result = submitted.data;
  const mjId = typeof result.result === 'string' ? result.result : '';
  // new-api charges a face swap only on code 1; the drawings on 1, 21 and 22.
  const accepted = answer.status === 200 && (kind === 'swap-face' ? result.code === 1 : MJ_ACCEPTED_CODES.has(result.code));

  let quota = 0;
  if (hold && accepted) quota = await mj.relay.tasks.charge(hold, channel, `操作 ${plan.action}，ID ${mjId}`);
  else if (hold) mj.relay.tasks.release(hold);

  if (result.code === MJ_NO_INSTANCE && channel.autoBan && options.bool('AutomaticDisableChannelEnabled')) {
    void mj.relay.health
      .disable(channel.id, 'No available account instance')
      .catch((error: unknown) => context.logger.error({ err: error }, 'could not disable channel'));
  }

  const row = {
    userId: caller.user.id,
    tokenId: caller.token.id,
    code: result.code,
    action: plan.action,
    mjId,
    prompt: kind === 'swap-face' ? 'InsightFace' : prompt,
    description: result.description,
    submitTime,
    status: accepted ? 'SUBMITTED' : 'FAILURE',
    progress: accepted ? '0%' : '100%',
    failReason: accepted ? '' : result.description,
    channelId: channel.id,
    quota,
    properties: callerHook ? JSON.stringify({ [NOTIFY_HOOK_PROPERTY]: callerHook }) : '',
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
    if (!isFreeAction(plan.action)) reply.code = 1;
  }
  if (result.code === 22) reply.code = 1;
  if (result.code === 1 && plan.action === 'UPLOAD') Object.assign(row, { progress: '100%', status: 'SUCCESS' });
  await mj.repository.insert(row);
  return { status: answer.status, body: reply };
}
