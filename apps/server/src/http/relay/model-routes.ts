import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import type { RelayCaller } from '../../relay/relay-auth.js';
import type { RelayRuntime } from '../../relay/relay-runtime.js';

/** A fixed creation time, as new-api reports: the relay does not know when a model was made. */
const MODEL_CREATED = 1626777600;

const OWNERS: readonly [RegExp, string][] = [
  [/^(gpt-|o\d|chatgpt|text-embedding|dall-e|whisper|tts-|omni-moderation|text-moderation|davinci|babbage|computer-use)/, 'openai'],
  [/^claude/, 'anthropic'],
  [/^(gemini|gemma|text-embedding-004)/, 'google'],
  [/^deepseek/, 'deepseek'],
  [/^(moonshot|kimi)/, 'moonshot'],
  [/^(mistral|codestral|pixtral|ministral|open-mistral)/, 'mistral'],
  [/^grok/, 'xai'],
  [/^(qwen|qwq)/, 'alibaba'],
  [/^(glm|chatglm)/, 'zhipu'],
  [/^(llama|meta-llama)/, 'meta'],
];

export const ownerOf = (model: string): string => OWNERS.find(([pattern]) => pattern.test(model))?.[1] ?? 'custom';

const ANTHROPIC_CREATED_AT = new Date(MODEL_CREATED * 1000).toISOString();

const modelObject = (id: string) => ({ id, object: 'model', created: MODEL_CREATED, owned_by: ownerOf(id) });

/** The models this key may use: those with a channel in its group, within its model limits. */
export async function usableModels(runtime: RelayRuntime, caller: RelayCaller): Promise<readonly string[]> {
  const current = runtime.cache.channels.current();
  const index = current instanceof Promise ? await current : current;
  const models = index.models(caller.group);
  const limits = caller.token.modelLimits;
  return limits ? models.filter((model) => limits.has(model)) : models;
}

export function modelRoutes(scope: FastifyInstance, runtime: RelayRuntime): void {
  const authenticate = (request: FastifyRequest) => runtime.auth.authenticate(request);

  scope.get('/v1/models', async (request) => {
    const caller = await authenticate(request);
    const models = await usableModels(runtime, caller);
    // Anthropic's clients list models at the same path; their anthropic-version header tells them apart.
    if (request.headers['anthropic-version']) {
      const data = models.map((id) => ({ type: 'model', id, display_name: id, created_at: ANTHROPIC_CREATED_AT }));
      return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
    }
    return { object: 'list', data: models.map(modelObject), success: true };
  });

  scope.get<{ Params: { model: string } }>('/v1/models/:model', async (request) => {
    const caller = await authenticate(request);
    const model = request.params.model;
    const models = await usableModels(runtime, caller);
    if (!models.includes(model)) {
      throw new AppError('request:model_not_found', `模型 ${model} 不存在或该令牌无权使用 (the model '${model}' does not exist or this key may not use it)`, {
        status: 404,
        type: 'invalid_request_error',
      });
    }
    return modelObject(model);
  });
}
