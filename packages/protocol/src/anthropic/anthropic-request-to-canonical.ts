import { ConversionError, REASONING_BUDGETS, type Converted } from '../convert/codec.js';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatTool, ChatToolCall, ChatToolChoice, ReasoningEffort } from '../openai/chat-types.js';
import { anthropicRequestSchema, isJsonObject, type Json } from './anthropic-types.js';

/** Collects warnings, each once (a long history would otherwise repeat the same one per message). */
class Warnings {
  readonly list: string[] = [];
  add(warning: string): void {
    if (!this.list.includes(warning)) this.list.push(warning);
  }
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The effort whose budget is nearest to `budget` ('minimal' is left out: not every model takes it). */
export function effortForBudget(budget: number): ReasoningEffort {
  const efforts: ReasoningEffort[] = ['low', 'medium', 'high'];
  let best: ReasoningEffort = 'low';
  for (const effort of efforts) {
    if (Math.abs(REASONING_BUDGETS[effort] - budget) < Math.abs(REASONING_BUDGETS[best] - budget)) best = effort;
  }
  return best;
}

function blocksOf(content: unknown, where: string): Json[] | string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new ConversionError(`${where}.content must be a string or an array of content blocks`);
  return content.map((block, index) => {
    if (!isJsonObject(block) || typeof block.type !== 'string') throw new ConversionError(`${where}.content[${index}] must be an object with a type`);
    return block;
  });
}

/** An image or document block as a chat part, or undefined (with a warning) when chat cannot carry it. */
function mediaPart(block: Json, warnings: Warnings): ChatContentPart | undefined {
  const source = isJsonObject(block.source) ? block.source : {};
  if (block.type === 'image') {
    if (source.type === 'base64' && typeof source.data === 'string') {
      return { type: 'image_url', image_url: { url: `data:${str(source.media_type) ?? 'image/png'};base64,${source.data}` } };
    }
    if (source.type === 'url' && typeof source.url === 'string') return { type: 'image_url', image_url: { url: source.url } };
    warnings.add(`image source of type ${String(source.type)} dropped: only base64 and url images convert`);
    return undefined;
  }
  // document
  if (source.type === 'base64' && typeof source.data === 'string') {
    const title = str(block.title);
    return {
      type: 'file',
      file: { file_data: `data:${str(source.media_type) ?? 'application/pdf'};base64,${source.data}`, ...(title ? { filename: title } : {}) },
    };
  }
  if (source.type === 'text' && typeof source.data === 'string') return { type: 'text', text: source.data };
  warnings.add(`document source of type ${String(source.type)} dropped: only base64 and text documents convert`);
  return undefined;
}

function toolResultText(block: Json, warnings: Warnings): string {
  const content = block.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (isJsonObject(part) && part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else warnings.add(`tool_result content of type ${isJsonObject(part) ? String(part.type) : typeof part} dropped: a tool message carries text only`);
  }
  return texts.join('\n');
}

function userMessages(content: Json[] | string, warnings: Warnings, where: string): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const toolMessages: ChatMessage[] = [];
  const parts: ChatContentPart[] = [];
  content.forEach((block, index) => {
    if (block.cache_control !== undefined) warnings.add('cache_control dropped: the target format has no prompt-cache markers');
    switch (block.type) {
      case 'text':
        if (typeof block.text !== 'string') throw new ConversionError(`${where}.content[${index}].text must be a string`);
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
      case 'document': {
        const part = mediaPart(block, warnings);
        if (part) parts.push(part);
        break;
      }
      case 'tool_result':
        if (typeof block.tool_use_id !== 'string') throw new ConversionError(`${where}.content[${index}].tool_use_id must be a string`);
        toolMessages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: toolResultText(block, warnings) });
        break;
      default:
        warnings.add(`user content block of type ${String(block.type)} dropped`);
    }
  });
  // Tool answers first: an OpenAI upstream wants them right after the assistant's tool calls.
  return parts.length > 0 ? [...toolMessages, { role: 'user', content: parts }] : toolMessages;
}

function assistantMessage(content: Json[] | string, warnings: Warnings, where: string): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  content.forEach((block, index) => {
    if (block.cache_control !== undefined) warnings.add('cache_control dropped: the target format has no prompt-cache markers');
    switch (block.type) {
      case 'text':
        if (typeof block.text !== 'string') throw new ConversionError(`${where}.content[${index}].text must be a string`);
        texts.push(block.text);
        break;
      case 'thinking':
        if (typeof block.thinking === 'string') thinking.push(block.thinking);
        break;
      case 'redacted_thinking':
        warnings.add('redacted_thinking dropped: it can only be replayed to Claude');
        break;
      case 'tool_use':
        if (typeof block.id !== 'string' || typeof block.name !== 'string') {
          throw new ConversionError(`${where}.content[${index}] (tool_use) needs a string id and name`);
        }
        toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
        break;
      default:
        warnings.add(`assistant content block of type ${String(block.type)} dropped`);
    }
  });
  const message: ChatMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  if (thinking.length > 0) message.reasoning_content = thinking.join('');
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

function systemMessage(system: unknown, warnings: Warnings, where = 'system'): ChatMessage | undefined {
  if (system === undefined || system === null) return undefined;
  if (typeof system === 'string') return system === '' ? undefined : { role: 'system', content: system };
  if (!Array.isArray(system)) throw new ConversionError(`${where} must be a string or an array of text blocks`);
  const parts = system.map((block, index): ChatContentPart => {
    if (!isJsonObject(block) || block.type !== 'text' || typeof block.text !== 'string') {
      throw new ConversionError(`${where}[${index}] must be a text block`);
    }
    if (block.cache_control !== undefined) warnings.add('cache_control dropped: the target format has no prompt-cache markers');
    return { type: 'text', text: block.text };
  });
  return parts.length > 0 ? { role: 'system', content: parts } : undefined;
}

function tools(value: unknown, warnings: Warnings): ChatTool[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const converted: ChatTool[] = [];
  for (const tool of value) {
    if (!isJsonObject(tool) || typeof tool.name !== 'string') continue;
    // Server tools (web_search_20250305, bash_20250124, computer_...) carry a versioned type and run at Anthropic.
    if (tool.type !== undefined && tool.type !== 'custom') {
      warnings.add(`server tool ${tool.name} (${String(tool.type)}) dropped: only Claude runs it`);
      continue;
    }
    if (tool.cache_control !== undefined) warnings.add('cache_control dropped: the target format has no prompt-cache markers');
    const description = str(tool.description);
    converted.push({
      type: 'function',
      function: {
        name: tool.name,
        ...(description ? { description } : {}),
        parameters: isJsonObject(tool.input_schema) ? tool.input_schema : { type: 'object', properties: {} },
      },
    });
  }
  return converted.length > 0 ? converted : undefined;
}

function toolChoice(value: unknown): { choice?: ChatToolChoice; parallel?: false } {
  if (!isJsonObject(value)) return {};
  const parallel = value.disable_parallel_tool_use === true ? { parallel: false as const } : {};
  switch (value.type) {
    case 'auto':
      return { choice: 'auto', ...parallel };
    case 'any':
      return { choice: 'required', ...parallel };
    case 'none':
      return { choice: 'none' };
    case 'tool':
      return typeof value.name === 'string' ? { choice: { type: 'function', function: { name: value.name } }, ...parallel } : parallel;
    default:
      return parallel;
  }
}

/**
 * Thinking as an effort: an enabled budget → the nearest effort; adaptive thinking or
 * output_config.effort (low … max) → that effort, xhigh and max as high.
 */
function reasoningEffort(body: Json): ReasoningEffort | undefined {
  const thinking = isJsonObject(body.thinking) ? body.thinking : {};
  if (thinking.type === 'enabled') return effortForBudget(num(thinking.budget_tokens) ?? REASONING_BUDGETS.medium);
  if (thinking.type === 'disabled') return undefined;
  const effort = isJsonObject(body.output_config) ? body.output_config.effort : undefined;
  if (effort === 'low' || effort === 'medium' || effort === 'high') return effort;
  if (effort === 'xhigh' || effort === 'max') return 'high';
  return thinking.type === 'adaptive' ? 'medium' : undefined;
}

/** output_config.format (structured JSON output) as OpenAI's json_schema response format. */
function responseFormat(outputConfig: unknown): ChatRequest['response_format'] {
  const format = isJsonObject(outputConfig) && isJsonObject(outputConfig.format) ? outputConfig.format : undefined;
  if (format?.type !== 'json_schema' || !isJsonObject(format.schema)) return undefined;
  return { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } };
}

/** An Anthropic Messages request as a canonical (OpenAI chat) request. */
export function anthropicRequestToCanonical(body: Record<string, unknown>): Converted<ChatRequest> {
  if (!isJsonObject(body)) throw new ConversionError('the request body must be a JSON object');
  const parsed = anthropicRequestSchema.safeParse(body);
  if (!parsed.success) throw new ConversionError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; '));
  const warnings = new Warnings();
  const messages: ChatMessage[] = [];
  const system = systemMessage(body.system, warnings);
  if (system) messages.push(system);
  parsed.data.messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    if (!isJsonObject(message)) throw new ConversionError(`${where} must be an object`);
    const content = blocksOf(message.content, where);
    if (message.role === 'user') messages.push(...userMessages(content, warnings, where));
    else if (message.role === 'assistant') messages.push(assistantMessage(content, warnings, where));
    else if (message.role === 'system') {
      // API version 2026-10-21 takes system messages among the turns (text only).
      const system = systemMessage(content, warnings, where);
      if (system) messages.push(system);
    } else throw new ConversionError(`${where}.role must be "user", "assistant" or "system"`);
  });

  const request: ChatRequest = { model: parsed.data.model, messages };
  if (parsed.data.max_tokens !== undefined) request.max_tokens = parsed.data.max_tokens;
  if (Array.isArray(body.stop_sequences)) {
    const stop = body.stop_sequences.filter((item): item is string => typeof item === 'string');
    if (stop.length > 0) request.stop = stop;
  }
  const temperature = num(body.temperature);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = num(body.top_p);
  if (topP !== undefined) request.top_p = topP;
  const topK = num(body.top_k);
  if (topK !== undefined) request.top_k = topK;
  const chatTools = tools(body.tools, warnings);
  if (chatTools) request.tools = chatTools;
  const { choice, parallel } = toolChoice(body.tool_choice);
  if (choice !== undefined && (chatTools || choice === 'none')) request.tool_choice = choice;
  if (parallel === false && chatTools) request.parallel_tool_calls = false;
  const effort = reasoningEffort(body);
  if (effort) request.reasoning_effort = effort;
  const format = responseFormat(body.output_config);
  if (format) request.response_format = format;
  if (isJsonObject(body.metadata) && typeof body.metadata.user_id === 'string') request.user = body.metadata.user_id;
  if (body.stream === true) {
    request.stream = true;
    // An Anthropic client always gets usage at the end; ask an OpenAI upstream for it.
    request.stream_options = { include_usage: true };
  }
  return { value: request, warnings: warnings.list };
}
