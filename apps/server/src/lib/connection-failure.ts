/**
 * Says in words why an upstream gave no usable HTTP answer, for console messages: undici's own
 * texts ("other side closed", "Headers Timeout Error", "This operation was aborted") do not tell
 * an administrator whether to wait, fix the address or look at the provider.
 */

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);
const RESET_CODES = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);
const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);

export interface ConnectionFailureContext {
  /** The caller's own deadline fired (an AbortSignal.timeout), whatever undici made of it. */
  timedOut: boolean;
  timeoutMs: number;
  /** Where the call went (scheme, host, port: no path, no credentials), named in the message. */
  origin?: string;
}

function codeOf(error: unknown): string {
  const candidate = error as { code?: unknown; name?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof candidate?.code === 'string') return candidate.code;
  if (typeof candidate?.cause?.code === 'string') return candidate.cause.code;
  return typeof candidate?.name === 'string' ? candidate.name : '';
}

/** A few words on a failed outgoing request (webhooks, user-supplied URLs), for logs and messages. */
export function networkFailureReason(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return 'request failed';
  if (NOT_FOUND_CODES.has(code)) return 'no such host';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (RESET_CODES.has(code)) return 'connection reset';
  if (TIMEOUT_CODES.has(code)) return 'connection timed out';
  return `request failed (${code})`;
}

export function describeConnectionFailure(error: unknown, context: ConnectionFailureContext): string {
  const code = codeOf(error);
  const seconds = Number((context.timeoutMs / 1000).toFixed(1));
  if (context.timedOut || TIMEOUT_CODES.has(code) || code === 'TimeoutError') {
    return `上游响应超时 (upstream timed out after ${seconds} s)`;
  }
  const where = context.origin ? ` ${context.origin}` : '';
  if (RESET_CODES.has(code)) return `无法连接上游${where} (connection reset)`;
  if (code === 'ECONNREFUSED') return `无法连接上游${where} (connection refused)`;
  if (NOT_FOUND_CODES.has(code)) return `无法连接上游${where} (host not found)`;
  const detail = error instanceof Error && error.message ? error.message : String(error);
  return `无法连接上游${where} (${detail})`;
}
