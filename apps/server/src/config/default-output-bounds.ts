/**
 * The most output tokens a model returns to a call that sets no limit of its own: what the relay
 * holds for such a call, and what a capped call is held to (relay/completion-cap.ts; the lookup is domain/billing/output-bounds.ts). Keys are
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
