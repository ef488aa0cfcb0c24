import type { ChatCompletion, ChatUsage } from '../openai/chat-types.js';

/** The usage object of a Responses answer (input/output, with cached and reasoning details). */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponsesOutputItem =
  | { type: 'reasoning'; id: string; summary: { type: 'summary_text'; text: string }[] }
  | {
      type: 'message';
      id: string;
      status: 'completed' | 'incomplete';
      role: 'assistant';
      content: ({ type: 'output_text'; text: string; annotations: [] } | { type: 'refusal'; refusal: string })[];
    }
  | { type: 'function_call'; id: string; call_id: string; name: string; arguments: string; status: 'completed' };

export interface ResponsesResponse {
  id: string;
  object: 'response';
  created_at: number;
  status: 'completed' | 'incomplete';
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  error: null;
  model: string;
  output: ResponsesOutputItem[];
  /** The concatenated text of the message items, as the official SDKs expose it. */
  output_text: string;
  usage: ResponsesUsage | null;
}

/** Chat usage in Responses' terms: prompt → input, completion → output, with their details. */
export function responsesUsageOf(usage: ChatUsage): ResponsesUsage {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens || usage.prompt_tokens + usage.completion_tokens,
  };
}

/**
 * A chat completion as a Responses answer, for a Responses client served by a chat channel. The
 * first choice's thinking becomes a reasoning item, its text a message item and each tool call a
 * function_call item (call_id = the chat tool call's id, which the client sends back with the
 * output). A `length` finish is `incomplete` with reason max_output_tokens, as OpenAI reports it.
 */
export function responsesResponseFromChat(completion: ChatCompletion): ResponsesResponse {
  const choice = completion.choices[0];
  const message = choice?.message;
  const base = completion.id.replace(/^chatcmpl-/, '');
  const output: ResponsesOutputItem[] = [];
  if (message?.reasoning_content) {
    output.push({ type: 'reasoning', id: `rs_${base}`, summary: [{ type: 'summary_text', text: message.reasoning_content }] });
  }
  const incomplete = choice?.finish_reason === 'length' || choice?.finish_reason === 'content_filter';
  const text = message?.content ?? '';
  if (text !== '' || message?.refusal) {
    output.push({
      type: 'message',
      id: `msg_${base}`,
      status: incomplete ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [
        ...(text !== '' ? [{ type: 'output_text' as const, text, annotations: [] as [] }] : []),
        ...(message?.refusal ? [{ type: 'refusal' as const, refusal: message.refusal }] : []),
      ],
    });
  }
  for (const call of message?.tool_calls ?? []) {
    output.push({
      type: 'function_call',
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      status: 'completed',
    });
  }
  return {
    id: `resp_${base}`,
    object: 'response',
    created_at: completion.created,
    status: incomplete ? 'incomplete' : 'completed',
    incomplete_details: incomplete ? { reason: choice?.finish_reason === 'length' ? 'max_output_tokens' : 'content_filter' } : null,
    error: null,
    model: completion.model,
    output,
    output_text: text,
    usage: completion.usage ? responsesUsageOf(completion.usage) : null,
  };
}
