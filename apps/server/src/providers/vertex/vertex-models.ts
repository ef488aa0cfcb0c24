import { AppError } from '../../errors/app-error.js';

/**
 * Claude and Gemini on Vertex AI as new-api (relay/channel/vertex) calls them: Claude models are
 * published under `publishers/anthropic` with a `@date` version (cloud.google.com/vertex-ai/
 * generative-ai/docs/partner-models/claude), the rest under `publishers/google`.
 */
const CLAUDE_ON_VERTEX: Readonly<Record<string, string>> = {
  'claude-3-sonnet-20240229': 'claude-3-sonnet@20240229',
  'claude-3-opus-20240229': 'claude-3-opus@20240229',
  'claude-3-haiku-20240307': 'claude-3-haiku@20240307',
  'claude-3-5-sonnet-20240620': 'claude-3-5-sonnet@20240620',
  'claude-3-5-sonnet-20241022': 'claude-3-5-sonnet-v2@20241022',
  'claude-3-5-haiku-20241022': 'claude-3-5-haiku@20241022',
  'claude-3-7-sonnet-20250219': 'claude-3-7-sonnet@20250219',
  'claude-sonnet-4-20250514': 'claude-sonnet-4@20250514',
  'claude-opus-4-20250514': 'claude-opus-4@20250514',
  'claude-opus-4-1-20250805': 'claude-opus-4-1@20250805',
  'claude-sonnet-4-5-20250929': 'claude-sonnet-4-5@20250929',
  'claude-haiku-4-5-20251001': 'claude-haiku-4-5@20251001',
  'claude-opus-4-5-20251101': 'claude-opus-4-5@20251101',
};

export const isClaudeModel = (model: string): boolean => model.startsWith('claude');

/**
 * The Vertex id of a Claude model: the table above, else `<name>-YYYYMMDD` → `<name>@YYYYMMDD`;
 * an id already holding `@` (or without a date) is used as given.
 */
export function vertexClaudeModel(model: string): string {
  const known = CLAUDE_ON_VERTEX[model];
  if (known) return known;
  if (model.includes('@')) return model;
  return model.replace(/-(\d{8})$/, '@$1');
}

/** What the console offers for a Vertex channel: the Claude and Gemini chat models new-api lists for it. */
export const VERTEX_KNOWN_MODELS: readonly string[] = [
  ...Object.keys(CLAUDE_ON_VERTEX),
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'gemini-2.0-flash',
  'gemini-2.0-flash-001',
  'gemini-2.0-flash-lite',
  'gemini-2.0-flash-lite-001',
  'gemini-2.5-flash',
  'gemini-2.5-flash-lite',
  'gemini-2.5-pro',
  'gemini-2.5-flash-image',
  'gemini-3-pro-preview',
  'gemini-3-flash-preview',
  'gemini-3-pro-image-preview',
  'gemini-flash-latest',
  'gemini-flash-lite-latest',
  'gemini-pro-latest',
];

/** new-api's region when the channel's map names none for the model and has no "default". */
export const VERTEX_DEFAULT_REGION = 'global';

/** us-central1, europe-west4, asia-northeast1, us, eu, global … (the region becomes part of a host name). */
const REGION_PATTERN = /^[a-z]+(-[a-z]+\d*)*$/;

const regionProblem = (what: string): AppError =>
  new AppError('channel:invalid_config', `Vertex AI 渠道的部署地区无效：${what} (the channel's region, in "other", is invalid)`, {
    status: 500,
    retryable: true,
    type: 'channel_error',
  });

/**
 * The region for a model from the channel's `other` field: a region name, or JSON
 * `{"default": "us-central1", "<model>": "<region>"}` as new-api takes it; empty → global.
 */
export function vertexRegion(other: string, model: string): string {
  const text = other.trim();
  let region = text;
  if (text === '') region = VERTEX_DEFAULT_REGION;
  else if (text.startsWith('{')) {
    let map: unknown;
    try {
      map = JSON.parse(text);
    } catch {
      throw regionProblem('不是有效的 JSON (not valid JSON)');
    }
    const record = (typeof map === 'object' && map !== null && !Array.isArray(map) ? map : {}) as Record<string, unknown>;
    const chosen = record[model] ?? record.default;
    region = typeof chosen === 'string' && chosen.trim() !== '' ? chosen.trim() : VERTEX_DEFAULT_REGION;
  }
  if (!REGION_PATTERN.test(region)) throw regionProblem(`"${region.slice(0, 40)}" 不是地区名 (is not a region name)`);
  return region;
}

/** Vertex's address for a region: the global endpoint has no region prefix. */
export const vertexOrigin = (region: string): string =>
  region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
