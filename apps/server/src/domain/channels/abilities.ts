import { ChannelStatus } from '@modelgate/contract';
import type { Insertable, Kysely } from 'kysely';
import type { AbilitiesTable, Database } from '../../db/schema.js';
import { splitList, type ChannelRow } from './channel-fields.js';

export type AbilitySource = Pick<ChannelRow, 'id' | 'group' | 'models' | 'status' | 'priority' | 'weight' | 'tag'>;

/** 7 columns a row: 1,000 rows bind 7,000 values, below SQLite's 32,766 and PostgreSQL's and MySQL's 65,535. */
const INSERT_CHUNK = 1000;

/**
 * The abilities of one channel: one row per group × model, enabled while the channel is.
 * The relay selects channels from these rows, so they must match the channel exactly.
 */
export function abilityRowsFor(channel: AbilitySource): Insertable<AbilitiesTable>[] {
  const rows: Insertable<AbilitiesTable>[] = [];
  const enabled = Number(channel.status) === ChannelStatus.Enabled ? 1 : 0;
  for (const group of splitList(channel.group)) {
    for (const model of splitList(channel.models)) {
      rows.push({
        group,
        model,
        channel_id: Number(channel.id),
        enabled,
        priority: Number(channel.priority),
        weight: Number(channel.weight),
        tag: channel.tag,
      });
    }
  }
  return rows;
}

export async function insertAbilities(executor: Kysely<Database>, rows: Insertable<AbilitiesTable>[]): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    await executor
      .insertInto('abilities')
      .values(rows.slice(start, start + INSERT_CHUNK))
      .execute();
  }
}

/** Replaces a channel's abilities; call inside the transaction that wrote the channel. */
export async function rewriteAbilities(executor: Kysely<Database>, channel: AbilitySource): Promise<void> {
  await executor.deleteFrom('abilities').where('channel_id', '=', Number(channel.id)).execute();
  await insertAbilities(executor, abilityRowsFor(channel));
}
