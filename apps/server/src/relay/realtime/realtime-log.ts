import type { Settlement } from '../../domain/billing/charge-service.js';
import { isFixedPrice } from '../../domain/billing/pricing.js';
import { consumeLogRow } from '../../domain/logs/consume-log.js';
import type { LogInsert } from '../../domain/logs/log-buffer.js';
import type { RealtimePricing, RealtimeUsage } from './realtime-pricing.js';
import type { RealtimeSessionParts } from './realtime-deps.js';

export interface RealtimeLogEntry {
  parts: RealtimeSessionParts;
  responseId: string;
  usage: RealtimeUsage;
  settlement: Settlement;
  /** Date.now() at the response's response.created. */
  createdWall: number;
  firstResponseMs: number;
}

const ratioText = (value: number): string => String(Math.round(value * 1e6) / 1e6);

/** new-api's content of a realtime log: the audio ratios beside the others. */
export function realtimeContent(pricing: RealtimePricing): string {
  const { base } = pricing;
  if (isFixedPrice(base)) return `模型价格 ${ratioText(base.modelPrice)}，分组倍率 ${ratioText(base.groupRatio)}`;
  return (
    `模型倍率 ${ratioText(base.modelRatio)}，补全倍率 ${ratioText(base.completionRatio)}，音频倍率 ${ratioText(pricing.audioRatio)}，` +
    `音频补全倍率 ${ratioText(pricing.audioCompletionRatio)}，分组倍率 ${ratioText(base.groupRatio)}`
  );
}

/**
 * One response of a Realtime session as its consume log: the relay's row (the token, channel, model,
 * prompt and completion tokens, what was charged) whose `other` adds new-api's realtime keys (ws,
 * text_input, text_output, audio_input, audio_output, audio_ratio, audio_completion_ratio), and
 * ours: realtime, the response's id and the cached prompt tokens (billed in full, as new-api does).
 */
export function realtimeLogRow({ parts, responseId, usage, settlement, createdWall, firstResponseMs }: RealtimeLogEntry): LogInsert {
  const { caller, channel, pricing } = parts;
  const row = consumeLogRow({
    createdAt: Math.floor(createdWall / 1000),
    userId: caller.user.id,
    username: caller.user.username,
    tokenId: caller.token.id,
    tokenName: caller.token.name,
    model: parts.model,
    upstreamModel: parts.upstreamModel,
    channelId: channel.id,
    channelName: channel.name,
    group: caller.group,
    quota: settlement.charged,
    promptTokens: usage.inputTokens,
    completionTokens: usage.outputTokens,
    useTimeSeconds: Math.floor((Date.now() - createdWall) / 1000),
    isStream: true,
    pricing: pricing.base,
    firstResponseMs,
    triedChannelIds: parts.tried,
    multiKeyIndex: channel.allKeys.length > 1 ? channel.keyIndexes[parts.keyIndex] : undefined,
    unpaidQuota: settlement.unpaid,
    overrunQuota: settlement.overrun,
    ip: caller.user.recordIpLog ? caller.clientIp : '',
  });
  row.content = realtimeContent(pricing);
  const realtime = {
    ws: true,
    realtime: true,
    realtime_response_id: responseId,
    text_input: usage.inputText,
    text_output: usage.outputText,
    audio_input: usage.inputAudio,
    audio_output: usage.outputAudio,
    cached_input: usage.cachedTokens,
    audio_ratio: pricing.audioRatio,
    audio_completion_ratio: pricing.audioCompletionRatio,
  };
  // consumeLogRow writes `other` as one JSON object: the realtime keys go in before its closing brace.
  row.other = `${row.other.slice(0, -1)},${JSON.stringify(realtime).slice(1)}`;
  return row;
}
