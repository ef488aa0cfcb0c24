import type { ChatCompletion, ChatCompletionMessage, ChatFinishReason, ChatToolCall } from '../openai/chat-types.js';
import { chatUsageToGemini, geminiUsageToChat } from './gemini-usage.js';
import { isObject, type GeminiCandidate, type GeminiPart, type GeminiResponse, type Json } from './gemini-types.js';

/** Finish reasons that mean the output was withheld by a filter. */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

/** Gemini's finishReason as OpenAI's; `hasCalls` turns a plain stop into tool_calls. */
export function geminiFinishReason(reason: string | undefined, hasCalls: boolean): ChatFinishReason | null {
  if (reason === undefined || reason === '' || reason === 'FINISH_REASON_UNSPECIFIED') return null;
  if (reason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(reason)) return 'content_filter';
  return hasCalls ? 'tool_calls' : 'stop';
}

/** OpenAI's finish reason as Gemini's. */
export function chatFinishReasonToGemini(reason: ChatFinishReason): string {
  switch (reason) {
    case 'stop':
    case 'tool_calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    default: {
      const unknownReason: never = reason;
      return String(unknownReason);
    }
  }
}

/** A functionCall part as an OpenAI tool call; the id is Gemini's when it sent one, else made from `fallbackId`. */
export function functionCallToToolCall(call: Json, fallbackId: string): ChatToolCall {
  const id = typeof call.id === 'string' && call.id !== '' ? call.id : fallbackId;
  const name = typeof call.name === 'string' ? call.name : '';
  return { id, type: 'function', function: { name, arguments: JSON.stringify(isObject(call.args) ? call.args : {}) } };
}

const partsOf = (candidate: Json): Json[] => {
  const content = candidate.content;
  return isObject(content) && Array.isArray(content.parts) ? content.parts.filter(isObject) : [];
};

/** A Gemini generateContent answer as an OpenAI chat completion. */
export function geminiResponseToChat(answer: Record<string, unknown>, model: string): ChatCompletion {
  const created = Math.floor(Date.now() / 1000);
  const responseId = typeof answer.responseId === 'string' && answer.responseId !== '' ? answer.responseId : undefined;
  const candidates = Array.isArray(answer.candidates) ? answer.candidates.filter(isObject) : [];
  let callNumber = 0;
  const choices: ChatCompletion['choices'] = candidates.map((candidate, position) => {
    let text = '';
    let reasoning = '';
    const toolCalls: ChatToolCall[] = [];
    for (const part of partsOf(candidate)) {
      if (isObject(part.functionCall)) toolCalls.push(functionCallToToolCall(part.functionCall, `call_${responseId ?? 'gemini'}_${callNumber++}`));
      else if (typeof part.text === 'string') {
        if (part.thought === true) reasoning += part.text;
        else text += part.text;
      }
    }
    const message: ChatCompletionMessage = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
    if (reasoning !== '') message.reasoning_content = reasoning;
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    const finishReason = typeof candidate.finishReason === 'string' ? candidate.finishReason : undefined;
    const index = typeof candidate.index === 'number' ? candidate.index : position;
    return { index, message, finish_reason: geminiFinishReason(finishReason, toolCalls.length > 0) ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop') };
  });
  const feedback = isObject(answer.promptFeedback) ? answer.promptFeedback : undefined;
  if (choices.length === 0 && typeof feedback?.blockReason === 'string') {
    choices.push({ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter' });
  }
  const completion: ChatCompletion = { id: responseId ?? `chatcmpl-gemini-${created}`, object: 'chat.completion', created, model, choices };
  const usage = geminiUsageToChat(answer.usageMetadata);
  if (usage) completion.usage = usage;
  return completion;
}

/** An OpenAI chat completion as a Gemini generateContent answer. */
export function chatResponseToGemini(completion: ChatCompletion): Record<string, unknown> {
  const candidates: GeminiCandidate[] = completion.choices.map((choice) => {
    const parts: GeminiPart[] = [];
    const { message } = choice;
    if (message.reasoning_content) parts.push({ text: message.reasoning_content, thought: true });
    if (typeof message.content === 'string' && message.content !== '') parts.push({ text: message.content });
    for (const call of message.tool_calls ?? []) {
      let args: Json = {};
      try {
        const parsed: unknown = JSON.parse(call.function.arguments || '{}');
        if (isObject(parsed)) args = parsed;
      } catch {
        // Arguments that are not JSON cannot be a Gemini call's args.
      }
      parts.push({ functionCall: { id: call.id, name: call.function.name, args } });
    }
    const candidate: GeminiCandidate = { content: { role: 'model', parts }, index: choice.index };
    candidate.finishReason = chatFinishReasonToGemini(choice.finish_reason ?? 'stop');
    return candidate;
  });
  const response: GeminiResponse = { candidates };
  if (completion.usage) response.usageMetadata = chatUsageToGemini(completion.usage);
  response.modelVersion = completion.model;
  response.responseId = completion.id;
  return response as unknown as Record<string, unknown>;
}
