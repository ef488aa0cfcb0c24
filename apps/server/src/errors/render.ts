import { AppError } from './app-error.js';

export type ErrorProtocol = 'api' | 'openai' | 'anthropic' | 'gemini';

/**
 * The codes of a console call made without a usable session or access token: the only /api
 * failures answered 401, as new-api's auth middleware does (its console then sends the user to
 * the login page). A wrong password or a refused OAuth state is a failed operation, not a lost session.
 */
const SESSION_FAILURE_CODES: ReadonlySet<string> = new Set([
  'auth:not_logged_in',
  'auth:invalid_access_token',
  'auth:user_deleted',
  'auth:missing_user_header',
  'auth:user_header_mismatch',
  'auth:user_banned',
]);

/**
 * Refusals of the request's transport, made before any route read it: a body sent too slowly
 * (408), a Content-Encoding we cannot decode (415; an unsupported Content-Type stays new-api's
 * 200), a header or URL too large (431). Like 413, they keep their status on /api.
 */
const TRANSPORT_FAILURE_CODES: ReadonlySet<string> = new Set([
  'request:body_timeout',
  'request:timeout',
  'request:unsupported_encoding',
  'request:header_too_large',
]);

/**
 * The HTTP status of a failed /api call. new-api answers its console's failures (validation,
 * rules, a missing role, a missing resource, an upstream or mail failure) with 200 and
 * {success:false, message}: its axios console and the scripts written for it read the message
 * only from a 200. Kept apart: 401 for a missing or dead session, 413 for an oversized body,
 * the transport's refusals above, 429 for a rate limit, and 500 for a fault of our own (an
 * unexpected error, masked). The AppError keeps its own status for logs and for the relay's protocols.
 */
export function apiStatusFor(error: AppError): number {
  if (error.status === 401) return SESSION_FAILURE_CODES.has(error.code) ? 401 : 200;
  if (error.status === 413 || error.status === 429 || error.status === 500) return error.status;
  if (TRANSPORT_FAILURE_CODES.has(error.code)) return error.status;
  return 200;
}

/** The body of an error in the caller's protocol. */
export function renderError(error: AppError, protocol: ErrorProtocol): unknown {
  switch (protocol) {
    case 'api':
      return error.apiCode === undefined ? { success: false, message: error.message } : { success: false, message: error.message, code: error.apiCode };
    case 'openai':
      return { error: { message: error.message, type: error.type, param: null, code: error.shortCode } };
    case 'anthropic':
      return { type: 'error', error: { type: anthropicTypeFor(error.status), message: error.message } };
    case 'gemini':
      return { error: { code: error.status, message: error.message, status: geminiStatusFor(error.status) } };
    default: {
      const unreachable: never = protocol;
      return unreachable;
    }
  }
}

function anthropicTypeFor(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** Google's mapping of HTTP statuses to its RPC codes; other 4xx are the request's fault. */
function geminiStatusFor(status: number): string {
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 408 || status === 504) return 'DEADLINE_EXCEEDED';
  if (status === 409) return 'ABORTED';
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 405 || status === 501) return 'UNIMPLEMENTED';
  if (status === 503) return 'UNAVAILABLE';
  if (status >= 400 && status < 500) return 'INVALID_ARGUMENT';
  return 'INTERNAL';
}

/** Maps anything thrown to an AppError; unknown errors become a masked 500. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const candidate = error as { statusCode?: number; code?: string; message?: string; validation?: unknown };
  if (typeof candidate?.statusCode === 'number' && candidate.statusCode >= 400 && candidate.statusCode < 500) {
    return new AppError(`request:${String(candidate.code ?? 'invalid').toLowerCase()}`, clientMessageFor(candidate), {
      status: candidate.statusCode,
    });
  }
  return new AppError('server:internal', '服务器内部错误，请联系管理员', { status: 500, cause: error });
}

function clientMessageFor(error: { statusCode?: number; code?: string; message?: string }): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return '请求体过大';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return '不支持的 Content-Type';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return '请求体为空，需要 JSON';
    case 'FST_ERR_BAD_URL':
      return '请求地址不是合法的 URL 编码';
    default:
      if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') return '请求体不是合法的 JSON';
      return error.message ?? '无效的请求';
  }
}
