import { LogKind } from '@modelgate/contract';
import type { TFunction } from 'i18next';
import type { LogEntry, LogFilters } from './api';

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

/** `other` as an object, or undefined when the row has none or it is not a JSON object. */
function otherObject(other: string | null | undefined): Record<string, unknown> | undefined {
  if (!other) return undefined;
  try {
    const parsed: unknown = JSON.parse(other);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * A consume row's words from its billing keys (consume-log.ts, realtime-log.ts): the price or the
 * ratios, then what applied to the call (output cap, listed words, a task's action). Undefined when
 * the row carries neither a price nor a model ratio.
 */
function consumeText(other: Record<string, unknown>, t: TFunction<'logs'>): string | undefined {
  const price = num(other.model_price);
  const modelRatio = num(other.model_ratio);
  const group = trimmed(num(other.group_ratio) ?? 1);
  const parts: string[] = [];
  if (price !== undefined && price >= 0) parts.push(t('content.price', { price: trimmed(price), group }));
  else if (modelRatio === undefined) return undefined;
  else {
    const ratios = { model: trimmed(modelRatio), completion: trimmed(num(other.completion_ratio) ?? 1), group };
    const audio = num(other.audio_ratio);
    parts.push(
      audio === undefined
        ? t('content.ratios', ratios)
        : t('content.audioRatios', { ...ratios, audio: trimmed(audio), audioCompletion: trimmed(num(other.audio_completion_ratio) ?? 1) }),
    );
  }
  const cap = num(other.output_cap);
  if (cap !== undefined) parts.push(t('content.outputCap', { tokens: cap }));
  const words = Array.isArray(other.sensitive_words) ? other.sensitive_words.filter((word) => typeof word === 'string') : [];
  if (words.length > 0) parts.push(t('content.sensitiveWords', { words: words.join(', ') }));
  const action = text(other.task_action);
  if (action) parts.push(t('content.taskAction', { action }));
  const detail = text(other.task_detail);
  if (action && detail) parts.push(detail);
  return parts.join(t('content.separator'));
}

/** A top-up, management or system row's words from `other.kind` (packages/contract's LogKind). */
function kindText(other: Record<string, unknown>, t: TFunction<'logs'>, formatQuota: (quota: number) => string): string | undefined {
  const amount = formatQuota(num(other.quota) ?? 0);
  switch (other.kind) {
    case LogKind.Redeem:
      return t('content.redeem', { amount });
    case LogKind.OnlineTopUp:
      return t('content.onlineTopUp', { amount, money: (num(other.money) ?? 0).toFixed(2) });
    case LogKind.AdminAdd:
      return t('content.adminAdd', { amount });
    case LogKind.AdminSubtract:
      return t('content.adminSubtract', { amount });
    case LogKind.AdminSet:
      return t('content.adminSet', { before: formatQuota(num(other.quota_before) ?? 0), after: formatQuota(num(other.quota_after) ?? 0) });
    case LogKind.RegisterGift:
      return t('content.registerGift', { amount });
    case LogKind.InviteeGift:
      return t('content.inviteeGift', { amount });
    case LogKind.InviterReward:
      return t('content.inviterReward', { amount });
    case LogKind.AffTransfer:
      return t('content.affTransfer', { amount });
    case LogKind.TaskRefund: {
      const id = text(other.task_id) ?? '';
      return other.task_table === 'midjourneys' ? t('content.drawingRefund', { id, amount }) : t('content.taskRefund', { id, amount });
    }
    case LogKind.TokenKeyView: {
      const op = typeof other.op === 'object' && other.op !== null ? (other.op as Record<string, unknown>) : {};
      const params = typeof op.params === 'object' && op.params !== null ? (op.params as Record<string, unknown>) : {};
      return t('content.tokenKeyView', {
        user: text(params.target_username) || t('content.unknownUser'),
        userId: num(params.target_user_id) ?? 0,
        token: text(params.token_name) ?? '',
        tokenId: num(params.token_id) ?? 0,
      });
    }
    default:
      return undefined;
  }
}

/**
 * The 详情 of a row in the reader's language, from the structured fields the server stored in
 * `other` (the log contract in packages/contract): a consume row's prices and ratios, another
 * row's `kind` and amounts (in the console's quota display). Rows without them (older rows, rows
 * imported from new-api) show their `content` as written.
 */
export function describeLog(row: Pick<LogEntry, 'type' | 'content' | 'other'>, t: TFunction<'logs'>, formatQuota: (quota: number) => string): string {
  const other = otherObject(row.other);
  if (!other) return row.content;
  const described = typeof other.kind === 'string' ? kindText(other, t, formatQuota) : rowTypeKey(row.type) === 'consume' ? consumeText(other, t) : undefined;
  return described ?? row.content;
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
