import { REASONING_BUDGETS, type Converted, type OutboundContext } from '../convert/codec.js';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatToolChoice } from '../openai/chat-types.js';
import type {
  AnthropicCacheControl,
  AnthropicContentBlock,
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicRequest,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolChoice,
} from './anthropic-types.js';
import { isJsonObject } from './anthropic-types.js';

const MIN_THINKING_BUDGET = 1024;
/** Models that take only adaptive thinking (new-api's rule). */
const ADAPTIVE_ONLY = /^claude-opus-4-7/;

class Warnings {
  readonly list: string[] = [];
  add(warning: string): void {
    if (!this.list.includes(warning)) this.list.push(warning);
  }
}

/** Claude accepts tool_use ids matching ^[a-zA-Z0-9_-]+$; other upstreams' ids may hold more. */
const toolId = (id: string | undefined, fallback: string): string => (id ? id.replace(/[^a-zA-Z0-9_-]/g, '_') : fallback);

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/**
 * A part as a Claude block, its cache_control kept (new-api carries the marker of text, image and
 * file parts to Claude, so OpenAI-style clients can use Claude's prompt cache).
 */
function partToBlock(part: ChatContentPart, warnings: Warnings): AnthropicContentBlock | undefined {
  const block = partBlock(part, warnings);
  const marker = part.type === 'input_audio' ? undefined : cacheControlOf(part.cache_control);
  if (block && marker && (block.type === 'text' || block.type === 'image' || block.type === 'document')) block.cache_control = marker;
  return block;
}

/** A cache_control value Claude takes: `{type: 'ephemeral'}`, with its ttl when it names one. */
function cacheControlOf(value: unknown): AnthropicCacheControl | undefined {
  if (!isJsonObject(value) || value.type !== 'ephemeral') return undefined;
  return typeof value.ttl === 'string' ? { type: 'ephemeral', ttl: value.ttl } : { type: 'ephemeral' };
}

function partBlock(part: ChatContentPart, warnings: Warnings): AnthropicContentBlock | undefined {
  switch (part.type) {
    case 'text':
      return part.text === '' ? undefined : { type: 'text', text: part.text };
    case 'image_url': {
      const url = part.image_url?.url ?? '';
      const data = DATA_URL.exec(url);
      if (data) return { type: 'image', source: { type: 'base64', media_type: data[1] ?? 'image/png', data: data[2] ?? '' } };
      if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
      warnings.add('image_url that is neither a data URL nor an http(s) address dropped');
      return undefined;
    }
    case 'file': {
      const data = DATA_URL.exec(part.file?.file_data ?? '');
      if (data?.[1] === 'application/pdf') {
        return {
          type: 'document',
          source: { type: 'base64', media_type: 'application/pdf', data: data[2] ?? '' },
          ...(part.file.filename ? { title: part.file.filename } : {}),
        };
      }
      if (data?.[1]?.startsWith('text/')) {
        return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: Buffer.from(data[2] ?? '', 'base64').toString('utf8') } };
      }
      warnings.add('file part dropped: Claude takes PDF and plain-text files given as data URLs');
      return undefined;
    }
    case 'input_audio':
      warnings.add('input_audio dropped: Claude does not take audio');
      return undefined;
    default: {
      const unknownPart: never = part;
      warnings.add(`content part of type ${String((unknownPart as { type?: unknown }).type)} dropped`);
      return undefined;
    }
  }
}

function contentBlocks(content: ChatMessage['content'], warnings: Warnings): AnthropicContentBlock[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.flatMap((part) => partToBlock(part, warnings) ?? []);
}

function textOf(content: ChatMessage['content'], warnings: Warnings): AnthropicTextBlock[] {
  return contentBlocks(content, warnings).filter((block): block is AnthropicTextBlock => {
    if (block.type === 'text') return true;
    warnings.add(`${block.type} in a system message dropped: Claude's system prompt is text only`);
    return false;
  });
}

function parseArguments(text: string, warnings: Warnings): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text === '' ? '{}' : text);
    if (isJsonObject(value)) return value;
  } catch {
    // falls through to the warning
  }
  warnings.add('tool call arguments that are not a JSON object sent as {}');
  return {};
}

/** One message in Claude's terms, before same-role neighbours are merged. */
function toAnthropic(message: ChatMessage, index: number, warnings: Warnings): AnthropicMessageParam | undefined {
  switch (message.role) {
    case 'user': {
      // Claude refuses empty user content; new-api sends '...' in its place.
      if (typeof message.content === 'string') return { role: 'user', content: message.content === '' ? '...' : message.content };
      const blocks = contentBlocks(message.content, warnings);
      return blocks.length > 0 ? { role: 'user', content: blocks } : undefined;
    }
    case 'assistant': {
      if (message.reasoning_content) warnings.add('reasoning_content in the history dropped: Claude replays only signed thinking');
      const blocks = contentBlocks(message.content, warnings);
      for (const [callIndex, call] of (message.tool_calls ?? []).entries()) {
        blocks.push({
          type: 'tool_use',
          id: toolId(call.id, `toolu_${index}_${callIndex}`),
          name: call.function.name,
          input: parseArguments(call.function.arguments, warnings),
        });
      }
      if (blocks.length === 0) return undefined;
      if (typeof message.content === 'string' && blocks.length === 1) return { role: 'assistant', content: message.content };
      return { role: 'assistant', content: blocks };
    }
    case 'tool': {
      const blocks = contentBlocks(message.content, warnings).filter(
        (block): block is AnthropicTextBlock | AnthropicImageBlock => block.type === 'text' || block.type === 'image',
      );
      const content = typeof message.content === 'string' ? message.content : blocks;
      return { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId(message.tool_call_id, `toolu_${index}`), content }] };
    }
    case 'system':
    case 'developer':
      return undefined;
    default: {
      const unknownRole: never = message.role;
      warnings.add(`message with role ${String(unknownRole)} dropped`);
      return undefined;
    }
  }
}

const asBlocks = (content: AnthropicMessageParam['content']): AnthropicContentBlock[] =>
  typeof content === 'string' ? (content === '' ? [] : [{ type: 'text', text: content }]) : content;

/** Claude wants user and assistant turns to alternate: neighbours of one role become one message. */
function mergeTurns(messages: AnthropicMessageParam[]): AnthropicMessageParam[] {
  const merged: AnthropicMessageParam[] = [];
  for (const message of messages) {
    const last = merged[merged.length - 1];
    if (last && last.role === message.role) {
      const blocks = [...asBlocks(last.content), ...asBlocks(message.content)];
      // tool_result blocks must open the user turn that answers the tool calls.
      if (message.role === 'user') blocks.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
      last.content = blocks;
    } else {
      merged.push({ ...message });
    }
  }
  return merged;
}

function toolChoiceOf(choice: ChatToolChoice | undefined, parallel: boolean | undefined): AnthropicToolChoice | undefined {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: 'auto', ...disable } : undefined;
  if (typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...disable };
  switch (choice) {
    case 'auto':
      return { type: 'auto', ...disable };
    case 'required':
      return { type: 'any', ...disable };
    case 'none':
      return { type: 'none' };
    default: {
      const unknownChoice: never = choice;
      return unknownChoice;
    }
  }
}

function thinkingBudget(request: ChatRequest, context: OutboundContext): number | undefined {
  const budget = context.thinkingBudgetTokens ?? (request.reasoning_effort ? REASONING_BUDGETS[request.reasoning_effort] : undefined);
  return budget === undefined ? undefined : Math.max(MIN_THINKING_BUDGET, Math.round(budget));
}

/**
 * Whether the last assistant turn called tools and only their results follow: with thinking on,
 * Claude then requires that turn to open with its signed thinking block, or answers 400.
 */
function inToolLoop(messages: AnthropicMessageParam[]): boolean {
  let lastAssistant = -1;
  messages.forEach((message, index) => {
    if (message.role === 'assistant') lastAssistant = index;
  });
  const assistant = messages[lastAssistant];
  if (!assistant || typeof assistant.content === 'string' || !assistant.content.some((block) => block.type === 'tool_use')) return false;
  const after = messages.slice(lastAssistant + 1);
  return after.length > 0 && after.every((message) => typeof message.content !== 'string' && message.content.some((block) => block.type === 'tool_result'));
}

const DROPPED_FIELDS: [keyof ChatRequest, (value: unknown) => boolean][] = [
  ['response_format', (value) => isJsonObject(value) && value.type !== 'text'],
  ['n', (value) => typeof value === 'number' && value > 1],
  ['seed', (value) => value !== undefined && value !== null],
  ['presence_penalty', (value) => typeof value === 'number' && value !== 0],
  ['frequency_penalty', (value) => typeof value === 'number' && value !== 0],
  ['logprobs', (value) => value === true],
  ['top_logprobs', (value) => value !== undefined && value !== null],
];

/** A canonical (OpenAI chat) request as an Anthropic Messages request. */
export function anthropicRequestFromCanonical(request: ChatRequest, context: OutboundContext): Converted<AnthropicRequest> {
  const warnings = new Warnings();
  const system: AnthropicTextBlock[] = [];
  const systemStrings: string[] = [];
  const turns: AnthropicMessageParam[] = [];
  request.messages.forEach((message, index) => {
    if (message.role === 'system' || message.role === 'developer') {
      if (typeof message.content === 'string') systemStrings.push(message.content);
      system.push(...textOf(message.content, warnings));
      return;
    }
    const turn = toAnthropic(message, index, warnings);
    if (turn) turns.push(turn);
  });

  let maxTokens = request.max_completion_tokens ?? request.max_tokens ?? context.defaultMaxTokens;
  const cap = context.outputCap;
  if (cap !== undefined) maxTokens = Math.min(maxTokens, cap);
  const messages = mergeTurns(turns);
  // Claude wants the conversation to open with a user turn (new-api adds the same placeholder).
  if (messages[0] && messages[0].role !== 'user') messages.unshift({ role: 'user', content: '...' });
  const out: AnthropicRequest = { model: context.model, messages, max_tokens: maxTokens };
  if (system.length > 0) out.system = systemStrings.length === 1 && system.length === 1 ? (systemStrings[0] as string) : system;

  let budget = thinkingBudget(request, context);
  if (budget !== undefined && inToolLoop(out.messages)) {
    budget = undefined;
    warnings.add("thinking turned off for this turn: inside a tool loop Claude needs the assistant's signed thinking back, which this history cannot carry");
  }
  if (budget !== undefined && ADAPTIVE_ONLY.test(context.model)) {
    // Opus 4.7 refuses thinking budgets: adaptive thinking at an effort, its summary shown (new-api does the same).
    const effort = request.reasoning_effort === 'minimal' ? 'low' : (request.reasoning_effort ?? 'high');
    out.thinking = { type: 'adaptive', display: 'summarized' };
    out.output_config = { effort };
  } else if (budget !== undefined && cap !== undefined && Math.floor(cap / 2) < MIN_THINKING_BUDGET) {
    budget = undefined;
    warnings.add(`thinking turned off: the output is capped at ${cap} tokens, too few for Claude's smallest thinking budget beside an answer`);
  } else if (budget !== undefined) {
    // A capped call thinks with at most half of its cap, and max_tokens stays the cap.
    if (cap !== undefined) budget = Math.min(budget, Math.floor(cap / 2));
    // max_tokens counts the thinking too: keep the asked-for answer length on top of the budget.
    else if (maxTokens <= budget) maxTokens += budget;
    out.max_tokens = maxTokens;
    out.thinking = { type: 'enabled', budget_tokens: budget };
  }
  if (budget !== undefined) {
    if (request.temperature !== undefined || request.top_p !== undefined || request.top_k !== undefined) {
      warnings.add('temperature, top_p and top_k dropped: Claude does not take them with thinking on');
    }
  } else {
    if (request.temperature !== undefined) out.temperature = request.temperature;
    if (request.top_p !== undefined) out.top_p = request.top_p;
    if (request.top_k !== undefined) out.top_k = request.top_k;
  }
  if (request.stop !== undefined) {
    const stop = (typeof request.stop === 'string' ? [request.stop] : request.stop).filter((item) => typeof item === 'string' && item !== '');
    if (stop.length > 0) out.stop_sequences = stop;
  }
  if (request.tools && request.tools.length > 0) {
    const tools: AnthropicTool[] = [];
    for (const tool of request.tools) {
      if (tool.type !== 'function' || !tool.function) {
        warnings.add(`tool of type ${String(tool.type)} dropped: Claude takes function tools`);
        continue;
      }
      const { name, description, parameters } = tool.function;
      const marker = cacheControlOf(tool.cache_control);
      tools.push({
        name,
        ...(description ? { description } : {}),
        input_schema: parameters ?? { type: 'object', properties: {} },
        ...(marker ? { cache_control: marker } : {}),
      });
    }
    if (tools.length > 0) out.tools = tools;
  }
  const choice = toolChoiceOf(request.tool_choice, request.parallel_tool_calls);
  if (choice && (out.tools || choice.type === 'none')) out.tool_choice = choice;
  if (typeof request.user === 'string' && request.user !== '') out.metadata = { user_id: request.user };
  for (const [field, isSet] of DROPPED_FIELDS) {
    if (isSet(request[field])) warnings.add(`${String(field)} dropped: Claude's messages API has no equivalent`);
  }
  if (request.stream === true) out.stream = true;
  return { value: out, warnings: warnings.list };
}
