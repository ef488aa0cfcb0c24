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
  /**
   * Prompt tokens the upstream wrote into its prompt cache (`prompt_tokens_details.cached_creation_tokens`,
   * Anthropic's cache_creation_input_tokens once converted), part of promptTokens as cached tokens
   * are, billed at the model's CreateCacheRatio. Absent when the upstream reported none.
   */
  cacheCreationTokens?: number;
  /**
   * The share of cacheCreationTokens written for an hour (`prompt_tokens_details.cached_creation_1h_tokens`,
   * Claude's cache_creation.ephemeral_1h_input_tokens), billed at CreateCacheRatio × 6/3.75. Absent when none.
   */
  cacheCreation1hTokens?: number;
}

type Json = Record<string, unknown>;

/** A finite, non-negative count; anything else (null, strings, negatives) is no count. */
const countOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);

const detailOf = (details: unknown, field: string): number | undefined =>
  details !== null && typeof details === 'object' && !Array.isArray(details) ? countOf((details as Json)[field]) : undefined;

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
  const cached = detailOf(usage.prompt_tokens_details, 'cached_tokens') ?? detailOf(usage.input_tokens_details, 'cached_tokens');
  const created = detailOf(usage.prompt_tokens_details, 'cached_creation_tokens') ?? detailOf(usage.input_tokens_details, 'cached_creation_tokens');
  // Never more cached tokens than prompt tokens: cache reads and writes are shares of the prompt
  // (reads first, then writes up to what is left), so no prompt token is billed twice.
  const readTokens = cached !== undefined && cached > 0 ? Math.min(Math.round(cached), promptTokens) : 0;
  if (readTokens > 0) counted.cachedTokens = readTokens;
  const writeTokens = created !== undefined && created > 0 ? Math.min(Math.round(created), promptTokens - readTokens) : 0;
  if (writeTokens > 0) counted.cacheCreationTokens = writeTokens;
  const hour = writeTokens > 0 ? detailOf(usage.prompt_tokens_details, 'cached_creation_1h_tokens') : undefined;
  if (hour !== undefined && hour > 0) counted.cacheCreation1hTokens = Math.min(Math.round(hour), writeTokens);
  return counted;
}
