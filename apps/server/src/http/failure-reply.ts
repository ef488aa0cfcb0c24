import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { AppError } from '../errors/app-error.js';
import { logFailure } from '../errors/failure-log.js';
import { apiStatusFor, renderError, toAppError } from '../errors/render.js';
import type { RelayReply } from '../relay/relay-exchange.js';
import { protocolOfPath } from './caller-protocol.js';
import { hasRequestBody } from './request-body.js';

/** What answering a failure reads of its request: Fastify's, or the relay lane's. */
export interface FailedRequest {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: IncomingMessage;
  readonly log: FastifyBaseLogger;
}

/** Answers a failure in the caller's protocol; on /api by new-api's status rule (apiStatusFor). */
export function sendFailure(request: Omit<FailedRequest, 'log'>, reply: RelayReply, appError: AppError): void {
  const protocol = protocolOfPath(request.url);
  // A body refused before it was all read (too slow, too large, not decodable): what is left of
  // it is not read, so the connection cannot carry another request.
  if (request.raw.readableEnded === false && hasRequestBody(request.headers)) reply.header('connection', 'close');
  reply.code(protocol === 'api' ? apiStatusFor(appError) : appError.status).send(renderError(appError, protocol));
}

/** The error handler's work (app.ts, and the relay lane's for its calls): logged at its level, then answered unless an answer is out. */
export function answerFailure(request: FailedRequest, reply: RelayReply, error: unknown): void {
  const appError = toAppError(error);
  logFailure(request.log, error, appError, request.url);
  if (reply.sent || reply.raw.headersSent) return;
  sendFailure(request, reply, appError);
}
