import { ChannelStatus } from '@modelgate/contract';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../app-context.js';
import type { MidjourneyRepository } from '../../domain/tasks/midjourney-repository.js';
import { NOTIFY_HOOK_PROPERTY, propertiesOf, verifyMjImage } from '../../domain/tasks/midjourney-task-state.js';
import { MjUpstreamUnreachable, type MidjourneyClient } from '../../providers/midjourney/midjourney-client.js';
import type { MjTaskDto } from '../../providers/midjourney/midjourney-wire.js';
import type { RelayCaller } from '../relay-caller.js';
import { MidjourneyAdaptor, type MjSubmitInput } from './midjourney-adaptor.js';
import { MidjourneyHooks } from './midjourney-hooks.js';
import { applyReported, MidjourneyPoller, upstreamOf } from './midjourney-poller.js';
import { mjRefusal, mjUpstreamError, taskDto } from './midjourney-replies.js';
import type { TaskBilling } from './task-billing.js';
import type { TaskChannels } from './task-channels.js';
import type { RoutedNote, TaskLifecycle } from './task-lifecycle.js';

const SEED_TIMEOUT_MS = 30_000;
const IMAGE_TIMEOUT_MS = 60_000;
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;

/** An answer passed on with the proxy's status. */
export interface MjRelayed {
  status: number;
  body: unknown;
}

/** A picture streamed from the proxy's address, or why not (midjourney-proxy's `{error}` answers). */
export type MjImage = { status: number; error: string } | { status: 200; contentType: string; cacheControl: string; body: Readable };

export interface MidjourneyTasksDeps {
  context: AppContext;
  lifecycle: TaskLifecycle;
  billing: TaskBilling;
  channels: TaskChannels;
  repository: MidjourneyRepository;
  client: MidjourneyClient;
}

/**
 * midjourney-proxy's API over the task lifecycle: submits through the MidjourneyAdaptor; task reads
 * from our own rows (the poll keeps them current); the seed asked of the task's channel; the
 * proxy's callbacks read back from the channel and passed on to the caller's hook; images streamed
 * through the gateway behind a signed address.
 */
export class MidjourneyTasks {
  readonly adaptor: MidjourneyAdaptor;
  /** Its rounds run in the shared TaskPoller (master only, every TASK_POLL_INTERVAL s); `pollOnce()` for a round now. */
  readonly poller: MidjourneyPoller;
  readonly repository: MidjourneyRepository;
  /** Posts callbacks to callers' notifyHooks; tests swap in one that may reach local addresses. */
  hooks = new MidjourneyHooks();

  constructor(private readonly deps: MidjourneyTasksDeps) {
    const { context, repository, channels, client, billing } = deps;
    this.repository = repository;
    this.poller = new MidjourneyPoller(context, repository, channels, client, billing);
    this.adaptor = new MidjourneyAdaptor(context.options, repository, client, this.poller);
  }

  async submit(caller: RelayCaller, input: MjSubmitInput, routed?: RoutedNote): Promise<MjRelayed> {
    const { submitted } = await this.deps.lifecycle.submit(this.adaptor, caller, input, routed);
    return { status: submitted.status, body: submitted.reply };
  }

  /** GET /mj/task/{id}/fetch: the caller's own task. */
  async fetch(caller: RelayCaller, mjId: string) {
    const row = await this.repository.byUserMjId(caller.user.id, mjId);
    if (!row) throw mjRefusal('task_no_found');
    return this.dto(row);
  }

  /** POST /mj/task/list-by-condition: those of the caller's own tasks. */
  async list(caller: RelayCaller, mjIds: readonly string[]) {
    const rows = await this.repository.byUserMjIds(caller.user.id, mjIds.slice(0, 1000));
    return rows.map((row) => this.dto(row));
  }

  /** GET /mj/task/{id}/image-seed: the seed is the proxy's to tell, asked of the channel the task ran on. */
  async imageSeed(caller: RelayCaller, mjId: string, upstreamPath: string): Promise<MjRelayed> {
    const row = await this.repository.byUserMjId(caller.user.id, mjId);
    if (!row) throw mjRefusal('task_no_found');
    const channel = await this.deps.channels.byId(Number(row.channel_id));
    if (!channel) throw mjRefusal('get_channel_info_failed');
    if (channel.status !== ChannelStatus.Enabled) throw mjRefusal('该任务所属渠道已被禁用');
    try {
      const answer = await this.deps.client.call(upstreamOf(channel), 'GET', upstreamPath, undefined, SEED_TIMEOUT_MS);
      if (answer.json === undefined) throw mjUpstreamError('unmarshal_response_body_failed');
      return { status: answer.status, body: answer.json };
    } catch (error) {
      if (error instanceof MjUpstreamUnreachable) throw mjUpstreamError('do_request_failed');
      throw error;
    }
  }

  /**
   * POST /mj/notify, the proxy's callback (MjNotifyEnabled). Its body is only a hint: the task is
   * read back from the channel it runs on, so a forged callback cannot write a task's state.
   */
  async notify(hint: MjTaskDto): Promise<{ code: number; description: string; result: string }> {
    const { repository, channels, client, billing, context } = this.deps;
    const row = await repository.byMjId(hint.id);
    if (!row) throw mjRefusal('midjourney_task_not_found');
    // A finished task is not asked about again: its stored state is what the hook gets.
    if (row.progress !== '100%') {
      const channel = await channels.byId(Number(row.channel_id));
      if (!channel || channel.keys.length === 0) throw mjRefusal('get_channel_info_failed');
      let reported;
      try {
        [reported] = await client.listByCondition(upstreamOf(channel), [row.mj_id]);
      } catch (error) {
        if (error instanceof MjUpstreamUnreachable) throw mjUpstreamError('do_request_failed');
        throw error;
      }
      if (!reported) throw mjRefusal('midjourney_task_not_found');
      await applyReported(repository, row, reported);
    }
    const hook = propertiesOf(row)[NOTIFY_HOOK_PROPERTY];
    const fresh = (await repository.byMjId(row.mj_id)) ?? row;
    if (fresh.status === 'FAILURE') void billing.refund('midjourneys', Number(fresh.id)).catch(() => undefined);
    if (typeof hook === 'string' && hook !== '') {
      this.hooks
        .forward(hook, this.dto(fresh))
        .catch((error: unknown) =>
          context.logger.info({ mjId: row.mj_id, reason: error instanceof Error ? error.message : String(error) }, 'midjourney notifyHook not delivered'),
        );
    }
    return { code: 1, description: 'success', result: row.mj_id };
  }

  /** GET /mj/image/{id}?sig=: no key (an <img> cannot send one), so the signature in the address we answered is the permission. */
  async image(mjId: string, sig: unknown): Promise<MjImage> {
    if (!verifyMjImage(this.deps.context.config.sessionSecret, mjId, sig)) return { status: 403, error: 'invalid_signature' };
    const row = await this.repository.byMjId(mjId);
    if (!row || row.image_url === '') return { status: 400, error: 'midjourney_task_not_found' };
    let answer;
    try {
      answer = await this.deps.client.stream(row.image_url, IMAGE_TIMEOUT_MS);
    } catch {
      return { status: 502, error: 'http_get_image_failed' };
    }
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      return { status: answer.statusCode >= 400 ? answer.statusCode : 502, error: `upstream answered HTTP ${answer.statusCode}` };
    }
    const length = Number(answer.headers['content-length'] ?? 0);
    if (length > MAX_IMAGE_BYTES) {
      await answer.body.dump();
      return { status: 502, error: 'image_too_large' };
    }
    const type = answer.headers['content-type'];
    return {
      status: 200,
      contentType: typeof type === 'string' && type !== '' ? type : 'image/jpeg',
      cacheControl: row.status === 'SUCCESS' ? 'public, max-age=86400' : 'no-cache',
      body: answer.body,
    };
  }

  /** Waits for a poll round under way, then closes the proxy and hook connections (before the relay closes). */
  async close(): Promise<void> {
    await this.poller.settled();
    await this.deps.client.close();
    await this.hooks.close();
  }

  private dto(row: Parameters<typeof taskDto>[0]) {
    const { options, config } = this.deps.context;
    return taskDto(row, options.bool('MjForwardUrlEnabled'), options.string('ServerAddress'), config.sessionSecret);
  }
}
