import { z } from 'zod';

/**
 * Anthropic Messages API wire types (https://docs.anthropic.com/en/api/messages). Only the fields
 * the conversions read or write are named; everything else passes through loosely.
 */

/**
 * An inbound `POST /v1/messages` body as far as the relay must trust it before converting:
 * `max_tokens` is optional here because `/v1/messages/count_tokens` takes the same body without it.
 * Each message and block is checked by the converter, which names the offending index.
 */
export const anthropicRequestSchema = z.looseObject({
  model: z.string({ error: 'model must be a string' }),
  messages: z.array(z.unknown(), { error: 'messages must be an array' }),
  max_tokens: z.number().int().positive({ error: 'max_tokens must be a positive integer' }).optional(),
});

export type AnthropicRole = 'user' | 'assistant';

export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: string;
}

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl;
}

export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicImageSource;
  cache_control?: AnthropicCacheControl;
}

export type AnthropicDocumentSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'text'; media_type: string; data: string }
  | { type: 'url'; url: string };

export interface AnthropicDocumentBlock {
  type: 'document';
  source: AnthropicDocumentSource;
  title?: string;
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (AnthropicTextBlock | AnthropicImageBlock)[];
  is_error?: boolean;
}

export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock;

export interface AnthropicMessageParam {
  role: AnthropicRole;
  content: string | AnthropicContentBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
}

export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

/** The request the relay sends to a Claude upstream. */
export interface AnthropicRequest {
  model: string;
  messages: AnthropicMessageParam[];
  max_tokens: number;
  system?: string | AnthropicTextBlock[];
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'adaptive'; display?: 'summarized' | 'omitted' };
  output_config?: { effort?: 'low' | 'medium' | 'high' };
  metadata?: { user_id: string };
  stream?: boolean;
}

/** Usage as Anthropic reports it: input_tokens excludes the cache reads and writes. */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  /** The writes by lifetime (cache_control ttl 5m or 1h); they add up to cache_creation_input_tokens. */
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
  output_tokens_details?: { thinking_tokens?: number } | null;
}

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';

/** A whole (non-streamed) answer. */
export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: (AnthropicTextBlock | AnthropicThinkingBlock | AnthropicToolUseBlock)[];
  stop_reason: AnthropicStopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

/** Anthropic's error body: `{type:'error', error:{type, message}}`. */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

export const anthropicErrorBody = (type: string, message: string): AnthropicErrorBody => ({ type: 'error', error: { type, message } });

export type Json = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
