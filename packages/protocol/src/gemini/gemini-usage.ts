import type { ChatUsage } from '../openai/chat-types.js';
import { isObject, type GeminiUsageMetadata } from './gemini-types.js';

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0);

/**
 * Gemini's usageMetadata as OpenAI usage (what new-api bills by): promptTokenCount already
 * includes the cached share (cachedContentTokenCount), and tool-use prompt tokens are input too;
 * thinking (thoughtsTokenCount) is output, reported again as reasoning_tokens.
 * undefined when there is no usageMetadata object at all.
 */
export function geminiUsageToChat(usageMetadata: unknown): ChatUsage | undefined {
  if (!isObject(usageMetadata)) return undefined;
  const promptTokens = count(usageMetadata.promptTokenCount) + count(usageMetadata.toolUsePromptTokenCount);
  const thoughts = count(usageMetadata.thoughtsTokenCount);
  let completionTokens = count(usageMetadata.candidatesTokenCount) + thoughts;
  const total = count(usageMetadata.totalTokenCount);
  // Some answers carry only the total; the output is then what the prompt does not account for.
  if (completionTokens === 0 && total > promptTokens) completionTokens = total - promptTokens;
  const usage: ChatUsage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  const cached = Math.min(count(usageMetadata.cachedContentTokenCount), promptTokens);
  if (cached > 0) usage.prompt_tokens_details = { cached_tokens: cached };
  if (thoughts > 0) usage.completion_tokens_details = { reasoning_tokens: thoughts };
  return usage;
}

/** OpenAI usage as Gemini's usageMetadata: candidates are the output without the reasoning share. */
export function chatUsageToGemini(usage: ChatUsage): GeminiUsageMetadata {
  const reasoning = Math.min(count(usage.completion_tokens_details?.reasoning_tokens), count(usage.completion_tokens));
  const metadata: GeminiUsageMetadata = {
    promptTokenCount: count(usage.prompt_tokens),
    candidatesTokenCount: count(usage.completion_tokens) - reasoning,
    totalTokenCount: count(usage.prompt_tokens) + count(usage.completion_tokens),
  };
  const cached = count(usage.prompt_tokens_details?.cached_tokens);
  if (cached > 0) metadata.cachedContentTokenCount = cached;
  if (reasoning > 0) metadata.thoughtsTokenCount = reasoning;
  return metadata;
}
