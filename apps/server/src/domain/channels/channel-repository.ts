import { ChannelStatus } from '@modelgate/contract';
import type { Expression, ExpressionBuilder, Insertable, Kysely, SqlBool } from 'kysely';
import { insertReturningId, type Db } from '../../db/index.js';
import type { ChannelsTable, Database } from '../../db/schema.js';
import { like, likeContains, likeIgnoreCase, likePrefix, likeSuffix } from '../../lib/like-pattern.js';
import type { Paging } from '../../lib/paging.js';
import { abilityRowsFor, insertAbilities, rewriteAbilities } from './abilities.js';
import type { ChannelRow, ChannelUsage, ChannelWritable } from './channel-fields.js';

export interface ChannelFilter {
  /** Matches the id exactly, the name and base URL in part, or the whole key. */
  keyword?: string;
  /** The channels whose whole key is the keyword (keys are sealed on disk, so SQL cannot compare them). */
  keyMatches?: number[];
  /** One group the channel serves. */
  group?: string;
  /** Part of a model name in the channel's list. */
  model?: string;
  status?: 'enabled' | 'disabled';
  type?: number;
}

export interface ChannelListOptions {
  filter: ChannelFilter;
  /** Newest first by id instead of priority then id. */
  idSort: boolean;
  /** Pages count tags (and untagged channels) instead of channels; a tag's channels come together. */
  tagMode: boolean;
  paging: Paging;
}

export interface ChannelList {
  items: ChannelRow[];
  total: number;
  /** Channels per type over the filtered set, ignoring the type filter (for the type tabs). */
  typeCounts: Record<number, number>;
}

export interface TagEdit {
  newTag?: string;
  modelMapping?: string;
  models?: string;
  group?: string;
  priority?: number;
  weight?: number;
}

type ChannelExpressions = ExpressionBuilder<Database, 'channels'>;

function filterBy(filter: ChannelFilter, { withType = true } = {}) {
  return (eb: ChannelExpressions): Expression<SqlBool> => {
    const conditions: Expression<SqlBool>[] = [];
    const keyword = filter.keyword?.trim();
    if (keyword) {
      const alternatives: Expression<SqlBool>[] = [likeIgnoreCase('name', likeContains(keyword)), likeIgnoreCase('base_url', likeContains(keyword))];
      if (filter.keyMatches?.length) alternatives.push(eb('id', 'in', filter.keyMatches));
      if (/^\d{1,15}$/.test(keyword)) alternatives.push(eb('id', '=', Number(keyword)));
      conditions.push(eb.or(alternatives));
    }
    const group = filter.group?.trim();
    if (group) {
      // group is a comma list: match a whole element, not a substring of another group's name.
      conditions.push(
        eb.or([
          eb('group', '=', group),
          like('group', likePrefix(`${group},`)),
          like('group', likeSuffix(`,${group}`)),
          like('group', likeContains(`,${group},`)),
        ]),
      );
    }
    const model = filter.model?.trim();
    if (model) conditions.push(likeIgnoreCase('models', likeContains(model)));
    if (filter.status === 'enabled') conditions.push(eb('status', '=', ChannelStatus.Enabled));
    if (filter.status === 'disabled') conditions.push(eb('status', '!=', ChannelStatus.Enabled));
    if (withType && filter.type !== undefined) conditions.push(eb('type', '=', filter.type));
    return eb.and(conditions);
  };
}

interface SortKey {
  id: number;
  priority: number;
}
const compareBy = (idSort: boolean) => (a: SortKey, b: SortKey) => (idSort ? b.id - a.id : b.priority - a.priority || b.id - a.id);

/**
 * Channel rows and their abilities. Every write that touches both does so in one transaction.
 * The key column is sealed on disk: rows come out of here with the key open, and go in sealed.
 */
export class ChannelRepository {
  constructor(private readonly db: Db) {}

  private get kysely(): Kysely<Database> {
    return this.db.kysely;
  }

  private opened(row: ChannelRow): ChannelRow;
  private opened(row: ChannelRow | undefined): ChannelRow | undefined;
  private opened(row: ChannelRow | undefined): ChannelRow | undefined {
    return row && { ...row, key: this.db.secrets.open(row.key) };
  }

  private sealed<T extends Partial<ChannelWritable>>(columns: T): T {
    return columns.key === undefined ? columns : { ...columns, key: this.db.secrets.seal(columns.key) };
  }

  async findById(id: number): Promise<ChannelRow | undefined> {
    return this.opened(await this.kysely.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst());
  }

  /** Ids of the channels whose whole key is `keyword`. */
  private async idsWithKey(keyword: string): Promise<number[]> {
    const rows = await this.kysely.selectFrom('channels').select(['id', 'key']).execute();
    return rows.filter((row) => this.db.secrets.open(row.key) === keyword).map((row) => Number(row.id));
  }

  async list(options: ChannelListOptions): Promise<ChannelList> {
    const keyword = options.filter.keyword?.trim();
    const filter = keyword ? { ...options.filter, keyMatches: await this.idsWithKey(keyword) } : options.filter;
    const { idSort, tagMode, paging } = options;
    const typeRows = await this.kysely
      .selectFrom('channels')
      .select(['type', (eb) => eb.fn.countAll<number>().as('count')])
      .where(filterBy(filter, { withType: false }))
      .groupBy('type')
      .execute();
    const typeCounts: Record<number, number> = {};
    for (const row of typeRows) typeCounts[Number(row.type)] = Number(row.count);

    if (tagMode) return { ...(await this.listByTag(filter, idSort, paging)), typeCounts };

    const counted = await this.kysely
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where(filterBy(filter))
      .executeTakeFirstOrThrow();
    let query = this.kysely.selectFrom('channels').selectAll().where(filterBy(filter));
    query = idSort ? query.orderBy('id', 'desc') : query.orderBy('priority', 'desc').orderBy('id', 'desc');
    const items = (await query.limit(paging.pageSize).offset(paging.offset).execute()).map((row) => this.opened(row));
    return { items, total: Number(counted.total), typeCounts };
  }

  /**
   * Tag aggregation: an entry is either one tag with all its channels or one untagged channel.
   * Entries sort by their best channel; the page holds whole entries, flattened in order.
   */
  private async listByTag(filter: ChannelFilter, idSort: boolean, paging: Paging): Promise<Omit<ChannelList, 'typeCounts'>> {
    const keys = await this.kysely.selectFrom('channels').select(['id', 'tag', 'priority']).where(filterBy(filter)).execute();
    const entries = new Map<string, SortKey & { members: SortKey[] }>();
    for (const row of keys) {
      const member = { id: Number(row.id), priority: Number(row.priority) };
      const entryKey = row.tag === '' ? `channel:${member.id}` : `tag:${row.tag}`;
      const entry = entries.get(entryKey);
      if (!entry) {
        entries.set(entryKey, { ...member, members: [member] });
      } else {
        entry.members.push(member);
        entry.id = Math.max(entry.id, member.id);
        entry.priority = Math.max(entry.priority, member.priority);
      }
    }
    const compare = compareBy(idSort);
    const page = [...entries.values()].sort(compare).slice(paging.offset, paging.offset + paging.pageSize);
    const orderedIds = page.flatMap((entry) => entry.members.sort(compare).map((member) => member.id));
    if (orderedIds.length === 0) return { items: [], total: entries.size };
    const rows = await this.kysely.selectFrom('channels').selectAll().where('id', 'in', orderedIds).execute();
    const byId = new Map(rows.map((row) => [Number(row.id), this.opened(row)]));
    const items = orderedIds.map((id) => byId.get(id)).filter((row): row is ChannelRow => row !== undefined);
    return { items, total: entries.size };
  }

  /** Inserts channels with their abilities, all or none. Returns the new ids in order. */
  async insertMany(channels: (ChannelWritable & { created_time: number } & Partial<ChannelUsage>)[]): Promise<number[]> {
    return this.kysely.transaction().execute(async (trx) => {
      const ids: number[] = [];
      for (const channel of channels) ids.push(await insertReturningId(this.db, 'channels', this.sealed(channel) as Insertable<ChannelsTable>, trx));
      // Rows left under a reused id by an imported database would break the primary key.
      for (let start = 0; start < ids.length; start += 500) {
        await trx
          .deleteFrom('abilities')
          .where('channel_id', 'in', ids.slice(start, start + 500))
          .execute();
      }
      await insertAbilities(
        trx,
        channels.flatMap((channel, index) => abilityRowsFor({ ...channel, id: ids[index]! })),
      );
      return ids;
    });
  }

  /** Writes the given columns and rebuilds the channel's abilities from the stored row. */
  async update(id: number, columns: Partial<ChannelWritable>): Promise<ChannelRow | undefined> {
    return this.kysely.transaction().execute(async (trx) => {
      if (Object.keys(columns).length > 0) await trx.updateTable('channels').set(this.sealed(columns)).where('id', '=', id).execute();
      const row = await trx.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
      if (row) await rewriteAbilities(trx, row);
      return this.opened(row);
    });
  }

  /**
   * Sets a channel's status (and its abilities' enabled flag) with an optional reason kept in
   * other_info, as the relay does when it disables a failing channel.
   */
  async updateStatus(id: number, status: number, reason?: string): Promise<boolean> {
    return this.kysely.transaction().execute(async (trx) => {
      const values: Partial<ChannelWritable> & { other_info?: string } = { status };
      if (reason !== undefined) {
        const current = await trx.selectFrom('channels').select('other_info').where('id', '=', id).executeTakeFirst();
        let info: Record<string, unknown> = {};
        try {
          const parsed: unknown = JSON.parse(current?.other_info || '{}');
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) info = parsed as Record<string, unknown>;
        } catch {
          // A broken other_info is replaced rather than kept.
        }
        values.other_info = JSON.stringify({ ...info, status_reason: reason, status_time: Math.floor(Date.now() / 1000) });
      }
      const result = await trx.updateTable('channels').set(values).where('id', '=', id).executeTakeFirst();
      await trx
        .updateTable('abilities')
        .set({ enabled: status === ChannelStatus.Enabled ? 1 : 0 })
        .where('channel_id', '=', id)
        .execute();
      return Number(result.numUpdatedRows) > 0;
    });
  }

  async updateBalance(id: number, balance: number): Promise<void> {
    await this.kysely
      .updateTable('channels')
      .set({ balance, balance_updated_time: Math.floor(Date.now() / 1000) })
      .where('id', '=', id)
      .execute();
  }

  /** Deletes channels and their abilities; returns how many channels were deleted. */
  async deleteMany(ids: number[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.kysely.transaction().execute(async (trx) => {
      await trx.deleteFrom('abilities').where('channel_id', 'in', ids).execute();
      const result = await trx.deleteFrom('channels').where('id', 'in', ids).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }

  /** Deletes every manually or automatically disabled channel. */
  async deleteDisabled(): Promise<number> {
    const rows = await this.kysely
      .selectFrom('channels')
      .select('id')
      .where('status', 'in', [ChannelStatus.ManuallyDisabled, ChannelStatus.AutoDisabled])
      .execute();
    return this.deleteMany(rows.map((row) => Number(row.id)));
  }

  async setTag(ids: number[], tag: string): Promise<number> {
    if (ids.length === 0) return 0;
    return this.kysely.transaction().execute(async (trx) => {
      const result = await trx.updateTable('channels').set({ tag }).where('id', 'in', ids).executeTakeFirst();
      await trx.updateTable('abilities').set({ tag }).where('channel_id', 'in', ids).execute();
      return Number(result.numUpdatedRows);
    });
  }

  /** The model lists of the channels with the tag, in id order. */
  async modelListsOfTag(tag: string): Promise<string[]> {
    const rows = await this.kysely.selectFrom('channels').select('models').where('tag', '=', tag).orderBy('id').execute();
    return rows.map((row) => row.models);
  }

  async countByTag(tag: string): Promise<number> {
    const row = await this.kysely
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('tag', '=', tag)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async setStatusByTag(tag: string, status: number): Promise<number> {
    return this.kysely.transaction().execute(async (trx) => {
      const ids = (await trx.selectFrom('channels').select('id').where('tag', '=', tag).execute()).map((row) => Number(row.id));
      if (ids.length === 0) return 0;
      await trx.updateTable('channels').set({ status }).where('id', 'in', ids).execute();
      await trx
        .updateTable('abilities')
        .set({ enabled: status === ChannelStatus.Enabled ? 1 : 0 })
        .where('channel_id', 'in', ids)
        .execute();
      return ids.length;
    });
  }

  /** Applies one edit to every channel with the tag and rebuilds their abilities. */
  async editByTag(tag: string, edit: TagEdit): Promise<number> {
    return this.kysely.transaction().execute(async (trx) => {
      const ids = (await trx.selectFrom('channels').select('id').where('tag', '=', tag).execute()).map((row) => Number(row.id));
      if (ids.length === 0) return 0;
      const values: Partial<ChannelWritable> = {};
      if (edit.newTag !== undefined) values.tag = edit.newTag;
      if (edit.modelMapping !== undefined) values.model_mapping = edit.modelMapping;
      if (edit.models !== undefined) values.models = edit.models;
      if (edit.group !== undefined) values.group = edit.group;
      if (edit.priority !== undefined) values.priority = edit.priority;
      if (edit.weight !== undefined) values.weight = edit.weight;
      await trx.updateTable('channels').set(values).where('id', 'in', ids).execute();
      const rows = await trx.selectFrom('channels').selectAll().where('id', 'in', ids).execute();
      for (const row of rows) await rewriteAbilities(trx, row);
      return ids.length;
    });
  }

  /**
   * Rebuilds the whole abilities table from the channels. A channel whose rows cannot be
   * stored (a group or model name longer than the columns, left by an import) counts as failed.
   */
  async rebuildAbilities(): Promise<{ success: number; fails: number }> {
    return this.kysely.transaction().execute(async (trx) => {
      const channels = await trx.selectFrom('channels').select(['id', 'group', 'models', 'status', 'priority', 'weight', 'tag']).execute();
      await trx.deleteFrom('abilities').execute();
      let fails = 0;
      const rows = channels.flatMap((channel) => {
        const own = abilityRowsFor(channel);
        if (own.some((row) => row.group.length > 64 || row.model.length > 255 || (row.tag ?? '').length > 255)) {
          fails += 1;
          return [];
        }
        return own;
      });
      await insertAbilities(trx, rows);
      return { success: channels.length - fails, fails };
    });
  }

  /** Channels whose balance can be refreshed: enabled ones. */
  async enabledChannels(): Promise<ChannelRow[]> {
    const rows = await this.kysely.selectFrom('channels').selectAll().where('status', '=', ChannelStatus.Enabled).orderBy('id').execute();
    return rows.map((row) => this.opened(row));
  }

  /** type and models of every channel, for the model catalogue. */
  modelLists(): Promise<{ type: number; models: string }[]> {
    return this.kysely.selectFrom('channels').select(['type', 'models']).execute();
  }
}
