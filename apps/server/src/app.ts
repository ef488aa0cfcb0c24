import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppContext } from './app-context.js';
import type { RelayRuntime } from './relay/relay-runtime.js';
import type { TaskRuntime } from './relay/tasks/task-runtime.js';
import type { RealtimeRelay } from './relay/realtime/realtime-relay.js';
import { notFound } from './errors/app-error.js';
import { renderError, toAppError, type ErrorProtocol } from './errors/render.js';
import { installApiBodyParsers } from './http/api/api-body-parsers.js';
import { authRoutes } from './http/api/auth.js';
import { verifyRoutes } from './http/api/verify.js';
import { twoFactorRoutes } from './http/api/two-factor.js';
import { passkeyRoutes } from './http/api/passkeys.js';
import type { PasskeyService } from './domain/passkeys/passkey-service.js';
import { oauthRoutes } from './http/api/oauth.js';
import { userRoutes } from './http/api/users.js';
import { channelRoutes } from './http/api/channels.js';
import { groupRoutes } from './http/api/groups.js';
import { tokenRoutes } from './http/api/tokens.js';
import { optionRoutes } from './http/api/options.js';
import { redemptionRoutes } from './http/api/redemptions.js';
import { walletRoutes } from './http/api/wallet.js';
import { notOfferedRoutes } from './http/api/not-offered.js';
import { logExportRoutes } from './http/api/log-export.js';
import { logRoutes } from './http/api/logs.js';
import { midjourneyApiRoutes } from './http/api/midjourney.js';
import { taskRoutes } from './http/api/tasks.js';
import { statusRoutes } from './http/api/status.js';
import { pricingRoutes } from './http/api/pricing.js';
import { dataRoutes } from './http/api/data.js';
import type { UsageChart } from './domain/usage/usage-chart.js';
import { compatRoutes } from './http/api/compat-routes.js';
import { userSettingRoutes } from './http/api/user-setting.js';
import { openapiRoutes } from './http/openapi/openapi-routes.js';
import { auditRoutes } from './http/api/audit.js';
import { trackAuditCoverage } from './http/audit-coverage.js';
import { relayRoutes } from './http/relay/relay-routes.js';
import { answerFailure, sendFailure } from './http/failure-reply.js';
import { laneServer, RelayLane } from './http/relay/relay-lane.js';
import { isMjModePath, isRelayPath, protocolOfPath } from './http/caller-protocol.js';
import { clientErrorHandler } from './http/client-errors.js';
import { BodyRateGuard, installRequestBodyHook } from './http/request-body.js';
import { RouteMethods } from './http/route-methods.js';
import { apiTrailingSlash } from './http/trailing-slash.js';
import { healthRoutes, isHealthPath } from './http/health-routes.js';
import { isMetricsPath, metricsRoutes } from './http/metrics-routes.js';
import type { LogOutputStats } from './lib/log-output.js';
import { lazyChildLogger } from './lib/lazy-request-logger.js';
import { enforceRateLimit } from './lib/rate-limit.js';

const API_BODY_LIMIT = 1024 * 1024;
const RATE_WINDOW_SECONDS = 180;

/** Which error shape a path's callers understand. */
export function protocolFor(request: FastifyRequest): ErrorProtocol {
  return protocolOfPath(request.url);
}

function defaultWebDist(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return resolve(here, '../../web/dist');
}

/** The services the routes use, built by the composition root (composition-root.ts). */
export interface AppServices {
  context: AppContext;
  relay: RelayRuntime;
  tasks: TaskRuntime;
  /** The Realtime API's sessions (GET /v1/realtime). */
  realtime: RealtimeRelay;
  /** Passkeys (WebAuthn): sign-in, registration, re-verification. */
  passkeys: PasskeyService;
  /** The dashboard's usage chart (quota_data and this node's sums not yet exported). */
  usageChart: UsageChart;
  /** The log destination's figures for /metrics, when the process logs through one (main.ts). */
  logOutput?: LogOutputStats;
}

export async function buildApp({ context, relay, tasks, realtime, passkeys, usageChart, logOutput }: AppServices): Promise<FastifyInstance> {
  const limits = context.config.requestLimits;
  const bodyRate = new BodyRateGuard({ minBytesPerSecond: limits.bodyMinBytesPerSecond, windowSeconds: limits.bodyRateWindowSeconds });
  // The relay's usual calls skip Fastify's request cycle (relay-lane.ts); the rest, and all of them
  // until every route is ready and again once the server closes, take Fastify's routes.
  const lane = new RelayLane({
    service: relay.service,
    metrics: relay.metrics,
    logger: context.logger as FastifyBaseLogger,
    bodyRate,
    trustedProxies: context.config.trustedProxies,
  });
  const app = Fastify({
    serverFactory: (handler, options) => laneServer(lane, handler, options),
    loggerInstance: context.logger as FastifyBaseLogger,
    bodyLimit: API_BODY_LIMIT,
    // Forwarding headers only from TRUSTED_PROXIES: trusting them from anyone let each client
    // pick its own IP and walk past every per-IP limit.
    trustProxy: context.config.trustedProxies.length > 0 ? context.config.trustedProxies : false,
    // Per-request access logs would cost the relay more than they tell; errors are logged.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
    // Routes are matched as registered (the printed routes, the route walks and the OpenAPI keys
    // are those paths); an /api path with or without its trailing slash is mapped to its route
    // before routing (trailing-slash.ts), as new-api serves both.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 500 },
    rewriteUrl: apiTrailingSlash,
    // A path that does not decode (/api/token/%zz) never reaches a route or the error handler.
    frameworkErrors: (error, request, reply) => sendFailure(request, reply, toAppError(error)),
    // Node's own 431/408/400 for a request it could not read, in the caller's shape.
    clientErrorHandler: clientErrorHandler(context.logger as FastifyBaseLogger),
    // Slow clients: headers within REQUEST_HEADERS_TIMEOUT, the whole request within REQUEST_TIMEOUT
    // (bodies also keep a minimum rate, request-body.ts). Node enforces both on a periodic sweep,
    // every 30 s by default; once a second holds them close to their limits.
    requestTimeout: limits.requestTimeoutSeconds * 1000,
    http: {
      headersTimeout: limits.headersTimeoutSeconds * 1000,
      requestTimeout: limits.requestTimeoutSeconds * 1000,
      connectionsCheckingInterval: 1000,
    },
  });

  await app.register(cookie, { secret: context.config.sessionSecret });

  installApiBodyParsers(app);
  app.addHook('onReady', (done) => {
    lane.start();
    done();
  });
  app.addHook('preClose', (done) => {
    lane.stop();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    bodyRate.close();
    done();
  });
  installRequestBodyHook(app, bodyRate);

  // A callback hook: relay calls pass straight through, without a promise of their own.
  app.addHook('onRequest', (request, _reply, done) => {
    const { rateLimits, config } = context;
    const url = request.url;
    let limited: Promise<void> | undefined;
    if (url.startsWith('/api/')) {
      limited = enforceRateLimit(rateLimits, { bucket: 'api', limit: config.rateLimits.api, windowSeconds: RATE_WINDOW_SECONDS }, request.ip);
    } else if (
      request.method === 'GET' &&
      !url.startsWith('/assets/') &&
      !isRelayPath(url) &&
      !isMjModePath(url) &&
      !isHealthPath(url) &&
      !isMetricsPath(url)
    ) {
      // Hashed assets are immutable and fetched many per page; count page loads only.
      limited = enforceRateLimit(rateLimits, { bucket: 'web', limit: config.rateLimits.web, windowSeconds: RATE_WINDOW_SECONDS }, request.ip);
    }
    if (!limited) {
      done();
      return;
    }
    limited.then(() => done(), done);
  });

  app.setErrorHandler((error, request, reply) => answerFailure(request, reply, error));

  // First among the routes: it records the methods of every relay route registered after it.
  const routeMethods = RouteMethods.install(app);

  healthRoutes(app, context);
  metricsRoutes(app, context, relay, logOutput);
  // First: their onRoute hooks record every /api route registered after them (the audit
  // declarations of admin write routes, the OpenAPI description).
  trackAuditCoverage(app);
  openapiRoutes(app, context);
  statusRoutes(app, context);
  authRoutes(app, context, relay.balances);
  verifyRoutes(app, context);
  twoFactorRoutes(app, context);
  passkeyRoutes(app, context, passkeys);
  userRoutes(app, context, relay.balances);
  oauthRoutes(app, context);
  optionRoutes(app, context);
  channelRoutes(app, context, relay.health);
  tokenRoutes(app, context, relay.balances);
  groupRoutes(app, context);
  redemptionRoutes(app, context);
  walletRoutes(app, context);
  notOfferedRoutes(app, context);
  pricingRoutes(app, context);
  dataRoutes(app, context, usageChart);
  userSettingRoutes(app, context);
  compatRoutes(app, context);
  logRoutes(app, context);
  logExportRoutes(app, context);
  auditRoutes(app, context);
  midjourneyApiRoutes(app, context, tasks);
  taskRoutes(app, context, tasks);
  relayRoutes(app, context, relay, tasks, routeMethods, realtime);

  const webDist = context.config.webDist || defaultWebDist();
  const hasConsole = existsSync(join(webDist, 'index.html'));
  if (hasConsole) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: true,
      index: false,
      setHeaders(reply, path) {
        reply.header('Cache-Control', path.includes(`${join('/', 'assets', '/')}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    // The static plugin refuses a bare directory; the root is the console's home page.
    app.get('/', async (_request, reply) => reply.header('Cache-Control', 'no-cache').sendFile('index.html'));
  }

  app.setNotFoundHandler(async (request, reply) => {
    const url = request.url;
    const wrongMethod = routeMethods.refusal(request.method, url);
    if (wrongMethod) {
      reply.header('allow', wrongMethod.allow);
      throw wrongMethod.error;
    }
    if (url.startsWith('/api/') || url === '/api' || isRelayPath(url) || isMjModePath(url) || request.method !== 'GET') {
      const error = url.startsWith('/api')
        ? notFound(`接口不存在：${request.method} ${url.split('?')[0]}`)
        : notFound(`Invalid URL (${request.method} ${url.split('?')[0]})`, 'request:invalid_url');
      return reply.status(404).send(renderError(error, protocolFor(request)));
    }
    if (!hasConsole) {
      return reply.status(404).type('text/plain; charset=utf-8').send('The console is not built. Run `npm run build` (npm start does it for you).');
    }
    // Every other path is a console route: the single-page app decides what to show.
    return reply.header('Cache-Control', 'no-cache').sendFile('index.html');
  });

  return app;
}
