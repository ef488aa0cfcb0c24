import { Toast } from '@douyinfe/semi-ui';
import { USER_ID_HEADER, type Envelope } from '@modelgate/contract';
import i18n from '../i18n';
import { clearSessionUser, getSessionUser } from './session';

/** Thrown for every failed call; `notified` tells callers the user has already seen a toast. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly notified: boolean,
    /** The answer's code beside success:false (e.g. VERIFICATION_REQUIRED), when it has one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** For catch blocks: the API client has already told the user about an ApiError; anything else is a bug and must surface. */
export function rethrowUnlessApiError(error: unknown): void {
  if (!(error instanceof ApiError)) throw error;
}

export interface ApiResult<T> {
  data: T;
  message: string;
  /** The whole answer, for the few calls that carry fields beside data (e.g. /api/user/pay's url). */
  envelope: Envelope & Record<string, unknown>;
}

type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Suppress the automatic error toast for success=false answers (the caller shows its own feedback). */
  silent?: boolean;
  /** Do not treat 401 as an expired session (e.g. a wrong password on the login form). */
  skipAuthRedirect?: boolean;
  signal?: AbortSignal;
  /** Internal: this is the retry after a security verification; a second VERIFICATION_REQUIRED is an error. */
  afterVerification?: boolean;
}

type UnauthorizedHandler = () => void;

/** new-api's code for "verify again first" (reading a channel key, changing the password or 2FA). */
export const VERIFICATION_REQUIRED = 'VERIFICATION_REQUIRED';

/** Asks the user to verify (the security verification modal); resolves true once they did, false when they gave up. */
type VerificationHandler = () => Promise<boolean>;
let verificationHandler: VerificationHandler | undefined;

/**
 * Plugs in the security verification modal: a call answered VERIFICATION_REQUIRED opens it and,
 * once the user has verified, is sent again once, so no caller handles the code itself.
 * Returns the function that unplugs it.
 */
export function setVerificationHandler(handler: VerificationHandler): () => void {
  verificationHandler = handler;
  return () => {
    if (verificationHandler === handler) verificationHandler = undefined;
  };
}

// The router lives above this module; main.tsx plugs in a handler that navigates without a reload.
let unauthorizedHandler: UnauthorizedHandler = () => {
  window.location.assign('/login?expired=true');
};

export function setUnauthorizedHandler(handler: UnauthorizedHandler): void {
  unauthorizedHandler = handler;
}

function buildUrl(path: string, query: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}${path.includes('?') ? '&' : '?'}${search}` : path;
}

function isEnvelope(value: unknown): value is Envelope {
  return typeof value === 'object' && value !== null && 'success' in value;
}

/** The global policy of spec 01 §8 for non-2xx answers; returns the text shown to the user. */
function httpErrorText(status: number, serverMessage: string): string {
  switch (status) {
    case 429:
      return i18n.t('common:errors.tooManyRequests');
    case 500:
      return i18n.t('common:errors.internal');
    case 405:
      return i18n.t('common:errors.demoSite');
    default:
      return i18n.t('common:errors.withMessage', { message: serverMessage || `HTTP ${status}` });
  }
}

/** Sends a call with the session's header and cookie; a network failure is toasted and thrown. */
async function send(method: string, path: string, options: RequestOptions, accept = 'application/json'): Promise<Response> {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store', Accept: accept };
  const userId = getSessionUser()?.id;
  if (userId !== undefined) headers[USER_ID_HEADER] = String(userId);
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';

  try {
    return await fetch(buildUrl(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    const text = i18n.t('common:errors.network');
    Toast.error(text);
    throw new ApiError(text, 0, true);
  }
}

async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResult<T>> {
  return readAnswer<T>(await send(method, path, options), method, path, options);
}

/**
 * A file download (a CSV export): the answer, its body unread, when the server sends the file;
 * a refusal (the envelope) is handled as any call's (toast, 401 redirect) and thrown.
 */
async function download(path: string, options: Omit<RequestOptions, 'body'> = {}): Promise<Response> {
  const response = await send('GET', path, options, '*/*');
  const type = response.headers.get('Content-Type') ?? '';
  if (response.ok && !type.includes('application/json')) return response;
  await readAnswer(response, 'GET', path, options);
  // An envelope with success:true where a file was expected.
  const text = i18n.t('common:errors.badResponse');
  if (!options.silent) Toast.error(text);
  throw new ApiError(text, response.status, !options.silent);
}

/** An answer's envelope, with the global policy for failures (toast, 401 redirect, verification). */
async function readAnswer<T>(response: Response, method: string, path: string, options: RequestOptions): Promise<ApiResult<T>> {
  const payload: unknown = await response.json().catch(() => null);
  const serverMessage = isEnvelope(payload) && typeof payload.message === 'string' ? payload.message : '';

  if (response.status === 401 && !options.skipAuthRedirect) {
    clearSessionUser();
    unauthorizedHandler();
    throw new ApiError(serverMessage || i18n.t('common:errors.sessionExpired'), 401, true);
  }

  if (!response.ok) {
    const text = httpErrorText(response.status, serverMessage);
    if (!options.silent) Toast.error(text);
    throw new ApiError(serverMessage || text, response.status, !options.silent);
  }

  if (!isEnvelope(payload)) {
    const text = i18n.t('common:errors.badResponse');
    if (!options.silent) Toast.error(text);
    throw new ApiError(text, response.status, !options.silent);
  }

  if (!payload.success) {
    const text = serverMessage || i18n.t('common:errors.unknown');
    const answeredCode: unknown = (payload as Envelope & { code?: unknown }).code;
    const code = typeof answeredCode === 'string' ? answeredCode : undefined;
    if (code === VERIFICATION_REQUIRED && verificationHandler && !options.afterVerification) {
      if (await verificationHandler()) return request<T>(method, path, { ...options, afterVerification: true });
      // The user closed the verification: they know why nothing happened.
      throw new ApiError(text, response.status, true, code);
    }
    if (!options.silent) Toast.error(text);
    throw new ApiError(text, response.status, !options.silent, code);
  }

  return { data: payload.data as T, message: serverMessage, envelope: payload as Envelope & Record<string, unknown> };
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'body'>) => request<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, { ...options, body }),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', path, { ...options, body }),
  delete: <T>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
  download,
};
