import type { Converted, OutboundContext } from '../convert/codec.js';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatToolChoice } from '../openai/chat-types.js';

/**
 * The canonical chat request as an OpenAI Responses API request
 * (platform.openai.com/docs/api-reference/responses/create), for a model an upstream serves only
 * through /v1/responses (new-api's "ChatCompletions→Responses" policy).
 *
 * Messages become input items in order:
 * - the first system message is `instructions`; every other system or developer message is a
 *   developer message item;
 * - user messages are message items of input_text, input_image and input_file parts;
 * - an assistant turn is a message item of output_text (when it has text), then one
 *   `function_call` item per tool call; a tool message is a `function_call_output`.
 *
 * Reasoning rule: an assistant's `reasoning_content` is dropped with a warning. A reasoning input
 * item must carry the `id` (and `encrypted_content`) the upstream itself produced; with
 * `store: false` OpenAI looks an id up and answers 400 ("Item with id 'rs_…' not found. Items are
 * not persisted when `store` is set to false"), and without one the item is invalid. Thinking that
 * came from a chat history (another model's, or a summary) has neither, so it cannot go back.
 *
 * The gateway keeps no upstream state: `store` is always false. Fields the Responses API has no
 * equivalent for are dropped, each named in a warning; nothing here throws.
 */

type Json = Record<string, unknown>;

/** OpenAI refuses max_output_tokens below 16 ("integer below minimum value"). */
export const RESPONSES_MIN_OUTPUT_TOKENS = 16;

class Warnings {
  readonly list: string[] = [];
  add(warning: string): void {
    if (!this.list.includes(warning)) this.list.push(warning);
  }
}

/** Chat request fields that mean the same in a Responses request, copied as they are. */
const SAME_FIELDS = [
  'temperature',
  'top_p',
  'user',
  'parallel_tool_calls',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
  'service_tier',
  'metadata',
] as const;

/** Fields this converter reads (or deliberately leaves out without a word); any other set field is named in a warning. */
const READ_FIELDS: ReadonlySet<string> = new Set<string>([
  ...SAME_FIELDS,
  'model',
  'messages',
  'stream',
  // The Responses API always reports usage at the end of a stream.
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'tools',
  'tool_choice',
  'reasoning_effort',
  'response_format',
  'verbosity',
  'store',
]);

/** Set values that are only the chat defaults (n: 1, penalties 0, logprobs false) are not worth a warning. */
const isDefault: Readonly<Record<string, (value: unknown) => boolean>> = {
  n: (value) => value === 1,
  presence_penalty: (value) => value === 0,
  frequency_penalty: (value) => value === 0,
  logprobs: (value) => value === false,
};

const WHY: Readonly<Record<string, string>> = {
  n: 'the Responses API returns one answer',
  seed: 'the Responses API takes no seed',
  stop: 'the Responses API takes no stop sequences',
  logprobs: 'log probabilities cannot be carried back into a chat answer from here',
  top_logprobs: 'log probabilities cannot be carried back into a chat answer from here',
};

function textOf(content: ChatMessage['content'], warnings: Warnings, where: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const part of content) {
    if (part.type === 'text') texts.push(part.text);
    else warnings.add(`${part.type} part in ${where} dropped: only its text can go there`);
  }
  return texts.join('');
}

function inputPart(part: ChatContentPart, warnings: Warnings): Json | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'input_text', text: part.text };
    case 'image_url':
      return { type: 'input_image', image_url: part.image_url.url, detail: part.image_url.detail ?? 'auto' };
    case 'file': {
      const { file_data, filename, file_id } = part.file;
      if (!file_data && !file_id) {
        warnings.add('file part with neither file_data nor file_id dropped');
        return undefined;
      }
      return {
        type: 'input_file',
        ...(file_data ? { file_data } : {}),
        ...(filename ? { filename } : {}),
        ...(file_id ? { file_id } : {}),
      };
    }
    case 'input_audio':
      warnings.add('input_audio dropped: the Responses API takes no audio input');
      return undefined;
    default: {
      const unknownPart: never = part;
      warnings.add(`content part of type ${String((unknownPart as { type?: unknown }).type)} dropped`);
      return undefined;
    }
  }
}

function inputContent(content: ChatMessage['content'], warnings: Warnings): string | Json[] {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  const parts: Json[] = [];
  for (const part of content) {
    const converted = inputPart(part, warnings);
    if (converted) parts.push(converted);
  }
  return parts;
}

/** One chat message as the input items it becomes (none, one, or a text item and its calls). */
function inputItems(message: ChatMessage, index: number, warnings: Warnings): Json[] {
  // A tool message's name (the function's) repeats what its call_id already ties it to.
  if (message.name !== undefined && message.role !== 'tool') warnings.add('message name dropped: the Responses API has no speaker names');
  switch (message.role) {
    case 'system':
    case 'developer':
    case 'user': {
      const content = inputContent(message.content, warnings);
      // A message whose every part was dropped says nothing, and an empty part list is refused.
      if (Array.isArray(content) && content.length === 0) return [];
      return [{ type: 'message', role: message.role === 'user' ? 'user' : 'developer', content }];
    }
    case 'assistant': {
      if (message.reasoning_content) {
        warnings.add(
          'reasoning_content in the history dropped: a Responses upstream takes back only its own reasoning items (with their id), which a chat history does not carry',
        );
      }
      const items: Json[] = [];
      const text = textOf(message.content, warnings, 'an assistant message');
      if (text !== '') items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
      for (const [callIndex, call] of (message.tool_calls ?? []).entries()) {
        items.push({
          type: 'function_call',
          call_id: call.id || `call_${index}_${callIndex}`,
          name: call.function.name,
          arguments: call.function.arguments,
        });
      }
      return items;
    }
    case 'tool': {
      if (!message.tool_call_id) {
        warnings.add('tool message without tool_call_id dropped: a function_call_output needs the call it answers');
        return [];
      }
      return [{ type: 'function_call_output', call_id: message.tool_call_id, output: textOf(message.content, warnings, 'a tool result') }];
    }
    default: {
      const unknownRole: never = message.role;
      warnings.add(`message with role ${String(unknownRole)} dropped`);
      return [];
    }
  }
}

function toolChoiceOf(choice: ChatToolChoice | undefined, warnings: Warnings): unknown {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (typeof choice === 'object' && choice.type === 'function' && typeof choice.function?.name === 'string') {
    return { type: 'function', name: choice.function.name };
  }
  warnings.add('tool_choice dropped: only auto, none, required and a named function carry over');
  return undefined;
}

function textFormatOf(format: ChatRequest['response_format'], warnings: Warnings): Json | undefined {
  if (format === undefined || format === null) return undefined;
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const schema = format.json_schema;
      if (!schema?.schema) {
        warnings.add('response_format json_schema without a schema dropped');
        return undefined;
      }
      return {
        type: 'json_schema',
        name: schema.name ?? 'response',
        schema: schema.schema,
        ...(typeof schema.strict === 'boolean' ? { strict: schema.strict } : {}),
      };
    }
    default:
      warnings.add(`response_format of type ${String((format as { type?: unknown }).type)} dropped`);
      return undefined;
  }
}

function maxOutputTokens(request: ChatRequest, context: OutboundContext, warnings: Warnings): number | undefined {
  const asked = request.max_completion_tokens ?? request.max_tokens;
  const cap = context.outputCap;
  const limit = asked === undefined || asked === null ? cap : cap === undefined ? asked : Math.min(asked, cap);
  if (limit === undefined) return undefined;
  if (limit < RESPONSES_MIN_OUTPUT_TOKENS) {
    warnings.add(`max_output_tokens raised from ${limit} to ${RESPONSES_MIN_OUTPUT_TOKENS}, the Responses API's minimum`);
    return RESPONSES_MIN_OUTPUT_TOKENS;
  }
  return limit;
}

/** A canonical (OpenAI chat) request as a Responses API request, for `context.model`. */
export function responsesRequestFromChat(request: ChatRequest, context: OutboundContext): Converted<Json> {
  const warnings = new Warnings();
  const input: Json[] = [];
  let instructions: string | undefined;
  request.messages.forEach((message, index) => {
    if (message.role === 'system' && instructions === undefined) {
      if (message.name !== undefined) warnings.add('message name dropped: the Responses API has no speaker names');
      instructions = textOf(message.content, warnings, 'the system message');
      return;
    }
    input.push(...inputItems(message, index, warnings));
  });

  const out: Json = { model: context.model };
  if (instructions !== undefined && instructions !== '') out.instructions = instructions;
  out.input = input;
  out.store = false;
  if (request.store === true) warnings.add('store dropped: the gateway keeps no upstream state (store: false)');
  if (request.stream === true) out.stream = true;
  const limit = maxOutputTokens(request, context, warnings);
  if (limit !== undefined) out.max_output_tokens = limit;
  for (const field of SAME_FIELDS) if (request[field] !== undefined && request[field] !== null) out[field] = request[field];

  if (request.tools && request.tools.length > 0) {
    const tools: Json[] = [];
    for (const tool of request.tools) {
      if (tool.type !== 'function' || !tool.function) {
        warnings.add(`tool of type ${String(tool.type)} dropped: only function tools carry over`);
        continue;
      }
      const { name, description, parameters, strict } = tool.function;
      tools.push({
        type: 'function',
        name,
        ...(description ? { description } : {}),
        parameters: parameters ?? { type: 'object', properties: {} },
        // Responses function tools are strict unless told otherwise; chat's are not.
        strict: strict ?? false,
      });
    }
    if (tools.length > 0) out.tools = tools;
  }
  const choice = toolChoiceOf(request.tool_choice, warnings);
  if (choice !== undefined && out.tools !== undefined) out.tool_choice = choice;
  else if (choice !== undefined && choice !== 'none' && choice !== 'auto') warnings.add('tool_choice dropped: the request has no function tools');

  if (request.reasoning_effort !== undefined && request.reasoning_effort !== null) out.reasoning = { effort: request.reasoning_effort };
  const text: Json = {};
  const format = textFormatOf(request.response_format, warnings);
  if (format) text.format = format;
  if (typeof request.verbosity === 'string') text.verbosity = request.verbosity;
  if (Object.keys(text).length > 0) out.text = text;

  for (const [field, value] of Object.entries(request)) {
    if (READ_FIELDS.has(field) || value === undefined || value === null || isDefault[field]?.(value)) continue;
    warnings.add(`${field} dropped: ${WHY[field] ?? 'the Responses API has no equivalent'}`);
  }
  return { value: out, warnings: warnings.list };
}
