import { ChannelStatus } from '@modelgate/contract';
import type { AppContext } from '../../app-context.js';
import type { PriorityTier } from '../../domain/relay-cache/channel-index.js';
import { nextKeyIndex, type RelayChannel } from '../../domain/relay-cache/relay-channel.js';
import type { TaskRepository } from '../../domain/tasks/task-repository.js';
import { AppError } from '../../errors/app-error.js';
import { maskSecrets } from '../../lib/mask-secrets.js';
import type { RelayMetrics } from '../../lib/metrics/relay-metrics.js';
import type { ChannelHealth } from '../channel-health.js';
import { pickChannel } from '../channel-selector.js';
import type { RelayAuthenticator } from '../relay-auth.js';
import type { RelayCaller } from '../relay-caller.js';
import type { AnyTaskAdaptor, TaskAdaptor, TaskPlan, TaskRecord, TaskSubmitted } from './task-adaptor.js';
import type { TaskBilling, TaskHold } from './task-billing.js';
import type { TaskChannels } from './task-channels.js';
import { keyFingerprint } from '../../domain/channels/multi-key.js';

export interface TaskLifecycleDeps {
  context: AppContext;
  auth: RelayAuthenticator;
  billing: TaskBilling;
  channels: TaskChannels;
  /** The `tasks` table, where an adaptor without a table of its own records its tasks. */
  repository: TaskRepository;
  metrics: RelayMetrics;
  health: ChannelHealth;
}

/** Told the price key and channel of each attempt, for the relay's call metrics. */
export type RoutedNote = (priceKey: string, channelId: number) => void;

interface Route {
  /** The first attempt's channel: the continued task's, the pinned one, or the draw from the top tier. */
  first: RelayChannel;
  /** Where later attempts are drawn from; undefined when the channel was fixed. */
  tiers?: readonly PriorityTier[];
}

/**
 * The one submit of every asynchronous task kind, as new-api's RelayTaskSubmit runs it over a
 * TaskAdaptor: validate, check the key may use the price key, route (the continued task's channel,
 * a pinned one, or the task channels' tiers), hold the price, submit and parse (stepping to another
 * channel where the adaptor allows), then charge what the upstream took or release the hold, and
 * record the task. A failure before the charge releases the hold; a task that fails later is
 * refunded once by the task poll (TaskBilling.refundPending).
 */
export class TaskLifecycle {
  constructor(private readonly deps: TaskLifecycleDeps) {}

  async submit<Input, Plan extends TaskPlan, Answer, Submitted extends TaskSubmitted>(
    adaptor: TaskAdaptor<Input, Plan, Answer, Submitted>,
    caller: RelayCaller,
    input: Input,
    routed?: RoutedNote,
  ): Promise<TaskRecord<Plan, Submitted>> {
    const { billing } = this.deps;
    const plan = adaptor.validate(caller, input);
    this.deps.auth.checkModel(caller, plan.priceKey);
    const route = await this.route(adaptor, caller, plan);
    routed?.(plan.priceKey, route.first.id);
    const hold = plan.free ? undefined : await this.hold(adaptor, caller, plan.priceKey);
    const submittedAt = Date.now();
    let sent: { channel: RelayChannel; submitted: Submitted; key: string };
    try {
      sent = await this.send(adaptor, route, plan, routed);
    } catch (error) {
      if (hold) billing.release(hold);
      throw error;
    }
    const { channel, submitted, key } = sent;
    // Once settle has begun the hold is spent: nothing after this line releases it.
    let quota = 0;
    if (hold && submitted.accepted) {
      quota = await billing.charge(hold, channel, { action: plan.action, detail: submitted.logDetail });
    } else if (hold) billing.release(hold);
    if (submitted.disableChannel) this.disable(channel, submitted.disableChannel);

    const task: TaskRecord<Plan, Submitted> = { caller, plan, submitted, channel, quota, submittedAt, keyHash: keyFingerprint(key) };
    if (adaptor.record) await adaptor.record(task);
    else if (submitted.accepted) {
      await this.deps.repository.insert({
        taskId: submitted.taskId,
        platform: adaptor.platform,
        action: plan.action,
        userId: caller.user.id,
        tokenId: caller.token.id,
        group: caller.group,
        channelId: channel.id,
        quota,
        keyHash: task.keyHash,
      });
    }
    return task;
  }

  private async route<Plan extends TaskPlan>(adaptor: TaskAdaptor<never, Plan, unknown, TaskSubmitted>, caller: RelayCaller, plan: Plan): Promise<Route> {
    const { channels } = this.deps;
    const originChannelId = adaptor.origin ? await adaptor.origin(caller, plan) : undefined;
    if (originChannelId !== undefined) {
      const channel = await channels.byId(originChannelId);
      if (!channel) throw adaptor.refusal({ kind: 'origin_channel_missing', channelId: originChannelId });
      if (channel.status !== ChannelStatus.Enabled) throw adaptor.refusal({ kind: 'origin_channel_disabled', channelId: originChannelId });
      return { first: channel };
    }
    const pinned = caller.pinnedChannelId;
    if (pinned !== undefined) {
      const channel = await channels.byId(pinned);
      if (!channel) throw adaptor.refusal({ kind: 'pinned_channel_unusable', channelId: pinned, problem: 'missing' });
      if (!adaptor.channelTypes.has(channel.type)) throw adaptor.refusal({ kind: 'pinned_channel_unusable', channelId: pinned, problem: 'wrong_type' });
      if (channel.status !== ChannelStatus.Enabled) throw adaptor.refusal({ kind: 'pinned_channel_unusable', channelId: pinned, problem: 'disabled' });
      return { first: channel };
    }
    const tiers = await channels.tiers(caller.group, plan.priceKey, adaptor.channelTypes);
    const first = tiers ? pickChannel(tiers, 0, []) : undefined;
    if (!first || !tiers) throw adaptor.refusal({ kind: 'no_channel', group: caller.group, priceKey: plan.priceKey });
    return { first, tiers };
  }

  private async hold(adaptor: AnyTaskAdaptor, caller: RelayCaller, priceKey: string): Promise<TaskHold> {
    try {
      return await this.deps.billing.hold(caller, priceKey);
    } catch (error) {
      if (error instanceof AppError && error.status === 403) throw adaptor.refusal({ kind: 'quota_short', error });
      throw error;
    }
  }

  /** Submits and parses, stepping to another channel (up to RetryTimes) where the adaptor allows and new-api would retry. */
  private async send<Plan extends TaskPlan, Answer, Submitted extends TaskSubmitted>(
    adaptor: TaskAdaptor<never, Plan, Answer, Submitted>,
    route: Route,
    plan: Plan,
    routed: RoutedNote | undefined,
  ): Promise<{ channel: RelayChannel; submitted: Submitted; key: string }> {
    const { context, metrics } = this.deps;
    const retries = route.tiers && adaptor.retries ? Math.max(0, Math.floor(context.options.number('RetryTimes'))) : 0;
    const tried: number[] = [];
    let failure: Error | undefined;
    for (let attempt = 0; attempt <= retries; attempt += 1) {
      const channel = attempt === 0 ? route.first : route.tiers && pickChannel(route.tiers, attempt, tried);
      if (!channel) break;
      if (attempt > 0) routed?.(plan.priceKey, channel.id);
      tried.push(channel.id);
      // Random or in turn, as the channel's keys are picked for any call.
      const key = channel.keys[nextKeyIndex(channel)] ?? '';
      let answer: Answer;
      try {
        answer = await adaptor.submit({ channel, key }, plan);
      } catch (error) {
        metrics.upstreamError(channel.id, 'connection');
        const reason = maskSecrets(error instanceof Error ? error.message : String(error), channel.allKeys);
        context.logger.warn({ platform: adaptor.platform, channelId: channel.id, reason }, 'task submit: the upstream did not answer');
        failure = adaptor.refusal({ kind: 'unreachable', cause: error });
        continue;
      }
      const parsed = adaptor.parse(answer, plan, channel);
      if (parsed.kind === 'submitted') return { channel, submitted: parsed.submitted, key };
      if (parsed.upstreamError) metrics.upstreamError(channel.id, parsed.upstreamError);
      failure = parsed.error;
      if (!parsed.retry) break;
    }
    throw failure ?? adaptor.refusal({ kind: 'unreachable' });
  }

  /** An answer that says the channel cannot work disables it, when auto-ban allows (new-api's rule). */
  private disable(channel: RelayChannel, reason: string): void {
    const { context, health } = this.deps;
    if (!channel.autoBan || !context.options.bool('AutomaticDisableChannelEnabled')) return;
    void health.disable(channel.id, reason).catch((error: unknown) => context.logger.error({ err: error }, 'could not disable channel'));
  }
}
