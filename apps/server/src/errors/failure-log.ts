import type { FastifyBaseLogger } from 'fastify';
import type { AppError } from './app-error.js';

export type FailureLevel = 'error' | 'warn' | 'info';

/**
 * How loud a failed request is logged. Error, with the stack, only for a fault of our own: an
 * unexpected throw (rendered as server:internal) or a 500 we raised (a missing guard, Redis
 * down, a channel we cannot build a request for). A refusal we answer on purpose with a 5xx (no
 * channel, not implemented, mail not configured) and every failure an upstream returned are
 * warnings; the caller's own mistakes (4xx) are info. Neither carries a stack: it would point at
 * the line that refused, and an alert on error must not fire because a client sent GET to a POST route.
 */
export function failureLevel(appError: AppError): FailureLevel {
  if (appError.status < 500) return 'info';
  if (appError.status === 500 && !appError.code.startsWith('upstream:')) return 'error';
  return 'warn';
}

/** Logs a failed request at its level. The query is left out: Gemini's clients put their key there. */
export function logFailure(log: FastifyBaseLogger, error: unknown, appError: AppError, url: string): void {
  const path = url.split('?')[0];
  const level = failureLevel(appError);
  if (level === 'error') {
    log.error({ err: error, url: path }, 'request failed');
    return;
  }
  log[level]({ url: path, status: appError.status, code: appError.code, reason: appError.message }, level === 'info' ? 'request refused' : 'request failed');
}
