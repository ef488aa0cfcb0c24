import { REASONING_BUDGETS, type Converted } from '../convert/codec.js';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatTool, ChatToolCall, ChatToolChoice, ReasoningEffort } from '../openai/chat-types.js';
import { geminiSchemaToJsonSchema } from './gemini-schema-cleaner.js';
import { field, isObject, numberField, objectField, parseGeminiRequest, stringField, type Json } from './gemini-types.js';

/** The generationConfig fields this conversion carries; any other one is named in a warning. */
const CARRIED_GENERATION_FIELDS = new Set([
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
]);

const camelCase = (name: string): string => name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

interface CallRecord {
  id: string;
  name: string;
  answered: boolean;
}

/** Walks the contents once, remembering the calls so that later responses can name them. */
class ContentReader {
  readonly messages: ChatMessage[] = [];
  readonly warnings: string[] = [];
  private readonly calls: CallRecord[] = [];

  readTurn(content: { role?: string | undefined; parts: Json[] }, turn: number): void {
    const role = content.role ?? 'user';
    if (role === 'model') this.readModelTurn(content.parts, turn);
    else {
      if (role !== 'user') this.warnings.push(`contents[${turn}]: role '${role}' read as user`);
      this.readUserTurn(content.parts, turn);
    }
  }

  private readModelTurn(parts: Json[], turn: number): void {
    let text = '';
    let reasoning = '';
    const toolCalls: ChatToolCall[] = [];
    for (const [index, part] of parts.entries()) {
      const call = objectField(part, 'functionCall');
      const partText = stringField(part, 'text');
      if (call) {
        const name = stringField(call, 'name') ?? '';
        const id = stringField(call, 'id') || `call_${turn}_${toolCalls.length}`;
        const args = field(call, 'args');
        toolCalls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(isObject(args) ? args : {}) } });
        this.calls.push({ id, name, answered: false });
      } else if (partText !== undefined) {
        if (part.thought === true) reasoning += partText;
        else text += partText;
      } else if (!this.isSignatureOnly(part)) {
        this.warnings.push(`contents[${turn}].parts[${index}]: a model part of this kind has no OpenAI equivalent and was dropped`);
      }
    }
    const message: ChatMessage = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
    if (reasoning !== '') message.reasoning_content = reasoning;
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    this.messages.push(message);
  }

  private isSignatureOnly(part: Json): boolean {
    return Object.keys(part).every((key) => key === 'thoughtSignature' || key === 'thought_signature' || key === 'thought');
  }

  private readUserTurn(parts: Json[], turn: number): void {
    const content: ChatContentPart[] = [];
    for (const [index, part] of parts.entries()) {
      const functionResponse = objectField(part, 'functionResponse');
      if (functionResponse) {
        this.messages.push(this.toolMessage(functionResponse, turn));
        continue;
      }
      const converted = this.userPart(part, `contents[${turn}].parts[${index}]`);
      if (converted) content.push(converted);
    }
    if (content.length === 0) return;
    const only = content[0];
    this.messages.push({ role: 'user', content: content.length === 1 && only?.type === 'text' ? only.text : content });
  }

  private toolMessage(functionResponse: Json, turn: number): ChatMessage {
    const name = stringField(functionResponse, 'name') ?? '';
    const id = stringField(functionResponse, 'id');
    const byId = id ? this.calls.find((call) => call.id === id) : undefined;
    const byName = byId ?? [...this.calls].reverse().find((call) => !call.answered && call.name === name);
    let callId = byName?.id;
    if (byName) byName.answered = true;
    else {
      callId = id || `call_${turn}_response`;
      this.warnings.push(`contents[${turn}]: functionResponse '${name}' answers no earlier functionCall`);
    }
    const response = field(functionResponse, 'response');
    return { role: 'tool', tool_call_id: callId, content: JSON.stringify(response ?? {}) };
  }

  userPart(part: Json, where: string): ChatContentPart | undefined {
    const text = stringField(part, 'text');
    if (text !== undefined) return { type: 'text', text };
    const inline = objectField(part, 'inlineData');
    if (inline) {
      const mimeType = (stringField(inline, 'mimeType') ?? 'application/octet-stream').toLowerCase();
      const data = stringField(inline, 'data') ?? '';
      if (mimeType.startsWith('image/')) return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
      const audio = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mp3': 'mp3', 'audio/mpeg': 'mp3' }[mimeType];
      if (audio) return { type: 'input_audio', input_audio: { data, format: audio } };
      return { type: 'file', file: { file_data: `data:${mimeType};base64,${data}` } };
    }
    const file = objectField(part, 'fileData');
    if (file) {
      const uri = stringField(file, 'fileUri') ?? '';
      const mimeType = (stringField(file, 'mimeType') ?? '').toLowerCase();
      if (mimeType.startsWith('image/') || (mimeType === '' && /^https?:/i.test(uri))) return { type: 'image_url', image_url: { url: uri } };
      return { type: 'file', file: { file_id: uri } };
    }
    this.warnings.push(`${where}: a part of this kind has no OpenAI equivalent and was dropped`);
    return undefined;
  }
}

/** The nearest effort for a thinking budget (-1, dynamic, is medium; 0 asks for none). */
export function geminiEffortForBudget(budget: number): ReasoningEffort | undefined {
  if (budget === 0) return undefined;
  if (budget < 0) return 'medium';
  const efforts: ReasoningEffort[] = ['low', 'medium', 'high'];
  return efforts.reduce((best, effort) => (Math.abs(REASONING_BUDGETS[effort] - budget) < Math.abs(REASONING_BUDGETS[best] - budget) ? effort : best));
}

function readTools(tools: unknown, warnings: string[]): ChatTool[] {
  const converted: ChatTool[] = [];
  if (!Array.isArray(tools)) return converted;
  for (const tool of tools.filter(isObject)) {
    const declarations = field(tool, 'functionDeclarations');
    for (const key of Object.keys(tool)) {
      if (camelCase(key) !== 'functionDeclarations') warnings.push(`tools: the ${camelCase(key)} tool has no OpenAI equivalent and was dropped`);
    }
    if (!Array.isArray(declarations)) continue;
    for (const declaration of declarations.filter(isObject)) {
      const name = stringField(declaration, 'name') ?? '';
      const description = stringField(declaration, 'description');
      const jsonSchema = objectField(declaration, 'parametersJsonSchema');
      const openApi = objectField(declaration, 'parameters');
      const parameters = jsonSchema ?? (openApi ? geminiSchemaToJsonSchema(openApi) : { type: 'object', properties: {} });
      converted.push({ type: 'function', function: { name, ...(description !== undefined ? { description } : {}), parameters } });
    }
  }
  return converted;
}

function readToolChoice(toolConfig: Json | undefined, warnings: string[]): ChatToolChoice | undefined {
  const config = toolConfig ? objectField(toolConfig, 'functionCallingConfig') : undefined;
  if (!config) return undefined;
  const mode = stringField(config, 'mode')?.toUpperCase();
  const allowed = field(config, 'allowedFunctionNames');
  switch (mode) {
    case 'NONE':
      return 'none';
    case 'AUTO':
      return 'auto';
    case 'ANY':
      if (Array.isArray(allowed) && allowed.length === 1 && typeof allowed[0] === 'string') return { type: 'function', function: { name: allowed[0] } };
      if (Array.isArray(allowed) && allowed.length > 1) warnings.push('toolConfig: allowedFunctionNames of more than one function read as any function');
      return 'required';
    default:
      if (mode !== undefined) warnings.push(`toolConfig: function calling mode ${mode} read as AUTO`);
      return mode === undefined ? undefined : 'auto';
  }
}

function readGenerationConfig(config: Json, request: ChatRequest, warnings: string[]): void {
  const set = <K extends keyof ChatRequest>(key: K, value: ChatRequest[K] | undefined): void => {
    if (value !== undefined) request[key] = value;
  };
  set('temperature', numberField(config, 'temperature'));
  set('top_p', numberField(config, 'topP'));
  set('top_k', numberField(config, 'topK'));
  set('max_tokens', numberField(config, 'maxOutputTokens'));
  const stop = field(config, 'stopSequences');
  if (Array.isArray(stop))
    set(
      'stop',
      stop.filter((item): item is string => typeof item === 'string'),
    );
  set('n', numberField(config, 'candidateCount'));
  set('seed', numberField(config, 'seed'));
  set('presence_penalty', numberField(config, 'presencePenalty'));
  set('frequency_penalty', numberField(config, 'frequencyPenalty'));
  const mimeType = stringField(config, 'responseMimeType');
  const schema = objectField(config, 'responseJsonSchema') ?? objectField(config, 'responseSchema');
  if (mimeType === 'application/json') {
    const jsonSchema = objectField(config, 'responseJsonSchema') ?? (schema ? geminiSchemaToJsonSchema(schema) : undefined);
    request.response_format = jsonSchema ? { type: 'json_schema', json_schema: { name: 'response', schema: jsonSchema } } : { type: 'json_object' };
  } else if (mimeType !== undefined && mimeType !== 'text/plain') {
    warnings.push(`generationConfig: responseMimeType ${mimeType} has no OpenAI equivalent and was dropped`);
  }
  const thinking = objectField(config, 'thinkingConfig');
  const budget = thinking ? numberField(thinking, 'thinkingBudget') : undefined;
  if (budget !== undefined) set('reasoning_effort', geminiEffortForBudget(budget));
  // Gemini 3's thinkingLevel names an effort directly.
  const level = thinking ? stringField(thinking, 'thinkingLevel')?.toLowerCase() : undefined;
  if (budget === undefined && (level === 'minimal' || level === 'low' || level === 'medium' || level === 'high')) set('reasoning_effort', level);
  for (const key of Object.keys(config)) {
    if (!CARRIED_GENERATION_FIELDS.has(camelCase(key))) warnings.push(`generationConfig: ${camelCase(key)} has no OpenAI equivalent and was dropped`);
  }
}

/**
 * A Gemini generateContent body as an OpenAI chat request. The model comes from the URL, so it is
 * left '' for the relay to fill in. Throws ConversionError when `contents` is missing or a
 * content has no parts array.
 */
export function geminiRequestToChat(body: Record<string, unknown>): Converted<ChatRequest> {
  const parsed = parseGeminiRequest(body);
  const reader = new ContentReader();
  const messages: ChatMessage[] = [];
  const system = objectField(parsed, 'systemInstruction');
  const systemParts = system ? field(system, 'parts') : undefined;
  if (Array.isArray(systemParts)) {
    const text = systemParts
      .filter(isObject)
      .map((part) => stringField(part, 'text'))
      .filter((part): part is string => part !== undefined)
      .join('\n');
    if (text !== '') messages.push({ role: 'system', content: text });
  }
  parsed.contents.forEach((content, turn) => reader.readTurn(content, turn));
  messages.push(...reader.messages);
  const request: ChatRequest = { model: '', messages };
  const warnings = reader.warnings;
  const tools = readTools(field(parsed, 'tools'), warnings);
  if (tools.length > 0) request.tools = tools;
  const toolChoice = readToolChoice(objectField(parsed, 'toolConfig'), warnings);
  if (toolChoice !== undefined) request.tool_choice = toolChoice;
  const generationConfig = objectField(parsed, 'generationConfig');
  if (generationConfig) readGenerationConfig(generationConfig, request, warnings);
  if (field(parsed, 'cachedContent') !== undefined) warnings.push('cachedContent has no OpenAI equivalent and was dropped');
  return { value: request, warnings };
}
