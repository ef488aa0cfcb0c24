import { request } from 'undici';
import type { z } from 'zod';
import { AppError } from '../../errors/app-error.js';
import { describeConnectionFailure } from '../../lib/connection-failure.js';
import { maskSecrets } from '../../lib/mask-secrets.js';

/** Enough for the longest model catalogues (OpenRouter's is about 1 MB). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** One console call to a provider's management API: what it is for, the keys it carries, how long it may take. */
export interface UpstreamCall {
  /** Named in every failure message: `查询余额`, `获取模型列表`. */
  what: string;
  /** The channel's keys; upstreams echo them in their errors, and no message may carry them. */
  secrets: readonly string[];
  /** The whole exchange, headers and body, must end within this (CHANNEL_TEST_TIMEOUT). */
  timeoutMs: number;
}

/**
 * A provider's answer the console cannot use. The console API answers it as new-api does, HTTP
 * 200 with success false: a 5xx would read as the gateway's own fault, and the message says whose it is.
 */
export const upstreamFailure = (call: UpstreamCall, detail: string) =>
  new AppError('channel:upstream_failed', maskSecrets(`${call.what}失败：${detail}`, call.secrets), { status: 200 });

/**
 * GETs a JSON document from a provider's management API and checks its shape. Every failure,
 * a silent or vanished upstream included, becomes an upstreamFailure naming what went wrong.
 */
export async function getUpstreamJson<T extends z.ZodType>(call: UpstreamCall, url: string, headers: Record<string, string>, schema: T): Promise<z.output<T>> {
  const deadline = AbortSignal.timeout(call.timeoutMs);
  const origin = new URL(url).origin;
  const failed = (error: unknown) => upstreamFailure(call, describeConnectionFailure(error, { timedOut: deadline.aborted, timeoutMs: call.timeoutMs, origin }));
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, { method: 'GET', headers: { accept: 'application/json', ...headers }, signal: deadline });
  } catch (error) {
    throw failed(error);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        response.body.destroy();
        throw upstreamFailure(call, '上游响应过大');
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    // An upstream that sends its headers and then stalls or hangs up fails here, not above.
    throw error instanceof AppError ? error : failed(error);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (response.statusCode < 200 || response.statusCode >= 300) {
    throw upstreamFailure(call, `上游返回状态码 ${response.statusCode}：${upstreamMessage(text, call.secrets)}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw upstreamFailure(call, '上游返回的不是 JSON');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw upstreamFailure(call, '上游返回的数据格式无法识别');
  return parsed.data;
}

/** The error text of an upstream answer, short enough for a toast; masked before it is cut, so no key is left half-shown. */
function upstreamMessage(text: string, secrets: readonly string[]): string {
  let message = text;
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const inner = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof inner === 'string' && inner !== '') message = inner;
  } catch {
    // not JSON: the raw text is the message
  }
  return maskSecrets(message, secrets).slice(0, 300) || '(空响应)';
}

/** The first key of a channel that holds several, one per line. */
export const firstKey = (key: string): string =>
  key
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '') ?? '';
