import { REASONING_BUDGETS, type Converted, type OutboundContext } from '../convert/codec.js';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatToolChoice } from '../openai/chat-types.js';
import { cleanSchemaForGemini } from './gemini-schema-cleaner.js';
import { isObject, type GeminiContent, type GeminiGenerationConfig, type GeminiPart, type GeminiRequest, type Json } from './gemini-types.js';

/** The harm categories gemini.safety_settings sets a threshold for (new-api's list). */
export const GEMINI_SAFETY_CATEGORIES = [
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_CIVIC_INTEGRITY',
] as const;

/**
 * Google's documented stand-in signature for function calls it did not produce itself: Gemini 3
 * rejects a history whose model turn calls a function without a thought signature, and calls that
 * come from another model (or through OpenAI's shape, which has no place for one) have none.
 */
export const GEMINI_SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** Request fields that Gemini has no place for. */
const DROPPED_FIELDS = ['parallel_tool_calls', 'logprobs', 'top_logprobs', 'user', 'logit_bias', 'modalities', 'audio', 'prediction', 'service_tier'] as const;

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  txt: 'text/plain',
};

/** The media type an address's file extension names, or `fallback`. */
export function geminiMimeTypeFromAddress(address: string, fallback: string): string {
  const path = address.split(/[?#]/)[0] ?? '';
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (extension !== undefined ? MIME_BY_EXTENSION[extension] : undefined) ?? fallback;
}

const parseDataUrl = (url: string): { mimeType: string; data: string } | undefined => {
  const match = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  return match ? { mimeType: match[1] ?? 'application/octet-stream', data: match[2] ?? '' } : undefined;
};

function contentPart(part: ChatContentPart, where: string, warnings: string[]): GeminiPart | undefined {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url': {
      const url = part.image_url.url;
      const inline = parseDataUrl(url);
      if (inline) return { inlineData: inline };
      return { fileData: { mimeType: geminiMimeTypeFromAddress(url, 'image/jpeg'), fileUri: url } };
    }
    case 'file': {
      const inline = part.file.file_data !== undefined ? parseDataUrl(part.file.file_data) : undefined;
      if (inline) return { inlineData: inline };
      if (part.file.file_id)
        return { fileData: { mimeType: geminiMimeTypeFromAddress(part.file.filename ?? part.file.file_id, 'application/pdf'), fileUri: part.file.file_id } };
      warnings.push(`${where}: a file part without data or a file id was dropped`);
      return undefined;
    }
    case 'input_audio':
      return { inlineData: { mimeType: `audio/${part.input_audio.format}`, data: part.input_audio.data } };
    default: {
      const unknownPart: never = part;
      warnings.push(`${where}: a content part of type ${String((unknownPart as { type?: unknown }).type)} was dropped`);
      return undefined;
    }
  }
}

function messageParts(message: ChatMessage, where: string, warnings: string[]): GeminiPart[] {
  const { content } = message;
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part, index) => contentPart(part, `${where}.content[${index}]`, warnings) ?? []);
}

const textOf = (message: ChatMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : Array.isArray(message.content)
      ? message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
      : '';

function toolResponse(content: string): Json {
  try {
    const parsed: unknown = JSON.parse(content);
    if (isObject(parsed)) return parsed;
  } catch {
    // Not JSON: sent as text.
  }
  return { content };
}

function toolConfig(choice: ChatToolChoice): GeminiRequest['toolConfig'] {
  if (typeof choice === 'object') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  switch (choice) {
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    case 'required':
      return { functionCallingConfig: { mode: 'ANY' } };
    default: {
      const unknownChoice: never = choice;
      return unknownChoice;
    }
  }
}

/** The Gemini parameters of a tool: cleaned, and left out when the function takes nothing. */
function toolParameters(parameters: Record<string, unknown> | undefined): Json | undefined {
  if (!parameters) return undefined;
  const cleaned = cleanSchemaForGemini(parameters);
  // Gemini answers 400 for an OBJECT with no properties.
  if (cleaned.type === 'OBJECT' && (!isObject(cleaned.properties) || Object.keys(cleaned.properties).length === 0)) return undefined;
  return cleaned;
}

function generationConfig(request: ChatRequest, context: OutboundContext, warnings: string[]): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.top_p !== undefined) config.topP = request.top_p;
  if (request.top_k !== undefined) config.topK = request.top_k;
  const cap = context.outputCap;
  const asked = request.max_completion_tokens ?? request.max_tokens;
  const maxTokens = cap === undefined ? asked : Math.min(asked ?? cap, cap);
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  if (request.stop !== undefined) config.stopSequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.n !== undefined) config.candidateCount = request.n;
  if (request.seed !== undefined) config.seed = request.seed;
  if (request.presence_penalty !== undefined) config.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty !== undefined) config.frequencyPenalty = request.frequency_penalty;
  const format = request.response_format;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    if (format.json_schema?.schema) config.responseSchema = cleanSchemaForGemini(format.json_schema.schema);
  }
  const effort = request.reasoning_effort;
  let budget = context.thinkingBudgetTokens ?? (effort !== undefined ? REASONING_BUDGETS[effort] : undefined);
  // Thoughts count toward maxOutputTokens: a capped call thinks with at most half of its cap.
  if (cap !== undefined && budget !== undefined && budget > 0) budget = Math.min(budget, Math.floor(cap / 2));
  // A budget of 0 turns thinking off (new-api's -nothinking); -1 lets the model decide.
  if (budget !== undefined) config.thinkingConfig = { thinkingBudget: budget, includeThoughts: budget !== 0 };
  else if (effort !== undefined) warnings.push(`reasoning_effort ${String(effort)} has no Gemini thinking budget and was dropped`);
  return config;
}

const THINKING_DROPPED = 'reasoning_content in the history dropped: Gemini replays only its own thought signatures';

/** Appends a content, merging it into the previous one when the role repeats (Gemini wants turns to alternate). */
function appendContent(contents: GeminiContent[], role: 'user' | 'model', parts: GeminiPart[]): void {
  if (parts.length === 0) return;
  const last = contents[contents.length - 1];
  if (last?.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

/** An OpenAI chat request as a Gemini generateContent body (the model goes in the URL, not here). */
export function chatRequestToGemini(request: ChatRequest, context: OutboundContext): Converted<Record<string, unknown>> {
  const warnings: string[] = [];
  const systemParts: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  for (const [index, message] of request.messages.entries()) {
    const where = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message);
        if (text !== '') systemParts.push({ text });
        break;
      }
      case 'user':
        appendContent(contents, 'user', messageParts(message, where, warnings));
        break;
      case 'assistant': {
        const parts = messageParts(message, where, warnings);
        // Another model's thinking (Claude's signed blocks, reasoning_content): Gemini takes back only its own thought signatures.
        if (message.reasoning_content && !warnings.includes(THINKING_DROPPED)) warnings.push(THINKING_DROPPED);
        for (const [callIndex, call] of (message.tool_calls ?? []).entries()) {
          callNames.set(call.id, call.function.name);
          let args: Json = {};
          try {
            const parsed: unknown = JSON.parse(call.function.arguments || '{}');
            if (isObject(parsed)) args = parsed;
            else warnings.push(`${where}.tool_calls[${callIndex}]: arguments are not a JSON object; sent as {}`);
          } catch {
            warnings.push(`${where}.tool_calls[${callIndex}]: arguments are not valid JSON; sent as {}`);
          }
          const part: GeminiPart = { functionCall: { name: call.function.name, args } };
          if (callIndex === 0) part.thoughtSignature = GEMINI_SKIP_THOUGHT_SIGNATURE;
          parts.push(part);
        }
        appendContent(contents, 'model', parts);
        break;
      }
      case 'tool': {
        const name = (message.tool_call_id !== undefined ? callNames.get(message.tool_call_id) : undefined) ?? message.name;
        if (name === undefined) warnings.push(`${where}: tool_call_id ${String(message.tool_call_id)} matches no earlier tool call`);
        appendContent(contents, 'user', [{ functionResponse: { name: name ?? 'unknown', response: toolResponse(textOf(message)) } }]);
        break;
      }
      default: {
        const unknownRole: never = message.role;
        warnings.push(`${where}: role ${String(unknownRole)} was dropped`);
      }
    }
  }
  // Gemini refuses a request without contents; a conversation of system text alone is sent as the user's.
  if (contents.length === 0 && systemParts.length > 0) {
    contents.push({ role: 'user', parts: systemParts.splice(0) });
    warnings.push('no user or assistant messages: the system text was sent as the user turn');
  }
  const body: GeminiRequest = { contents };
  if (systemParts.length > 0) body.systemInstruction = { parts: systemParts };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: tools.map((tool) => {
          const parameters = toolParameters(tool.function.parameters);
          return {
            name: tool.function.name,
            ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
            ...(parameters ? { parameters } : {}),
          };
        }),
      },
    ];
  }
  if (request.tool_choice !== undefined) body.toolConfig = toolConfig(request.tool_choice);
  const config = generationConfig(request, context, warnings);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  const threshold = context.safetyThreshold;
  if (threshold) body.safetySettings = GEMINI_SAFETY_CATEGORIES.map((category) => ({ category, threshold: threshold(category) }));
  for (const name of DROPPED_FIELDS) if (request[name] !== undefined) warnings.push(`${name} has no Gemini equivalent and was dropped`);
  return { value: body as unknown as Record<string, unknown>, warnings };
}
