import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { lazyChildLogger } from '../../lib/lazy-request-logger.js';
import type { RelayMetrics } from '../../lib/metrics/relay-metrics.js';
import { ANTHROPIC_MESSAGES_ENDPOINT, RELAY_ENDPOINTS, type RelayEndpointSpec } from '../../relay/relay-endpoints.js';
import type { RelayReply, RelayRequest } from '../../relay/relay-exchange.js';
import type { RelayService } from '../../relay/relay-service.js';
import { answerFailure } from '../failure-reply.js';
import type { BodyRateGuard } from '../request-body.js';
import { parseJsonBody, RELAY_BODY_LIMIT } from './relay-body-parsers.js';

/**
 * The endpoints the lane serves: every relayed call whose path is fixed and whose body is JSON,
 * answered whole or as an event stream. Speech (an audio answer piped as it comes), the multipart
 * uploads, Gemini's paths (the model and often the key in the URL) and the playground (a console
 * session) stay on Fastify's routes.
 */
const LANE_ENDPOINTS: ReadonlyMap<string, RelayEndpointSpec> = new Map(
  [...RELAY_ENDPOINTS.filter((spec) => spec.body === 'json' && spec.endpoint !== 'speech'), ANTHROPIC_MESSAGES_ENDPOINT].map((spec) => [spec.path, spec]),
);

const NO_QUERY: Readonly<Record<string, string>> = Object.freeze({});

/** `application/json`, with or without parameters (`; charset=utf-8`). */
function isJsonType(type: string): boolean {
  if (!type.startsWith('application/json')) return false;
  const next = type.charCodeAt(16);
  return Number.isNaN(next) || next === 59 /* ; */ || next === 32 /* space */;
}

export interface RelayLaneOptions {
  service: RelayService;
  metrics: RelayMetrics;
  logger: FastifyBaseLogger;
  /** The body pace check Fastify's routes use too (request-body.ts). */
  bodyRate: BodyRateGuard;
  /** TRUSTED_PROXIES: whose forwarding headers name the client (empty: none). */
  trustedProxies: readonly string[];
}

/**
 * The relay's usual calls, read and answered straight from node:http. Fastify's request cycle
 * (its request and reply objects, hooks, content-type parsing, route lookup and send) cost a
 * relayed call about as much as all of the relay's own routing and billing; the lane does the
 * few parts of it such a call needs and hands the call to the same RelayService.
 *
 * It takes only what it reads exactly as Fastify's routes would: POST to one of its paths with no
 * query, a JSON content type, a Content-Length within the relay's limit and no Content-Encoding.
 * Anything else (a query, a compressed or chunked body, another type, a body too large, a
 * preflight, a server that is closing) goes to Fastify, whose routes answer it as before, so the
 * lane never has to answer differently from them. Its answers are theirs: the same service, the
 * same CORS header, errors rendered, logged and counted as the relay scope's error handler does.
 */
export class RelayLane {
  private open = false;
  private readonly trust: ((address: string, hop: number) => boolean) | undefined;
  private nextId = 0;

  constructor(private readonly options: RelayLaneOptions) {
    this.trust = options.trustedProxies.length > 0 ? proxyAddr.compile([...options.trustedProxies]) : undefined;
  }

  /** Serves from now on (once every route is registered and the relay is ready). */
  start(): void {
    this.open = true;
  }

  /** Leaves every new request to Fastify, which answers 503 while the server closes. */
  stop(): void {
    this.open = false;
  }

  /** Takes one request when it is the lane's to serve; false leaves it to Fastify. */
  take(raw: IncomingMessage, response: ServerResponse): boolean {
    if (!this.open || raw.method !== 'POST') return false;
    const spec = LANE_ENDPOINTS.get(raw.url!);
    if (spec === undefined) return false;
    const headers = raw.headers;
    if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const type = headers['content-type'];
    if (type === undefined || !isJsonType(type)) return false;
    const length = Number(headers['content-length']);
    if (!(length > 0 && length <= RELAY_BODY_LIMIT)) return false;
    this.options.metrics.laneCalls += 1;
    this.read(new LaneRequest(raw, spec, this), new LaneReply(response), spec);
    return true;
  }

  /** The client's address as Fastify gives it: the socket's, or through the trusted proxies' headers. */
  clientIp(raw: IncomingMessage): string {
    if (this.trust === undefined) return raw.socket?.remoteAddress ?? '';
    const addresses = proxyAddr.all(raw, this.trust);
    return addresses[addresses.length - 1] ?? '';
  }

  requestLogger(): FastifyBaseLogger {
    this.nextId += 1;
    return lazyChildLogger(this.options.logger, { reqId: `relay-${this.nextId.toString(36)}` }, {});
  }

  private read(request: LaneRequest, reply: LaneReply, spec: RelayEndpointSpec): void {
    const raw = request.raw;
    // Fastify's relay scope sets it on every answer (relay-routes.ts); streams send it with their own headers too.
    reply.raw.setHeader('access-control-allow-origin', '*');
    const { bodyRate } = this.options;
    if (bodyRate.enabled && raw.complete === false) bodyRate.watch(raw);
    const parts: Buffer[] = [];
    let size = 0;
    raw.on('data', (part: Buffer) => {
      parts.push(part);
      size += part.length;
    });
    raw.once('error', (error) => {
      // The pace check's refusal (408) is answered; a client that hung up mid-body has no one to answer.
      if (error instanceof AppError) this.refuseBody(request, reply, spec, error);
      else raw.destroy();
    });
    raw.once('end', () => {
      const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)).toString('utf8');
      const body = parseJsonBody(text);
      if (body instanceof AppError) {
        this.refuseBody(request, reply, spec, body);
        return;
      }
      request.body = body;
      this.options.service.handle(request, reply, spec).then(undefined, (error: unknown) => this.fail(request, reply, error));
    });
  }

  /** A body refused before the relay saw it: counted here, as the relay scope's error handler counts it. */
  private refuseBody(request: LaneRequest, reply: LaneReply, spec: RelayEndpointSpec, error: AppError): void {
    this.options.metrics.failed(spec.path, '', error.status, reply.elapsedTime);
    this.fail(request, reply, error);
  }

  /** The app's error handler for the lane's calls (failure-reply.ts), and nothing may escape it into an unhandled rejection. */
  private fail(request: LaneRequest, reply: LaneReply, error: unknown): void {
    try {
      answerFailure(request, reply, error);
    } catch (problem) {
      this.options.logger.error({ err: problem }, 'a relay call could not be answered');
      reply.raw.destroy();
    }
  }
}

/** A lane call's request: what the relay reads of one (RelayRequest), read off node's request. */
class LaneRequest implements RelayRequest {
  body: unknown = undefined;
  readonly query = NO_QUERY;
  readonly method = 'POST';
  private logger: FastifyBaseLogger | undefined;

  constructor(
    readonly raw: IncomingMessage,
    private readonly spec: RelayEndpointSpec,
    private readonly lane: RelayLane,
  ) {}

  get headers() {
    return this.raw.headers;
  }

  get url(): string {
    return this.spec.path;
  }

  get ip(): string {
    return this.lane.clientIp(this.raw);
  }

  get log(): FastifyBaseLogger {
    return (this.logger ??= this.lane.requestLogger());
  }
}

/** A lane call's reply: Fastify's reply as the relay uses it (RelayReply), on node's response. */
class LaneReply implements RelayReply {
  private hijacked = false;
  private readonly startedAt = performance.now();

  constructor(readonly raw: ServerResponse) {}

  get statusCode(): number {
    return this.raw.statusCode;
  }

  get sent(): boolean {
    return this.hijacked || this.raw.writableEnded;
  }

  get elapsedTime(): number {
    return performance.now() - this.startedAt;
  }

  code(statusCode: number): this {
    this.raw.statusCode = statusCode;
    return this;
  }

  header(name: string, value: unknown): this {
    this.raw.setHeader(name, value as string | number | readonly string[]);
    return this;
  }

  getHeaders(): Record<string, number | string | string[] | undefined> {
    return this.raw.getHeaders();
  }

  hijack(): this {
    this.hijacked = true;
    return this;
  }

  /** As Fastify sends them: a Buffer or a string as it is (octet-stream or text unless typed), anything else as JSON. */
  send(payload?: unknown): this {
    const response = this.raw;
    if (this.sent || response.headersSent) return this;
    let body: Buffer | string;
    let type: string;
    if (payload === undefined || payload === null) {
      body = '';
      type = '';
    } else if (Buffer.isBuffer(payload)) {
      body = payload;
      type = 'application/octet-stream';
    } else if (typeof payload === 'string') {
      body = payload;
      type = 'text/plain; charset=utf-8';
    } else {
      body = JSON.stringify(payload);
      type = 'application/json; charset=utf-8';
    }
    if (type !== '' && !response.hasHeader('content-type')) response.setHeader('content-type', type);
    response.setHeader('content-length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
    response.end(body);
    return this;
  }
}

/** Fastify's own HTTP/1 server options (fastify.js), which it hands a server factory. */
interface FactoryOptions {
  http?: ServerOptions;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/**
 * Fastify's `serverFactory`: the HTTP/1 server Fastify would make (its timeouts and limits), whose
 * requests go to the lane first and to Fastify when the lane leaves them.
 */
export function laneServer(lane: RelayLane, fastifyHandler: RequestListener, options: FactoryOptions): Server {
  const server = createServer(options.http ?? {}, (request, response) => {
    if (!lane.take(request, response)) fastifyHandler(request, response);
  });
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
  if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
  server.setTimeout(options.connectionTimeout ?? 0);
  if (options.maxRequestsPerSocket !== undefined && options.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
  return server;
}
