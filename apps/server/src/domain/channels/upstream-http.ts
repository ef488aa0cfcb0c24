import { request } from 'undici';
import type { z } from 'zod';
import { AppError } from '../../errors/app-error.js';

const TIMEOUT_MS = 15_000;
/** Enough for the longest model catalogues (OpenRouter's is about 1 MB). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export const upstreamFailure = (what: string, detail: string) =>
  new AppError('channel:upstream_failed', `${what}失败：${detail}`, { status: 502 });

/**
 * GETs a JSON document from a provider's management API and checks its shape. Failures become
 * a 502 AppError whose message names what failed; AppError masks any key the text carries.
 */
export async function getUpstreamJson<T extends z.ZodType>(
  url: string,
  headers: Record<string, string>,
  schema: T,
  what: string,
): Promise<z.output<T>> {
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...headers },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
  } catch (error) {
    throw upstreamFailure(what, `无法连接上游 ${new URL(url).origin}（${(error as Error).message}）`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      response.body.destroy();
      throw upstreamFailure(what, '上游响应过大');
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (response.statusCode < 200 || response.statusCode >= 300) {
    throw upstreamFailure(what, `上游返回状态码 ${response.statusCode}：${upstreamMessage(text)}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw upstreamFailure(what, '上游返回的不是 JSON');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw upstreamFailure(what, '上游返回的数据格式无法识别');
  return parsed.data;
}

/** The error text of an upstream answer, short enough for a toast. */
function upstreamMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof message === 'string' && message !== '') return message.slice(0, 300);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 300) || '(空响应)';
}

/** The first key of a channel that holds several, one per line. */
export const firstKey = (key: string): string => key.split('\n').map((line) => line.trim()).find((line) => line !== '') ?? '';
