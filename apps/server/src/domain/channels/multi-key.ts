import { createHash } from 'node:crypto';
import { ChannelStatus } from '@modelgate/contract';

/**
 * A multi-key channel's per-key state, in new-api's `channel_info` column (model.ChannelInfo):
 * `multi_key_status_list` (key index → status, absent = enabled), `multi_key_disabled_reason` and
 * `multi_key_disabled_time` (for each disabled key), `multi_key_mode` ("random" or "polling": how
 * a request picks its key) and `multi_key_size`. Indexes are positions in the channel's key list;
 * deleting a key renumbers the ones after it. Pure functions over the parsed object.
 */

export type MultiKeyMode = 'random' | 'polling';

export interface ChannelInfo {
  is_multi_key: boolean;
  multi_key_size: number;
  /** Key index (as a string, JSON's way) → 2 (manually disabled) or 3 (automatically disabled). */
  multi_key_status_list: Record<string, number>;
  multi_key_disabled_reason: Record<string, string>;
  multi_key_disabled_time: Record<string, number>;
  multi_key_polling_index: number;
  multi_key_mode: MultiKeyMode;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function numberMap(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (!isObject(value)) return out;
  for (const [index, entry] of Object.entries(value)) if (typeof entry === 'number' && Number.isFinite(entry)) out[index] = entry;
  return out;
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(value)) return out;
  for (const [index, entry] of Object.entries(value)) if (typeof entry === 'string') out[index] = entry;
  return out;
}

/** The stored channel_info for a channel of `keyCount` keys; missing or broken text reads as all keys enabled. */
export function parseChannelInfo(text: string | undefined, keyCount: number): ChannelInfo {
  let parsed: Record<string, unknown> = {};
  if (text) {
    try {
      const value: unknown = JSON.parse(text);
      if (isObject(value)) parsed = value;
    } catch {
      // A broken column is read as no state: every key enabled.
    }
  }
  return {
    is_multi_key: keyCount > 1,
    multi_key_size: keyCount,
    multi_key_status_list: numberMap(parsed.multi_key_status_list),
    multi_key_disabled_reason: stringMap(parsed.multi_key_disabled_reason),
    multi_key_disabled_time: numberMap(parsed.multi_key_disabled_time),
    multi_key_polling_index: typeof parsed.multi_key_polling_index === 'number' ? parsed.multi_key_polling_index : 0,
    multi_key_mode: parsed.multi_key_mode === 'polling' ? 'polling' : 'random',
  };
}

export const serializeChannelInfo = (info: ChannelInfo): string => JSON.stringify(info);

/** The status of key `index`: 1 enabled, 2 manually disabled, 3 automatically disabled. */
export function keyStatus(info: ChannelInfo, index: number): number {
  const status = info.multi_key_status_list[String(index)];
  return status === ChannelStatus.ManuallyDisabled || status === ChannelStatus.AutoDisabled ? status : ChannelStatus.Enabled;
}

/** Sets key `index` to `status` (with its reason and time when disabled); a copy. */
export function withKeyStatus(info: ChannelInfo, index: number, status: number, reason = '', now = Math.floor(Date.now() / 1000)): ChannelInfo {
  const at = String(index);
  const next: ChannelInfo = {
    ...info,
    multi_key_status_list: { ...info.multi_key_status_list },
    multi_key_disabled_reason: { ...info.multi_key_disabled_reason },
    multi_key_disabled_time: { ...info.multi_key_disabled_time },
  };
  if (status === ChannelStatus.Enabled) {
    delete next.multi_key_status_list[at];
    delete next.multi_key_disabled_reason[at];
    delete next.multi_key_disabled_time[at];
  } else {
    next.multi_key_status_list[at] = status;
    next.multi_key_disabled_reason[at] = reason;
    next.multi_key_disabled_time[at] = now;
  }
  return next;
}

/** The keys left after removing those `drop` picks, with their states renumbered; a copy. */
export function withoutKeys(keys: readonly string[], info: ChannelInfo, drop: (index: number) => boolean): { keys: string[]; info: ChannelInfo } {
  const kept: string[] = [];
  let next: ChannelInfo = { ...info, multi_key_status_list: {}, multi_key_disabled_reason: {}, multi_key_disabled_time: {} };
  keys.forEach((key, index) => {
    if (drop(index)) return;
    const status = keyStatus(info, index);
    if (status !== ChannelStatus.Enabled) {
      next = withKeyStatus(next, kept.length, status, info.multi_key_disabled_reason[String(index)] ?? '', info.multi_key_disabled_time[String(index)] ?? 0);
    }
    kept.push(key);
  });
  return { keys: kept, info: { ...next, multi_key_size: kept.length, is_multi_key: kept.length > 1 } };
}

/** Indexes of the keys a request may use. */
export function enabledKeyIndexes(info: ChannelInfo, keyCount: number): number[] {
  const indexes: number[] = [];
  for (let index = 0; index < keyCount; index += 1) if (keyStatus(info, index) === ChannelStatus.Enabled) indexes.push(index);
  return indexes;
}

/** A key as the console shows it: enough of its ends to tell keys apart, never the whole. */
export function keyPreview(key: string): string {
  const trimmed = key.trim();
  // A Vertex service account (JSON): its client_email names it.
  if (trimmed.startsWith('{')) {
    try {
      const email = (JSON.parse(trimmed) as { client_email?: unknown }).client_email;
      if (typeof email === 'string') return email;
    } catch {
      // Not JSON after all: masked as text.
    }
  }
  if (trimmed.length <= 8) return `${trimmed.slice(0, 2)}****`;
  return `${trimmed.slice(0, Math.min(6, Math.floor(trimmed.length / 4)))}****${trimmed.slice(-4)}`;
}

/** A key's fingerprint: the first 16 hex digits of its SHA-256, to find it again without storing it. */
export const keyFingerprint = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** The key of `keys` with this fingerprint, if one has it. */
export const keyWithFingerprint = (keys: readonly string[], fingerprint: string): string | undefined =>
  fingerprint === '' ? undefined : keys.find((key) => keyFingerprint(key) === fingerprint);
