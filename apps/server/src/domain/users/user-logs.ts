import type { LogTypeValue } from '@modelgate/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { describeQuota } from '../billing/quota-format.js';
import { insertLogRow } from '../logs/log-buffer.js';
import type { OptionService } from '../options/option-service.js';

export interface UserLogEntry {
  userId: number;
  username: string;
  type: LogTypeValue;
  content: string;
  /** Quota the event moved, for top-ups (the log's quota column). */
  quota?: number;
  /** Extra JSON for the log row's `other` column (e.g. which admin acted). */
  other?: Record<string, unknown>;
}

/**
 * Writes account events (gifts, referral rewards, admin quota changes) into `logs`, where the
 * usage-log pages show them next to the relay's rows. Accepts a transaction so a reward and its
 * log line land together.
 */
export async function recordUserLog(executor: Kysely<Database>, entry: UserLogEntry): Promise<void> {
  await insertLogRow(executor, {
    user_id: entry.userId,
    username: entry.username,
    type: entry.type,
    content: entry.content,
    quota: entry.quota ?? 0,
    other: entry.other ? JSON.stringify(entry.other) : '',
    created_at: Math.floor(Date.now() / 1000),
  });
}

/** Quota as new-api writes it into log text: dollars (with 额度) when the console shows currency, else units. */
export function formatLogQuota(options: OptionService, quota: number): string {
  const described = describeQuota(options, quota);
  return options.bool('DisplayInCurrencyEnabled') ? `${described} 额度` : described;
}
