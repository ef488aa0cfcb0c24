import { useCallback, useState } from 'react';
import { readJson, StorageKey, writeJson } from '../../lib/storage';

/** Every column of the log table, by its dataIndex, in the table's order. */
export const LOG_COLUMN_KEYS = [
  'created_at',
  'channel',
  'username',
  'token_name',
  'group',
  'type',
  'model_name',
  'use_time',
  'prompt_tokens',
  'completion_tokens',
  'quota',
  'content',
] as const;

export type LogColumnKey = (typeof LOG_COLUMN_KEYS)[number];
export type LogColumnChoice = Record<LogColumnKey, boolean>;

/** Only an administrator's table has the channel and user columns. */
export const ADMIN_ONLY_COLUMNS: readonly LogColumnKey[] = ['channel', 'username'];

/** Shown until the user chooses: everything but the group, which is what fits 1440 px beside the side navigation. */
const HIDDEN_BY_DEFAULT: readonly LogColumnKey[] = ['group'];

export function defaultLogColumns(): LogColumnChoice {
  return Object.fromEntries(LOG_COLUMN_KEYS.map((key) => [key, !HIDDEN_BY_DEFAULT.includes(key)])) as LogColumnChoice;
}

/** A stored choice read back: what it does not say (a column added since, junk) is at its default. */
export function mergeLogColumns(stored: unknown): LogColumnChoice {
  const choice = defaultLogColumns();
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    const values = stored as Record<string, unknown>;
    for (const key of LOG_COLUMN_KEYS) {
      const value = values[key];
      if (typeof value === 'boolean') choice[key] = value;
    }
  }
  return choice;
}

export function readLogColumns(admin: boolean): LogColumnChoice {
  return mergeLogColumns(readJson<unknown>(admin ? StorageKey.logColumnsAdmin : StorageKey.logColumnsUser));
}

/** The columns shown on the log screen, remembered in localStorage per role. */
export function useLogColumns(admin: boolean): [LogColumnChoice, (choice: LogColumnChoice) => void] {
  const [choice, setChoice] = useState(() => readLogColumns(admin));
  const save = useCallback(
    (next: LogColumnChoice) => {
      writeJson(admin ? StorageKey.logColumnsAdmin : StorageKey.logColumnsUser, next);
      setChoice(next);
    },
    [admin],
  );
  return [choice, save];
}
