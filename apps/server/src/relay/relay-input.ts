import { ConversionError, requestedMaxTokens, STREAMING_ENDPOINTS, type ChatFormat, type ChatRequest } from '@modelgate/protocol';
import { FormData, Response } from 'undici';
import { badRequest } from '../errors/app-error.js';
import type { UpstreamBody } from '../providers/provider-types.js';
import { codecFor } from './chat-codecs.js';
import { checkNativeFields, checkOpenAIFields } from './relay-input-checks.js';
import type { RelayEndpointSpec } from './relay-endpoints.js';

/** A relay request body as the relay's content-type parsers hand it over. */
export type RelayRequestBody = { kind: 'json'; raw: string; json: unknown } | { kind: 'multipart'; raw: Buffer; contentType: string };

/** What the relay needs to know about a request before choosing a channel. */
export interface RelayInput {
  spec: RelayEndpointSpec;
  model: string;
  stream: boolean;
  /** The client set stream_options.include_usage itself, so the usage chunk is its to see. */
  clientAskedUsage: boolean;
  body: UpstreamBody;
  /** The request's fields (for multipart, its text fields), read for token counting. */
  fields: Record<string, unknown>;
  /** The requested output cap (max_tokens and its spellings). */
  maxTokens: number | undefined;
  /** Calls a fixed price applies to: the number of images asked for, else 1. */
  calls: number;
  /** Size of the request text, an upper bound on its prompt tokens (a token is at least a byte). */
  byteLength: number;
  /** The wire format the client spoke (and expects its answer in). */
  format: ChatFormat;
  /**
   * A chat request in another format than OpenAI's, converted to the canonical shape (then also
   * `fields`); `body` keeps the client's own request for an upstream of its format.
   */
  canonical?: ChatRequest | undefined;
  /** What the conversion to canonical could not carry (logged once the call is routed). */
  warnings?: string[] | undefined;
  /**
   * A Responses request that has no chat form (previous_response_id on a conversation the relay
   * does not hold): it can go only to a channel that serves the Responses API itself.
   */
  conversionProblem?: string | undefined;
  /**
   * A Responses request's turn as a later previous_response_id continues it: the turn it
   * continues and its own input items (the answer's output items join them once it is whole).
   */
  responsesTurn?: { previousId: string; inputItems: unknown[]; store: boolean } | undefined;
  /** The previous_response_id a Responses request names, until the relay has looked it up. */
  previousResponseId?: string | undefined;
  /**
   * Set on a call capped at what its payer's balance pays for (completion-cap.ts): the most output
   * tokens the upstream is asked for, per choice, thinking included.
   */
  outputCap?: number | undefined;
  /** The stream is answered as a JSON array instead of SSE (Gemini without `alt=sse`). */
  jsonArrayStream?: boolean | undefined;
}

/** Where the URL, not the body, names the model and the stream (Gemini's `models/{model}:streamGenerateContent`). */
export interface UrlTarget {
  model: string;
  stream: boolean;
  /** Gemini's stream without `alt=sse`: one JSON array whose elements arrive as they are made. */
  jsonArray?: boolean | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function modelOf(value: unknown, spec: RelayEndpointSpec): string {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (spec.defaultModel) return spec.defaultModel;
  throw badRequest('请求缺少 model 字段 (the request must name a model)', 'request:model_required');
}

/** Reads a request body: at once for JSON, asynchronously for multipart (its form is parsed). */
export function readRelayInput(spec: RelayEndpointSpec, body: unknown, target?: UrlTarget): RelayInput | Promise<RelayInput> {
  const parsed = body as RelayRequestBody | undefined;
  if (spec.body === 'multipart') {
    if (parsed?.kind !== 'multipart') {
      throw badRequest('该接口需要 multipart/form-data 请求体 (this endpoint takes multipart/form-data)', 'request:multipart_required');
    }
    return readMultipart(spec, parsed);
  }
  if (parsed?.kind !== 'json' || !isObject(parsed.json)) {
    throw badRequest('请求体必须是 JSON 对象 (the request body must be a JSON object)', 'request:invalid_body');
  }
  const json = parsed.json;
  if (spec.format !== undefined && spec.format !== 'openai') return readNativeChat(spec, spec.format, parsed.raw, json, target);
  checkOpenAIFields(json);
  const stream = json.stream === true && STREAMING_ENDPOINTS.has(spec.endpoint);
  const n = typeof json.n === 'number' && Number.isInteger(json.n) && json.n > 0 ? json.n : 1;
  const input: RelayInput = {
    spec,
    model: modelOf(json.model, spec),
    stream,
    clientAskedUsage: isObject(json.stream_options) && json.stream_options.include_usage === true,
    body: { kind: 'json', json, raw: parsed.raw },
    fields: json,
    maxTokens: requestedMaxTokens(json),
    calls: spec.endpoint === 'images' ? n : 1,
    byteLength: Buffer.byteLength(parsed.raw),
    format: 'openai',
  };
  if (spec.endpoint === 'responses') readResponses(input, json);
  return input;
}

/**
 * A Responses request also in its chat form, for the channels that do not serve the Responses API
 * (the rest get the client's own bytes). Its own fields stay what the token counter and the
 * prompt check read. A request the chat form cannot hold is refused only where it would be sent.
 */
export function readResponses(input: RelayInput, json: Record<string, unknown>): void {
  input.format = 'responses';
  input.responsesTurn = { previousId: '', inputItems: responsesInputItems(json.input), store: json.store !== false };
  const previous = json.previous_response_id;
  if (previous !== undefined && previous !== null) {
    if (typeof previous !== 'string' || previous.trim() === '') {
      throw badRequest('previous_response_id 必须是字符串 (previous_response_id must be a string)', 'request:invalid_type');
    }
    // Looked up once the caller is known (relay-service.ts); until then only a channel with the Responses API may serve it.
    input.previousResponseId = previous;
    input.conversionProblem = `Previous response with id '${previous}' not found`;
    return;
  }
  try {
    const converted = codecFor('responses').requestToCanonical!(json);
    converted.value.model = input.model;
    converted.value.stream = input.stream;
    input.canonical = converted.value;
    input.warnings = converted.warnings;
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    input.conversionProblem = error.message;
  }
}

/**
 * A chat request in Anthropic's or Gemini's format: converted to the canonical shape at once,
 * which the token counter, the prompt check and any upstream of another format read.
 */
function readNativeChat(spec: RelayEndpointSpec, format: ChatFormat, raw: string, json: Record<string, unknown>, target: UrlTarget | undefined): RelayInput {
  checkNativeFields(format, json);
  let converted;
  try {
    converted = codecFor(format).requestToCanonical!(json);
  } catch (error) {
    if (error instanceof ConversionError) throw badRequest(error.message, 'request:invalid_body');
    throw error;
  }
  const canonical = converted.value;
  const model = target ? target.model : modelOf(json.model, spec);
  const stream = target ? target.stream : json.stream === true;
  canonical.model = model;
  canonical.stream = stream;
  return {
    spec,
    model,
    stream,
    clientAskedUsage: true,
    body: { kind: 'json', json, raw },
    fields: canonical,
    maxTokens: requestedMaxTokens(canonical),
    calls: 1,
    byteLength: Buffer.byteLength(raw),
    format,
    canonical,
    warnings: converted.warnings,
    jsonArrayStream: stream && target?.jsonArray === true,
  };
}

/** A Responses request's `input` as items: a string is one user message. */
export function responsesInputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

async function readMultipart(spec: RelayEndpointSpec, parsed: { raw: Buffer; contentType: string }): Promise<RelayInput> {
  let form: FormData;
  try {
    form = await new Response(parsed.raw, { headers: { 'content-type': parsed.contentType } }).formData();
  } catch {
    throw badRequest('multipart 请求体无法解析 (malformed multipart body)', 'request:invalid_body');
  }
  const fields: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) if (typeof value === 'string') fields[name] = value;
  return {
    spec,
    model: modelOf(fields.model, spec),
    stream: false,
    clientAskedUsage: false,
    body: { kind: 'multipart', form, raw: parsed.raw, contentType: parsed.contentType },
    fields,
    maxTokens: undefined,
    calls: 1,
    byteLength: 0,
    format: 'openai',
  };
}
