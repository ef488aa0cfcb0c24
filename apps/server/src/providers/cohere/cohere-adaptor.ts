import { cohereUsage, OpenAIStreamReader, type OpenAIEndpoint, type TokenUsage } from '@modelgate/protocol';
import { AppError } from '../../errors/app-error.js';
import { upstreamBody } from '../openai-compatible/openai-compatible-adaptor.js';
import { classifyOpenAICompatibleError } from '../openai-compatible/openai-compatible-errors.js';
import type { ChannelEndpoint, ErrorVerdict, ProviderAdaptor, UpstreamFailure, UpstreamRequest } from '../provider-types.js';

/**
 * Cohere (channel type 34) on its v2 API: chat through the Cohere codec (`nativeChat`, POST
 * /v2/chat) and rerank (POST /v2/rerank) with the Jina/Cohere body our /v1/rerank takes, passed on
 * with the channel's model. new-api still calls v1 (/v1/chat, /v1/rerank); v2 is Cohere's current API.
 */

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The channel's base path without an API version operators sometimes paste (`https://api.cohere.com/v2`). */
const apiRoot = (channel: ChannelEndpoint): string => channel.basePath.replace(/\/(v1|v2)$/, '');

const jsonHeaders = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/**
 * Rerank usage: Cohere bills rerank in search units (one per query of up to 100 documents), not
 * tokens. Like new-api, input tokens are billed when Cohere reports them (meta.billed_units or
 * meta.tokens .input_tokens); otherwise no usage is returned and the relay bills its own count of the
 * query and documents as prompt tokens. Search units are not turned into tokens: one unit would
 * bill a hundred documents as one token.
 */
function rerankUsage(answer: unknown): TokenUsage | undefined {
  const meta = isObject(answer) && isObject(answer.meta) ? answer.meta : undefined;
  if (!meta) return undefined;
  for (const source of [meta.billed_units, meta.tokens]) {
    const input = isObject(source) ? source.input_tokens : undefined;
    if (typeof input === 'number' && Number.isFinite(input) && input > 0) return { promptTokens: Math.round(input), completionTokens: 0 };
  }
  return undefined;
}

/** Cohere's errors are `{message}` (and `{id, message}` on v2); its 401 says "invalid api token". */
function classifyCohereError(failure: UpstreamFailure): ErrorVerdict {
  const verdict = classifyOpenAICompatibleError(failure);
  const message = failure.message.toLowerCase();
  const keyRejected = failure.status === 401 || message.includes('invalid api token') || message.includes('no api key supplied');
  // 402 is a trial key past its monthly limit: this key cannot serve until the account is upgraded.
  const spent = failure.status === 402;
  if (keyRejected || spent) return { retryable: true, disableChannel: true };
  return verdict;
}

export const cohereAdaptor: ProviderAdaptor = {
  name: 'Cohere',
  streamUsageOption: false,
  supports: (endpoint: OpenAIEndpoint) => endpoint === 'chat' || endpoint === 'rerank',
  buildRequest(call): UpstreamRequest {
    // Chat goes through nativeChat; a caller that reaches here with it has skipped the codec.
    if (call.endpoint !== 'rerank')
      throw new AppError(
        'channel:native_chat_only',
        `Cohere 渠道的 ${call.endpoint} 请求须经 Cohere 格式转换 (Cohere serves ${call.endpoint} only through its chat codec)`,
        { status: 500 },
      );
    const { body } = upstreamBody({ ...call, askStreamUsage: false });
    return { origin: call.channel.origin, path: `${apiRoot(call.channel)}/v2/rerank`, headers: jsonHeaders(call.key), body };
  },
  parseUsage(endpoint, answer) {
    if (endpoint === 'rerank') return rerankUsage(answer);
    const usage = isObject(answer) ? cohereUsage(answer.usage) : undefined;
    return usage ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } : undefined;
  },
  // A rerank answer holds scores and the documents the client sent: nothing generated to count.
  completionText: () => [],
  readStream: (endpoint, dropUsageOnly) => new OpenAIStreamReader(endpoint, dropUsageOnly),
  classifyError: classifyCohereError,
  nativeChat: {
    formatFor: () => 'cohere',
    buildRequest(call): UpstreamRequest {
      const body = call.raw ?? JSON.stringify({ ...call.body, model: call.upstreamModel, stream: call.stream });
      const headers = jsonHeaders(call.key);
      if (call.stream) headers.accept = 'text/event-stream';
      return { origin: call.channel.origin, path: `${apiRoot(call.channel)}/v2/chat`, headers, body };
    },
  },
  modelList: {
    kind: 'fetch',
    // endpoint=chat keeps embed and rerank models out of a chat channel's list; 1000 is the page maximum.
    request: (channel, key) => ({
      origin: channel.origin,
      path: `${apiRoot(channel)}/v1/models?endpoint=chat&page_size=1000`,
      method: 'GET',
      headers: { authorization: `Bearer ${key}` },
      body: '',
    }),
    parse: (answer) =>
      isObject(answer) && Array.isArray(answer.models)
        ? answer.models.filter(isObject).flatMap((model) => (typeof model.name === 'string' && model.name !== '' ? [model.name] : []))
        : [],
  },
};
