import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';

/**
 * What the relay reads of a request. Fastify's request has all of it; so has the relay lane's
 * (http/relay/relay-lane.ts), which serves the usual relay calls straight from node:http. The
 * relay's code is written against this, so that the type checker holds both to it.
 */
export interface RelayRequest {
  readonly headers: IncomingHttpHeaders;
  /** The parsed body (a RelayRequestBody); the playground rewrites it. */
  body: unknown;
  readonly url: string;
  readonly method: string;
  /** The client's address, through TRUSTED_PROXIES' forwarding headers when they are set. */
  readonly ip: string;
  readonly query: unknown;
  readonly raw: IncomingMessage;
  readonly log: FastifyBaseLogger;
}

/** What the relay does to a response: Fastify's reply, or the relay lane's. */
export interface RelayReply {
  readonly raw: ServerResponse;
  readonly statusCode: number;
  /** The answer went out whole, or was taken over (`hijack`) to be written to `raw` directly. */
  readonly sent: boolean;
  /** Milliseconds since the request arrived. */
  readonly elapsedTime: number;
  code(statusCode: number): RelayReply;
  header(name: string, value: unknown): RelayReply;
  getHeaders(): Record<string, number | string | string[] | undefined>;
  /** Sends a Buffer or string as it is, anything else as JSON. */
  send(payload?: unknown): RelayReply;
  /** From here on the answer is written to `raw` directly. */
  hijack(): RelayReply;
}
