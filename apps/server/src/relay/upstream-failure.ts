import { parseUpstreamErrorBody } from '@modelgate/protocol';
import { AppError } from '../errors/app-error.js';
import { maskSecrets } from '../lib/mask-secrets.js';
import type { RelayChannel } from '../domain/relay-cache/relay-channel.js';
import type { ErrorVerdict, UpstreamFailure } from '../providers/provider-types.js';
import type { UpstreamResponse } from '../providers/upstream-client.js';

/** An error body longer than this is cut: it is read for its message only. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Reads an upstream's error answer. `secrets` (the channel's keys) are masked out of every field
 * at once: upstreams echo the key they were given, and the failure travels on to the caller,
 * the channel's status reason and the logs.
 */
export async function readUpstreamFailure(response: UpstreamResponse, secrets: readonly string[] = []): Promise<UpstreamFailure> {
  const parts = response.collected !== undefined ? [response.collected.subarray(0, MAX_ERROR_BODY_BYTES)] : await readErrorBody(response.body);
  const text = Buffer.concat(parts).toString('utf8').slice(0, MAX_ERROR_BODY_BYTES);
  const body = parseUpstreamErrorBody(text);
  return {
    status: response.statusCode,
    message: maskSecrets(body.message, secrets) || `上游返回 HTTP ${response.statusCode} (upstream answered HTTP ${response.statusCode})`,
    type: maskSecrets(body.type, secrets),
    code: maskSecrets(body.code, secrets),
  };
}

/** An error answer's first MAX_ERROR_BODY_BYTES, and the rest let go. */
async function readErrorBody(body: UpstreamResponse['body']): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const part of body) {
      const buffer = part as Buffer;
      parts.push(buffer);
      size += buffer.length;
      if (size >= MAX_ERROR_BODY_BYTES) break;
    }
  } catch {
    // A body cut short still tells us the status.
  }
  if (!body.destroyed) body.destroy();
  return parts;
}

/** The error the client sees for an upstream's HTTP error, with the channel's status mapping and without its keys. */
export function clientErrorForFailure(failure: UpstreamFailure, verdict: ErrorVerdict, channel: RelayChannel): AppError {
  const status = channel.statusCodeMapping?.get(failure.status) ?? failure.status;
  const code = maskSecrets(failure.code, channel.allKeys);
  return new AppError(`upstream:${code || 'bad_response_status_code'}`, maskSecrets(failure.message, channel.allKeys), {
    status: status >= 400 && status <= 599 ? status : 502,
    retryable: verdict.retryable,
    type: maskSecrets(failure.type, channel.allKeys) || 'upstream_error',
  });
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/**
 * A request that got no HTTP answer: refused, reset, or timed out. The client is not told the
 * upstream's address; the server log has the details.
 */
export function clientErrorForConnection(error: unknown): AppError {
  const code = (error as { code?: string })?.code ?? '';
  if (TIMEOUT_CODES.has(code)) return upstreamTimeout(error);
  return new AppError('upstream:connection_failed', '无法连接上游服务 (could not reach the upstream)', {
    status: 502,
    retryable: true,
    type: 'upstream_error',
    cause: error,
  });
}

/** The upstream stayed silent for RELAY_TIMEOUT (or a stream before its first byte) before anything reached the client. */
export function upstreamTimeout(cause?: unknown): AppError {
  return new AppError('upstream:timeout', '上游响应超时 (the upstream did not answer in time)', {
    status: 504,
    retryable: true,
    type: 'upstream_error',
    cause,
  });
}

/**
 * A 200 answer the relay cannot use (not JSON where JSON is due). Nothing reached the client and
 * nothing is billed; another channel may answer properly.
 */
export function badResponseBody(reason: string): AppError {
  return new AppError('upstream:bad_response_body', `上游返回的内容无效 (the upstream's answer is unusable: ${reason})`, {
    status: 502,
    retryable: true,
    type: 'upstream_error',
  });
}
