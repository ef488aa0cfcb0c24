import { z } from 'zod';

/** What an upstream said went wrong, read from any of the error shapes OpenAI-style APIs use. */
export interface UpstreamErrorBody {
  message: string;
  type: string;
  code: string;
}

const errorObject = z
  .object({
    message: z.unknown().optional(),
    type: z.unknown().optional(),
    code: z.unknown().optional(),
    status: z.unknown().optional(),
  })
  .loose();

const errorEnvelope = z
  .object({
    error: z.union([errorObject, z.string()]).optional(),
    message: z.unknown().optional(),
    detail: z.unknown().optional(),
    type: z.unknown().optional(),
    code: z.unknown().optional(),
  })
  .loose();

const asText = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return '';
};

/**
 * Reads `{"error":{"message","type","code"}}`, `{"error":"..."}`, `{"message":...}` or
 * `{"detail":...}`; any other body becomes its first 500 characters as the message.
 */
export function parseUpstreamErrorBody(text: string): UpstreamErrorBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { message: text.trim().slice(0, 500), type: '', code: '' };
  }
  const parsed = errorEnvelope.safeParse(json);
  if (!parsed.success) return { message: text.trim().slice(0, 500), type: '', code: '' };
  const body = parsed.data;
  if (typeof body.error === 'string') return { message: body.error, type: asText(body.type), code: asText(body.code) };
  if (body.error) {
    const message = typeof body.error.message === 'string' ? body.error.message : JSON.stringify(body.error.message ?? '');
    // Google's errors name their kind in `status` (PERMISSION_DENIED, RESOURCE_EXHAUSTED) and put the HTTP status in `code`.
    return { message, type: asText(body.error.type) || asText(body.error.status), code: asText(body.error.code) };
  }
  const detail = typeof body.detail === 'string' ? body.detail : body.detail === undefined ? '' : JSON.stringify(body.detail);
  return { message: asText(body.message) || detail || text.trim().slice(0, 500), type: asText(body.type), code: asText(body.code) };
}
