import { z } from 'zod';
import { ConversionError } from '../convert/codec.js';

/**
 * Gemini generateContent wire types (https://ai.google.dev/api/generate-content). Only the fields
 * a conversion reads or writes are named. Google's REST surface accepts both camelCase and
 * snake_case field names (its own curl examples use `system_instruction`, `inline_data`), so
 * readers go through `field()`, which tries both.
 */

export interface GeminiFunctionCall {
  id?: string | undefined;
  name: string;
  args?: Record<string, unknown> | undefined;
}

export interface GeminiFunctionResponse {
  id?: string | undefined;
  name: string;
  response: Record<string, unknown>;
}

export interface GeminiPart {
  text?: string | undefined;
  thought?: boolean | undefined;
  thoughtSignature?: string | undefined;
  inlineData?: { mimeType: string; data: string } | undefined;
  fileData?: { mimeType?: string | undefined; fileUri: string } | undefined;
  functionCall?: GeminiFunctionCall | undefined;
  functionResponse?: GeminiFunctionResponse | undefined;
}

export interface GeminiContent {
  role?: 'user' | 'model' | undefined;
  parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string | undefined;
  parameters?: Record<string, unknown> | undefined;
}

export interface GeminiGenerationConfig {
  temperature?: number | undefined;
  topP?: number | undefined;
  topK?: number | undefined;
  maxOutputTokens?: number | undefined;
  stopSequences?: string[] | undefined;
  candidateCount?: number | undefined;
  seed?: number | undefined;
  presencePenalty?: number | undefined;
  frequencyPenalty?: number | undefined;
  responseMimeType?: string | undefined;
  responseSchema?: Record<string, unknown> | undefined;
  thinkingConfig?: { thinkingBudget?: number | undefined; includeThoughts?: boolean | undefined } | undefined;
}

export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] } | undefined;
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[] | undefined;
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] | undefined } } | undefined;
  generationConfig?: GeminiGenerationConfig | undefined;
  safetySettings?: { category: string; threshold: string }[] | undefined;
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number | undefined;
  candidatesTokenCount?: number | undefined;
  thoughtsTokenCount?: number | undefined;
  cachedContentTokenCount?: number | undefined;
  toolUsePromptTokenCount?: number | undefined;
  totalTokenCount?: number | undefined;
}

export interface GeminiCandidate {
  content?: { role?: string | undefined; parts?: GeminiPart[] | undefined } | undefined;
  finishReason?: string | undefined;
  index?: number | undefined;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[] | undefined;
  promptFeedback?: { blockReason?: string | undefined } | undefined;
  usageMetadata?: GeminiUsageMetadata | undefined;
  modelVersion?: string | undefined;
  responseId?: string | undefined;
}

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** A field by its camelCase name or its snake_case twin (Google accepts both). */
export const field = (object: Json, camelName: string): unknown => object[camelName] ?? object[snakeCase(camelName)];

export const objectField = (object: Json, camelName: string): Json | undefined => {
  const value = field(object, camelName);
  return isObject(value) ? value : undefined;
};

export const stringField = (object: Json, camelName: string): string | undefined => {
  const value = field(object, camelName);
  return typeof value === 'string' ? value : undefined;
};

export const numberField = (object: Json, camelName: string): number | undefined => {
  const value = field(object, camelName);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
};

const part = z.looseObject({});
const content = z.looseObject({ role: z.string().optional(), parts: z.array(part, { error: 'must be an array of parts (objects)' }) });

/** The inbound request's shape: `contents` is required; everything else is read leniently. */
export const geminiRequestSchema = z.looseObject({
  contents: z.array(content, { error: 'must be an array of contents (objects with a parts array)' }),
  systemInstruction: z.looseObject({ parts: z.array(part).optional() }).optional(),
  system_instruction: z.looseObject({ parts: z.array(part).optional() }).optional(),
  tools: z.array(z.looseObject({})).optional(),
  generationConfig: z.looseObject({}).optional(),
  generation_config: z.looseObject({}).optional(),
});

/** Parses an inbound body; a malformed one is the caller's mistake (ConversionError, a 400). */
export function parseGeminiRequest(body: unknown): Json & { contents: { role?: string | undefined; parts: Json[] }[] } {
  if (!isObject(body)) throw new ConversionError('The request body must be a JSON object with a contents array');
  const parsed = geminiRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue
    ? issue.path
        .map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
        .join('')
        .replace(/^\./, '')
    : '';
  throw new ConversionError(`Invalid Gemini request: ${where || 'body'} ${issue?.message ?? 'is malformed'}`);
}
