import type { OpenAIEndpoint } from './endpoints.js';

/**
 * The text a request sends and an answer returns, as the tokens a tokenizer should count, for
 * when an upstream reports no usage. Pure readers of already-parsed JSON: unknown shapes count
 * as nothing rather than failing a relayed call.
 */
export interface PromptText {
  texts: string[];
  /** Tokens the format adds beyond the texts and images: per-message framing, token-id inputs. */
  overheadTokens: number;
  /** Images in the prompt, counted by whoever can read their size (see PromptImage). */
  images: PromptImage[];
}

/** An image part of a prompt: OpenAI's `image_url` (chat) or `input_image` (responses). */
export interface PromptImage {
  /** An http(s) address, a data: URL, or bare base64; '' when the part names none. */
  url: string;
  /** `low`, `high` or `auto`; undefined when not given (OpenAI then uses auto). */
  detail: string | undefined;
}

/** OpenAI's chat framing: 3 tokens per message, 1 more for a name, 3 to prime the reply. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
const REPLY_PRIMING_TOKENS = 3;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function promptTextOf(endpoint: OpenAIEndpoint, body: unknown): PromptText {
  const prompt: PromptText = { texts: [], overheadTokens: 0, images: [] };
  if (!isObject(body)) return prompt;
  switch (endpoint) {
    case 'chat':
      addChatMessages(prompt, body.messages);
      if (body.tools !== undefined) prompt.texts.push(JSON.stringify(body.tools));
      if (body.functions !== undefined) prompt.texts.push(JSON.stringify(body.functions));
      return prompt;
    case 'completions':
      addInputs(prompt, body.prompt);
      return prompt;
    case 'responses': {
      const instructions = asString(body.instructions);
      if (instructions) prompt.texts.push(instructions);
      addResponsesInput(prompt, body.input);
      if (body.tools !== undefined) prompt.texts.push(JSON.stringify(body.tools));
      return prompt;
    }
    case 'embeddings':
    case 'moderations':
      addInputs(prompt, body.input);
      return prompt;
    case 'rerank': {
      const query = asString(body.query);
      if (query) prompt.texts.push(query);
      if (Array.isArray(body.documents)) {
        for (const document of body.documents) {
          const text = asString(document) ?? (isObject(document) ? asString(document.text) : undefined);
          if (text) prompt.texts.push(text);
        }
      }
      return prompt;
    }
    case 'images': {
      const text = asString(body.prompt);
      if (text) prompt.texts.push(text);
      return prompt;
    }
    case 'speech': {
      const text = asString(body.input);
      if (text) prompt.texts.push(text);
      return prompt;
    }
    case 'transcriptions':
    case 'translations': {
      const text = asString(body.prompt);
      if (text) prompt.texts.push(text);
      return prompt;
    }
    default: {
      const unreachable: never = endpoint;
      return unreachable;
    }
  }
}

function addChatMessages(prompt: PromptText, messages: unknown): void {
  if (!Array.isArray(messages)) return;
  for (const message of messages) {
    if (!isObject(message)) continue;
    prompt.overheadTokens += TOKENS_PER_MESSAGE;
    if (typeof message.name === 'string') {
      prompt.overheadTokens += TOKENS_PER_NAME;
      prompt.texts.push(message.name);
    }
    addContent(prompt, message.content);
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls) {
        if (!isObject(call) || !isObject(call.function)) continue;
        const name = asString(call.function.name);
        const args = asString(call.function.arguments);
        if (name) prompt.texts.push(name);
        if (args) prompt.texts.push(args);
      }
    }
  }
  prompt.overheadTokens += REPLY_PRIMING_TOKENS;
}

function addContent(prompt: PromptText, content: unknown): void {
  if (typeof content === 'string') {
    prompt.texts.push(content);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content) {
    if (typeof part === 'string') prompt.texts.push(part);
    else if (isObject(part)) {
      const text = asString(part.text);
      if (text !== undefined) prompt.texts.push(text);
      else if (part.type === 'image_url' || part.type === 'input_image' || part.type === 'image') prompt.images.push(imageOf(part));
    }
  }
}

/** `image_url: "…"` or `image_url: {url, detail}` (chat), `image_url: "…", detail` (responses). */
function imageOf(part: Json): PromptImage {
  const field = part.image_url;
  if (isObject(field)) return { url: asString(field.url) ?? '', detail: asString(field.detail) };
  return { url: asString(field) ?? '', detail: asString(part.detail) };
}

/** A string, a list of strings, a list of token ids, or a list of token-id lists. */
function addInputs(prompt: PromptText, input: unknown): void {
  if (typeof input === 'string') {
    prompt.texts.push(input);
    return;
  }
  if (!Array.isArray(input)) return;
  for (const item of input) {
    if (typeof item === 'string') prompt.texts.push(item);
    else if (typeof item === 'number') prompt.overheadTokens += 1;
    else if (Array.isArray(item)) prompt.overheadTokens += item.length;
    else if (isObject(item)) addContent(prompt, [item]);
  }
}

function addResponsesInput(prompt: PromptText, input: unknown): void {
  if (typeof input === 'string') {
    prompt.texts.push(input);
    return;
  }
  if (!Array.isArray(input)) return;
  for (const item of input) {
    if (!isObject(item)) continue;
    prompt.overheadTokens += TOKENS_PER_MESSAGE;
    addContent(prompt, item.content);
    const output = asString(item.output);
    if (output) prompt.texts.push(output);
    const args = asString(item.arguments);
    if (args) prompt.texts.push(args);
  }
}

/** The generated text of a non-stream answer. */
export function completionTextOf(endpoint: OpenAIEndpoint, response: unknown): string[] {
  const texts: string[] = [];
  if (!isObject(response)) return texts;
  if (endpoint === 'chat' || endpoint === 'completions') {
    if (!Array.isArray(response.choices)) return texts;
    for (const choice of response.choices) {
      if (!isObject(choice)) continue;
      const text = asString(choice.text);
      if (text) texts.push(text);
      const message = choice.message;
      if (!isObject(message)) continue;
      const content = message.content;
      if (typeof content === 'string') texts.push(content);
      else if (Array.isArray(content)) for (const part of content) if (isObject(part) && typeof part.text === 'string') texts.push(part.text);
      const reasoning = asString(message.reasoning_content) ?? asString(message.reasoning);
      if (reasoning) texts.push(reasoning);
      if (Array.isArray(message.tool_calls)) {
        for (const call of message.tool_calls) {
          if (isObject(call) && isObject(call.function) && typeof call.function.arguments === 'string') texts.push(call.function.arguments);
        }
      }
    }
    return texts;
  }
  if (endpoint === 'responses') {
    if (!Array.isArray(response.output)) return texts;
    for (const item of response.output) {
      if (!isObject(item)) continue;
      if (typeof item.arguments === 'string') texts.push(item.arguments);
      if (!Array.isArray(item.content)) continue;
      for (const part of item.content) if (isObject(part) && typeof part.text === 'string') texts.push(part.text);
    }
    return texts;
  }
  if (endpoint === 'transcriptions' || endpoint === 'translations') {
    const text = asString(response.text);
    if (text) texts.push(text);
  }
  return texts;
}

/** The output cap a request names, under any of its endpoint's spellings. */
export function requestedMaxTokens(body: unknown): number | undefined {
  if (!isObject(body)) return undefined;
  for (const field of ['max_completion_tokens', 'max_tokens', 'max_output_tokens'] as const) {
    const value = body[field];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.floor(value);
  }
  return undefined;
}
