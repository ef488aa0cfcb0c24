import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { logFailure } from '../../errors/failure-log.js';
import { toAppError } from '../../errors/render.js';
import { notFound } from '../../errors/app-error.js';
import type { MjSubmitKind } from '../../providers/midjourney/midjourney-actions.js';
import { MjTaskDto } from '../../providers/midjourney/midjourney-wire.js';
import type { RelayCaller } from '../../relay/relay-caller.js';
import type { RelayRuntime } from '../../relay/relay-runtime.js';
import { mjRefusal, MjReply, toMjReply } from '../../relay/tasks/midjourney-replies.js';
import type { MidjourneyTasks } from '../../relay/tasks/midjourney-tasks.js';
import { countTaskCalls, noteTaskCall } from '../../lib/metrics/task-call-metrics.js';

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
/** Blend, describe and face swaps carry base64 images. */
const MJ_BODY_LIMIT = 32 * 1024 * 1024;

/**
 * midjourney-proxy's API for callers with an sk- key (`mj-api-secret` or `Authorization: Bearer`),
 * wire-compatible with new-api. The routes read the request and answer; what a call does is
 * MidjourneyTasks' (relay/tasks/). Registered inside the relay scope (its body parsers and CORS);
 * errors in midjourney-proxy's shape.
 */
export function midjourneyRoutes(scope: FastifyInstance, relay: RelayRuntime, mj: MidjourneyTasks): void {
  void scope.register(async (routes) => {
    routes.setErrorHandler((error, request, reply) => {
      const answer = toMjReply(error);
      // An MjReply is midjourney-proxy's own answer (a refusal, the upstream's words), not a failure to log.
      if (!(error instanceof MjReply)) logFailure(request.log, error, toAppError(error), request.url);
      void reply.status(answer.status).send(answer.body);
    });
    countTaskCalls(routes, relay.metrics);
    for (const prefix of MJ_PREFIXES) register(routes, relay, mj, prefix);
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
}

async function authenticate(relay: RelayRuntime, request: FastifyRequest): Promise<RelayCaller> {
  // new-api's TokenAuth reads midjourney-proxy's own header as the key.
  const secret = request.headers['mj-api-secret'];
  if (typeof secret === 'string' && secret !== '') request.headers.authorization = `Bearer ${secret}`;
  return relay.auth.authenticate(request);
}

/** The caller's JSON body as an object (the relay's body parser read it). */
function jsonBodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body as { kind?: string; json?: unknown } | undefined;
  if (body?.kind !== 'json' || typeof body.json !== 'object' || body.json === null || Array.isArray(body.json)) {
    throw mjRefusal('bind_request_body_failed');
  }
  return { ...(body.json as Record<string, unknown>) };
}

/** The path the proxy is asked: the caller's, less a `/mj-<mode>` prefix (new-api's getMjRequestPath). */
export function upstreamPathOf(url: string): string {
  const path = url.split('?')[0]!;
  return /^\/mj-[\w]+\/mj\//.test(path) ? path.slice(path.indexOf('/mj/')) : path;
}
const pathOf = (request: FastifyRequest) => upstreamPathOf(request.url);

function register(routes: FastifyInstance, relay: RelayRuntime, mj: MidjourneyTasks, prefix: string): void {
  const send = (reply: FastifyReply, relayed: { status: number; body: unknown }) => reply.status(relayed.status).send(relayed.body);
  const submit = async (request: FastifyRequest, reply: FastifyReply, kind: MjSubmitKind) => {
    const caller = await authenticate(relay, request);
    const input = { kind, body: jsonBodyOf(request), upstreamPath: pathOf(request) };
    return send(reply, await mj.submit(caller, input, (model, channel) => noteTaskCall(request, model, channel)));
  };

  for (const kind of SUBMIT_KINDS) {
    routes.post(`${prefix}/mj/submit/${kind}`, { bodyLimit: MJ_BODY_LIMIT }, (request, reply) => submit(request, reply, kind));
  }
  routes.post(`${prefix}/mj/insight-face/swap`, { bodyLimit: MJ_BODY_LIMIT }, (request, reply) => submit(request, reply, 'swap-face'));

  routes.get<{ Params: { id: string } }>(`${prefix}/mj/task/:id/fetch`, async (request) => {
    const caller = await authenticate(relay, request);
    return mj.fetch(caller, request.params.id);
  });

  routes.post(`${prefix}/mj/task/list-by-condition`, async (request) => {
    const caller = await authenticate(relay, request);
    const ids = jsonBodyOf(request).ids;
    if (ids !== undefined && (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))) throw mjRefusal('do_request_failed');
    return mj.list(caller, (ids as string[] | undefined) ?? []);
  });

  routes.get<{ Params: { id: string } }>(`${prefix}/mj/task/:id/image-seed`, async (request, reply) => {
    const caller = await authenticate(relay, request);
    return send(reply, await mj.imageSeed(caller, request.params.id, pathOf(request)));
  });

  // The proxy's callback (MjNotifyEnabled): no key, its body only a hint (MidjourneyTasks.notify).
  routes.post(`${prefix}/mj/notify`, async (request) => {
    const hinted = MjTaskDto.safeParse(jsonBodyOf(request));
    if (!hinted.success) throw mjRefusal('bind_request_body_failed');
    return mj.notify(hinted.data);
  });

  routes.get<{ Params: { id: string }; Querystring: { sig?: string } }>(`${prefix}/mj/image/:id`, async (request, reply) => {
    const image = await mj.image(request.params.id, request.query.sig);
    if ('error' in image) return reply.status(image.status).send({ error: image.error });
    return reply.header('content-type', image.contentType).header('cache-control', image.cacheControl).send(image.body);
  });
}
