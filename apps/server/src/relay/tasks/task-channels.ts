import { ChannelStatus, TASK_CHANNEL_TYPES } from '@modelgate/contract';
import type { Db } from '../../db/index.js';
import type { ChannelCache } from '../../domain/relay-cache/channel-cache.js';
import { buildTiers, type ChannelIndex, type PriorityTier } from '../../domain/relay-cache/channel-index.js';
import type { RelayChannel } from '../../domain/relay-cache/relay-channel.js';

/** Can take a task now: enabled, with a key and a usable base URL. */
const usable = (channel: RelayChannel): boolean =>
  TASK_CHANNEL_TYPES.has(channel.type) && channel.status === ChannelStatus.Enabled && channel.keys.length > 0 && channel.endpointProblem === undefined;

type Routes = Map<string, Map<string, PriorityTier[]>>;

/**
 * Routing for the task channels (Midjourney 2/5, Suno 36), which the chat index leaves out (they
 * have no chat adaptor). As new-api's distributor does for /mj and /suno, a task is routed by
 * (group, price key as model: `suno_music`, `mj_imagine`) through the abilities, in priority tiers
 * with weights, so ../channel-selector.ts pickChannel chooses among them.
 *
 * The routes are rebuilt when the relay's channel index is (a channel change on this node, or the
 * periodic sync), from the channels it already holds and one query of their abilities.
 */
export class TaskChannels {
  private seen: ChannelIndex | undefined;
  private routes: Promise<Routes> = Promise.resolve(new Map());

  constructor(
    private readonly db: Db,
    private readonly channels: ChannelCache,
  ) {}

  /** The tiers serving (group, model) among channels of `types`; undefined when none. */
  async tiers(group: string, model: string, types: ReadonlySet<number>): Promise<PriorityTier[] | undefined> {
    const routes = await this.current();
    const tiers = routes.get(group)?.get(model);
    if (!tiers) return undefined;
    const kept = tiers.map((tier) => narrow(tier, (channel) => types.has(channel.type))).filter((tier): tier is PriorityTier => tier !== undefined);
    return kept.length > 0 ? kept : undefined;
  }

  /** A channel by id, whatever its state (a task's own channel, a pinned one). */
  async byId(id: number): Promise<RelayChannel | undefined> {
    const index = await this.channels.current();
    return index.byId.get(id);
  }

  private async current(): Promise<Routes> {
    const index = await this.channels.current();
    if (index !== this.seen) {
      this.seen = index;
      this.routes = this.load(index);
      // A failed load is tried again by the next request, not kept.
      this.routes.catch(() => {
        if (this.seen === index) this.seen = undefined;
      });
    }
    return this.routes;
  }

  private async load(index: ChannelIndex): Promise<Routes> {
    const taskChannels = [...index.byId.values()].filter(usable);
    const routes: Routes = new Map();
    if (taskChannels.length === 0) return routes;
    const abilities = await this.db.kysely
      .selectFrom('abilities')
      .select(['group', 'model', 'channel_id'])
      .where('enabled', '=', 1)
      .where(
        'channel_id',
        'in',
        taskChannels.map((channel) => channel.id),
      )
      .execute();
    const members = new Map<string, Map<string, RelayChannel[]>>();
    for (const ability of abilities) {
      const channel = index.byId.get(Number(ability.channel_id));
      if (!channel) continue;
      let models = members.get(ability.group);
      if (!models) members.set(ability.group, (models = new Map()));
      const list = models.get(ability.model);
      if (list) list.push(channel);
      else models.set(ability.model, [channel]);
    }
    for (const [group, models] of members) {
      const byModel = new Map<string, PriorityTier[]>();
      for (const [model, channels] of models) byModel.set(model, buildTiers(channels));
      routes.set(group, byModel);
    }
    return routes;
  }
}

function narrow(tier: PriorityTier, keep: (channel: RelayChannel) => boolean): PriorityTier | undefined {
  if (tier.channels.every(keep)) return tier;
  const channels = tier.channels.filter(keep);
  return channels.length > 0 ? buildTiers(channels)[0] : undefined;
}
