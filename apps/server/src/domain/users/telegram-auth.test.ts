import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkTelegramLogin, TELEGRAM_AUTH_MAX_AGE_SECONDS } from './telegram-auth.js';

const BOT_TOKEN = '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11';

/** Signs the way Telegram documents it, written out here independently of the code under test. */
function telegramSign(fields: Record<string, string>, botToken = BOT_TOKEN): Record<string, string> {
  const lines = Object.entries(fields)
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  const secret = createHash('sha256').update(botToken).digest();
  return { ...fields, hash: createHmac('sha256', secret).update(lines.join('\n')).digest('hex') };
}

const now = 1_750_000_000;
const widgetData = { id: '777000', first_name: 'Ada', last_name: 'Lovelace', username: 'ada', auth_date: String(now - 60) };

describe('checkTelegramLogin', () => {
  it('accepts data signed with the bot token', () => {
    expect(checkTelegramLogin(telegramSign(widgetData), BOT_TOKEN, now)).toEqual({ ok: true, telegramId: '777000' });
  });

  it('refuses a changed field, a hash made with another bot token, and a malformed hash', () => {
    const signed = telegramSign(widgetData);
    expect(checkTelegramLogin({ ...signed, id: '1' }, BOT_TOKEN, now)).toEqual({ ok: false, reason: 'forged' });
    expect(checkTelegramLogin({ ...signed, extra: 'x' }, BOT_TOKEN, now)).toEqual({ ok: false, reason: 'forged' });
    expect(checkTelegramLogin(telegramSign(widgetData, '999:other'), BOT_TOKEN, now)).toEqual({ ok: false, reason: 'forged' });
    expect(checkTelegramLogin({ ...signed, hash: 'zz' }, BOT_TOKEN, now)).toEqual({ ok: false, reason: 'forged' });
  });

  it('refuses data older than a day or dated in the future', () => {
    const stale = telegramSign({ ...widgetData, auth_date: String(now - TELEGRAM_AUTH_MAX_AGE_SECONDS - 1) });
    expect(checkTelegramLogin(stale, BOT_TOKEN, now)).toEqual({ ok: false, reason: 'stale' });
    const future = telegramSign({ ...widgetData, auth_date: String(now + 3600) });
    expect(checkTelegramLogin(future, BOT_TOKEN, now)).toEqual({ ok: false, reason: 'stale' });
    const justInTime = telegramSign({ ...widgetData, auth_date: String(now - TELEGRAM_AUTH_MAX_AGE_SECONDS + 5) });
    expect(checkTelegramLogin(justInTime, BOT_TOKEN, now).ok).toBe(true);
  });

  it('refuses missing fields and an unset bot token', () => {
    const { hash: _hash, ...unsigned } = telegramSign(widgetData);
    expect(checkTelegramLogin(unsigned, BOT_TOKEN, now)).toEqual({ ok: false, reason: 'missing' });
    expect(checkTelegramLogin(telegramSign(widgetData, ''), '', now)).toEqual({ ok: false, reason: 'missing' });
  });
});
