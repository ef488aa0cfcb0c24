import type { LogFilters } from './api';

/** Spec 02 §4: 1 top-up, 2 consumption, 3 management, 4 system; 0 (unknown) is shown like consumption. */
export const LOG_TYPES = [0, 1, 2, 3, 4] as const;
export type LogTypeKey = 'all' | 'topup' | 'consume' | 'manage' | 'system';
const TYPE_KEYS: Record<number, LogTypeKey> = { 0: 'all', 1: 'topup', 2: 'consume', 3: 'manage', 4: 'system' };

export function typeFilterKey(type: number): LogTypeKey {
  return TYPE_KEYS[type] ?? 'all';
}

/** The tag of a row: unknown types read as consumption. */
export function rowTypeKey(type: number): Exclude<LogTypeKey, 'all'> {
  const key = TYPE_KEYS[type];
  return key === undefined || key === 'all' ? 'consume' : key;
}

export const TYPE_COLOURS = { topup: 'cyan', consume: 'green', manage: 'orange', system: 'purple' } as const;

export type Light = 'green' | 'orange' | 'red';

/** Spec 02 §9: a use time up to 100 s is green, under 300 s orange, else red. */
export function logUseTimeColour(seconds: number): Light {
  if (seconds <= 100) return 'green';
  if (seconds < 300) return 'orange';
  return 'red';
}

/** Spec 02 §9: a first token under 3 s is green, under 10 s orange, else red. */
export function firstTokenColour(milliseconds: number): Light {
  if (milliseconds < 3000) return 'green';
  if (milliseconds < 10000) return 'orange';
  return 'red';
}

/** What the relay stored in a consume row's `other` (consume-log.ts); rows of other types carry none. */
export interface BillingDetails {
  modelRatio?: number;
  completionRatio?: number;
  groupRatio?: number;
  /** -1 or absent: priced by ratio. */
  modelPrice?: number;
  /** Milliseconds to the first token; 0 or absent when not measured. */
  frt?: number;
  upstreamModel?: string;
  /** Prompt tokens the upstream served from its cache (new-api's cache_tokens); 0 or absent when none. */
  cacheTokens?: number;
  /** What each of them cost relative to the model ratio (new-api's cache_ratio). */
  cacheRatio?: number;
  /** Prompt tokens the upstream wrote into its cache (new-api's cache_creation_tokens); absent when none. */
  cacheCreationTokens?: number;
  /** What each of them cost relative to the model ratio (new-api's cache_creation_ratio). */
  cacheCreationRatio?: number;
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

export function parseOther(other: string | null | undefined): BillingDetails {
  if (!other) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(other);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const record = parsed as Record<string, unknown>;
  return {
    modelRatio: num(record.model_ratio),
    completionRatio: num(record.completion_ratio),
    groupRatio: num(record.group_ratio),
    modelPrice: num(record.model_price),
    frt: num(record.frt),
    upstreamModel: typeof record.upstream_model_name === 'string' ? record.upstream_model_name : undefined,
    cacheTokens: num(record.cache_tokens),
    cacheRatio: num(record.cache_ratio),
    cacheCreationTokens: num(record.cache_creation_tokens),
    cacheCreationRatio: num(record.cache_creation_ratio),
  };
}

const trimmed = (value: number) => String(Number(value.toFixed(6)));

/**
 * The charge written out with the row's numbers (spec 02 §9): a ratio model costs
 * (prompt + completion × completion ratio) × model ratio × group ratio quota; a fixed price is
 * price × group ratio dollars, i.e. × quota per unit. Prompt tokens served from the upstream's
 * cache cost the cache ratio each, those written into it the cache-creation ratio each:
 * (prompt − cached − written + cached × cache ratio + written × creation ratio + completion × ...).
 */
export function billingFormula(
  details: BillingDetails,
  row: { prompt_tokens: number; completion_tokens: number; quota: number },
  quotaPerUnit: number,
): string | null {
  const groupRatio = details.groupRatio ?? 1;
  if (details.modelPrice !== undefined && details.modelPrice >= 0) {
    return `${trimmed(details.modelPrice)} × ${trimmed(groupRatio)} × ${quotaPerUnit} = ${row.quota}`;
  }
  if (details.modelRatio === undefined) return null;
  const completionRatio = details.completionRatio ?? 1;
  const cached = details.cacheTokens ?? 0;
  const written = details.cacheCreationTokens ?? 0;
  const minus = [cached, written]
    .filter((count) => count > 0)
    .map((count) => ` − ${count}`)
    .join('');
  const plus = [
    cached > 0 ? ` + ${cached} × ${trimmed(details.cacheRatio ?? 1)}` : '',
    written > 0 ? ` + ${written} × ${trimmed(details.cacheCreationRatio ?? 1.25)}` : '',
  ].join('');
  const prompt = `${row.prompt_tokens}${minus}${plus}`;
  return `(${prompt} + ${row.completion_tokens} × ${trimmed(completionRatio)}) × ` + `${trimmed(details.modelRatio)} × ${trimmed(groupRatio)} = ${row.quota}`;
}

/** URL parameters of the filters; the page's `p` sits beside them. */
export function filtersFromParams(params: URLSearchParams): LogFilters {
  const integer = (name: string) => {
    const value = Number(params.get(name));
    return Number.isInteger(value) && value > 0 ? value : 0;
  };
  const type = integer('type');
  return {
    type: type <= 4 ? type : 0,
    tokenName: params.get('token_name') ?? '',
    modelName: params.get('model_name') ?? '',
    group: params.get('group') ?? '',
    start: integer('start'),
    end: integer('end'),
    channel: params.get('channel') ?? '',
    username: params.get('username') ?? '',
  };
}
