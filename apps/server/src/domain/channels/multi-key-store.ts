import { ChannelStatus } from '@modelgate/contract';
import type { Db } from '../../db/index.js';
import { channelKeys } from '../relay-cache/relay-channel.js';
import { enabledKeyIndexes, parseChannelInfo, serializeChannelInfo, type ChannelInfo } from './multi-key.js';

/** A channel's keys and their states as a change reads them. */
export interface KeyStates {
  keys: string[];
  info: ChannelInfo;
  status: number;
}

/** What a change makes of them: the new keys and states, or a refusal (nothing is written). */
export type KeyChange = { keys: string[]; info: ChannelInfo } | { refused: string };

export interface KeyChangeResult {
  /** The change refused itself, or the channel does not exist (`missing`). */
  refused?: string | undefined;
  missing?: boolean;
  before?: KeyStates;
  after?: KeyStates;
}

/** Times a change is tried again when another writer changed the row between its read and its write. */
const ATTEMPTS = 8;

/**
 * Changes a channel's keys and their states (channel_info) as one conditional write: the row is
 * read, the change computed, and written only if the key field and channel_info are still what
 * was read (else read again), so the relay disabling one key and an admin enabling another on
 * another node never undo each other. The channel's own status follows its keys: with no key left
 * enabled an enabled channel is disabled (status 3 when a key was disabled automatically, else 2),
 * and a channel disabled that way comes back when a key is enabled again.
 */
export async function changeKeyStates(db: Db, channelId: number, change: (states: KeyStates) => KeyChange): Promise<KeyChangeResult> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const row = await db.kysely
      .selectFrom('channels')
      .select(['key', 'channel_info', 'status', 'type', 'other_info'])
      .where('id', '=', channelId)
      .executeTakeFirst();
    if (!row) return { missing: true };
    const keys = channelKeys(db.secrets.open(row.key), Number(row.type));
    const before: KeyStates = { keys, info: parseChannelInfo(row.channel_info, keys.length), status: Number(row.status) };
    const outcome = change(before);
    if ('refused' in outcome) return { refused: outcome.refused, before };
    const enabled = enabledKeyIndexes(outcome.info, outcome.keys.length).length;
    let status = before.status;
    let otherInfo = row.other_info;
    if (enabled === 0 && status === ChannelStatus.Enabled) {
      const automatic = Object.values(outcome.info.multi_key_status_list).includes(ChannelStatus.AutoDisabled);
      status = automatic ? ChannelStatus.AutoDisabled : ChannelStatus.ManuallyDisabled;
      const last = lastReason(outcome.info);
      otherInfo = mergeJson(row.other_info, {
        status_reason: `所有密钥均已禁用 (every key of the channel is disabled)${last ? `：${last}` : ''}`,
        status_time: Math.floor(Date.now() / 1000),
      });
    } else if (enabled > 0 && status !== ChannelStatus.Enabled && allKeysReason(row.other_info)) {
      status = ChannelStatus.Enabled;
    }
    const info: ChannelInfo = { ...outcome.info, multi_key_size: outcome.keys.length, is_multi_key: outcome.keys.length > 1 };
    const written = await db.kysely.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('channels')
        .set({ key: db.secrets.seal(outcome.keys.join('\n')), channel_info: serializeChannelInfo(info), status, other_info: otherInfo })
        .where('id', '=', channelId)
        // The sealed text as read: a fresh IV per write makes every rewrite of the keys a new value.
        .where('key', '=', row.key)
        .where('channel_info', '=', row.channel_info)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      if (status !== before.status) {
        await trx
          .updateTable('abilities')
          .set({ enabled: status === ChannelStatus.Enabled ? 1 : 0 })
          .where('channel_id', '=', channelId)
          .execute();
      }
      return true;
    });
    if (written) return { before, after: { keys: outcome.keys, info, status } };
  }
  return { refused: '渠道正被同时修改，请稍后重试 (the channel is being changed elsewhere: try again)' };
}

/** The reason the most recently disabled key was disabled for ('' when none is recorded). */
function lastReason(info: ChannelInfo): string {
  let latest = -1;
  let reason = '';
  for (const [index, time] of Object.entries(info.multi_key_disabled_time)) {
    if (time >= latest) {
      latest = time;
      reason = info.multi_key_disabled_reason[index] ?? '';
    }
  }
  return reason;
}

function mergeJson(text: string, values: Record<string, unknown>): string {
  let base: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text || '{}');
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) base = parsed as Record<string, unknown>;
  } catch {
    // A broken other_info is replaced.
  }
  return JSON.stringify({ ...base, ...values });
}

/** The channel was disabled because its every key was (not for another reason an enabled key would not cure). */
function allKeysReason(otherInfo: string): boolean {
  try {
    const reason = (JSON.parse(otherInfo || '{}') as { status_reason?: unknown }).status_reason;
    return typeof reason === 'string' && reason.startsWith('所有密钥均已禁用');
  } catch {
    return false;
  }
}
