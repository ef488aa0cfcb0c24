import { AppError } from './app-error.js';

export type ErrorProtocol = 'api' | 'openai' | 'anthropic' | 'gemini';

/** The body of an error in the caller's protocol. */
export function renderError(error: AppError, protocol: ErrorProtocol): unknown {
  switch (protocol) {
    case 'api':
      return { success: false, message: error.message };
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

function geminiStatusFor(status: number): string {
  if (status === 400) return 'INVALID_ARGUMENT';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 503) return 'UNAVAILABLE';
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
    default:
      if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') return '请求体不是合法的 JSON';
      return error.message ?? '无效的请求';
  }
}
