import type { RateFigures } from '../../domain/relay-cache/rate-figures.js';

/**
 * What one call is checked against: one LimitCheck per figure that applies to it.
 * - rpm, rpd, and new-api's `count`: requests in a window, counted as the call is admitted;
 * - tpm: tokens in a window, counted when the call settles (checked only on admission);
 * - new-api's `success`: answers delivered in a window, counted at delivery (checked only);
 * - concurrency: calls in flight, a slot held from admission until the call's answer has ended.
 */
export type CheckKind = 'rpm' | 'tpm' | 'rpd' | 'concurrency' | 'count' | 'success';

/** Who a limit belongs to, as a refusal names it. */
export interface LimitOwner {
  zh: string;
  en: string;
}

export interface LimitCheck {
  kind: CheckKind;
  limit: number;
  /** The window's length; 0 for concurrency. */
  windowMs: number;
  /** Whose counter among the user's: `t<token id>`, `u`, `g<group>`, `m<model>` or `n` (new-api's). */
  scope: string;
  /** The counter's name among the user's counters: scope, kind and window (`t12:r60000`, `u:c`). */
  key: string;
  owner: LimitOwner;
  /** new-api's DurationMinutes, for its messages (count and success only). */
  minutes?: number;
  /** A window's part of the Redis admission script's argument, `code,limit,key,window;` (redis-counters.ts); '' for a gate. */
  wire: string;
}

/**
 * A check, its counter's name made once: checks are built when an owner's figures are read
 * (a token or user loaded, an option saved), never per call.
 */
export function limitCheck(kind: CheckKind, limit: number, windowMs: number, scope: string, owner: LimitOwner, minutes?: number): LimitCheck {
  const key = kind === 'concurrency' ? `${scope}:c` : `${scope}:${counterLetter(kind)}${windowMs}`;
  // A window counted on admission is `r`, one only checked then (tokens, successes) `k`.
  const wire = kind === 'concurrency' ? '' : `${countsOnAdmission(kind) ? 'r' : 'k'},${limit},${key},${windowMs};`;
  return minutes === undefined ? { kind, limit, windowMs, scope, key, owner, wire } : { kind, limit, windowMs, scope, key, owner, minutes, wire };
}

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** Counted when admitted (requests), checked only (tokens, successes), or a slot. */
export const countsOnAdmission = (kind: CheckKind): boolean => kind === 'rpm' || kind === 'rpd' || kind === 'count';
export const isRequestKind = (kind: CheckKind): boolean => kind !== 'tpm' && kind !== 'concurrency';

/** The letter a kind's counter is stored under: request windows share one per scope and length. */
export function counterLetter(kind: CheckKind): string {
  switch (kind) {
    case 'rpm':
    case 'rpd':
    case 'count':
      return 'r';
    case 'tpm':
      return 'k';
    case 'success':
      return 's';
    case 'concurrency':
      return 'c';
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

export const TOKEN_OWNER: LimitOwner = { zh: '该令牌', en: 'this token' };
export const USER_OWNER: LimitOwner = { zh: '该用户', en: 'this user' };
export const groupOwner = (group: string): LimitOwner => ({ zh: `该用户在分组 ${group} 中`, en: `this user in group ${group}` });
export const modelOwner = (model: string): LimitOwner => ({ zh: `该用户对模型 ${model} `, en: `this user on model ${model}` });

/** A check for each figure set. */
export function figureChecks(figures: RateFigures, scope: string, owner: LimitOwner): LimitCheck[] {
  const checks: LimitCheck[] = [];
  if (figures.concurrency > 0) checks.push(limitCheck('concurrency', figures.concurrency, 0, scope, owner));
  if (figures.rpm > 0) checks.push(limitCheck('rpm', figures.rpm, MINUTE_MS, scope, owner));
  if (figures.rpd > 0) checks.push(limitCheck('rpd', figures.rpd, DAY_MS, scope, owner));
  if (figures.tpm > 0) checks.push(limitCheck('tpm', figures.tpm, MINUTE_MS, scope, owner));
  return checks;
}

/** Scopes are parts of Redis keys and map keys: a group or model name is encoded so that ':' and braces stay separators. */
export const scopeName = (prefix: 'g' | 'm', name: string): string => `${prefix}${encodeURIComponent(name)}`;
