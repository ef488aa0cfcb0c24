/** Token counts the relay bills by, whatever the upstream called them. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

type Json = Record<string, unknown>;

/** A finite, non-negative count; anything else (null, strings, negatives) is no count. */
const countOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

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
  return { promptTokens: Math.round(prompt ?? 0), completionTokens: Math.round(completion ?? 0) };
}
