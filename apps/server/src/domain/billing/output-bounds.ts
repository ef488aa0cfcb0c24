import { DEFAULT_MAX_OUTPUT_TOKENS } from '../../config/default-output-bounds.js';
import type { OptionService } from '../options/option-service.js';

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
