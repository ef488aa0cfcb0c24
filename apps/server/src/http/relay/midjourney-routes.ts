import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { logFailure } from '../../errors/failure-log.js';
import { toAppError } from '../../errors/render.js';
import { notFound } from '../../errors/app-error.js';
import { upstreamOf } from '../../domain/tasks/midjourney-channels.js';
import { applyReported } from '../../domain/tasks/midjourney-poller.js';
import { createMidjourneyRuntime, type MidjourneyRuntime } from '../../domain/tasks/midjourney-runtime.js';
import { NOTIFY_HOOK_PROPERTY, propertiesOf, verifyMjImage } from '../../domain/tasks/midjourney-task-state.js';
import type { MjSubmitKind } from '../../providers/midjourney/midjourney-actions.js';
import { MjUpstreamUnreachable } from '../../providers/midjourney/midjourney-client.js';
import { MjTaskDto } from '../../providers/midjourney/midjourney-wire.js';
import type { RelayCaller } from '../../relay/relay-auth.js';
import type { RelayRuntime } from '../../relay/relay-runtime.js';
import { countTaskCalls } from '../../lib/metrics/task-call-metrics.js';
import { jsonBodyOf, relaySubmit } from './midjourney-submit.js';
import { mjRefusal, mjUpstreamError, MjReply, taskDto, toMjReply } from './midjourney-answers.js';

/**
 * The speed prefixes new-api serves under /{mode}/mj/…: `/fast/mj/…` goes upstream as it came,
 * `/mj-fast/mj/…` (the other spelling proxies document) as `/mj/…`, as new-api's getMjRequestPath.
 */
export const MJ_MODES = ['fast', 'relax', 'turbo', 'mj-fast', 'mj-relax', 'mj-turbo'] as const;
const MJ_PREFIXES = ['', ...MJ_MODES.map((mode) => `/${mode}`)];
const SUBMIT_KINDS: readonly MjSubmitKind[] = [
  'imagine',
  'change',
  'simple-change',
  'describe',
  'blend',
  'action',
  'modal',
  'shorten',
  'upload-discord-images',
];
const IMAGE_TIMEOUT_MS = 60_000;
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;
/** Blend, describe and face swaps carry base64 images. */
const MJ_BODY_LIMIT = 32 * 1024 * 1024;

/**
 * midjourney-proxy's API for callers with an sk- key (`mj-api-secret` or `Authorization: Bearer`),
 * wire-compatible with new-api: submits billed per action, task reads answered from our own rows
 * (the poller keeps them current), callbacks passed on, images through the gateway on request.
 * Registered inside the relay scope (its body parsers and CORS); errors in midjourney-proxy's shape.
 */
export function midjourneyRoutes(scope: FastifyInstance, context: AppContext, relay: RelayRuntime): MidjourneyRuntime {
  const mj = createMidjourneyRuntime(context, relay);
  void scope.register(async (routes) => {
    routes.setErrorHandler((error, request, reply) => {
      const answer = toMjReply(error);
      // An MjReply is midjourney-proxy's own answer (a refusal, the upstream's words), not a failure to log.
      if (!(error instanceof MjReply)) logFailure(request.log, error, toAppError(error), request.url);
      void reply.status(answer.status).send(answer.body);
    });
    countTaskCalls(routes, relay.metrics);
    for (const prefix of MJ_PREFIXES) register(routes, context, mj, prefix);
  });
  // A path under /mj that no route serves is refused in the same shape. Beside the routes' scope,
  // so that its call counting leaves such paths out.
  for (const prefix of MJ_PREFIXES) {
    void scope.register(
      async (unknown) => {
        const unknownPath = (request: FastifyRequest, reply: FastifyReply) => {
          const answer = toMjReply(notFound(`Invalid URL (${request.method} ${request.url.split('?')[0]})`, 'request:invalid_url'));
          void reply.status(answer.status).send(answer.body);
        };
        unknown.setNotFoundHandler(unknownPath);
        // Also as a route: with the console built, its static files' GET /* would otherwise take these paths.
        unknown.all('/', unknownPath);
        unknown.all('/*', unknownPath);
      },
      { prefix: `${prefix}/mj` },
    );
  }
  return mj;
}

async function authenticate(mj: MidjourneyRuntime, request: FastifyRequest): Promise<RelayCaller> {
  // new-api's TokenAuth reads midjourney-proxy's own header as the key.
  const secret = request.headers['mj-api-secret'];
  if (typeof secret === 'string' && secret !== '') request.headers.authorization = `Bearer ${secret}`;
  return mj.relay.auth.authenticate(request);
}

/** The path the proxy is asked: the caller's, less a `/mj-<mode>` prefix (new-api's getMjRequestPath). */
export function upstreamPathOf(url: string): string {
  const path = url.split('?')[0]!;
  return /^\/mj-[\w]+\/mj\//.test(path) ? path.slice(path.indexOf('/mj/')) : path;
}
const pathOf = (request: FastifyRequest) => upstreamPathOf(request.url);

function register(routes: FastifyInstance, context: AppContext, mj: MidjourneyRuntime, prefix: string): void {
  const { options } = context;
  const forward = () => options.bool('MjForwardUrlEnabled');
  const serverAddress = () => options.string('ServerAddress');
  const secret = context.config.sessionSecret;
  const send = (reply: FastifyReply, relayed: { status: number; body: unknown }) => reply.status(relayed.status).send(relayed.body);

  for (const kind of SUBMIT_KINDS) {
    routes.post(`${prefix}/mj/submit/${kind}`, { bodyLimit: MJ_BODY_LIMIT }, async (request, reply) => {
      const caller = await authenticate(mj, request);
      return send(reply, await relaySubmit(context, mj, caller, kind, request, pathOf(request)));
    });
  }
  routes.post(`${prefix}/mj/insight-face/swap`, { bodyLimit: MJ_BODY_LIMIT }, async (request, reply) => {
    const caller = await authenticate(mj, request);
    return send(reply, await relaySubmit(context, mj, caller, 'swap-face', request, pathOf(request)));
  });

  routes.get<{ Params: { id: string } }>(`${prefix}/mj/task/:id/fetch`, async (request) => {
    const caller = await authenticate(mj, request);
    const row = await mj.repository.byUserMjId(caller.user.id, request.params.id);
    if (!row) throw mjRefusal('task_no_found');
    return taskDto(row, forward(), serverAddress(), secret);
  });

  routes.post(`${prefix}/mj/task/list-by-condition`, async (request) => {
    const caller = await authenticate(mj, request);
    const ids = jsonBodyOf(request).ids;
    if (ids !== undefined && (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))) throw mjRefusal('do_request_failed');
    const rows = await mj.repository.byUserMjIds(caller.user.id, ((ids as string[] | undefined) ?? []).slice(0, 1000));
    return rows.map((row) => taskDto(row, forward(), serverAddress(), secret));
  });

  // The seed is the proxy's to tell: asked of the channel the task ran on.
  routes.get<{ Params: { id: string } }>(`${prefix}/mj/task/:id/image-seed`, async (request, reply) => {
    const caller = await authenticate(mj, request);
    const row = await mj.repository.byUserMjId(caller.user.id, request.params.id);
    if (!row) throw mjRefusal('task_no_found');
    const channel = await mj.channels.byId(Number(row.channel_id));
    if (!channel) throw mjRefusal('get_channel_info_failed');
    if (channel.status !== 1) throw mjRefusal('该任务所属渠道已被禁用');
    try {
      const answer = await mj.client.call(upstreamOf(channel), 'GET', pathOf(request), undefined, 30_000);
      if (answer.json === undefined) throw mjUpstreamError('unmarshal_response_body_failed');
      return reply.status(answer.status).send(answer.json);
    } catch (error) {
      if (error instanceof MjUpstreamUnreachable) throw mjUpstreamError('do_request_failed');
      throw error;
    }
  });

  // The proxy's callback (MjNotifyEnabled). Its body is only a hint: the task is read back from
  // the channel it runs on, so a forged callback cannot write a task's state.
  routes.post(`${prefix}/mj/notify`, async (request) => {
    const hinted = MjTaskDto.safeParse(jsonBodyOf(request));
    if (!hinted.success) throw mjRefusal('bind_request_body_failed');
    const row = await mj.repository.byMjId(hinted.data.id);
    if (!row) throw mjRefusal('midjourney_task_not_found');
    // A finished task is not asked about again: its stored state is what the hook gets.
    if (row.progress !== '100%') {
      const channel = await mj.channels.byId(Number(row.channel_id));
      if (!channel || channel.keys.length === 0) throw mjRefusal('get_channel_info_failed');
      let reported;
      try {
        [reported] = await mj.client.listByCondition(upstreamOf(channel), [row.mj_id]);
      } catch (error) {
        if (error instanceof MjUpstreamUnreachable) throw mjUpstreamError('do_request_failed');
        throw error;
      }
      if (!reported) throw mjRefusal('midjourney_task_not_found');
      await applyReported(mj.repository, row, reported);
    }
    const hook = propertiesOf(row)[NOTIFY_HOOK_PROPERTY];
    const fresh = (await mj.repository.byMjId(row.mj_id)) ?? row;
    if (fresh.status === 'FAILURE') void mj.relay.tasks.refund('midjourneys', Number(fresh.id)).catch(() => undefined);
    if (typeof hook === 'string' && hook !== '') {
      mj.hooks
        .forward(hook, taskDto(fresh, forward(), serverAddress(), secret))
        .catch((error: unknown) =>
          context.logger.info({ mjId: row.mj_id, reason: error instanceof Error ? error.message : String(error) }, 'midjourney notifyHook not delivered'),
        );
    }
    return { code: 1, description: 'success', result: row.mj_id };
  });

  // No key (an <img> cannot send one): the signature in the address we answered is the permission.
  routes.get<{ Params: { id: string }; Querystring: { sig?: string } }>(`${prefix}/mj/image/:id`, async (request, reply) => {
    if (!verifyMjImage(secret, request.params.id, request.query.sig)) return reply.status(403).send({ error: 'invalid_signature' });
    const row = await mj.repository.byMjId(request.params.id);
    if (!row || row.image_url === '') return reply.status(400).send({ error: 'midjourney_task_not_found' });
    let answer;
    try {
      answer = await mj.client.stream(row.image_url, IMAGE_TIMEOUT_MS);
    } catch {
      return reply.status(502).send({ error: 'http_get_image_failed' });
    }
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      return reply.status(answer.statusCode >= 400 ? answer.statusCode : 502).send({ error: `upstream answered HTTP ${answer.statusCode}` });
    }
    const length = Number(answer.headers['content-length'] ?? 0);
    if (length > MAX_IMAGE_BYTES) {
      await answer.body.dump();
      return reply.status(502).send({ error: 'image_too_large' });
    }
    const type = answer.headers['content-type'];
    return reply
      .header('content-type', typeof type === 'string' && type !== '' ? type : 'image/jpeg')
      .header('cache-control', row.status === 'SUCCESS' ? 'public, max-age=86400' : 'no-cache')
      .send(answer.body);
  });
}
