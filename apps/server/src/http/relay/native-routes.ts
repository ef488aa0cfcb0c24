import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError, badRequest } from '../../errors/app-error.js';
import { ANTHROPIC_MESSAGES_ENDPOINT, GEMINI_GENERATE_ENDPOINT } from '../../relay/relay-endpoints.js';
import type { RelayRuntime } from '../../relay/relay-runtime.js';
import { PromptCounter, TOKEN_COUNT_HEADER } from '../../relay/token-count.js';
import { usableModels } from './model-routes.js';

const notFound = (what: string) =>
  new AppError('request:api_not_implemented', `接口 ${what} 不存在 (no such API: ${what})`, { status: 404, type: 'invalid_request_error' });

/** `gemini-2.5-flash:streamGenerateContent` → the model and the method. */
function geminiTarget(path: string): { model: string; method: string } {
  const colon = path.lastIndexOf(':');
  if (colon <= 0) throw notFound(`models/${path}`);
  let model: string;
  try {
    model = decodeURIComponent(path.slice(0, colon));
  } catch {
    throw badRequest(`模型名无效 (invalid model name in the URL)`, 'request:invalid_model');
  }
  return { model, method: path.slice(colon + 1) };
}

/**
 * Anthropic's and Gemini's own endpoints: /v1/messages (and count_tokens), and /v1beta/models
 * (generateContent, streamGenerateContent, countTokens, the model list). Calls go through the same
 * relay service as OpenAI's, billed, logged, retried and limited the same way; counts go through
 * relay/token-count.ts. Errors take the caller's protocol's shape (app.ts picks it by path).
 */
export function nativeRoutes(scope: FastifyInstance, context: AppContext, runtime: RelayRuntime, bodyLimit: number): void {
  scope.post(ANTHROPIC_MESSAGES_ENDPOINT.path, { bodyLimit }, (request, reply) => runtime.service.handle(request, reply, ANTHROPIC_MESSAGES_ENDPOINT));

  // Counted by the routed channel's upstream when it has a counter, else locally; never billed. The header says which.
  const counter = new PromptCounter({
    options: context.options,
    cache: runtime.cache,
    auth: runtime.auth,
    upstream: runtime.upstream,
    breakers: runtime.health.breakers,
    images: runtime.service.images,
  });
  scope.post('/v1/messages/count_tokens', { bodyLimit }, async (request, reply) => {
    const { inputTokens, countedBy } = await counter.count(request, reply, 'anthropic');
    reply.header(TOKEN_COUNT_HEADER, countedBy);
    return { input_tokens: inputTokens };
  });

  scope.post<{ Params: { '*': string } }>('/v1beta/models/*', { bodyLimit }, async (request, reply) => {
    const { model, method } = geminiTarget(request.params['*']);
    switch (method) {
      case 'generateContent':
        return runtime.service.handle(request, reply, GEMINI_GENERATE_ENDPOINT, { model, stream: false });
      case 'streamGenerateContent': {
        // Google answers SSE with `alt=sse` (what its SDKs ask for), else one JSON array that grows.
        const sse = (request.query as Record<string, unknown> | undefined)?.alt === 'sse';
        return runtime.service.handle(request, reply, GEMINI_GENERATE_ENDPOINT, { model, stream: true, jsonArray: !sse });
      }
      case 'countTokens': {
        const { inputTokens, countedBy } = await counter.count(request, reply, 'gemini', model);
        reply.header(TOKEN_COUNT_HEADER, countedBy);
        return { totalTokens: inputTokens };
      }
      default:
        throw notFound(`models/${model}:${method}`);
    }
  });

  scope.get<{ Querystring: { pageSize?: string; pageToken?: string } }>('/v1beta/models', async (request) => {
    const caller = await runtime.auth.authenticate(request);
    const models = await usableModels(runtime, caller);
    const size = Math.min(1000, Math.max(1, Number(request.query.pageSize) || 1000));
    const start = Math.max(0, Number(request.query.pageToken) || 0);
    const page = models.slice(start, start + size);
    const next = start + size < models.length ? String(start + size) : undefined;
    return { models: page.map(geminiModel), ...(next ? { nextPageToken: next } : {}) };
  });

  scope.get<{ Params: { model: string } }>('/v1beta/models/:model', async (request) => {
    const caller = await runtime.auth.authenticate(request);
    const model = request.params.model;
    if (!(await usableModels(runtime, caller)).includes(model)) throw notFound(`models/${model}`);
    return geminiModel(model);
  });
}

const geminiModel = (id: string) => ({
  name: `models/${id}`,
  baseModelId: id,
  version: '001',
  displayName: id,
  supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
});
