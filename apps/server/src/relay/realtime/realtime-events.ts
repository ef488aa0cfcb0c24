import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { RealtimeUsage } from './realtime-pricing.js';

/**
 * The few Realtime events the relay reads (OpenAI's Realtime API, beta and GA shapes). Every event
 * is forwarded as the bytes received; only these are parsed, and only what billing needs.
 */

/**
 * `{"type":"…"` or `{"event_id":"…","type":"…"`: the top-level type at the head of an event, as the
 * SDKs and OpenAI write them. Found there, the rest (an audio chunk's base64) is never parsed.
 */
const HEAD_TYPE = /^\s*\{\s*(?:"event_id"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*)?"type"\s*:\s*"([^"\\]{1,100})"/;
const HEAD_BYTES = 256;

/** The event's `type`; undefined for a binary frame or anything that is not a JSON object with one. */
export function eventTypeOf(data: Buffer): string | undefined {
  const head = HEAD_TYPE.exec(data.toString('latin1', 0, Math.min(data.length, HEAD_BYTES)));
  if (head) return head[1];
  const parsed = parseEvent(data);
  return typeof parsed?.type === 'string' ? parsed.type : undefined;
}

/** The event as JSON, or undefined when it is not a JSON object. */
export function parseEvent(data: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(data.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const count = z.number().int().nonnegative().catch(0);
/** 'inf' or a number of tokens; anything else reads as no limit. */
const outputLimit = z
  .union([z.number().int().positive(), z.literal('inf')])
  .optional()
  .catch(undefined);

const usageSchema = z
  .object({
    input_tokens: count.optional(),
    output_tokens: count.optional(),
    input_token_details: z
      .object({ text_tokens: count.optional(), audio_tokens: count.optional(), cached_tokens: count.optional() })
      .loose()
      .nullish()
      .catch(undefined),
    output_token_details: z.object({ text_tokens: count.optional(), audio_tokens: count.optional() }).loose().nullish().catch(undefined),
  })
  .loose();

const responseSchema = z.object({ id: z.string().optional().catch(undefined), usage: usageSchema.nullish().catch(undefined) }).loose();

/** `response.created` and `response.done` (server events). */
export const responseEventSchema = z.object({ response: responseSchema.optional().catch(undefined) }).loose();

/** The session as `session.created` and `session.updated` describe it, beta and GA fields. */
const sessionSchema = z
  .object({
    instructions: z.string().optional().catch(undefined),
    tools: z.array(z.unknown()).optional().catch(undefined),
    input_audio_format: z.string().optional().catch(undefined),
    audio: z
      .object({
        input: z
          .object({ format: z.union([z.string(), z.object({ type: z.string().optional() }).loose()]).optional() })
          .loose()
          .optional(),
      })
      .loose()
      .optional()
      .catch(undefined),
    max_response_output_tokens: outputLimit,
    max_output_tokens: outputLimit,
  })
  .loose();

export const sessionEventSchema = z.object({ session: sessionSchema.optional().catch(undefined) }).loose();

/** A client's `response.create`: its own output limit, beta and GA names. */
export const responseCreateSchema = z
  .object({
    response: z.object({ max_response_output_tokens: outputLimit, max_output_tokens: outputLimit }).loose().optional().catch(undefined),
  })
  .loose();

/** A client's `conversation.item.create`: the audio in its content, base64. */
export const itemCreateSchema = z
  .object({
    item: z
      .object({
        content: z
          .array(z.object({ audio: z.string().optional().catch(undefined) }).loose())
          .optional()
          .catch(undefined),
      })
      .loose()
      .optional()
      .catch(undefined),
  })
  .loose();

export type RealtimeSession = z.infer<typeof sessionSchema>;

/** The limit as a number of tokens; undefined for none ('inf', absent). */
export const tokenLimit = (limit: number | 'inf' | undefined): number | undefined => (typeof limit === 'number' ? limit : undefined);

/** The session's output limit per response (GA's name first). */
export const sessionOutputLimit = (session: RealtimeSession): number | undefined =>
  tokenLimit(session.max_output_tokens) ?? tokenLimit(session.max_response_output_tokens);

/** Bytes of 8 kHz G.711 (or of an unknown format) a second, the fewest a second of audio takes. */
const G711_BYTES_PER_SECOND = 8000;
/** 24 kHz 16-bit mono PCM, the default input format. */
const PCM16_BYTES_PER_SECOND = 48000;

/** How many bytes a second of the session's input audio takes (its format, beta or GA). */
export function audioBytesPerSecond(session: RealtimeSession): number | undefined {
  const format = session.audio?.input?.format;
  const name = typeof format === 'string' ? format : (format?.type ?? session.input_audio_format);
  if (name === undefined) return undefined;
  return name === 'pcm16' || name === 'audio/pcm' ? PCM16_BYTES_PER_SECOND : G711_BYTES_PER_SECOND;
}

export const DEFAULT_AUDIO_BYTES_PER_SECOND = G711_BYTES_PER_SECOND;

/** The usage of a `response.done`, text and audio apart; undefined when it reports none. */
export function usageOf(usage: z.infer<typeof usageSchema> | null | undefined): RealtimeUsage | undefined {
  if (!usage) return undefined;
  const inputTokens = usage.input_tokens ?? 0;
  const outputTokens = usage.output_tokens ?? 0;
  const inputAudio = usage.input_token_details?.audio_tokens ?? 0;
  const outputAudio = usage.output_token_details?.audio_tokens ?? 0;
  // Without details every token is text (an upstream that reports totals only).
  const inputText = usage.input_token_details?.text_tokens ?? Math.max(0, inputTokens - inputAudio);
  const outputText = usage.output_token_details?.text_tokens ?? Math.max(0, outputTokens - outputAudio);
  return {
    inputTokens,
    outputTokens,
    inputText,
    inputAudio,
    cachedTokens: usage.input_token_details?.cached_tokens ?? 0,
    outputText,
    outputAudio,
  };
}

/**
 * A Realtime `error` event of the gateway's own (the shape OpenAI's server sends), for what the
 * relay ends a session for: its balance, a shutdown.
 */
export function gatewayErrorEvent(type: string, code: string, message: string): string {
  return JSON.stringify({
    type: 'error',
    event_id: `event_${randomBytes(12).toString('hex')}`,
    error: { type, code, message, param: null, event_id: null },
  });
}

export const SHUTTING_DOWN = '服务器正在关闭，请稍后重新连接 (the server is shutting down: reconnect shortly)';

/** Why a session ends when its balance cannot pay for another response, the side that fell short named. */
export function quotaMessage(tokenSide: boolean): string {
  const side = tokenSide ? '令牌额度不足' : '用户额度不足';
  const which = tokenSide ? 'token' : 'user';
  return `${side}，无法支付下一次回复，会话已结束 (insufficient ${which} quota: the balance cannot pay for another response, so the session is closed)`;
}

/** An upstream's close code the client may be sent: 1005 (none given) is a normal close, 1006 (no close frame) an error. */
export function closeCodeFor(code: number): number {
  if (code === 1005) return 1000;
  if (code === 1000 || code === 1001 || (code >= 1007 && code <= 1014 && code !== 1010) || (code >= 3000 && code <= 4999)) return code;
  return 1011;
}
