import { OpenAIStreamReader } from '@modelgate/protocol';
import { AppError } from '../../errors/app-error.js';
import { AccessTokenCache, parseServiceAccount, type ServiceAccount } from '../../lib/google-service-account.js';
import { claudeCountFields, claudeCountOf, geminiCountOf } from '../shared/token-count-answers.js';
import { cloudClaudeFields } from '../shared/cloud-claude-fields.js';
import type { ErrorVerdict, NativeChatCall, ProviderAdaptor, UpstreamFailure, UpstreamRequest } from '../provider-types.js';
import { vertexChannelKeys } from './vertex-keys.js';
import { isClaudeModel, VERTEX_KNOWN_MODELS, vertexClaudeModel, vertexOrigin, vertexRegion } from './vertex-models.js';

/** What Vertex requires in an Anthropic body in place of the anthropic-version header. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

const MAX_PARSED_KEYS = 1000;

/** A model name as one path segment; Claude's `@version` stays readable as Google writes it. */
const modelSegment = (model: string): string => encodeURIComponent(model).replace(/%40/g, '@');

/**
 * The Anthropic body as Vertex takes it (cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude):
 * the fields new-api keeps for it, no model (the path names it), `anthropic_version: vertex-2023-10-16`, and `stream: true` for
 * streamRawPredict, as Google's own examples send it.
 */
export function vertexClaudeBody(body: Record<string, unknown>, stream: boolean): Record<string, unknown> {
  return { ...cloudClaudeFields(body), anthropic_version: VERTEX_ANTHROPIC_VERSION, ...(stream ? { stream: true } : {}) };
}

/** What Vertex's countTokens takes of a generateContent request (CountTokensRequest). */
const GEMINI_COUNT_FIELDS: ReadonlySet<string> = new Set(['contents', 'systemInstruction', 'system_instruction', 'tools']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Vertex's Gemini refuses `functionResponse.id` (the Gemini API takes it): new-api strips it for
 * Vertex, and so does this. Returns undefined when the body has none, so its bytes can go as they are.
 */
export function withoutFunctionResponseIds(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  const hasId = contents.some(
    (content) =>
      isObject(content) &&
      Array.isArray(content.parts) &&
      content.parts.some((part) => isObject(part) && isObject(part.functionResponse) && 'id' in part.functionResponse),
  );
  if (!hasId) return undefined;
  return {
    ...body,
    contents: contents.map((content) =>
      isObject(content) && Array.isArray(content.parts)
        ? {
            ...content,
            parts: content.parts.map((part) => {
              if (!isObject(part) || !isObject(part.functionResponse)) return part;
              const { id: _id, ...functionResponse } = part.functionResponse;
              return { ...part, functionResponse };
            }),
          }
        : content,
    ),
  };
}

const headerOf = (headers: Readonly<Record<string, string>>, name: string): string | undefined =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];

export interface VertexAdaptorOptions {
  /** Where access tokens come from and are kept; tests pass their own clock or exchange. */
  tokens?: AccessTokenCache;
}

export function classifyVertexError(failure: UpstreamFailure): ErrorVerdict {
  const text = `${failure.type} ${failure.code} ${failure.message}`;
  const status = failure.status;
  const refused =
    status === 401 ||
    status === 403 ||
    /PERMISSION_DENIED|UNAUTHENTICATED|authentication_error|permission_error|invalid authentication credentials/i.test(text);
  if (refused) return { retryable: true, disableChannel: true };
  // 429 RESOURCE_EXHAUSTED and 5xx (529 overloaded) may pass on another channel; 504/524 only double the wait.
  const passing = status === 429 || /RESOURCE_EXHAUSTED/.test(text) || (status >= 500 && status !== 504 && status !== 524);
  return { retryable: passing, disableChannel: false };
}

/**
 * Vertex AI (channel type 41): the key is a service-account JSON; requests carry an OAuth access
 * token bought with it (cached per account, see lib/google-service-account.ts). Claude models go
 * to `publishers/anthropic` (rawPredict / streamRawPredict, Anthropic's format), the rest to
 * `publishers/google` (generateContent / streamGenerateContent?alt=sse, Gemini's format).
 */
export function createVertexAdaptor(options: VertexAdaptorOptions = {}): ProviderAdaptor {
  const tokens = options.tokens ?? new AccessTokenCache();
  const accounts = new Map<string, ServiceAccount>();

  const accountFor = (key: string): ServiceAccount => {
    const known = accounts.get(key);
    if (known) return known;
    const account = parseServiceAccount(key);
    if (accounts.size >= MAX_PARSED_KEYS) accounts.clear();
    accounts.set(key, account);
    return account;
  };

  /** Where a call for this key and model goes, and the headers every call there carries. */
  async function placeOf(call: NativeChatCall): Promise<{ origin: string; location: string; headers: Record<string, string> }> {
    const account = accountFor(call.key);
    const region = vertexRegion(call.channel.other, call.upstreamModel);
    const origin = call.channel.origin === '' ? vertexOrigin(region) : call.channel.origin;
    const basePath = call.channel.origin === '' ? '' : call.channel.basePath;
    const location = `${basePath}/v1/projects/${encodeURIComponent(account.projectId)}/locations/${encodeURIComponent(region)}`;
    const token = await tokens.token(account);
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'x-goog-user-project': account.projectId,
    };
    if (isClaudeModel(call.upstreamModel)) {
      const beta = headerOf(call.clientHeaders, 'anthropic-beta');
      if (beta) headers['anthropic-beta'] = beta;
    }
    return { origin, location, headers };
  }

  async function buildChatRequest(call: NativeChatCall): Promise<UpstreamRequest> {
    const { origin, location, headers } = await placeOf(call);
    if (isClaudeModel(call.upstreamModel)) {
      if (call.stream) headers.accept = 'text/event-stream';
      const method = call.stream ? 'streamRawPredict?alt=sse' : 'rawPredict';
      return {
        origin,
        path: `${location}/publishers/anthropic/models/${modelSegment(vertexClaudeModel(call.upstreamModel))}:${method}`,
        method: 'POST',
        headers,
        body: JSON.stringify(vertexClaudeBody(call.body, call.stream)),
      };
    }
    const method = call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    return {
      origin,
      path: `${location}/publishers/google/models/${modelSegment(call.upstreamModel)}:${method}`,
      method: 'POST',
      headers,
      body: (() => {
        const stripped = withoutFunctionResponseIds(call.body);
        return stripped ? JSON.stringify(stripped) : (call.raw ?? JSON.stringify(call.body));
      })(),
    };
  }

  /**
   * Claude: `publishers/anthropic/models/count-tokens:rawPredict`, the model named in the body
   * (cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/count-tokens); Gemini: the
   * model's own `:countTokens`, which takes the prompt fields of a generateContent request.
   */
  async function buildCountRequest(call: NativeChatCall): Promise<UpstreamRequest> {
    const { origin, location, headers } = await placeOf(call);
    if (isClaudeModel(call.upstreamModel)) {
      const body = { ...claudeCountFields({ ...call.body, model: vertexClaudeModel(call.upstreamModel) }), anthropic_version: VERTEX_ANTHROPIC_VERSION };
      return { origin, path: `${location}/publishers/anthropic/models/count-tokens:rawPredict`, method: 'POST', headers, body: JSON.stringify(body) };
    }
    const source = withoutFunctionResponseIds(call.body) ?? call.body;
    const prompt = Object.fromEntries(Object.entries(source).filter(([field]) => GEMINI_COUNT_FIELDS.has(field)));
    return {
      origin,
      path: `${location}/publishers/google/models/${modelSegment(call.upstreamModel)}:countTokens`,
      method: 'POST',
      headers,
      body: JSON.stringify(prompt),
    };
  }

  return {
    name: 'vertex-ai',
    streamUsageOption: false,
    ownOrigin: true,
    channelKeys: vertexChannelKeys,
    supports: (endpoint) => endpoint === 'chat',
    buildRequest: () => {
      throw new AppError('relay:unsupported', 'Vertex AI channels serve chat only', { status: 400 });
    },
    parseUsage: () => undefined,
    completionText: () => [],
    readStream: (endpoint, dropUsageOnly) => new OpenAIStreamReader(endpoint, dropUsageOnly),
    classifyError: (failure) => {
      // A refused token (revoked, or its account's key deleted) must not be served again from the
      // cache for the rest of its hour; the failure does not say whose it was, so all go.
      if (failure.status === 401) tokens.clear();
      return classifyVertexError(failure);
    },
    nativeChat: {
      formatFor: (model) => (isClaudeModel(model) ? 'anthropic' : 'gemini'),
      buildRequest: buildChatRequest,
      tokenCount: {
        request: buildCountRequest,
        // Claude's count answers {input_tokens}, Gemini's {totalTokens}.
        parse: (answer) => claudeCountOf(answer) ?? geminiCountOf(answer),
      },
    },
    modelList: { kind: 'known', models: VERTEX_KNOWN_MODELS },
  };
}

export const vertexAdaptor: ProviderAdaptor = createVertexAdaptor();
