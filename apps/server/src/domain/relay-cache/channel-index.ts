import { isRoutable, type RelayChannel } from './relay-channel.js';

/** Channels of one priority serving one (group, model), with running weight sums for picking. */
export interface PriorityTier {
  priority: number;
  channels: RelayChannel[];
  /** cumulative[i] = sum of weights of channels[0..i]. */
  cumulative: number[];
  totalWeight: number;
}

export interface AbilityRow {
  group: string;
  model: string;
  channel_id: number;
}

/**
 * An immutable snapshot of the routable channels, indexed by (group, model) with tiers in
 * descending priority, so choosing a channel costs the same with ten channels or ten thousand.
 */
export class ChannelIndex {
  private readonly routes = new Map<string, Map<string, PriorityTier[]>>();
  private readonly groupModels = new Map<string, string[]>();

  constructor(
    /** Every channel, whatever its status (pinned requests and health checks look them up). */
    readonly byId: ReadonlyMap<number, RelayChannel>,
    abilities: Iterable<AbilityRow>,
  ) {
    const members = new Map<string, Map<string, Map<number, RelayChannel>>>();
    for (const ability of abilities) {
      const channel = byId.get(Number(ability.channel_id));
      if (!channel || !isRoutable(channel)) continue;
      let models = members.get(ability.group);
      if (!models) members.set(ability.group, (models = new Map()));
      let channels = models.get(ability.model);
      if (!channels) models.set(ability.model, (channels = new Map()));
      channels.set(channel.id, channel);
    }
    for (const [group, models] of members) {
      const byModel = new Map<string, PriorityTier[]>();
      for (const [model, channels] of models) byModel.set(model, buildTiers([...channels.values()]));
      this.routes.set(group, byModel);
      this.groupModels.set(group, [...byModel.keys()].sort());
    }
  }

  static empty(): ChannelIndex {
    return new ChannelIndex(new Map(), []);
  }

  /** Tiers serving (group, model), highest priority first; undefined when none. */
  tiers(group: string, model: string): readonly PriorityTier[] | undefined {
    return this.routes.get(group)?.get(model);
  }

  /** Models with at least one routable channel in the group, sorted. */
  models(group: string): readonly string[] {
    return this.groupModels.get(group) ?? [];
  }
}

/** Channels in priority tiers, highest first, with running weight sums (sorts `channels` in place). */
export function buildTiers(channels: RelayChannel[]): PriorityTier[] {
  // Sorting by id inside a tier keeps picks reproducible for a given random number.
  channels.sort((a, b) => b.priority - a.priority || a.id - b.id);
  const tiers: PriorityTier[] = [];
  for (const channel of channels) {
    let tier = tiers.at(-1);
    if (!tier || tier.priority !== channel.priority) {
      tier = { priority: channel.priority, channels: [], cumulative: [], totalWeight: 0 };
      tiers.push(tier);
    }
    tier.totalWeight += channel.weight;
    tier.channels.push(channel);
    tier.cumulative.push(tier.totalWeight);
  }
  return tiers;
}
