/** Token counts the relay bills by, whatever the upstream called them. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /**
   * Prompt tokens the upstream served from its prompt cache (`prompt_tokens_details.cached_tokens`
   * in chat, `input_tokens_details.cached_tokens` in the Responses API), part of promptTokens and
   * billed at the model's CacheRatio. Absent when the upstream reported none.
   */
  cachedTokens?: number;
}

type Json = Record<string, unknown>;

/** A finite, non-negative count; anything else (null, strings, negatives) is no count. */
const countOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

const cachedTokensOf = (details: unknown): number | undefined =>
  details !== null && typeof details === 'object' && !Array.isArray(details) ? countOf((details as Json).cached_tokens) : undefined;

/**
 * Normalises a `usage` value from any of the OpenAI family's shapes: chat, completions and
 * embeddings (prompt_/completion_tokens), Responses and gpt-image (input_/output_tokens), rerank
 * (total_tokens only). undefined when it carries no token count at all.
 *
 * A hand-written reader rather than a zod schema: it runs for every answer and every stream
 * chunk with usage, where a schema parse costs several microseconds more; it accepts exactly
 * the same shapes.
 */
export function normaliseUsage(value: unknown): TokenUsage | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const usage = value as Json;
  const completion = countOf(usage.completion_tokens) ?? countOf(usage.output_tokens);
  let prompt = countOf(usage.prompt_tokens) ?? countOf(usage.input_tokens);
  const total = countOf(usage.total_tokens);
  if (prompt === undefined && total !== undefined) prompt = Math.max(0, total - (completion ?? 0));
  if (prompt === undefined && completion === undefined) return undefined;
  const promptTokens = Math.round(prompt ?? 0);
  const counted: TokenUsage = { promptTokens, completionTokens: Math.round(completion ?? 0) };
  const cached = cachedTokensOf(usage.prompt_tokens_details) ?? cachedTokensOf(usage.input_tokens_details);
  // Never more cached tokens than prompt tokens: the cached part is a share of the prompt.
  if (cached !== undefined && cached > 0) counted.cachedTokens = Math.min(Math.round(cached), promptTokens);
  return counted;
}
