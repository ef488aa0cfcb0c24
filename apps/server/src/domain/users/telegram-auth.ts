import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Telegram login data older than this is refused (a replayed link should not sign anyone in). */
export const TELEGRAM_AUTH_MAX_AGE_SECONDS = 24 * 3600;
/** Tolerated clock difference for auth_date in the future. */
const CLOCK_SKEW_SECONDS = 5 * 60;

export type TelegramCheck = { ok: true; telegramId: string } | { ok: false; reason: 'missing' | 'forged' | 'stale' };

/**
 * Checks Telegram Login Widget data: `hash` must be the hex HMAC-SHA256, keyed with
 * SHA256(bot token), of every other field as sorted `key=value` lines joined by "\n"; and
 * auth_date must be recent.
 */
export function checkTelegramLogin(fields: Record<string, string>, botToken: string, now = Date.now() / 1000): TelegramCheck {
  const { hash, id, auth_date: authDate } = fields;
  if (!hash || !id || !authDate || botToken === '') return { ok: false, reason: 'missing' };
  const dataCheckString = Object.keys(fields)
    .filter((key) => key !== 'hash')
    .sort()
    .map((key) => `${key}=${fields[key]}`)
    .join('\n');
  const secret = createHash('sha256').update(botToken).digest();
  const expected = createHmac('sha256', secret).update(dataCheckString).digest();
  const given = /^[0-9a-f]{64}$/i.test(hash) ? Buffer.from(hash, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  const issuedAt = Number(authDate);
  if (!Number.isInteger(issuedAt) || now - issuedAt > TELEGRAM_AUTH_MAX_AGE_SECONDS || issuedAt - now > CLOCK_SKEW_SECONDS) {
    return { ok: false, reason: 'stale' };
  }
  return { ok: true, telegramId: id };
}
