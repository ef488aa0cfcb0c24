import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound, type AppError } from '../../errors/app-error.js';
import { logFailure } from '../../errors/failure-log.js';
import { toAppError } from '../../errors/render.js';
import { sunoActionOf, sunoFetchRequestSchema } from '../../providers/suno/suno-wire.js';
import type { RelayCaller } from '../../relay/relay-caller.js';
import type { RelayRequestBody } from '../../relay/relay-input.js';
import type { RelayRuntime } from '../../relay/relay-runtime.js';
import { taskError } from '../../relay/tasks/suno-adaptor.js';
import type { SunoTasks } from '../../relay/tasks/suno-tasks.js';
import { countTaskCalls, noteTaskCall } from '../../lib/metrics/task-call-metrics.js';

/** Submit bodies are a few fields of text. */
const SUNO_BODY_LIMIT = 1024 * 1024;

/**
 * A failure as new-api's TaskError: the short form of the namespaced code (`invalid_api_key`,
 * `no_available_channel`, a task stage's `invalid_request`, `invalid_json` ...), the message, no data.
 */
const sunoFailure = (error: AppError) => ({ code: error.shortCode, message: error.message, data: null });

/** The JSON of a relay body (the relay scope's parsers keep it beside its text); undefined for none. */
const jsonOf = (body: unknown): unknown => ((body as RelayRequestBody | undefined)?.kind === 'json' ? (body as { json: unknown }).json : undefined);

/**
 * The Suno relay, as new-api serves it (router/relay-router.go): POST /suno/submit/{music,lyrics},
 * POST /suno/fetch {ids}, GET /suno/fetch/{id}, with a relay key (`Authorization: Bearer sk-…`).
 * Answers {code:'success', message, data}; every failure {code, message, data:null} with its status,
 * as new-api's TaskError: the key, channel, body and unknown-path refusals too (new-api answers its
 * key check in OpenAI's shape; a Suno client reads only this one). The routes read the request and
 * answer; what a call does is SunoTasks' (relay/tasks/).
 */
export function sunoRoutes(scope: FastifyInstance, runtime: RelayRuntime, tasks: SunoTasks): void {
  const caller = async (request: FastifyRequest): Promise<RelayCaller> => {
    const authenticated = runtime.auth.authenticate(request);
    return authenticated instanceof Promise ? await authenticated : authenticated;
  };

  void scope.register(
    async (suno) => {
      suno.setErrorHandler((error, request, reply) => {
        const appError = toAppError(error);
        logFailure(request.log, error, appError, request.url);
        if (reply.sent) return;
        void reply.status(appError.status).send(sunoFailure(appError));
      });
      const unknownPath = (request: FastifyRequest, reply: FastifyReply) => {
        const path = request.url.split('?')[0]!;
        void reply.status(404).send(sunoFailure(notFound(`Invalid URL (${request.method} ${path})`, 'request:invalid_url')));
      };
      suno.setNotFoundHandler(unknownPath);
      // Also as a route: with the console built, its static files' GET /* would otherwise take
      // these paths and answer with the app's own 404.
      suno.all('/', unknownPath);
      suno.all('/*', unknownPath);

      // A child scope, so that its call counting leaves out the paths no route serves.
      await suno.register(async (routes) => {
        countTaskCalls(routes, runtime.metrics);

        // new-api's /suno/submit/:action, the action upper-cased: MUSIC or LYRICS.
        routes.post('/submit/:action', { bodyLimit: SUNO_BODY_LIMIT }, async (request) => {
          const who = await caller(request);
          const action = sunoActionOf((request.params as { action: string }).action);
          if (!action) throw taskError('invalid_request', 'invalid_action', 400);
          const body = jsonOf(request.body);
          if (request.body !== undefined && body === undefined) throw taskError('invalid_request', '请求体需要是 JSON (the body must be JSON)', 400);
          return tasks.submit(who, { action, body }, (model, channel) => noteTaskCall(request, model, channel));
        });

        routes.post('/fetch', { bodyLimit: SUNO_BODY_LIMIT }, async (request) => {
          const who = await caller(request);
          const parsed = sunoFetchRequestSchema.safeParse(jsonOf(request.body) ?? {});
          if (!parsed.success)
            throw taskError('invalid_request', '请求参数错误：ids 需要是任务 ID 的数组 (ids must be an array of task ids, at most 1000)', 400);
          return { code: 'success', message: '', data: await tasks.fetchMany(who, parsed.data.ids ?? []) };
        });

        routes.get('/fetch/:id', async (request) => {
          const who = await caller(request);
          const { id } = request.params as { id: string };
          return { code: 'success', message: '', data: await tasks.fetchOne(who, id) };
        });
      });
    },
    { prefix: '/suno' },
  );
}
