import { ChannelStatus } from '@modelgate/contract';
import type { ChannelIndex, PriorityTier } from '../domain/relay-cache/channel-index.js';
import type { RelayCache } from '../domain/relay-cache/relay-cache.js';
import type { RelayChannel } from '../domain/relay-cache/relay-channel.js';
import { AppError, badRequest } from '../errors/app-error.js';
import type { RelayCaller } from './relay-auth.js';
import type { RelayInput } from './relay-input.js';

/** Where a request may go: one pinned channel, or the priority tiers of (group, model). */
export type Route = { pinned: RelayChannel; tiers?: undefined } | { pinned?: undefined; tiers: readonly PriorityTier[] };

/** The channels a call of the model may use, from the cached index (awaited only while it first loads). */
export function routeCall(cache: RelayCache, caller: RelayCaller, input: Pick<RelayInput, 'model'>): Route | Promise<Route> {
  const current = cache.channels.current();
  return current instanceof Promise ? current.then((index) => routeIn(index, caller, input)) : routeIn(current, caller, input);
}

function routeIn(index: ChannelIndex, caller: RelayCaller, input: Pick<RelayInput, 'model'>): Route {
  if (caller.pinnedChannelId !== undefined) {
    const channel = index.byId.get(caller.pinnedChannelId);
    if (!channel) throw badRequest(`渠道 #${caller.pinnedChannelId} 不存在 (no channel ${caller.pinnedChannelId})`, 'channel:not_found');
    if (channel.status !== ChannelStatus.Enabled) {
      throw new AppError('channel:disabled', `渠道 #${channel.id} 已被禁用 (channel ${channel.id} is disabled)`, { status: 403 });
    }
    if (!channel.adaptor)
      throw badRequest(`渠道 #${channel.id} 的类型暂不支持 (channel type ${channel.type} is not supported yet)`, 'channel:unsupported_type');
    return { pinned: channel };
  }
  const tiers = index.tiers(caller.group, input.model);
  if (!tiers) {
    throw new AppError(
      'channel:no_available_channel',
      `当前分组 ${caller.group} 下对于模型 ${input.model} 无可用渠道 (no available channel for model ${input.model} in group ${caller.group})`,
      { status: 503, type: 'new_api_error' },
    );
  }
  return { tiers };
}
