import { ChannelStatus, ChannelType } from '@modelgate/contract';
import type { Db } from '../../db/index.js';
import type { RelayCache } from '../relay-cache/relay-cache.js';
import type { RelayChannel } from '../relay-cache/relay-channel.js';
import type { MjUpstream } from '../../providers/midjourney/midjourney-client.js';

const MJ_TYPES: ReadonlySet<number> = new Set([ChannelType.Midjourney, ChannelType.MidjourneyPlus]);

/** Can take a Midjourney task: a Midjourney Proxy (Plus) channel, enabled, with a base URL and a key. */
export const isMjUsable = (channel: RelayChannel | undefined): channel is RelayChannel =>
  channel !== undefined && MJ_TYPES.has(channel.type) && channel.status === ChannelStatus.Enabled && channel.endpointProblem === undefined && channel.keys.length > 0;

export const upstreamOf = (channel: RelayChannel): MjUpstream => ({
  baseUrl: `${channel.endpoint.origin}${channel.endpoint.basePath}`,
  secret: channel.keys[Math.floor(Math.random() * channel.keys.length)]!,
});

/**
 * Chooses the channel of a new task as new-api's distributor does for /mj: the action's price key
 * (`mj_imagine`…) is the model, looked up in the abilities of the caller's group; the highest
 * priority wins, weighted by weight within it. The chat index leaves task channels out (they have
 * no chat adaptor), so the abilities are read here; a drawing submit is rare and slow, one indexed
 * read costs nothing next to it. Channel details come from the relay's channel cache.
 */
export class MidjourneyChannels {
  constructor(
    private readonly db: Db,
    private readonly cache: RelayCache,
  ) {}

  async byId(id: number): Promise<RelayChannel | undefined> {
    const index = await this.cache.channels.current();
    return index.byId.get(id);
  }

  async pick(group: string, model: string, random: () => number = Math.random): Promise<RelayChannel | undefined> {
    const rows = await this.db.kysely
      .selectFrom('abilities')
      .select(['channel_id', 'priority', 'weight'])
      .where('group', '=', group)
      .where('model', '=', model)
      .where('enabled', '=', 1)
      .execute();
    const index = await this.cache.channels.current();
    const usable = rows.flatMap((row) => {
      const channel = index.byId.get(Number(row.channel_id));
      return isMjUsable(channel) ? [{ channel, priority: Number(row.priority ?? 0), weight: Math.max(0, Number(row.weight ?? 0)) }] : [];
    });
    if (usable.length === 0) return undefined;
    const top = Math.max(...usable.map((entry) => entry.priority));
    const tier = usable.filter((entry) => entry.priority === top);
    const total = tier.reduce((sum, entry) => sum + entry.weight, 0);
    if (total <= 0) return tier[Math.floor(random() * tier.length)]!.channel;
    let target = random() * total;
    for (const entry of tier) {
      target -= entry.weight;
      if (target < 0) return entry.channel;
    }
    return tier.at(-1)!.channel;
  }
}
