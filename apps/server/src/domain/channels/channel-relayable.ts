import { ChannelType, channelTypeInfo, TASK_CHANNEL_TYPES } from '@modelgate/contract';
import { badRequest } from '../../errors/app-error.js';
import { CLOUDFLARE_ACCOUNT_MISSING } from '../../providers/openai-compatible/vendor-overrides.js';
import { adaptorFor } from '../../providers/registry.js';

/**
 * A channel is refused when saved if this version could never relay to it, instead of failing on
 * every request: its type has no adaptor (Midjourney and Suno excepted: the task relays serve
 * them), or it lacks what its adaptor needs to build a URL (Cloudflare's account id).
 */
export function checkRelayable(type: number, other: string): void {
  if (adaptorFor(type) === undefined && !TASK_CHANNEL_TYPES.has(type)) {
    const name = channelTypeInfo(type)?.name ?? String(type);
    throw badRequest(`渠道类型 ${name} 暂不支持转发 (channel type ${type} cannot relay yet)`, 'channel:unsupported_type');
  }
  if (type === ChannelType.Cloudflare && other.trim() === '') throw badRequest(CLOUDFLARE_ACCOUNT_MISSING, 'channel:missing_account_id');
}
