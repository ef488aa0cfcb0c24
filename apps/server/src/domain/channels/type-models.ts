import { CHANNEL_TYPES, ChannelType } from '@modelgate/contract';
import { TYPE_MODEL_PATTERNS } from './channel-models.js';

/**
 * Name patterns for the vendors whose models the shared catalogue patterns do not cover. Only
 * GET /api/models reads these: a model an administrator prices under such a name is offered to
 * that vendor's channel form ("fill related models"), nothing more.
 */
const VENDOR_PATTERNS: Record<number, RegExp> = {
  15: /^ernie-/i,
  46: /^ernie-/i,
  16: /^(glm-|chatglm|cogview-)/i,
  26: /^glm-4v/i,
  17: /^(qwen|qwq-|qvq-)/i,
  19: /^360/i,
  23: /^hunyuan-/i,
  27: /^(sonar|llama-3\.1-sonar)/i,
  31: /^yi-/i,
  34: /^(command|embed-|rerank-)/i,
  35: /^(abab|minimax-)/i,
  38: /^jina-/i,
  39: /^@cf\//,
  45: /^doubao-/i,
  49: /^coze-/i,
  50: /^kling-/i,
  51: /^jimeng-/i,
  52: /^vidu/i,
  54: /^doubao-seedance-/i,
  55: /^sora-/i,
};

/**
 * Resellers of OpenAI's API and the custom type: new-api offers them OpenAI's own list, the same
 * list an OpenAI channel gets.
 */
const OPENAI_LIST_TYPES = new Set([6, 7, 8, 9, 10, 12, 13]);

/**
 * new-api's GET /api/models: for every channel type number, the models that type offers, which
 * the channel form fills in for a new channel of that type (and caches in the browser). The
 * models are the priced ones (ModelRatio and ModelPrice) whose names the type serves.
 */
export function modelsByChannelType(pricedModels: Iterable<string>): Record<string, string[]> {
  const priced = [...new Set(pricedModels)].sort((a, b) => a.localeCompare(b));
  const patternOf = (type: number): RegExp | undefined => {
    if (OPENAI_LIST_TYPES.has(type)) return TYPE_MODEL_PATTERNS[ChannelType.OpenAI];
    return TYPE_MODEL_PATTERNS[type] ?? VENDOR_PATTERNS[type];
  };
  const result: Record<string, string[]> = {};
  for (const info of CHANNEL_TYPES) {
    const pattern = patternOf(info.value);
    result[String(info.value)] = pattern ? priced.filter((model) => pattern.test(model)) : [];
  }
  return result;
}
