import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { exceedsJsonDepth, jsonTooDeep } from '../../lib/json-depth.js';
import type { RelayRequestBody } from '../../relay/relay-input.js';

/** Audio uploads and long multimodal prompts need far more than the console's 1 MiB. */
export const RELAY_BODY_LIMIT = 32 * 1024 * 1024;

const invalidJson = () => new AppError('request:invalid_json', '请求体不是合法的 JSON (the request body is not valid JSON)', { status: 400 });

/** Every JSON body the relay reads; the depth scan costs about 1.2 µs on a 2 KB chat body, half a JSON.parse (README). */
export function parseJsonBody(raw: string): RelayRequestBody | AppError {
  if (exceedsJsonDepth(raw)) return jsonTooDeep();
  try {
    return { kind: 'json', raw, json: JSON.parse(raw) };
  } catch {
    return invalidJson();
  }
}

/** The refusals of reading a body: the parsers' own and the transport's (../request-body.ts). */
const BODY_REFUSAL_CODES: ReadonlySet<string> = new Set([
  'request:invalid_json',
  'request:json_too_deep',
  'request:unsupported_encoding',
  'request:invalid_encoding',
  'request:body_too_large',
  'request:body_timeout',
]);

/**
 * An error of reading a relay call's body, before any handler ran: Fastify's content-type parsing
 * errors (a body past the limit, a bad length), the decoding and rate refusals, and the relay
 * parsers' own refusals.
 */
export function refusedWhileReadingBody(error: unknown): boolean {
  if (error instanceof AppError) return BODY_REFUSAL_CODES.has(error.code);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('FST_ERR_CTP_');
}

const deliver = (parsed: RelayRequestBody | AppError, done: (error: Error | null, body?: unknown) => void) =>
  parsed instanceof AppError ? done(parsed, undefined) : done(null, parsed);

/**
 * The relay's own body parsers, inside its plugin scope: JSON keeps its source text so it can be
 * forwarded untouched, multipart stays raw bytes (parsed once to read the model), and a body of
 * any other type is tried as JSON, as clients often omit the content type.
 */
export function installRelayBodyParsers(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();

  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request: FastifyRequest, body: string | Buffer, done) => {
    deliver(parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')), done);
  });

  scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const raw = typeof body === 'string' ? Buffer.from(body) : body;
    done(null, { kind: 'multipart', raw, contentType: String(request.headers['content-type']) } satisfies RelayRequestBody);
  });

  scope.addContentTypeParser('*', { parseAs: 'string' }, (_request: FastifyRequest, body: string | Buffer, done) => {
    const raw = typeof body === 'string' ? body : body.toString('utf8');
    if (raw.trim() === '') {
      done(null, undefined);
      return;
    }
    deliver(parseJsonBody(raw), done);
  });
}
