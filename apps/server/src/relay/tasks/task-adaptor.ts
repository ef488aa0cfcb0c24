import type { RelayChannel } from '../../domain/relay-cache/relay-channel.js';
import type { TaskChange, TaskRow } from '../../domain/tasks/task-repository.js';
import type { AppError } from '../../errors/app-error.js';
import type { UpstreamErrorKind } from '../../lib/metrics/relay-metrics.js';
import type { RelayCaller } from '../relay-caller.js';

/** What a validated submit asks for. */
export interface TaskPlan {
  /** The platform's action (`IMAGINE`, `MUSIC`): the task row's `action`, the consume log's `操作`. */
  action: string;
  /** The ModelPrice key it is priced, routed and logged by (`mj_imagine`, `suno_music`). */
  priceKey: string;
  /** Nothing is held or charged (Midjourney's INPAINT and CUSTOM_ZOOM: the MODAL that submits them pays). */
  free?: boolean;
}

/** The channel an attempt goes to, and the one of its keys it uses. */
export interface TaskTarget {
  channel: RelayChannel;
  key: string;
}

/** An upstream answer that came to a task: taken (charged) or refused in words the caller is given (released). */
export interface TaskSubmitted {
  accepted: boolean;
  /** The upstream's id of the task ('' when it gave none). */
  taskId: string;
  /** Added to the consume log after `操作 <action>` (Midjourney: `ID <task id>`). */
  logDetail?: string;
  /** The answer says the channel cannot work (no account left): the reason it is disabled with, when it may be. */
  disableChannel?: string;
}

/** What parse made of one upstream answer. */
export type TaskParse<Submitted extends TaskSubmitted> =
  | { kind: 'submitted'; submitted: Submitted }
  /** Nothing to record: `error` is the caller's answer unless another channel may do better (`retry`). */
  | { kind: 'failed'; error: Error; retry?: boolean; upstreamError?: UpstreamErrorKind };

/** The lifecycle's refusals, which each platform words in its own error shape. */
export type TaskRefusal =
  /** The channel the continued task ran on is gone. */
  | { kind: 'origin_channel_missing'; channelId: number }
  /** The channel the continued task ran on is disabled. */
  | { kind: 'origin_channel_disabled'; channelId: number }
  /** The channel an administrator's `sk-<key>-<id>` names cannot take the task. */
  | { kind: 'pinned_channel_unusable'; channelId: number; problem: 'missing' | 'wrong_type' | 'disabled' }
  | { kind: 'no_channel'; group: string; priceKey: string }
  /** The payer's balance cannot hold the price (the relay's 403). */
  | { kind: 'quota_short'; error: AppError }
  /** No answer from the upstream (a connection failure or a timeout). */
  | { kind: 'unreachable'; cause?: unknown };

/** An accepted or refused submit as it is recorded. */
export interface TaskRecord<Plan extends TaskPlan, Submitted extends TaskSubmitted> {
  caller: RelayCaller;
  plan: Plan;
  submitted: Submitted;
  channel: RelayChannel;
  /** What was charged (0 when refused or free). */
  quota: number;
  /** Date.now() when the upstream was asked. */
  submittedAt: number;
  /** keyFingerprint of the channel key it was submitted with: its polls use that key. */
  keyHash: string;
}

/** What an upstream reported about one task of the `tasks` table: the change, if any. */
export interface TaskUpdate {
  task: TaskRow;
  change: TaskChange;
}

/**
 * One kind of asynchronous task (new-api's TaskAdaptor): what is particular to a platform, while
 * TaskLifecycle runs the steps every kind shares (validate → route → hold → submit → parse →
 * charge or release → record; poll → refund once). The required core reads a request, sends it and
 * reads the answer; the optional members are what only some platforms have. A video provider is
 * one more adaptor: its wire code in providers/<name>/, this interface here, its tasks in the
 * `tasks` table, polled through fetchTasks.
 */
export interface TaskAdaptor<Input, Plan extends TaskPlan, Answer, Submitted extends TaskSubmitted> {
  /** The `tasks` table's `platform` ('suno'), the poll round's name. */
  readonly platform: string;
  /** The channel types its tasks are routed to. */
  readonly channelTypes: ReadonlySet<number>;

  /** validate and build: the caller's request checked (throws the platform's refusal) and what goes upstream. */
  validate(caller: RelayCaller, input: Input): Plan;
  /** submit: sends the plan to one channel; throws when no answer came back. */
  submit(target: TaskTarget, plan: Plan): Promise<Answer>;
  /** parse: whether the upstream took the task, and its id. Pure. */
  parse(answer: Answer, plan: Plan, channel: RelayChannel): TaskParse<Submitted>;
  /** The lifecycle's refusals in the platform's words and shape. */
  refusal(refusal: TaskRefusal): Error;

  /** A follow-up goes to the channel of the task it continues: that channel's id (the plan may take more from that task). */
  origin?(caller: RelayCaller, plan: Plan): Promise<number | undefined>;
  /** Another channel may be tried after a failed submit (up to RetryTimes); without it one channel takes the submit or fails it. */
  readonly retries?: boolean;
  /** Records the task in a table of its own (Midjourney's `midjourneys`); without it an accepted task is a `tasks` row. */
  record?(task: TaskRecord<Plan, Submitted>): Promise<void>;
  /** poll for `tasks` rows: what the channel reports about a batch of its unfinished tasks; throws when it reported nothing usable. */
  fetchTasks?(target: TaskTarget, tasks: readonly TaskRow[]): Promise<TaskUpdate[]>;
  /** poll for a table of its own: one whole round over its unfinished tasks. */
  poll?(): Promise<unknown>;
}

/** Any adaptor, where only what every kind has is used (its name, types, refusals, poll members). */
export type AnyTaskAdaptor = TaskAdaptor<never, TaskPlan, unknown, TaskSubmitted>;
