import type { OptionService } from '../options/option-service.js';

/**
 * The most output tokens a model returns to a call that sets no limit of its own: what the relay
 * holds for such a call, and what a capped call is held to (relay/completion-cap.ts). Keys are
 * model names or name prefixes (`claude-sonnet-4` covers `claude-sonnet-4-20250514`); the longest
 * key that the model's name starts with wins, `default` serves the rest.
 */
export const DEFAULT_MAX_OUTPUT_TOKENS: Readonly<Record<string, number>> = {
  default: 16384,
  'gpt-3.5-turbo': 4096,
  'gpt-4': 8192,
  'gpt-4-turbo': 4096,
  'gpt-4o': 16384,
  'gpt-4o-mini': 16384,
  'chatgpt-4o-latest': 16384,
  'gpt-4.1': 32768,
  'gpt-4.5': 16384,
  'gpt-5': 128000,
  o1: 100000,
  'o1-mini': 65536,
  o3: 100000,
  'o3-mini': 100000,
  'o4-mini': 100000,
  'codex-mini': 100000,
  'claude-3-haiku': 4096,
  'claude-3-opus': 4096,
  'claude-3-sonnet': 4096,
  'claude-3-5-haiku': 8192,
  'claude-3-5-sonnet': 8192,
  'claude-3-7-sonnet': 64000,
  'claude-sonnet-4': 64000,
  'claude-opus-4': 32000,
  'claude-opus-4-5': 64000,
  'claude-haiku-4': 64000,
  'gemini-1.5': 8192,
  'gemini-2.0': 8192,
  'gemini-2.5': 65536,
  'gemini-3': 65536,
  'deepseek-chat': 8192,
  'deepseek-reasoner': 65536,
};

type IntMap = Record<string, number>;

/** Bounds found per model, per option service; dropped when the option changes. */
const caches = new WeakMap<OptionService, Map<string, number>>();

/**
 * The model's entry in ModelMaxOutputTokens (exact name, else the longest prefix), else its
 * `default`. Asked on every call: answered from a map after the first call of each model.
 */
export function maxOutputTokens(options: OptionService, model: string): number {
  let cache = caches.get(options);
  if (cache === undefined) {
    const created = new Map<string, number>();
    options.onChange((key) => {
      if (key === 'ModelMaxOutputTokens') created.clear();
    });
    caches.set(options, (cache = created));
  }
  const known = cache.get(model);
  if (known !== undefined) return known;
  const bound = boundOf(options.json<IntMap>('ModelMaxOutputTokens'), model);
  // Bounded: a flood of made-up model names cannot grow it without end.
  if (cache.size >= 10_000) cache.clear();
  cache.set(model, bound);
  return bound;
}

function boundOf(map: IntMap, model: string): number {
  let best: string | undefined;
  for (const key of Object.keys(map)) {
    if (key === 'default' || !model.startsWith(key) || typeof map[key] !== 'number' || map[key] <= 0) continue;
    if (best === undefined || key.length > best.length) best = key;
  }
  if (best !== undefined) return map[best]!;
  const fallback = map.default;
  return typeof fallback === 'number' && fallback > 0 ? fallback : DEFAULT_MAX_OUTPUT_TOKENS.default!;
}
