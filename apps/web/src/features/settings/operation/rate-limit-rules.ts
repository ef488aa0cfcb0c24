/**
 * The rate-limit options' shapes, checked before saving as the server checks them
 * (packages/contract rate-limits.ts): GroupRateLimits and ModelRateLimits (name → {rpm, tpm,
 * rpd, concurrency}), new-api's ModelRequestRateLimitGroup (group → [count, success count]).
 * Pure functions, unit-tested without a browser.
 */
import { RATE_LIMIT_KINDS, RATE_LIMIT_MAX, type WireRateLimits } from '@modelgate/contract';

export interface RateLimitShapeIssue {
  problem: 'notObject' | 'badRateLimit' | 'badRequestLimit';
  entry?: string;
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const isWhole = (value: unknown, min: number): boolean => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= RATE_LIMIT_MAX;

/** {rpm, tpm, rpd, concurrency}, each optional, whole numbers from 0 (the contract's rateLimitFiguresSchema). */
const isFigures = (value: unknown): boolean =>
  isPlainObject(value) && Object.entries(value).every(([kind, figure]) => (RATE_LIMIT_KINDS as readonly string[]).includes(kind) && isWhole(figure, 0));

/** GroupRateLimits and ModelRateLimits; text that does not parse is left to the "不是合法的 JSON 字符串" check. */
export function rateLimitMapIssue(text: string): RateLimitShapeIssue | null {
  const json = parsed(text);
  if (!json.ok) return null;
  if (!isPlainObject(json.value)) return { problem: 'notObject' };
  for (const [name, figures] of Object.entries(json.value)) {
    if (name === '' || !isFigures(figures)) return { problem: 'badRateLimit', entry: name };
  }
  return null;
}

/** ModelRequestRateLimitGroup: [count ≥ 0, success count ≥ 1], as new-api checks it. */
export function requestLimitGroupIssue(text: string): RateLimitShapeIssue | null {
  const json = parsed(text);
  if (!json.ok) return null;
  if (!isPlainObject(json.value)) return { problem: 'notObject' };
  for (const [name, pair] of Object.entries(json.value)) {
    if (!Array.isArray(pair) || pair.length !== 2 || !isWhole(pair[0], 0) || !isWhole(pair[1], 1)) return { problem: 'badRequestLimit', entry: name };
  }
  return null;
}

/** One entry of a rate-limit map, as the card shows it; null when the text cannot be read. */
export function rateLimitEntries(text: string): { name: string; figures: WireRateLimits }[] | null {
  const json = parsed(text);
  if (!json.ok || !isPlainObject(json.value) || rateLimitMapIssue(text) !== null) return null;
  return Object.entries(json.value as Record<string, Record<string, number | undefined>>).map(([name, figures]) => ({
    name,
    figures: {
      rpm_limit: figures.rpm ?? 0,
      tpm_limit: figures.tpm ?? 0,
      rpd_limit: figures.rpd ?? 0,
      concurrency_limit: figures.concurrency ?? 0,
    },
  }));
}
