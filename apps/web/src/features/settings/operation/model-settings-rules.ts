/**
 * The shapes the server takes for new-api's Claude and Gemini settings (config/option-registry.ts),
 * checked before saving so the card names the field and the entry at fault. Text that does not
 * parse has no shape issue: §5's "不是合法的 JSON 字符串" check covers it first. Pure functions.
 */
import type { JsonShapeIssue } from './operation-rules';

/** The thresholds Gemini's safetySettings take (new-api's validGeminiSafetySettings). */
export const GEMINI_SAFETY_THRESHOLDS = [
  'OFF',
  'BLOCK_NONE',
  'BLOCK_ONLY_HIGH',
  'BLOCK_MEDIUM_AND_ABOVE',
  'BLOCK_LOW_AND_ABOVE',
  'HARM_BLOCK_THRESHOLD_UNSPECIFIED',
] as const;

/** An HTTP header name (RFC 9110 token), as the server checks it. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An API version as it appears in Gemini's path: v1, v1beta, v1alpha. */
const API_VERSION = /^v\d+[a-z0-9]*$/;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** claude.default_max_tokens: model (or "default") → a whole number of tokens, 0 or more. */
export function intMapIssue(text: string): JsonShapeIssue | null {
  const json = parsed(text);
  if (!json.ok) return null;
  if (!isPlainObject(json.value)) return { problem: 'notObject' };
  for (const [entry, value] of Object.entries(json.value)) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return { problem: 'notInteger', entry };
  }
  return null;
}

/**
 * ModelMaxOutputTokens: model, name prefix or "default" → a whole number of tokens, 1 or more.
 * The server stores a 0 but the relay skips it (domain/billing/output-bounds.ts), so it is refused
 * here rather than saved as a bound that silently does nothing.
 */
export function outputBoundMapIssue(text: string): JsonShapeIssue | null {
  const json = parsed(text);
  if (!json.ok) return null;
  if (!isPlainObject(json.value)) return { problem: 'notObject' };
  for (const [entry, value] of Object.entries(json.value)) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) return { problem: 'notPositiveInteger', entry };
  }
  return null;
}

/** claude.model_headers_settings: model → {header name: [values]}, values without line breaks. */
export function headerMapIssue(text: string): JsonShapeIssue | null {
  const json = parsed(text);
  if (!json.ok) return null;
  if (!isPlainObject(json.value)) return { problem: 'notObject' };
  for (const [model, headers] of Object.entries(json.value)) {
    if (!isPlainObject(headers)) return { problem: 'notHeaderList', entry: model };
    for (const [header, values] of Object.entries(headers)) {
      if (!HEADER_NAME.test(header)) return { problem: 'badHeaderName', entry: header };
      if (!Array.isArray(values) || !values.every((value) => typeof value === 'string' && !/[\r\n\0]/.test(value))) {
        return { problem: 'notHeaderList', entry: model };
      }
    }
  }
  return null;
}

/** gemini.safety_settings: category (or "default") → one of Gemini's thresholds ('' falls back to "default"). */
export function safetyMapIssue(text: string): JsonShapeIssue | null {
  const json = parsed(text);
  if (!json.ok) return null;
  if (!isPlainObject(json.value)) return { problem: 'notObject' };
  for (const [entry, value] of Object.entries(json.value)) {
    if (typeof value !== 'string') return { problem: 'notString', entry };
    if (value !== '' && !(GEMINI_SAFETY_THRESHOLDS as readonly string[]).includes(value)) return { problem: 'badThreshold', entry };
  }
  return null;
}

/** gemini.version_settings: model (or "default") → an API version such as v1 or v1beta. */
export function versionMapIssue(text: string): JsonShapeIssue | null {
  const json = parsed(text);
  if (!json.ok) return null;
  if (!isPlainObject(json.value)) return { problem: 'notObject' };
  for (const [entry, value] of Object.entries(json.value)) {
    if (typeof value !== 'string') return { problem: 'notString', entry };
    if (!API_VERSION.test(value)) return { problem: 'badVersion', entry };
  }
  return null;
}

/** gemini.supported_imagine_models: an array of model names. */
export function stringListIssue(text: string): JsonShapeIssue | null {
  const json = parsed(text);
  if (!json.ok) return null;
  return Array.isArray(json.value) && json.value.every((item) => typeof item === 'string') ? null : { problem: 'notStringList' };
}

/** The fields of global.chat_completions_to_responses_policy and what each holds. */
const POLICY_FIELDS: Readonly<Record<string, (value: unknown) => boolean>> = {
  enabled: (value) => typeof value === 'boolean',
  all_channels: (value) => typeof value === 'boolean',
  channel_ids: (value) => Array.isArray(value) && value.every((id) => Number.isSafeInteger(id) && (id as number) > 0),
  channel_types: (value) => Array.isArray(value) && value.every((type) => Number.isSafeInteger(type) && (type as number) >= 0),
  model_patterns: (value) => Array.isArray(value) && value.every((pattern) => typeof pattern === 'string'),
};

/**
 * global.chat_completions_to_responses_policy (new-api's ChatCompletionsToResponsesPolicy):
 * {enabled, all_channels, channel_ids, channel_types, model_patterns}, each pattern a regular expression.
 */
export function responsesPolicyIssue(text: string): JsonShapeIssue | null {
  const json = parsed(text);
  if (!json.ok) return null;
  if (!isPlainObject(json.value)) return { problem: 'notObject' };
  for (const [entry, value] of Object.entries(json.value)) {
    const check = POLICY_FIELDS[entry];
    if (!check || (value !== null && !check(value))) return { problem: 'badPolicy', entry };
  }
  for (const pattern of (json.value.model_patterns as string[] | undefined) ?? []) {
    try {
      new RegExp(pattern);
    } catch {
      return { problem: 'badPattern', entry: pattern };
    }
  }
  return null;
}

/**
 * The thinking budget the adapter asks for, for the help line under the percentage
 * (new-api: BudgetTokens = MaxTokens × percentage, rounded down); null while either is unusable.
 */
export function thinkingBudget(maxTokensText: string, percentageText: string): { maxTokens: number; budget: number } | null {
  const json = parsed(maxTokensText);
  const percentage = Number(percentageText);
  if (!json.ok || !isPlainObject(json.value) || percentageText.trim() === '' || !Number.isFinite(percentage)) return null;
  const fallback = json.value.default;
  const maxTokens = typeof fallback === 'number' && Number.isSafeInteger(fallback) && fallback >= 0 ? fallback : 8192;
  return { maxTokens, budget: Math.floor(maxTokens * percentage) };
}
