import { OpenAIStreamReader } from '@modelgate/protocol';
import { joinPath } from '../openai-compatible/openai-compatible-adaptor.js';
import { classifyOpenAICompatibleError } from '../openai-compatible/openai-compatible-errors.js';
import { z } from 'zod';
import type { NativeChatCall, ProviderAdaptor, UpstreamRequest } from '../provider-types.js';
import { claudeCountFields, claudeCountOf } from '../shared/token-count-answers.js';

/** The API version sent when the client named none (the one Anthropic's documentation uses). */
export const ANTHROPIC_VERSION = '2023-06-01';

const anthropicHeaders = (key: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  'x-api-key': key,
  'anthropic-version': extra['anthropic-version'] ?? ANTHROPIC_VERSION,
  ...(extra['anthropic-beta'] ? { 'anthropic-beta': extra['anthropic-beta'] } : {}),
});

function messagesRequest(call: NativeChatCall): UpstreamRequest {
  const headers = anthropicHeaders(call.key, call.clientHeaders);
  headers['content-type'] = 'application/json';
  if (call.stream) headers.accept = 'text/event-stream';
  return {
    origin: call.channel.origin,
    path: joinPath(call.channel.basePath, '/v1/messages'),
    headers,
    body: call.raw ?? JSON.stringify({ ...call.body, model: call.upstreamModel }),
  };
}

/** POST /v1/messages/count_tokens: the prompt's fields only, with the client's version and beta flags. */
function countRequest(call: NativeChatCall): UpstreamRequest {
  const headers = anthropicHeaders(call.key, call.clientHeaders);
  headers['content-type'] = 'application/json';
  return {
    origin: call.channel.origin,
    path: joinPath(call.channel.basePath, '/v1/messages/count_tokens'),
    headers,
    body: JSON.stringify(claudeCountFields({ ...call.body, model: call.upstreamModel })),
  };
}

/** GET /v1/models: the ids are all the console's model fill needs. */
const anthropicModels = z.object({ data: z.array(z.object({ id: z.string() })) });

/**
 * Anthropic Claude (channel type 14): the Messages API with `x-api-key` and `anthropic-version`;
 * the client's `anthropic-beta` flags and claude.model_headers_settings are passed on. Chat only:
 * the relay converts other formats to Anthropic's and back (packages/protocol/src/anthropic).
 * Prompts are counted by the upstream's count_tokens.
 */
export const anthropicAdaptor: ProviderAdaptor = {
  name: 'Anthropic Claude',
  streamUsageOption: false,
  supports: (endpoint) => endpoint === 'chat',
  buildRequest() {
    throw new Error('Anthropic channels serve chat through nativeChat only');
  },
  parseUsage: () => undefined,
  completionText: () => [],
  readStream: (endpoint, dropUsageOnly) => new OpenAIStreamReader(endpoint, dropUsageOnly),
  // Anthropic's error types (authentication_error, permission_error, overloaded_error on 529) read as OpenAI's do.
  classifyError: classifyOpenAICompatibleError,
  nativeChat: {
    formatFor: () => 'anthropic',
    buildRequest: messagesRequest,
    tokenCount: { request: countRequest, parse: claudeCountOf },
  },
  modelList: {
    kind: 'base',
    list: async (base, key, get) => (await get(`${base}/v1/models?limit=1000`, anthropicHeaders(key), anthropicModels)).data.map((model) => model.id),
  },
};
