import { TokenStatus } from '@modelgate/contract';
import { formatDateTime } from '../../lib/date-time';
import type { Token } from './api';

/** Spec 02 §9 constants for the token form. */
export const TOKEN_NAME_MAX = 50;
export const DEFAULT_REMAIN_QUOTA = 500_000;
export const COUNT_PRESETS = [10, 20, 30, 100] as const;
export const COUNT_MAX = 100;
export const QUOTA_PRESETS = [
  { quota: 500_000, dollars: 1 },
  { quota: 5_000_000, dollars: 10 },
  { quota: 25_000_000, dollars: 50 },
  { quota: 50_000_000, dollars: 100 },
  { quota: 250_000_000, dollars: 500 },
  { quota: 500_000_000, dollars: 1000 },
] as const;

export type ExpiryShortcut = 'never' | 'month' | 'day' | 'hour' | 'minute';
export const EXPIRY_SHORTCUTS: ExpiryShortcut[] = ['never', 'month', 'day', 'hour', 'minute'];

const SHORTCUT_SECONDS: Record<Exclude<ExpiryShortcut, 'never'>, number> = {
  month: 30 * 24 * 3600,
  day: 24 * 3600,
  hour: 3600,
  minute: 60,
};

/** The expiry field's text for a shortcut: '' means never (-1). */
export function expiryFromShortcut(shortcut: ExpiryShortcut, now = new Date()): string {
  if (shortcut === 'never') return '';
  return formatDateTime(new Date(now.getTime() + SHORTCUT_SECONDS[shortcut] * 1000));
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomSuffix(length = 6): string {
  const bytes = crypto.getRandomValues(new Uint32Array(length));
  return Array.from(bytes, (value) => ALPHANUMERIC[value % ALPHANUMERIC.length]).join('');
}

/** Spec 02 §5: in a batch the first token keeps the name, the others get a dash and six random alphanumerics. */
export function batchNames(name: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => (index === 0 ? name : `${name}-${randomSuffix()}`));
}

export const isExpired = (token: Pick<Token, 'expired_time'>, nowSeconds: number): boolean => token.expired_time !== -1 && token.expired_time <= nowSeconds;

export const isExhausted = (token: Pick<Token, 'unlimited_quota' | 'remain_quota'>): boolean => !token.unlimited_quota && token.remain_quota <= 0;

/** Spec 02 §4: an expired or used-up token cannot be switched on; says why, or null when it can. */
export function enableBlocker(token: Token, nowSeconds: number): 'expired' | 'exhausted' | null {
  if (token.status === TokenStatus.Expired || isExpired(token, nowSeconds)) return 'expired';
  if (token.status === TokenStatus.Exhausted || isExhausted(token)) return 'exhausted';
  return null;
}

export type TokenStatusKey = 'enabled' | 'enabledLimited' | 'disabled' | 'expired' | 'exhausted' | 'unknown';

export function tokenStatusKey(token: Token): TokenStatusKey {
  switch (token.status) {
    case TokenStatus.Enabled:
      return token.model_limits_enabled ? 'enabledLimited' : 'enabled';
    case TokenStatus.Disabled:
      return 'disabled';
    case TokenStatus.Expired:
      return 'expired';
    case TokenStatus.Exhausted:
      return 'exhausted';
    default:
      return 'unknown';
  }
}

/** The key as users paste it: with sk- (the server's answers, masked or full, come without it). */
export const fullKey = (key: string): string => `sk-${key}`;

/**
 * Copy selected: one "name    sk-key" line per token, keys from fetchTokenKeys; a token whose
 * key did not come back (deleted meanwhile) is left out.
 */
export const tokensAsText = (tokens: Token[], keys: Record<number, string>): string =>
  tokens
    .filter((token) => keys[token.id] !== undefined)
    .map((token) => `${token.name}    ${fullKey(keys[token.id]!)}`)
    .join('\n');
