import type { ChatCompletion, ChatFinishReason, ChatToolCall, ChatUsage } from '../openai/chat-types.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined);

/** Cohere's finish reasons as OpenAI's. ERROR and TIMEOUT end the answer where it stopped. */
export function cohereFinishReason(reason: unknown): ChatFinishReason {
  switch (typeof reason === 'string' ? reason.toUpperCase() : '') {
    case 'MAX_TOKENS':
      return 'length';
    case 'TOOL_CALL':
      return 'tool_calls';
    default:
      return 'stop';
  }
}

/**
 * Cohere's usage as OpenAI's: `tokens` counts what the model processed, `billed_units` what Cohere
 * charged (without its own system preamble); the first is preferred, the second a fallback.
 */
export function cohereUsage(usage: unknown): ChatUsage | undefined {
  if (!isObject(usage)) return undefined;
  const tokens = isObject(usage.tokens) ? usage.tokens : {};
  const billed = isObject(usage.billed_units) ? usage.billed_units : {};
  const prompt = count(tokens.input_tokens) ?? count(billed.input_tokens);
  const completion = count(tokens.output_tokens) ?? count(billed.output_tokens);
  if (prompt === undefined && completion === undefined) return undefined;
  const result: ChatUsage = { prompt_tokens: prompt ?? 0, completion_tokens: completion ?? 0, total_tokens: (prompt ?? 0) + (completion ?? 0) };
  const cached = count(usage.cached_tokens);
  if (cached !== undefined && cached > 0) result.prompt_tokens_details = { cached_tokens: Math.min(cached, result.prompt_tokens) };
  return result;
}

export function cohereToolCalls(value: unknown): ChatToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((call, index) => {
    const fn = isObject(call.function) ? call.function : {};
    const args = fn.arguments;
    return {
      id: typeof call.id === 'string' && call.id !== '' ? call.id : `call_${index}`,
      type: 'function',
      function: { name: typeof fn.name === 'string' ? fn.name : '', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
    };
  });
}

/** A whole Cohere v2 chat answer as a canonical chat completion. */
export function cohereResponseToCanonical(answer: Json, model: string): ChatCompletion {
  const message = isObject(answer.message) ? answer.message : {};
  let text = '';
  const thinking: string[] = [];
  if (typeof message.content === 'string') text = message.content;
  else if (Array.isArray(message.content)) {
    for (const part of message.content.filter(isObject)) {
      if (part.type === 'text' && typeof part.text === 'string') text += part.text;
      else if (part.type === 'thinking' && typeof part.thinking === 'string') thinking.push(part.thinking);
    }
  }
  if (typeof message.tool_plan === 'string' && message.tool_plan !== '') thinking.push(message.tool_plan);
  const toolCalls = cohereToolCalls(message.tool_calls);

  const completionMessage: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (thinking.length > 0) completionMessage.reasoning_content = thinking.join('\n');
  if (toolCalls.length > 0) completionMessage.tool_calls = toolCalls;

  const completion: ChatCompletion = {
    id: typeof answer.id === 'string' ? answer.id : `chatcmpl-cohere-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: completionMessage,
        finish_reason: toolCalls.length > 0 && answer.finish_reason === undefined ? 'tool_calls' : cohereFinishReason(answer.finish_reason),
      },
    ],
  };
  const usage = cohereUsage(answer.usage);
  if (usage) completion.usage = usage;
  return completion;
}
