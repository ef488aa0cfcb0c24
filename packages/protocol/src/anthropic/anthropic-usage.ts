import type { ChatFinishReason, ChatUsage } from '../openai/chat-types.js';
import type { AnthropicStopReason, AnthropicUsage } from './anthropic-types.js';

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0);

/**
 * Anthropic usage in the canonical (OpenAI) shape. Anthropic's input_tokens leaves out the cache
 * reads and writes; OpenAI's prompt_tokens counts every input token, so both are added in and
 * named again in prompt_tokens_details (reads as cached_tokens, writes as cached_creation_tokens,
 * the writes kept for an hour again as cached_creation_1h_tokens).
 */
export function anthropicUsageToChat(usage: Partial<AnthropicUsage> | Record<string, unknown> | null | undefined): ChatUsage {
  const input = count(usage?.input_tokens);
  const cacheRead = count(usage?.cache_read_input_tokens);
  const cacheCreation = count(usage?.cache_creation_input_tokens);
  const output = count(usage?.output_tokens);
  const prompt = input + cacheRead + cacheCreation;
  const chat: ChatUsage = { prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output };
  if (cacheRead > 0 || cacheCreation > 0) chat.prompt_tokens_details = { cached_tokens: cacheRead, cached_creation_tokens: cacheCreation };
  // cache_creation splits the writes by lifetime; the hour's cost more (docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
  const lifetimes = usage?.cache_creation;
  const hour = lifetimes !== null && typeof lifetimes === 'object' ? count((lifetimes as Record<string, unknown>).ephemeral_1h_input_tokens) : 0;
  if (hour > 0 && chat.prompt_tokens_details) chat.prompt_tokens_details.cached_creation_1h_tokens = Math.min(hour, cacheCreation);
  // output_tokens_details.thinking_tokens (API version 2026-10-21): the thinking share of output_tokens.
  const details = usage?.output_tokens_details;
  const thinking = details !== null && typeof details === 'object' ? count((details as Record<string, unknown>).thinking_tokens) : 0;
  if (thinking > 0) chat.completion_tokens_details = { reasoning_tokens: Math.min(thinking, output) };
  return chat;
}

/** Canonical usage as Anthropic reports it: the uncached input apart from the cache reads and writes. */
export interface AnthropicUsageCounts {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export function chatUsageToAnthropic(usage: ChatUsage | null | undefined): AnthropicUsageCounts {
  const cacheRead = count(usage?.prompt_tokens_details?.cached_tokens);
  const cacheCreation = count(usage?.prompt_tokens_details?.cached_creation_tokens);
  return {
    input_tokens: Math.max(0, count(usage?.prompt_tokens) - cacheRead - cacheCreation),
    output_tokens: count(usage?.completion_tokens),
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheCreation,
  };
}

/** Claude's stop_reason as OpenAI's finish_reason (pause_turn: a server tool paused; the turn ended). */
export function anthropicStopToFinish(reason: unknown): ChatFinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn, and whatever a newer API adds
      return 'stop';
  }
}

export function finishToAnthropicStop(reason: ChatFinishReason | null | undefined): AnthropicStopReason {
  if (reason === null || reason === undefined) return 'end_turn';
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default: {
      const unreachable: never = reason;
      return unreachable;
    }
  }
}
