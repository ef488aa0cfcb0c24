/**
 * The operation tab's rules (spec 01 §5, §9): numeric fields and their minimums, the group ratio
 * tag colours, the JSON shapes the server accepts, the sensitive-word count and quota as money.
 * Pure functions, unit-tested without a browser.
 */
import { ChatConfigError, parseChats } from '../../chat/chat-links';
import type { OptionValues } from '../options/options-api';

/** How a numeric option is checked in the form; the server's registry holds the same limits. */
export interface NumberRule {
  /** Whole numbers only (counts, quotas, minutes). */
  integer: boolean;
  min: number;
  /** The minimum itself is refused too (QuotaPerUnit must be above 0). */
  exclusive?: boolean;
  /** The largest value taken (percentages). */
  max?: number;
}

export type NumberProblem = 'required' | 'notNumber' | 'notInteger' | 'belowMin' | 'notAboveMin' | 'aboveMax';

/** Spec 01 §5 and §9: the dashboard interval is at least 1, monitoring and quota fields at least 0. */
export const NUMBER_RULES = {
  QuotaPerUnit: { integer: false, min: 0, exclusive: true },
  RetryTimes: { integer: true, min: 0 },
  StreamCacheQueueLength: { integer: true, min: 0 },
  DataExportInterval: { integer: true, min: 1 },
  ChannelDisableThreshold: { integer: false, min: 0 },
  ChannelBreakerFailureThreshold: { integer: true, min: 0 },
  ChannelBreakerWindowSeconds: { integer: false, min: 0 },
  ChannelBreakerCooldownSeconds: { integer: false, min: 0 },
  ChannelAffinityTTLSeconds: { integer: true, min: 1 },
  ChannelAffinityMaxEntries: { integer: true, min: 1 },
  QuotaForNewUser: { integer: true, min: 0 },
  PreConsumedQuota: { integer: true, min: 0 },
  QuotaForInviter: { integer: true, min: 0 },
  QuotaForInvitee: { integer: true, min: 0 },
  QuotaRemindThreshold: { integer: true, min: 0 },
  // Fewer output tokens than this and a call is refused rather than sent with a lower limit.
  MinCappedOutputTokens: { integer: true, min: 1 },
  // Hours a Responses turn answered by conversion is kept for previous_response_id; 0 keeps none.
  ResponsesRetentionHours: { integer: true, min: 0 },
  // Days usage logs are kept (the master deletes older ones hourly); 0 keeps them all.
  LogRetentionDays: { integer: true, min: 0 },
  // new-api's per-user model request limits: 0 turns a limit (or the window) off.
  ModelRequestRateLimitDurationMinutes: { integer: true, min: 0 },
  ModelRequestRateLimitCount: { integer: true, min: 0 },
  ModelRequestRateLimitSuccessCount: { integer: true, min: 0 },
  // new-api's thinking adapters: budget_tokens = max_tokens × this share.
  'claude.thinking_adapter_budget_tokens_percentage': { integer: false, min: 0.1, max: 1 },
  'gemini.thinking_adapter_budget_tokens_percentage': { integer: false, min: 0.002, max: 1 },
} as const satisfies Record<string, NumberRule>;

export type NumberOptionKey = keyof typeof NUMBER_RULES;

/**
 * Whether a keystroke's result may stay in a numeric field: digits only, and one decimal point
 * where fractions are allowed. Minus signs cannot be typed, as no field takes a negative number.
 */
export function acceptsNumberInput(raw: string, rule: NumberRule): boolean {
  return rule.integer ? /^\d*$/.test(raw) : /^\d*\.?\d*$/.test(raw);
}

/** What is wrong with a numeric field's text, or null when the server will take it. */
export function numberProblem(raw: string, rule: NumberRule): NumberProblem | null {
  const problem = numberProblemBelow(raw, rule);
  if (problem) return problem;
  return rule.max !== undefined && Number(raw.trim()) > rule.max ? 'aboveMax' : null;
}

function numberProblemBelow(raw: string, rule: NumberRule): NumberProblem | null {
  const text = raw.trim();
  if (text === '') return 'required';
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(text)) return 'notNumber';
  const value = Number(text);
  if (!Number.isFinite(value)) return 'notNumber';
  if (rule.integer && !Number.isInteger(value)) return 'notInteger';
  if (rule.exclusive ? value <= rule.min : value < rule.min) return rule.exclusive ? 'notAboveMin' : 'belowMin';
  return null;
}

/** The first numeric field of a card that the server would refuse, in the card's order. */
export function firstNumberProblem(values: OptionValues, keys: readonly NumberOptionKey[]): { key: NumberOptionKey; problem: NumberProblem } | null {
  for (const key of keys) {
    const problem = numberProblem(values[key] ?? '', NUMBER_RULES[key]);
    if (problem) return { key, problem };
  }
  return null;
}

export type GroupRatioColour = 'red' | 'orange' | 'blue' | 'green';

/** Spec 01 §9: a group ratio above 5 is red, above 3 orange, above 1 blue, else green. */
export function groupRatioColour(ratio: number): GroupRatioColour {
  if (ratio > 5) return 'red';
  if (ratio > 3) return 'orange';
  if (ratio > 1) return 'blue';
  return 'green';
}

export type JsonShapeProblem =
  | 'notObject'
  | 'notNumber'
  | 'notString'
  | 'notArray'
  | 'badChatEntry'
  // The model settings (model-settings-rules.ts).
  | 'notInteger'
  | 'notPositiveInteger'
  | 'notHeaderList'
  | 'badHeaderName'
  | 'notStringList'
  | 'badThreshold'
  | 'badVersion'
  | 'badPolicy'
  | 'badPattern';

export interface JsonShapeIssue {
  problem: JsonShapeProblem;
  /** The entry whose value is wrong, where one is. */
  entry?: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text that does not parse has no shape issue: §5's "不是合法的 JSON 字符串" check covers it first. */
function parseOr(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** GroupRatio and TopupGroupRatio: an object of non-negative numbers (the server's number-map). */
export function ratioMapIssue(text: string): JsonShapeIssue | null {
  const json = parseOr(text);
  if (!json.ok) return null;
  const parsed = json.value;
  if (!isPlainObject(parsed)) return { problem: 'notObject' };
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return { problem: 'notNumber', entry: name };
  }
  return null;
}

/** UserUsableGroups: an object of group name → description (the server's string-map). */
export function groupDescriptionsIssue(text: string): JsonShapeIssue | null {
  const json = parseOr(text);
  if (!json.ok) return null;
  const parsed = json.value;
  if (!isPlainObject(parsed)) return { problem: 'notObject' };
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') return { problem: 'notString', entry: name };
  }
  return null;
}

/**
 * Chats: an array of one-entry objects {"client name": "link template"}, as the console's chat
 * pages read it (features/chat/chat-links.ts); the server itself only asks for an array.
 */
export function chatsIssue(text: string): JsonShapeIssue | null {
  const json = parseOr(text);
  if (!json.ok) return null;
  const parsed = json.value;
  if (!Array.isArray(parsed)) return { problem: 'notArray' };
  try {
    parseChats(parsed);
  } catch (error) {
    if (error instanceof ChatConfigError) return { problem: 'badChatEntry' };
    throw error;
  }
  return null;
}

export interface GroupRatioEntry {
  group: string;
  ratio: number;
  colour: GroupRatioColour;
}

/** The group ratio tags: one per group of a valid GroupRatio text, in its order; null when it does not parse. */
export function groupRatioEntries(text: string): GroupRatioEntry[] | null {
  const json = parseOr(text);
  if (!json.ok) return null;
  const parsed = json.value;
  if (!isPlainObject(parsed)) return null;
  const entries: GroupRatioEntry[] = [];
  for (const [group, value] of Object.entries(parsed)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) return null;
    entries.push({ group, ratio: value, colour: groupRatioColour(value) });
  }
  return entries;
}

export interface SensitiveWordCount {
  /** Distinct words, as the relay's matcher holds them (trimmed, case-insensitive). */
  words: number;
  /** Lines that repeat a word already listed. */
  duplicates: number;
}

/** One word per line; blank lines are ignored, as in the relay (domain/sensitive). */
export function countSensitiveWords(text: string): SensitiveWordCount {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const distinct = new Set(lines.map((line) => line.toLowerCase()));
  return { words: distinct.size, duplicates: lines.length - distinct.size };
}

/**
 * A quota amount as US dollars at `quotaPerUnit` quota units per dollar, up to six decimals
 * (the precision the default 500,000 units per dollar allows); null when it cannot be worked out.
 */
export function quotaAsDollars(quotaText: string, quotaPerUnitText: string): string | null {
  const quota = Number(quotaText);
  const perUnit = Number(quotaPerUnitText);
  if (quotaText.trim() === '' || !Number.isFinite(quota) || !Number.isFinite(perUnit) || perUnit <= 0) return null;
  const dollars = Number((quota / perUnit).toFixed(6));
  return `$${dollars.toLocaleString('en-US', { maximumFractionDigits: 6 })}`;
}

/** DELETE /api/log/ takes Unix seconds; logs written before that second are removed. */
export function logCutoffSeconds(moment: Date): number {
  return Math.floor(moment.getTime() / 1000);
}
