import type { ChatCompletion, ChatCompletionMessage, ChatFinishReason, ChatToolCall, ChatUsage } from '../openai/chat-types.js';

/**
 * An upstream's Responses API answer as canonical chat, for a chat client served through
 * /v1/responses: the whole answer (responsesResponseToChat) and the pieces the stream decoder
 * shares with it (usage, finish reason).
 */

type Json = Record<string, unknown>;

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);

/**
 * A Responses usage object in chat terms: input → prompt, output → completion, with the cached
 * and reasoning counts in their chat details when the upstream gave them. undefined when it
 * carries no count.
 */
export function responsesUsageToChat(value: unknown): ChatUsage | undefined {
  if (!isJson(value)) return undefined;
  const input = count(value.input_tokens);
  const output = count(value.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  const prompt_tokens = input ?? 0;
  const completion_tokens = output ?? 0;
  const usage: ChatUsage = { prompt_tokens, completion_tokens, total_tokens: count(value.total_tokens) ?? prompt_tokens + completion_tokens };
  const cached = isJson(value.input_tokens_details) ? count(value.input_tokens_details.cached_tokens) : undefined;
  if (cached !== undefined) usage.prompt_tokens_details = { cached_tokens: cached };
  const reasoning = isJson(value.output_tokens_details) ? count(value.output_tokens_details.reasoning_tokens) : undefined;
  if (reasoning !== undefined) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  return usage;
}

/**
 * The chat finish reason of a Responses answer. An answer cut short says why in
 * incomplete_details, and that wins over its function calls: a call cut at the output limit has
 * broken arguments, which a chat client knows to expect from `length`, not from `tool_calls`.
 */
export function responsesFinishReason(response: Json, hasToolCalls: boolean): ChatFinishReason {
  if (response.status === 'incomplete') {
    const reason = isJson(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    if (reason === 'max_output_tokens') return 'length';
    if (reason === 'content_filter') return 'content_filter';
  }
  return hasToolCalls ? 'tool_calls' : 'stop';
}

/** The text of a reasoning item: its summary parts, else its raw reasoning_text (open-weight models through Responses). */
export function reasoningTextOf(item: Json): string {
  const parts = (list: unknown, type: string) =>
    Array.isArray(list) ? list.flatMap((part) => (isJson(part) && part.type === type && typeof part.text === 'string' ? [part.text] : [])) : [];
  const summary = parts(item.summary, 'summary_text');
  return summary.length > 0 ? summary.join('\n\n') : parts(item.content, 'reasoning_text').join('');
}

/**
 * An upstream's whole Responses answer as one chat choice: the message items' output_text joined
 * as content (refusal parts as `refusal`), reasoning items' text as reasoning_content, and each
 * function_call item a tool call (its call_id the tool call's id, which the client sends back).
 * Built-in tool items (web search, file search, ...) have no place in a chat message.
 */
export function responsesResponseToChat(answer: Record<string, unknown>, model: string): ChatCompletion {
  const texts: string[] = [];
  const refusals: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const item of Array.isArray(answer.output) ? answer.output : []) {
    if (!isJson(item)) continue;
    switch (item.type) {
      case 'message':
        for (const part of Array.isArray(item.content) ? item.content : []) {
          if (!isJson(part)) continue;
          if (part.type === 'output_text' && typeof part.text === 'string') texts.push(part.text);
          else if (part.type === 'refusal' && typeof part.refusal === 'string') refusals.push(part.refusal);
        }
        break;
      case 'reasoning': {
        const text = reasoningTextOf(item);
        if (text !== '') reasoning.push(text);
        break;
      }
      case 'function_call':
        if (typeof item.name !== 'string') break;
        toolCalls.push({
          id: typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : `call_${toolCalls.length}`,
          type: 'function',
          function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}) },
        });
        break;
      default:
        break;
    }
  }
  const message: ChatCompletionMessage = {
    role: 'assistant',
    content: texts.length > 0 ? texts.join('') : toolCalls.length > 0 || refusals.length > 0 ? null : '',
  };
  if (refusals.length > 0) message.refusal = refusals.join('');
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('\n\n');
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const completion: ChatCompletion = {
    id: typeof answer.id === 'string' ? answer.id : 'resp_unknown',
    object: 'chat.completion',
    created: typeof answer.created_at === 'number' ? Math.floor(answer.created_at) : Math.floor(Date.now() / 1000),
    model: typeof answer.model === 'string' && answer.model !== '' ? answer.model : model,
    choices: [{ index: 0, message, finish_reason: responsesFinishReason(answer, toolCalls.length > 0) }],
  };
  const usage = responsesUsageToChat(answer.usage);
  if (usage) completion.usage = usage;
  return completion;
}
