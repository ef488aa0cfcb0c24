/** What the upstreams' token-count endpoints take and answer (Anthropic's, Vertex's, Bedrock's, Gemini's). */

/**
 * The fields Anthropic's count_tokens takes (docs.anthropic.com/en/api/messages-count-tokens):
 * the prompt and what shapes it. A Messages request's other fields (max_tokens, stream,
 * temperature, metadata …) are refused there as extra inputs, so they are left out.
 */
const CLAUDE_COUNT_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'mcp_servers',
  'context_management',
  'output_config',
  'output_format',
]);

/** A Messages request (or a count request) as a count_tokens body. */
export const claudeCountFields = (body: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(body).filter(([field]) => CLAUDE_COUNT_FIELDS.has(field)));

/** Anthropic's count answer, `{ "input_tokens": n }` (Vertex's count-tokens:rawPredict answers the same). */
export function claudeCountOf(answer: unknown): number | undefined {
  if (answer === null || typeof answer !== 'object') return undefined;
  const tokens = (answer as Record<string, unknown>).input_tokens;
  return typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0 ? tokens : undefined;
}

/** Google's count answer, `{ "totalTokens": n, … }` (the Gemini API's and Vertex's alike). */
export function geminiCountOf(answer: unknown): number | undefined {
  if (answer === null || typeof answer !== 'object') return undefined;
  const tokens = (answer as Record<string, unknown>).totalTokens;
  return typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0 ? tokens : undefined;
}
