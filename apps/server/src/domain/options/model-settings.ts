import type { OptionService } from './option-service.js';
import type { ResponsesPolicy } from '../../config/option-registry.js';

/**
 * new-api's model settings (setting/model_setting/claude.go and gemini.go) as the relay reads them
 * per request. OptionService.json() parses an option once per stored value; what is derived from
 * the parsed value here (joined header values, the set of image models) is kept in a WeakMap keyed
 * by that parsed object, so it is rebuilt exactly when the option changes and every call costs a
 * map lookup.
 */

/** What the accessors need from the options: reads only. */
export type ModelSettingsSource = Pick<OptionService, 'json' | 'number' | 'bool'>;

type IntMap = Record<string, number>;
type HeaderMap = Record<string, Record<string, string[]>>;
type StringMap = Record<string, string>;

/** new-api's max_tokens for a Claude request that names none and a model the option does not list. */
export const CLAUDE_DEFAULT_MAX_TOKENS = 8192;
/** new-api's safety threshold for a Gemini category neither listed nor covered by "default". */
export const GEMINI_DEFAULT_SAFETY_THRESHOLD = 'OFF';
/** new-api's Gemini API version for a model neither listed nor covered by "default". */
export const GEMINI_DEFAULT_API_VERSION = 'v1beta';

const entryOf = <T>(map: Record<string, T>, key: string): T | undefined => (Object.hasOwn(map, key) ? map[key] : undefined);

/**
 * max_tokens for a Claude request without one (Claude requires it): the model's entry in
 * claude.default_max_tokens, else its "default", else 8192.
 */
export function claudeDefaultMaxTokens(options: ModelSettingsSource, model: string): number {
  const map = options.json<IntMap>('claude.default_max_tokens');
  return entryOf(map, model) ?? entryOf(map, 'default') ?? CLAUDE_DEFAULT_MAX_TOKENS;
}

export interface ThinkingAdapter {
  /** A `-thinking` model name suffix turns thinking on (Claude) or sets the budget (Gemini). */
  enabled: boolean;
  /** budget_tokens = max_tokens × budgetPercentage. */
  budgetPercentage: number;
}

/** claude.thinking_adapter_enabled and claude.thinking_adapter_budget_tokens_percentage. */
export function claudeThinkingAdapter(options: ModelSettingsSource): ThinkingAdapter {
  return {
    enabled: options.bool('claude.thinking_adapter_enabled'),
    budgetPercentage: options.number('claude.thinking_adapter_budget_tokens_percentage'),
  };
}

/** gemini.thinking_adapter_enabled and gemini.thinking_adapter_budget_tokens_percentage. */
export function geminiThinkingAdapter(options: ModelSettingsSource): ThinkingAdapter {
  return {
    enabled: options.bool('gemini.thinking_adapter_enabled'),
    budgetPercentage: options.number('gemini.thinking_adapter_budget_tokens_percentage'),
  };
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Items of comma-separated header values, trimmed, empty ones and repeats dropped, in order
 * (new-api's normalizeHeaderListValues).
 */
export function headerListItems(values: readonly string[]): string[] {
  const items: string[] = [];
  for (const value of values) {
    for (const item of value.split(',')) {
      const trimmed = item.trim();
      if (trimmed !== '' && !items.includes(trimmed)) items.push(trimmed);
    }
  }
  return items;
}

/**
 * One header's value after adding the configured items to what the client sent (new-api's
 * WriteHeaders: the client's items first, then the configured ones, each once, joined with ",").
 * `incoming` is the client's value (e.g. its anthropic-beta), undefined when it sent none.
 */
export function mergeHeaderList(incoming: string | undefined, configured: string): string {
  return headerListItems(incoming === undefined ? [configured] : [incoming, configured]).join(',');
}

const headersCache = new WeakMap<HeaderMap, Map<string, Readonly<Record<string, string>>>>();

/**
 * The extra headers claude.model_headers_settings sets for requests of `model` (the model sent
 * upstream): header names in lower case, each header's values de-duplicated and joined with ","
 * as new-api does; none for a model the option does not list. To keep the client's own values of
 * the same header (e.g. its anthropic-beta list), combine them with mergeHeaderList.
 */
export function claudeModelHeaders(options: ModelSettingsSource, model: string): Readonly<Record<string, string>> {
  const map = options.json<HeaderMap>('claude.model_headers_settings');
  let perModel = headersCache.get(map);
  if (!perModel) {
    perModel = new Map();
    headersCache.set(map, perModel);
  }
  const cached = perModel.get(model);
  if (cached) return cached;
  const configured = entryOf(map, model);
  let headers = NO_HEADERS;
  if (configured) {
    const built: Record<string, string> = {};
    for (const [name, values] of Object.entries(configured)) {
      const key = name.toLowerCase();
      const joined = headerListItems(built[key] === undefined ? values : [built[key], ...values]).join(',');
      if (joined !== '') built[key] = joined;
    }
    headers = Object.freeze(built);
  }
  perModel.set(model, headers);
  return headers;
}

const thresholdCache = new WeakMap<StringMap, (category: string) => string>();

/**
 * The threshold for each Gemini harm category from gemini.safety_settings: the category's entry,
 * else "default", else OFF (new-api's GetGeminiSafetySetting; an empty entry counts as none).
 */
export function geminiSafetyThreshold(options: ModelSettingsSource): (category: string) => string {
  const map = options.json<StringMap>('gemini.safety_settings');
  let threshold = thresholdCache.get(map);
  if (!threshold) {
    const fallback = entryOf(map, 'default') || GEMINI_DEFAULT_SAFETY_THRESHOLD;
    threshold = (category: string) => entryOf(map, category) || fallback;
    thresholdCache.set(map, threshold);
  }
  return threshold;
}

/**
 * The API version in the Gemini path for `model` (the model sent upstream): its entry in
 * gemini.version_settings, else "default", else v1beta (new-api's GetGeminiVersionSetting).
 */
export function geminiApiVersion(options: ModelSettingsSource, model: string): string {
  const map = options.json<StringMap>('gemini.version_settings');
  return entryOf(map, model) || entryOf(map, 'default') || GEMINI_DEFAULT_API_VERSION;
}

const imageModelsCache = new WeakMap<readonly string[], ReadonlySet<string>>();

/**
 * Whether `model` is one of gemini.supported_imagine_models, the models new-api asks for image
 * output as well as text (responseModalities TEXT and IMAGE).
 */
export function geminiSupportsImageOutput(options: ModelSettingsSource, model: string): boolean {
  const list = options.json<string[]>('gemini.supported_imagine_models');
  let models = imageModelsCache.get(list);
  if (!models) {
    models = new Set(list);
    imageModelsCache.set(list, models);
  }
  return models.has(model);
}

/** A parsed ChatCompletionsToResponsesPolicy, its patterns compiled once. */
interface CompiledResponsesPolicy {
  enabled: boolean;
  allChannels: boolean;
  channelIds: ReadonlySet<number>;
  channelTypes: ReadonlySet<number>;
  patterns: readonly RegExp[];
}

const responsesPolicyCache = new WeakMap<ResponsesPolicy, CompiledResponsesPolicy>();

function compiledResponsesPolicy(options: ModelSettingsSource): CompiledResponsesPolicy {
  const policy = options.json<ResponsesPolicy>('global.chat_completions_to_responses_policy');
  let compiled = responsesPolicyCache.get(policy);
  if (!compiled) {
    const patterns: RegExp[] = [];
    for (const pattern of policy.model_patterns ?? []) {
      try {
        patterns.push(new RegExp(pattern));
      } catch {
        // Checked when saved; a value stored before that check matches nothing.
      }
    }
    compiled = {
      enabled: policy.enabled === true,
      allChannels: policy.all_channels === true,
      channelIds: new Set(policy.channel_ids ?? []),
      channelTypes: new Set(policy.channel_types ?? []),
      patterns,
    };
    responsesPolicyCache.set(policy, compiled);
  }
  return compiled;
}

/**
 * new-api's ChatCompletions→Responses policy (global.chat_completions_to_responses_policy): a chat
 * call of `model` (the model sent upstream) on this channel goes upstream as a Responses API call,
 * for models the upstream serves only there. On when enabled, the channel is named by id or type
 * (or all_channels) and a model pattern matches.
 */
export function chatViaResponses(options: ModelSettingsSource, channelId: number, channelType: number, model: string): boolean {
  const policy = compiledResponsesPolicy(options);
  if (!policy.enabled || policy.patterns.length === 0) return false;
  if (!policy.allChannels && !policy.channelIds.has(channelId) && !policy.channelTypes.has(channelType)) return false;
  return policy.patterns.some((pattern) => pattern.test(model));
}
