import { normaliseUsage, OpenAIStreamReader, completionTextOf } from '@modelgate/protocol';
import { upstreamBody } from '../openai-compatible/openai-compatible-adaptor.js';
import { classifyOpenAICompatibleError } from '../openai-compatible/openai-compatible-errors.js';
import { z } from 'zod';
import { geminiCountOf } from '../shared/token-count-answers.js';
import type { ErrorVerdict, NativeChatCall, ProviderAdaptor, UpstreamCall, UpstreamFailure, UpstreamJsonGet, UpstreamRequest } from '../provider-types.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Model names go into the path: one segment, escaped. */
const modelSegment = (model: string) => encodeURIComponent(model.replace(/^models\//, ''));

const API_VERSION = /^v\d+[a-z0-9]*$/;

/**
 * The channel's own API version (its `other` field, the console's 默认 API 版本, as one-api and
 * new-api read it) when it names one, else gemini.version_settings for the model.
 */
function apiVersionOf(call: NativeChatCall): string {
  const own = call.channel.other.trim();
  return API_VERSION.test(own) ? own : call.apiVersion;
}

function generateRequest(call: NativeChatCall): UpstreamRequest {
  const method = call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return {
    origin: call.channel.origin,
    path: `${call.channel.basePath}/${apiVersionOf(call)}/models/${modelSegment(call.upstreamModel)}:${method}`,
    headers: { 'x-goog-api-key': call.key, 'content-type': 'application/json' },
    body: call.raw ?? JSON.stringify(call.body),
  };
}

/** The fields of a generateContent request that hold or shape the prompt (either spelling, as Google takes both). */
const PROMPT_FIELDS: ReadonlySet<string> = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'cachedContent']);
const camelCase = (name: string): string => name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * models/{model}:countTokens with the request wrapped in `generateContentRequest` (its own model
 * named inside): only that form counts the system instruction and the tools along with the contents.
 */
function countRequest(call: NativeChatCall): UpstreamRequest {
  const prompt = Object.fromEntries(Object.entries(call.body).filter(([field]) => PROMPT_FIELDS.has(camelCase(field))));
  const model = modelSegment(call.upstreamModel);
  return {
    origin: call.channel.origin,
    path: `${call.channel.basePath}/${apiVersionOf(call)}/models/${model}:countTokens`,
    headers: { 'x-goog-api-key': call.key, 'content-type': 'application/json' },
    body: JSON.stringify({ generateContentRequest: { model: `models/${decodeURIComponent(model)}`, ...prompt } }),
  };
}

/**
 * Embeddings go to Gemini's OpenAI-compatible endpoint (`/v1beta/openai/embeddings`, a Bearer
 * key), which takes and answers OpenAI's shape, so nothing needs converting.
 */
function embeddingsRequest(call: UpstreamCall): UpstreamRequest {
  const { body, contentType } = upstreamBody(call);
  return {
    origin: call.channel.origin,
    path: `${call.channel.basePath}/v1beta/openai/embeddings`,
    headers: { authorization: `Bearer ${call.key}`, 'content-type': contentType ?? 'application/json' },
    body,
  };
}

/** Google's kinds of failure that mean the key or project itself is refused. */
const DISABLING_STATUSES = new Set(['PERMISSION_DENIED', 'UNAUTHENTICATED']);

export function classifyGeminiError(failure: UpstreamFailure): ErrorVerdict {
  const verdict = classifyOpenAICompatibleError(failure);
  if (DISABLING_STATUSES.has(failure.type) || failure.message.includes('API_KEY_INVALID')) return { retryable: true, disableChannel: true };
  return verdict;
}

/**
 * Google Gemini (channel type 24): generateContent / streamGenerateContent (`alt=sse`) with the key
 * in `x-goog-api-key`, at the API version gemini.version_settings names for the model (v1beta by
 * default). The relay converts other formats to Gemini's and back (packages/protocol/src/gemini).
 */
const geminiModels = z.object({
  models: z
    .array(z.object({ name: z.string() }))
    .optional()
    .default([]),
  nextPageToken: z.string().optional(),
});

/** Enough pages for Gemini's whole list, without following a token that never ends. */
const GEMINI_MAX_PAGES = 10;

async function listGeminiModels(base: string, key: string, get: UpstreamJsonGet): Promise<string[]> {
  const ids: string[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < GEMINI_MAX_PAGES; page += 1) {
    const query = `pageSize=1000${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`;
    const body = await get(`${base}/v1beta/models?${query}`, { 'x-goog-api-key': key }, geminiModels);
    ids.push(...body.models.map((model) => model.name.replace(/^models\//, '')));
    pageToken = body.nextPageToken;
    if (!pageToken) break;
  }
  return ids;
}

export const geminiAdaptor: ProviderAdaptor = {
  name: 'Google Gemini',
  streamUsageOption: false,
  supports: (endpoint) => endpoint === 'chat' || endpoint === 'embeddings',
  buildRequest: embeddingsRequest,
  parseUsage: (_endpoint, answer) => (isObject(answer) ? normaliseUsage(answer.usage) : undefined),
  completionText: completionTextOf,
  readStream: (endpoint, dropUsageOnly) => new OpenAIStreamReader(endpoint, dropUsageOnly),
  classifyError: classifyGeminiError,
  nativeChat: {
    formatFor: () => 'gemini',
    buildRequest: generateRequest,
    tokenCount: { request: countRequest, parse: geminiCountOf },
  },
  modelList: { kind: 'base', list: listGeminiModels },
};
