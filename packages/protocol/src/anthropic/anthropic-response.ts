import type { ChatCompletion, ChatCompletionMessage, ChatToolCall } from '../openai/chat-types.js';
import type { AnthropicMessage } from './anthropic-types.js';
import { isJsonObject } from './anthropic-types.js';
import { anthropicStopToFinish, anthropicUsageToChat, chatUsageToAnthropic, finishToAnthropicStop } from './anthropic-usage.js';

/** An upstream's whole Anthropic Message as a canonical chat completion. */
export function anthropicResponseToCanonical(message: Record<string, unknown>, model: string): ChatCompletion {
  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const block of Array.isArray(message.content) ? message.content : []) {
    if (!isJsonObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'thinking' && typeof block.thinking === 'string') thinking.push(block.thinking);
    else if (block.type === 'tool_use' && typeof block.name === 'string') {
      toolCalls.push({
        id: typeof block.id === 'string' ? block.id : `toolu_${toolCalls.length}`,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
    // redacted_thinking, server_tool_use and server tool results have no place in a chat message.
  }
  const answer: ChatCompletionMessage = { role: 'assistant', content: texts.length > 0 || toolCalls.length === 0 ? texts.join('') : null };
  if (thinking.length > 0) answer.reasoning_content = thinking.join('');
  if (toolCalls.length > 0) answer.tool_calls = toolCalls;
  const completion: ChatCompletion = {
    id: typeof message.id === 'string' ? message.id : 'msg_unknown',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof message.model === 'string' ? message.model : model,
    choices: [{ index: 0, message: answer, finish_reason: anthropicStopToFinish(message.stop_reason) }],
  };
  if (isJsonObject(message.usage)) completion.usage = anthropicUsageToChat(message.usage);
  return completion;
}

export const anthropicMessageId = (id: string): string => (id.startsWith('msg_') ? id : `msg_${id}`);

/** A canonical chat completion as an Anthropic Message for an Anthropic client. */
export function anthropicResponseFromCanonical(completion: ChatCompletion): AnthropicMessage {
  const choice = completion.choices[0];
  const answer = choice?.message;
  const content: AnthropicMessage['content'] = [];
  // Without a signature Claude will not take this thinking back; clients still show it.
  if (answer?.reasoning_content) content.push({ type: 'thinking', thinking: answer.reasoning_content, signature: '' });
  if (answer?.content) content.push({ type: 'text', text: answer.content });
  for (const call of answer?.tool_calls ?? []) {
    let input: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(call.function.arguments || '{}');
      if (isJsonObject(parsed)) input = parsed;
    } catch {
      // an upstream's broken arguments reach the client as an empty input rather than a failed answer
    }
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input });
  }
  return {
    id: anthropicMessageId(completion.id),
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    stop_reason: finishToAnthropicStop(choice?.finish_reason),
    stop_sequence: null,
    usage: chatUsageToAnthropic(completion.usage),
  };
}
