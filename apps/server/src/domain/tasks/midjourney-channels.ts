import { ChannelStatus, ChannelType } from '@modelgate/contract';
import type { Db } from '../../db/index.js';
import type { RelayCache } from '../relay-cache/relay-cache.js';
import type { RelayChannel } from '../relay-cache/relay-channel.js';
import type { MjUpstream } from '../../providers/midjourney/midjourney-client.js';
import { pickChannel } from '../../relay/channel-selector.js';
import { TaskChannels } from './task-channels.js';

const MJ_TYPES: ReadonlySet<number> = new Set([ChannelType.Midjourney, ChannelType.MidjourneyPlus]);

/** Can take a Midjourney task: a Midjourney Proxy (Plus) channel, enabled, with a base URL and a key. */
export const isMjUsable = (channel: RelayChannel | undefined): channel is RelayChannel =>
  channel !== undefined &&
  MJ_TYPES.has(channel.type) &&
  channel.status === ChannelStatus.Enabled &&
  channel.endpointProblem === undefined &&
  channel.keys.length > 0;

export const upstreamOf = (channel: RelayChannel): MjUpstream => ({
  baseUrl: `${channel.endpoint.origin}${channel.endpoint.basePath}`,
  secret: channel.keys[Math.floor(Math.random() * channel.keys.length)]!,
});

/**
 * Chooses the channel of a new task as new-api's distributor does for /mj: the action's price key
 * (`mj_imagine`…) is the model, routed by (group, model) through the task channels' abilities
 * (TaskChannels: cached, rebuilt with the relay's channel index) among Midjourney channels, in
 * priority tiers with weights (relay/channel-selector.ts pickChannel).
 */
export class MidjourneyChannels {
  private readonly routes: TaskChannels;

  constructor(db: Db, cache: RelayCache) {
    this.routes = new TaskChannels(db, cache.channels);
  }

  /** A channel by id, whatever its state (a task's own channel, a pinned one). */
  byId(id: number): Promise<RelayChannel | undefined> {
    return this.routes.byId(id);
  }

  async pick(group: string, model: string, random: () => number = Math.random): Promise<RelayChannel | undefined> {
    const tiers = await this.routes.tiers(group, model, MJ_TYPES);
    const channel = tiers ? pickChannel(tiers, 0, [], random) : undefined;
    return isMjUsable(channel) ? channel : undefined;
  }
}
