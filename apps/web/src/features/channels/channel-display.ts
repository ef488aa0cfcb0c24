import { ChannelStatus, channelTypeInfo } from '@modelgate/contract';
import type { Channel } from './api';

export type ResponseTimeColor = 'grey' | 'green' | 'lime' | 'yellow' | 'red';

/** Spec 02 §4: 0 untested; up to 1 s green; up to 3 s lime; up to 5 s yellow; more red. */
export function responseTimeColor(milliseconds: number): ResponseTimeColor {
  if (!milliseconds || milliseconds <= 0) return 'grey';
  if (milliseconds <= 1000) return 'green';
  if (milliseconds <= 3000) return 'lime';
  if (milliseconds <= 5000) return 'yellow';
  return 'red';
}

export type ChannelStatusKey = 'enabled' | 'manuallyDisabled' | 'autoDisabled' | 'unknown';

export function channelStatusKey(status: number): ChannelStatusKey {
  switch (status) {
    case ChannelStatus.Enabled:
      return 'enabled';
    case ChannelStatus.ManuallyDisabled:
      return 'manuallyDisabled';
    case ChannelStatus.AutoDisabled:
      return 'autoDisabled';
    default:
      return 'unknown';
  }
}

export interface AutoDisableInfo {
  reason: string;
  /** Unix seconds; 0 when not recorded. */
  time: number;
}

/** other_info's status_reason/status_time, written when a channel is disabled automatically. */
export function autoDisableInfo(channel: Pick<Channel, 'other_info'>): AutoDisableInfo | null {
  if (!channel.other_info) return null;
  try {
    const parsed: unknown = JSON.parse(channel.other_info);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const info = parsed as { status_reason?: unknown; status_time?: unknown };
    if (typeof info.status_reason !== 'string' || info.status_reason === '') return null;
    return { reason: info.status_reason, time: Number(info.status_time) || 0 };
  } catch {
    return null;
  }
}

export interface OverrunInfo {
  /** The quota the channel's upstream returned beyond what its calls were held for: not charged. */
  quota: number;
  /** Streamed calls the relay cut at their output cap because the upstream went past the limit it was sent. */
  cuts: number;
  /** Unix seconds of the latest overrun; 0 when not recorded. */
  time: number;
}

/**
 * other_info's overrun_quota/limit_ignored/overrun_time, running totals the relay keeps when an
 * upstream returns more than a call was held for (not charged), or streams past the output limit it
 * was sent (the relay cuts the stream there); null while there is neither.
 */
export function overrunInfo(channel: Pick<Channel, 'other_info'>): OverrunInfo | null {
  if (!channel.other_info) return null;
  try {
    const parsed: unknown = JSON.parse(channel.other_info);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const info = parsed as { overrun_quota?: unknown; limit_ignored?: unknown; overrun_time?: unknown };
    const positive = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);
    const quota = positive(info.overrun_quota);
    const cuts = positive(info.limit_ignored);
    if (quota === 0 && cuts === 0) return null;
    return { quota, cuts, time: positive(info.overrun_time) };
  } catch {
    return null;
  }
}

export type BreakerDisplay = { kind: 'open' | 'probing'; reason: string; until: number } | { kind: 'someKeys'; openKeys: number };

/** What the status column shows of the circuit breaker; null when there is nothing to say. */
export function breakerDisplay(channel: Pick<Channel, 'breaker_state' | 'breaker_reason' | 'breaker_until' | 'breaker_open_keys'>): BreakerDisplay | null {
  const reason = channel.breaker_reason ?? '';
  const until = channel.breaker_until ?? 0;
  switch (channel.breaker_state) {
    case 'open':
      return { kind: 'open', reason, until };
    case 'half_open':
      return { kind: 'probing', reason, until };
    case 'closed':
    case undefined: {
      const openKeys = channel.breaker_open_keys ?? 0;
      return openKeys > 0 ? { kind: 'someKeys', openKeys } : null;
    }
    default: {
      const unreachable: never = channel.breaker_state;
      return unreachable;
    }
  }
}

export function channelTypeName(type: number): string {
  return channelTypeInfo(type)?.name ?? String(type);
}

/** In the currency the type's account reports (its contract row); US dollars when it says none. */
export function formatBalance(type: number, balance: number): string {
  return `${channelTypeInfo(type)?.balance?.currency === 'CNY' ? '¥' : '$'}${balance.toFixed(2)}`;
}

export const splitList = (value: string | null | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

export interface ChannelTableRow {
  kind: 'channel';
  key: string;
  channel: Channel;
}

/** Tag aggregation mode: one row per tag, its channels as expandable children. */
export interface TagTableRow {
  kind: 'tag';
  key: string;
  tag: string;
  channels: Channel[];
  children: ChannelTableRow[];
}

export type TableRow = ChannelTableRow | TagTableRow;

const channelRow = (channel: Channel): ChannelTableRow => ({ kind: 'channel', key: `channel-${channel.id}`, channel });

/**
 * The server pages tag mode by entries and sends each tag's channels together; this folds them
 * into tag rows while keeping the server's order. Outside tag mode every channel is its own row.
 */
export function toTableRows(channels: Channel[], tagMode: boolean): TableRow[] {
  if (!tagMode) return channels.map(channelRow);
  const rows: TableRow[] = [];
  const byTag = new Map<string, TagTableRow>();
  for (const channel of channels) {
    const tag = channel.tag ?? '';
    if (tag === '') {
      rows.push(channelRow(channel));
      continue;
    }
    let row = byTag.get(tag);
    if (!row) {
      row = { kind: 'tag', key: `tag-${tag}`, tag, channels: [], children: [] };
      byTag.set(tag, row);
      rows.push(row);
    }
    row.channels.push(channel);
    row.children.push(channelRow(channel));
  }
  return rows;
}

/** Spec 02 §4: a tag row shows the average response time of its tested channels. */
export function averageResponseTime(channels: Channel[]): number {
  const tested = channels.filter((channel) => channel.response_time > 0);
  if (tested.length === 0) return 0;
  return Math.round(tested.reduce((sum, channel) => sum + channel.response_time, 0) / tested.length);
}

/** The value every channel of a tag shares, or null when they differ. */
export function sharedValue(channels: Channel[], field: 'priority' | 'weight'): number | null {
  const first = channels[0]?.[field];
  if (first === undefined) return null;
  return channels.every((channel) => channel[field] === first) ? first : null;
}

export const uniqueValues = (values: string[]): string[] => [...new Set(values)];
