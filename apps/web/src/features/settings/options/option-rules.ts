/**
 * The rules every admin settings card follows when it saves (spec 01 §5, §7): only changed keys
 * are sent, one call per key; addresses lose their trailing slashes; JSON options must parse
 * before anything is sent. Pure functions, so they are unit-tested without a browser.
 */
import type { OptionValues } from './options-api';

/** Spec 01 §5: trailing slashes are stripped from these addresses (the server strips them too). */
export const URL_OPTION_KEYS: ReadonlySet<string> = new Set(['ServerAddress', 'WorkerUrl', 'PayAddress', 'CustomCallbackAddress', 'WeChatServerAddress']);

/** Options whose value must be valid JSON (spec 01 §5). */
export const JSON_OPTION_KEYS: ReadonlySet<string> = new Set([
  'GroupRatio',
  'UserUsableGroups',
  'ModelPrice',
  'ModelRatio',
  'CompletionRatio',
  'CacheRatio',
  'CreateCacheRatio',
  'Chats',
  'TopupGroupRatio',
  'claude.model_headers_settings',
  'claude.default_max_tokens',
  'ModelMaxOutputTokens',
  'gemini.safety_settings',
  'gemini.version_settings',
  'gemini.supported_imagine_models',
]);

/** The form's value as it will be stored. */
export function normaliseOptionDraft(key: string, value: string): string {
  return URL_OPTION_KEYS.has(key) ? value.trim().replace(/\/+$/, '') : value;
}

export function isValidJson(value: string): boolean {
  try {
    JSON.parse(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The keys whose draft differs from what the server holds. A key the server did not send is a
 * write-only secret: it counts as changed only when something was typed into it.
 */
export function changedOptions(saved: OptionValues, draft: OptionValues, keys: readonly string[]): [string, string][] {
  const changes: [string, string][] = [];
  for (const key of keys) {
    const value = draft[key];
    if (value === undefined) continue;
    const normalised = normaliseOptionDraft(key, value);
    const stored = saved[key];
    if (stored === undefined ? normalised !== '' : normalised !== stored) changes.push([key, normalised]);
  }
  return changes;
}

export type SaveOutcome = 'unchanged' | 'saved' | 'partial' | 'failed';

export interface SaveReport {
  outcome: SaveOutcome;
  /** The keys that were stored. */
  saved: string[];
  /** The keys the server refused, with its message. */
  failed: { key: string; message: string }[];
}

/** Sends each change on its own call (they run side by side) and sums up what happened. */
export async function saveOptionChanges(changes: readonly [string, string][], put: (key: string, value: string) => Promise<void>): Promise<SaveReport> {
  if (changes.length === 0) return { outcome: 'unchanged', saved: [], failed: [] };
  const results = await Promise.allSettled(changes.map(([key, value]) => put(key, value)));
  const saved: string[] = [];
  const failed: { key: string; message: string }[] = [];
  results.forEach((result, index) => {
    const key = changes[index]![0];
    if (result.status === 'fulfilled') saved.push(key);
    else failed.push({ key, message: result.reason instanceof Error ? result.reason.message : String(result.reason) });
  });
  const outcome: SaveOutcome = failed.length === 0 ? 'saved' : saved.length === 0 ? 'failed' : 'partial';
  return { outcome, saved, failed };
}

/** Options are strings on the wire; switches are "true"/"false". */
export const optionBool = (values: OptionValues, key: string): boolean => values[key] === 'true';
