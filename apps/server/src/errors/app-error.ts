import { maskSecrets } from '../lib/mask-secrets.js';

/**
 * The one error type. `code` is namespaced (`quota:insufficient`, `channel:invalid_key`),
 * `status` is the HTTP status the caller sees, `retryable` says whether another channel may help.
 * Messages are masked before they leave the process (see maskSecrets).
 */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly retryable: boolean;
  /** OpenAI `error.type` to render on the relay. */
  readonly type: string;
  /** A `code` the console's answer carries beside `message` (new-api's VERIFICATION_REQUIRED). */
  readonly apiCode: string | undefined;

  constructor(code: string, message: string, options: { status?: number; retryable?: boolean; type?: string; apiCode?: string; cause?: unknown } = {}) {
    super(maskSecrets(message), { cause: options.cause });
    this.code = code;
    this.status = options.status ?? 400;
    this.retryable = options.retryable ?? false;
    this.type = options.type ?? defaultTypeFor(this.status);
    this.apiCode = options.apiCode;
  }

  /** The short code without its namespace, used as OpenAI's `error.code`. */
  get shortCode(): string {
    const index = this.code.indexOf(':');
    return index === -1 ? this.code : this.code.slice(index + 1);
  }
}

function defaultTypeFor(status: number): string {
  if (status >= 500) return 'server_error';
  if (status === 401 || status === 403) return 'new_api_error';
  return 'invalid_request_error';
}

export const badRequest = (message: string, code = 'request:invalid') => new AppError(code, message, { status: 400 });
export const unauthorized = (message: string, code = 'auth:unauthorized') => new AppError(code, message, { status: 401 });
export const forbidden = (message: string, code = 'auth:forbidden') => new AppError(code, message, { status: 403 });
export const notFound = (message: string, code = 'request:not_found') => new AppError(code, message, { status: 404 });
