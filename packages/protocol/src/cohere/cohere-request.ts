import { ConversionError, type Converted, type OutboundContext } from '../convert/codec.js';
import type { ChatContentPart, ChatMessage, ChatRequest } from '../openai/chat-types.js';
import type { CohereChatRequest, CohereImagePart, CohereMessage, CohereTextPart, CohereTool } from './cohere-types.js';

/** Canonical fields this converter reads; any other field the client set is named in a warning. */
const CARRIED = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'top_k',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'tools',
  'tool_choice',
  'response_format',
]);

// Cohere's documented ranges for p (0.01 to 0.99) and k (0 to 500); OpenAI clients often send top_p 1.
const P_MIN = 0.01;
const P_MAX = 0.99;
const K_MAX = 500;

const textOf = (content: ChatMessage['content']): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is Extract<ChatContentPart, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('');
};

function userContent(message: ChatMessage, index: number, warnings: string[]): CohereMessage {
  if (!Array.isArray(message.content)) return { role: 'user', content: textOf(message.content) };
  const parts: (CohereTextPart | CohereImagePart)[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        parts.push({ type: 'text', text: part.text });
        break;
      case 'image_url':
        parts.push({
          type: 'image_url',
          image_url: part.image_url.detail ? { url: part.image_url.url, detail: part.image_url.detail } : { url: part.image_url.url },
        });
        break;
      case 'file':
      case 'input_audio':
        warnings.push(`messages[${index}]: a ${part.type} part was dropped (Cohere chat takes text and images only)`);
        break;
      default: {
        const unknownPart: never = part;
        warnings.push(`messages[${index}]: an unknown content part was dropped: ${JSON.stringify(unknownPart).slice(0, 80)}`);
      }
    }
  }
  return { role: 'user', content: parts };
}

function toCohereMessage(message: ChatMessage, index: number, warnings: string[]): CohereMessage | undefined {
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: textOf(message.content) };
    case 'user':
      return userContent(message, index, warnings);
    case 'assistant': {
      const text = textOf(message.content);
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: text };
      const assistant: CohereMessage = {
        role: 'assistant',
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.function.name, arguments: call.function.arguments || '{}' },
        })),
      };
      // Cohere's own turns carry their reasoning before tool calls as tool_plan.
      const plan = message.reasoning_content || text;
      if (plan) assistant.tool_plan = plan;
      return assistant;
    }
    case 'tool':
      if (!message.tool_call_id) {
        warnings.push(`messages[${index}]: a tool message without tool_call_id was dropped`);
        return undefined;
      }
      return { role: 'tool', tool_call_id: message.tool_call_id, content: textOf(message.content) };
    default: {
      const role: never = message.role;
      warnings.push(`messages[${index}]: role ${String(role)} was dropped`);
      return undefined;
    }
  }
}

const finiteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** The canonical (OpenAI) request as Cohere v2 chat's body. */
export function cohereRequestFromCanonical(request: ChatRequest, context: OutboundContext): Converted<Record<string, unknown>> {
  if (!Array.isArray(request.messages) || request.messages.length === 0) throw new ConversionError('messages must be a non-empty array');
  const warnings: string[] = [];
  const messages: CohereMessage[] = [];
  request.messages.forEach((message, index) => {
    const converted = toCohereMessage(message, index, warnings);
    if (converted) messages.push(converted);
  });

  const body: CohereChatRequest = { model: context.model, messages };
  if (request.stream === true) body.stream = true;

  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (finiteNumber(maxTokens)) body.max_tokens = maxTokens;
  if (finiteNumber(request.temperature)) body.temperature = request.temperature;
  if (finiteNumber(request.top_p)) {
    const p = Math.min(P_MAX, Math.max(P_MIN, request.top_p));
    if (p !== request.top_p) warnings.push(`top_p ${request.top_p} was sent as p ${p} (Cohere accepts ${P_MIN} to ${P_MAX})`);
    body.p = p;
  }
  if (finiteNumber(request.top_k)) {
    const k = Math.min(K_MAX, Math.max(0, Math.round(request.top_k)));
    if (k !== request.top_k) warnings.push(`top_k ${request.top_k} was sent as k ${k} (Cohere accepts 0 to ${K_MAX})`);
    body.k = k;
  }
  if (typeof request.stop === 'string') body.stop_sequences = [request.stop];
  else if (Array.isArray(request.stop) && request.stop.length > 0) body.stop_sequences = request.stop;
  if (finiteNumber(request.seed)) body.seed = request.seed;
  if (finiteNumber(request.frequency_penalty)) body.frequency_penalty = request.frequency_penalty;
  if (finiteNumber(request.presence_penalty)) body.presence_penalty = request.presence_penalty;

  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool): CohereTool => {
      const fn: CohereTool['function'] = { name: tool.function.name };
      if (tool.function.description) fn.description = tool.function.description;
      if (tool.function.parameters) fn.parameters = tool.function.parameters;
      return { type: 'function', function: fn };
    });
    if (request.tools.some((tool) => tool.function.strict === true)) body.strict_tools = true;
  }
  const choice = request.tool_choice;
  if (choice === 'required') body.tool_choice = 'REQUIRED';
  else if (choice === 'none') body.tool_choice = 'NONE';
  else if (typeof choice === 'object' && choice !== null) {
    body.tool_choice = 'REQUIRED';
    warnings.push(`tool_choice ${choice.function.name}: Cohere cannot force one named tool; sent as REQUIRED (some tool must be called)`);
  }

  const format = request.response_format;
  if (format?.type === 'json_object') body.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    body.response_format = format.json_schema?.schema ? { type: 'json_object', json_schema: format.json_schema.schema } : { type: 'json_object' };
  }

  if (finiteNumber(request.n) && request.n > 1) warnings.push(`n ${request.n} was dropped (Cohere answers with one choice)`);
  for (const [field, value] of Object.entries(request)) {
    if (value === undefined || value === null || CARRIED.has(field) || field === 'n') continue;
    warnings.push(`${field} was dropped (Cohere chat has no equivalent)`);
  }
  return { value: body as unknown as Record<string, unknown>, warnings };
}
