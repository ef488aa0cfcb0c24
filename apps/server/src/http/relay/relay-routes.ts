import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../errors/app-error.js';
import { toAppError } from '../../errors/render.js';
import { PLAYGROUND_ENDPOINT, RELAY_ENDPOINTS } from '../../relay/relay-endpoints.js';
import type { RelayRuntime } from '../../relay/relay-runtime.js';
import type { TaskRuntime } from '../../relay/tasks/task-runtime.js';
import type { RealtimeRelay } from '../../relay/realtime/realtime-relay.js';
import { channelTestRoutes } from '../api/channel-test.js';
import type { RouteMethods } from '../route-methods.js';
import { billingDashboardRoutes } from './billing-dashboard-routes.js';
import { installRelayBodyParsers, RELAY_BODY_LIMIT, refusedWhileReadingBody } from './relay-body-parsers.js';
import { modelRoutes } from './model-routes.js';
import { nativeRoutes } from './native-routes.js';
import { midjourneyRoutes } from './midjourney-routes.js';
import { sunoRoutes } from './suno-routes.js';
import { realtimeRoutes } from './realtime-routes.js';

/**
 * The relay in OpenAI's, Anthropic's and Gemini's formats (/v1/*, /v1beta/*, /dashboard/billing/*), the Realtime API
 * (GET /v1/realtime, a WebSocket), the console's playground (/pg/chat/completions) and the channel health endpoints.
 * The relay lives in its own plugin scope for its body parsers; errors render in the OpenAI
 * shape through the app's error handler.
 */
export function relayRoutes(
  app: FastifyInstance,
  context: AppContext,
  runtime: RelayRuntime,
  tasks: TaskRuntime,
  routeMethods: RouteMethods,
  realtime: RealtimeRelay,
): void {
  void app.register(async (scope) => {
    await runtime.ready;
    installRelayBodyParsers(scope);
    // A call refused while its body was read (too large, not JSON, nested too deep) never reaches
    // the relay, which counts every other call itself: it is counted here, then rendered by the
    // app's error handler, which a scope's handler that throws hands its error to. The task scopes
    // (/mj, /suno) answer in their own shapes and count every call when it is answered.
    scope.setErrorHandler((error, request, reply) => {
      if (refusedWhileReadingBody(error)) {
        runtime.metrics.failed(request.routeOptions.url ?? request.url.split('?')[0]!, '', toAppError(error).status, reply.elapsedTime);
      }
      throw error;
    });

    // Browser apps call the relay directly with their own keys, as with one-api and new-api.
    scope.addHook('onRequest', (request, reply, done) => {
      reply.header('access-control-allow-origin', '*');
      if (request.method !== 'OPTIONS') {
        done();
        return;
      }
      void reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST, OPTIONS')
        .header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? '*')
        .header('access-control-max-age', '86400')
        .send();
    });

    for (const spec of RELAY_ENDPOINTS) {
      // The service sends or hijacks the reply itself. Its promise resolves to nothing once the
      // answer is out (Fastify then has nothing to wait on), or to the reply while a piped answer
      // still flows.
      scope.post(spec.path, { bodyLimit: RELAY_BODY_LIMIT }, (request, reply) => runtime.service.handle(request, reply, spec));
    }
    scope.post(PLAYGROUND_ENDPOINT.path, { bodyLimit: RELAY_BODY_LIMIT }, (request, reply) =>
      runtime.service.handleSession(request, reply, PLAYGROUND_ENDPOINT),
    );
    nativeRoutes(scope, context, runtime, RELAY_BODY_LIMIT);
    midjourneyRoutes(scope, runtime, tasks.midjourney);
    modelRoutes(scope, runtime);
    billingDashboardRoutes(scope, context, runtime);
    sunoRoutes(scope, runtime, tasks.suno);
    // In a scope of its own: the WebSocket plugin wraps every route registered beside it.
    void scope.register((realtimeScope) => realtimeRoutes(realtimeScope, realtime));

    // A path a route serves under another method (GET on /v1/chat/completions) is the caller's 405.
    scope.all('/v1/*', async (request, reply) => {
      const wrongMethod = routeMethods.refusal(request.method, request.url);
      if (wrongMethod) {
        reply.header('allow', wrongMethod.allow);
        throw wrongMethod.error;
      }
      throw new AppError('request:api_not_implemented', `接口 ${request.method} ${request.url.split('?')[0]} 尚未实现 (API not implemented)`, {
        status: 501,
        type: 'new_api_error',
      });
    });
  });

  channelTestRoutes(app, context, runtime);
}
