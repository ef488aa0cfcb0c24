import type { OptionEntry } from '@modelgate/contract';
import { api } from '../../../lib/api-client';

export type OptionValues = Record<string, string>;

export async function fetchOptions(): Promise<OptionValues> {
  const { data } = await api.get<OptionEntry[] | null>('/api/option/');
  const values: OptionValues = {};
  for (const entry of data ?? []) values[entry.key] = entry.value;
  return values;
}

/** One key per call, as new-api's console saves; `silent` because the card reports the batch. */
export async function updateOption(key: string, value: string): Promise<void> {
  await api.put<unknown>('/api/option/', { key, value }, { silent: true });
}

/** Puts ModelRatio, CompletionRatio, ModelPrice and CacheRatio back to the built-in defaults. */
export async function resetModelRatios(): Promise<string> {
  const { message } = await api.post<unknown>('/api/option/rest_model_ratio');
  return message;
}

/**
 * Mails the signed-in super administrator through the SAVED SMTP settings; answers the server's
 * message. A failure throws an ApiError carrying the SMTP server's error (silent: the card shows it).
 */
export async function sendTestMail(): Promise<string> {
  const { message } = await api.post<unknown>('/api/option/test_smtp', undefined, { silent: true });
  return message;
}
