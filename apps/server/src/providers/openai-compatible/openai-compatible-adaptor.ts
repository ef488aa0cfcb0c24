import { completionTextOf, normaliseUsage, OpenAIStreamReader, type OpenAIEndpoint } from '@modelgate/protocol';
import { FormData } from 'undici';
import type { ModelListing, ProviderAdaptor, RealtimeCall, RealtimeTarget, UpstreamCall, UpstreamRequest } from '../provider-types.js';
import { classifyOpenAICompatibleError } from './openai-compatible-errors.js';

/** OpenAI's own paths; a vendor overrides the ones it places elsewhere. */
export const OPENAI_PATHS: Readonly<Record<OpenAIEndpoint, string>> = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  responses: '/v1/responses',
  embeddings: '/v1/embeddings',
  images: '/v1/images/generations',
  speech: '/v1/audio/speech',
  transcriptions: '/v1/audio/transcriptions',
  translations: '/v1/audio/translations',
  moderations: '/v1/moderations',
  rerank: '/v1/rerank',
};

export interface OpenAICompatibleOptions {
  name: string;
  streamUsageOption: boolean;
  /** ProviderAdaptor.chatOutputLimitField. */
  chatOutputLimitField?: 'max_tokens' | 'max_completion_tokens';
  /** Paths that differ from OpenAI's; with `only`, the endpoints not listed are not served. */
  paths?: Partial<Record<OpenAIEndpoint, string>>;
  only?: boolean;
  /** Where a call goes; the default appends the endpoint's path to the base URL. */
  target?: (call: UpstreamCall, path: string) => { origin: string; path: string };
  /** Credentials and vendor headers; the default is a Bearer key (plus OpenAI-Organization). */
  authHeaders?: (call: UpstreamCall) => Record<string, string>;
  /** Endpoints served when not all are. */
  endpoints?: ReadonlySet<OpenAIEndpoint>;
  /**
   * The vendor serves OpenAI's Responses API itself. Unless it does (or lists a `responses` path),
   * /v1/responses calls are converted to chat completions for it: most OpenAI-compatible servers
   * have only those.
   */
  nativeResponses?: boolean;
  /** ProviderAdaptor.modelList, for a vendor that does not list its models at OpenAI's /v1/models. */
  modelList?: ModelListing;
  /**
   * The vendor serves OpenAI's Realtime API at `{base}/v1/realtime?model=` with a Bearer key. By
   * default those that keep OpenAI's paths do; a vendor whose endpoints live elsewhere does not.
   */
  realtime?: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Joins a base path and an endpoint path. Operators often paste base URLs ending in /v1; the
 * endpoint paths already start with it, so it is not doubled.
 */
export function joinPath(basePath: string, path: string): string {
  if (basePath.endsWith('/v1') && path.startsWith('/v1/')) return basePath.slice(0, -3) + path;
  return basePath + path;
}

export function defaultTarget(call: UpstreamCall, path: string): { origin: string; path: string } {
  return { origin: call.channel.origin, path: joinPath(call.channel.basePath, path) };
}

export function bearerHeaders(call: Pick<UpstreamCall, 'channel' | 'key'>): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${call.key}` };
  if (call.channel.organization) headers['openai-organization'] = call.channel.organization;
  return headers;
}

/** The WebSocket origin of an HTTP one: http → ws, https → wss. */
export const websocketOrigin = (origin: string): string => origin.replace(/^http/i, 'ws');

/** OpenAI's Realtime API: `wss://api.openai.com/v1/realtime?model=…`, under the channel's base path. */
export function openAIRealtimeTarget(call: RealtimeCall): RealtimeTarget {
  const path = joinPath(call.channel.basePath, '/v1/realtime');
  return { url: `${websocketOrigin(call.channel.origin)}${path}?model=${encodeURIComponent(call.upstreamModel)}`, headers: bearerHeaders(call) };
}

/** The request body to send: the client's own bytes unless the model or stream options change. */
export function upstreamBody(call: UpstreamCall): { body: string | Buffer | FormData; contentType: string | undefined } {
  const body = call.body;
  if (body.kind === 'json') {
    if (body.json.model === call.upstreamModel) {
      if (!call.askStreamUsage) return { body: body.raw, contentType: 'application/json' };
      // The usual stream request: the option goes in front of the client's own text, which is not
      // parsed and re-serialised for it (the body is a JSON object that names its model).
      if (body.json.stream_options === undefined)
        return { body: `{"stream_options":{"include_usage":true},${body.raw.slice(body.raw.indexOf('{') + 1)}`, contentType: 'application/json' };
    }
    const rewritten: Record<string, unknown> = { ...body.json, model: call.upstreamModel };
    if (call.askStreamUsage) {
      rewritten.stream_options = { ...(isObject(body.json.stream_options) ? body.json.stream_options : {}), include_usage: true };
    }
    return { body: JSON.stringify(rewritten), contentType: 'application/json' };
  }
  if (body.form.get('model') === call.upstreamModel) return { body: body.raw, contentType: body.contentType };
  const form = new FormData();
  for (const [name, value] of body.form.entries()) {
    if (name !== 'model') form.append(name, value);
  }
  form.set('model', call.upstreamModel);
  // undici writes the multipart content type with its boundary itself.
  return { body: form, contentType: undefined };
}

/**
 * One adaptor for every upstream that speaks the OpenAI wire format; vendors differ only in
 * where endpoints live, how they authenticate and whether they accept stream_options.
 */
export function createOpenAICompatibleAdaptor(options: OpenAICompatibleOptions): ProviderAdaptor {
  const paths: Record<OpenAIEndpoint, string> = { ...OPENAI_PATHS, ...options.paths };
  const served = options.endpoints ?? (options.only ? new Set(Object.keys(options.paths ?? {}) as OpenAIEndpoint[]) : undefined);
  const nativeResponses = options.nativeResponses ?? served?.has('responses') ?? false;
  const target = options.target ?? defaultTarget;
  const authHeaders = options.authHeaders ?? bearerHeaders;

  return {
    name: options.name,
    streamUsageOption: options.streamUsageOption,
    chatOutputLimitField: options.chatOutputLimitField,
    supports: (endpoint) => (endpoint === 'responses' ? nativeResponses : served === undefined || served.has(endpoint)),
    buildRequest(call): UpstreamRequest {
      const { origin, path } = target(call, paths[call.endpoint]);
      const { body, contentType } = upstreamBody(call);
      const headers = authHeaders(call);
      if (contentType) headers['content-type'] = contentType;
      return { origin, path, headers, body };
    },
    parseUsage: (_endpoint, answer) => (isObject(answer) ? normaliseUsage(answer.usage) : undefined),
    completionText: completionTextOf,
    readStream: (endpoint, dropUsageOnly) => new OpenAIStreamReader(endpoint, dropUsageOnly),
    classifyError: classifyOpenAICompatibleError,
    ...(options.modelList ? { modelList: options.modelList } : {}),
    ...((options.realtime ?? (options.target === undefined && !options.only)) ? { realtimeTarget: openAIRealtimeTarget } : {}),
  };
}
