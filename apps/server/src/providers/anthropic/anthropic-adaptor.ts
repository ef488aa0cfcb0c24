import { OpenAIStreamReader } from '@modelgate/protocol';
import { joinPath } from '../openai-compatible/openai-compatible-adaptor.js';
import { classifyOpenAICompatibleError } from '../openai-compatible/openai-compatible-errors.js';
import type { ChannelEndpoint, NativeChatCall, ProviderAdaptor, UpstreamRequest } from '../provider-types.js';

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

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Anthropic Claude (channel type 14): the Messages API with `x-api-key` and `anthropic-version`;
 * the client's `anthropic-beta` flags and claude.model_headers_settings are passed on. Chat only:
 * the relay converts other formats to Anthropic's and back (packages/protocol/src/anthropic).
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
  },
  modelList: {
    kind: 'fetch',
    request: (channel: ChannelEndpoint, key: string) => ({
      origin: channel.origin,
      path: joinPath(channel.basePath, '/v1/models?limit=1000'),
      method: 'GET',
      headers: anthropicHeaders(key),
      body: '',
    }),
    parse: (answer) =>
      isObject(answer) && Array.isArray(answer.data) ? answer.data.flatMap((model) => (isObject(model) && typeof model.id === 'string' ? [model.id] : [])) : [],
  },
};
