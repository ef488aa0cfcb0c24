import { ConversionError, type Converted } from '../convert/codec.js';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatTool, ChatToolCall, ChatToolChoice, ReasoningEffort } from '../openai/chat-types.js';

/**
 * OpenAI's Responses API request (platform.openai.com/docs/api-reference/responses/create) to the
 * canonical chat request, for channels that do not speak Responses. Only the fields a conversion
 * reads are typed; the rest are named in warnings when dropped.
 *
 * Input items become chat messages in order:
 * - `instructions` is the first system message;
 * - a message item keeps its role (developer stays developer), its text, images and files;
 * - `function_call` items join the assistant message around them as tool calls (consecutive calls
 *   are one assistant turn, as Codex sends parallel calls), and `function_call_output` becomes a
 *   tool message;
 * - `reasoning` items: their summary text is kept as the next assistant turn's `reasoning_content`
 *   (what Claude and Gemini channels accept back as thinking); `encrypted_content` is OpenAI's own
 *   and is dropped with a warning.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Request fields no chat upstream has an equivalent for: dropped, each named once. */
const DROPPED_FIELDS = ['include', 'truncation', 'background', 'service_tier', 'metadata', 'prompt', 'max_tool_calls', 'top_logprobs'] as const;

/** Fields that mean the same in both APIs, copied as they are. */
const SAME_FIELDS = ['temperature', 'top_p', 'user', 'parallel_tool_calls', 'prompt_cache_key', 'safety_identifier', 'seed'] as const;

const EFFORTS: ReadonlySet<string> = new Set<ReasoningEffort>(['minimal', 'low', 'medium', 'high']);

export function responsesRequestToChat(body: unknown): Converted<ChatRequest> {
  if (!isObject(body)) throw new ConversionError('the request body must be a JSON object');
  if (typeof body.model !== 'string' || body.model === '') throw new ConversionError('model is required');
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw new ConversionError('previous_response_id is not supported on this channel: send the whole conversation in input (store: false)');
  }
  const warnings: string[] = [];
  const messages: ChatMessage[] = [];
  if (body.instructions !== undefined && body.instructions !== null) {
    if (typeof body.instructions !== 'string') throw new ConversionError('instructions must be a string');
    if (body.instructions !== '') messages.push({ role: 'system', content: body.instructions });
  }
  messages.push(...inputMessages(body.input, warnings));

  const request: ChatRequest = { model: body.model, messages };
  if (body.stream === true) {
    request.stream = true;
    request.stream_options = { include_usage: true };
  }
  if (body.max_output_tokens !== undefined && body.max_output_tokens !== null) {
    if (typeof body.max_output_tokens !== 'number' || !Number.isInteger(body.max_output_tokens) || body.max_output_tokens < 1) {
      throw new ConversionError('max_output_tokens must be a positive integer');
    }
    request.max_completion_tokens = body.max_output_tokens;
  }
  for (const field of SAME_FIELDS) if (body[field] !== undefined && body[field] !== null) (request as Record<string, unknown>)[field] = body[field];

  const tools = toolsOf(body.tools, warnings);
  if (tools.length > 0) request.tools = tools;
  const choice = toolChoiceOf(body.tool_choice, warnings);
  if (choice !== undefined) request.tool_choice = choice;

  if (isObject(body.reasoning)) {
    const effort = body.reasoning.effort;
    if (typeof effort === 'string' && EFFORTS.has(effort)) request.reasoning_effort = effort as ReasoningEffort;
    else if (effort !== undefined && effort !== null) warnings.push(`reasoning.effort ${String(effort)}`);
  }
  const format = isObject(body.text) ? body.text.format : undefined;
  if (isObject(format)) {
    if (format.type === 'json_schema') {
      request.response_format = {
        type: 'json_schema',
        json_schema: {
          name: typeof format.name === 'string' ? format.name : 'response',
          ...(isObject(format.schema) ? { schema: format.schema } : {}),
          ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
        },
      };
    } else if (format.type === 'json_object') request.response_format = { type: 'json_object' };
  }
  for (const field of DROPPED_FIELDS) if (body[field] !== undefined && body[field] !== null) warnings.push(field);
  return { value: request, warnings };
}

function inputMessages(input: unknown, warnings: string[]): ChatMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) throw new ConversionError('input must be a string or an array of input items');
  const messages: ChatMessage[] = [];
  /** The assistant turn being built from consecutive assistant items (text, calls). */
  let assistant: ChatMessage | undefined;
  /** Reasoning summaries waiting for the assistant turn they belong to. */
  let reasoning: string[] = [];
  const openAssistant = (): ChatMessage => {
    if (!assistant) {
      assistant = { role: 'assistant', content: null };
      if (reasoning.length > 0) assistant.reasoning_content = reasoning.join('\n\n');
      reasoning = [];
      messages.push(assistant);
    }
    return assistant;
  };
  for (const [index, item] of input.entries()) {
    if (!isObject(item)) throw new ConversionError(`input[${index}] must be an object`);
    const type = item.type ?? 'message';
    switch (type) {
      case 'message': {
        const role = item.role;
        if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
          throw new ConversionError(`input[${index}].role must be user, assistant, system or developer`);
        }
        if (role === 'assistant') {
          const text = assistantText(item.content, index);
          const turn = openAssistant();
          turn.content = turn.content ? `${turn.content}${text}` : text;
          continue;
        }
        assistant = undefined;
        messages.push({ role, content: messageContent(item.content, index, warnings) });
        continue;
      }
      case 'function_call': {
        if (typeof item.call_id !== 'string' || typeof item.name !== 'string') {
          throw new ConversionError(`input[${index}] (function_call) needs call_id and name`);
        }
        const call: ChatToolCall = {
          id: item.call_id,
          type: 'function',
          function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}) },
        };
        const turn = openAssistant();
        turn.tool_calls = [...(turn.tool_calls ?? []), call];
        continue;
      }
      case 'function_call_output': {
        if (typeof item.call_id !== 'string') throw new ConversionError(`input[${index}] (function_call_output) needs call_id`);
        assistant = undefined;
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output) });
        continue;
      }
      case 'reasoning': {
        const summary = Array.isArray(item.summary) ? item.summary : [];
        const texts = summary.flatMap((part) => (isObject(part) && typeof part.text === 'string' ? [part.text] : []));
        if (texts.length > 0) {
          if (assistant) assistant.reasoning_content = [assistant.reasoning_content, ...texts].filter(Boolean).join('\n\n');
          else reasoning.push(...texts);
        }
        if (item.encrypted_content !== undefined && item.encrypted_content !== null) warnings.push(`input[${index}].encrypted_content`);
        continue;
      }
      default:
        // Built-in tool results (web search, file search, computer use) have no chat equivalent.
        warnings.push(`input[${index}] (${String(type)})`);
    }
  }
  if (reasoning.length > 0) warnings.push('reasoning after the last assistant turn');
  return messages;
}

function assistantText(content: unknown, index: number): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new ConversionError(`input[${index}].content must be a string or an array of content parts`);
  return content
    .map((part) => {
      if (!isObject(part)) return '';
      if ((part.type === 'output_text' || part.type === 'input_text') && typeof part.text === 'string') return part.text;
      if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
      return '';
    })
    .join('');
}

function messageContent(content: unknown, index: number, warnings: string[]): string | ChatContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new ConversionError(`input[${index}].content must be a string or an array of content parts`);
  const parts: ChatContentPart[] = [];
  for (const [partIndex, part] of content.entries()) {
    if (!isObject(part)) throw new ConversionError(`input[${index}].content[${partIndex}] must be an object`);
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        if (typeof part.text !== 'string') throw new ConversionError(`input[${index}].content[${partIndex}].text must be a string`);
        parts.push({ type: 'text', text: part.text });
        break;
      case 'input_image': {
        const url = typeof part.image_url === 'string' ? part.image_url : undefined;
        if (!url) {
          // An image by file_id lives in OpenAI's file store: no other upstream can read it.
          warnings.push(`input[${index}].content[${partIndex}] (image by file_id)`);
          break;
        }
        const detail = part.detail === 'low' || part.detail === 'high' || part.detail === 'auto' ? part.detail : undefined;
        parts.push({ type: 'image_url', image_url: detail ? { url, detail } : { url } });
        break;
      }
      case 'input_file':
        parts.push({
          type: 'file',
          file: {
            ...(typeof part.file_data === 'string' ? { file_data: part.file_data } : {}),
            ...(typeof part.filename === 'string' ? { filename: part.filename } : {}),
            ...(typeof part.file_id === 'string' ? { file_id: part.file_id } : {}),
          },
        });
        break;
      default:
        warnings.push(`input[${index}].content[${partIndex}] (${String(part.type)})`);
    }
  }
  return parts;
}

/** A function call's output: text as it is, content parts as their text. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return output.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('');
  }
  return JSON.stringify(output ?? '');
}

function toolsOf(tools: unknown, warnings: string[]): ChatTool[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw new ConversionError('tools must be an array');
  const out: ChatTool[] = [];
  for (const [index, tool] of tools.entries()) {
    if (!isObject(tool)) throw new ConversionError(`tools[${index}] must be an object`);
    if (tool.type !== 'function') {
      warnings.push(`tools[${index}] (${String(tool.type)})`);
      continue;
    }
    if (typeof tool.name !== 'string' || tool.name === '') throw new ConversionError(`tools[${index}].name is required`);
    out.push({
      type: 'function',
      function: {
        name: tool.name,
        ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
        ...(isObject(tool.parameters) ? { parameters: tool.parameters } : {}),
        ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
      },
    });
  }
  return out;
}

function toolChoiceOf(choice: unknown, warnings: string[]): ChatToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'none' || choice === 'auto' || choice === 'required') return choice;
  if (isObject(choice) && choice.type === 'function' && typeof choice.name === 'string') return { type: 'function', function: { name: choice.name } };
  warnings.push('tool_choice');
  return undefined;
}
