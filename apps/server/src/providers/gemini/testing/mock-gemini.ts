import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { LocalServer, type ReceivedRequest } from '../../../lib/testing/local-server.js';
import {
  countAborted,
  isMockFailure,
  writeEvents,
  type MockCountScript,
  type MockRequestRecord,
  type MockScript,
  type MockTurn,
} from '../../testing/mock-turn.js';

/**
 * Google's Gemini API (generativelanguage.googleapis.com) on 127.0.0.1, for tests, at /v1beta and
 * /v1: `POST models/{model}:generateContent`, `:streamGenerateContent` (`?alt=sse` as SSE, else
 * one JSON array as Google does), `:countTokens`, `GET models` and `GET models/{model}`. It makes
 * the checks the real API makes first (the key from `x-goog-api-key` or `?key=`, `contents`, no
 * empty parts, no unknown request fields, no JSON Schema keywords its Schema type lacks) and
 * answers in Google's error shape (https://ai.google.dev/gemini-api/docs/troubleshooting).
 * What it answers comes from a MockScript.
 *
 * Usage of a turn: promptTokenCount = input + cacheRead, cachedContentTokenCount = cacheRead
 * (Gemini has no cache writes), thoughtsTokenCount = ceil(thinking characters / 4) capped at the
 * output, candidatesTokenCount = output − thoughts, totalTokenCount = prompt + output.
 */
export interface MockGeminiOptions {
  key: string;
  script?: MockScript;
  /** What GET models lists (default: two Gemini ids). Generation accepts any model name. */
  models?: string[];
  /** What countTokens answers (default, or undefined from it: mockGeminiTokenCount). */
  countTokens?: MockCountScript;
}

/** A received request; `path` is without the query string, which is in `query`. */
export interface MockGeminiRequestRecord extends MockRequestRecord {
  query: Record<string, string>;
}

export interface MockGemini {
  url: string;
  requests: MockGeminiRequestRecord[];
  /** Responses whose client went away before they ended. */
  readonly abortedResponses: number;
  setScript(script: MockScript): void;
  setCountScript(script: MockCountScript | undefined): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

const DEFAULT_TURN: MockTurn = { text: 'Hello from Gemini.', usage: { input: 12, output: 6 } };
const DEFAULT_MODELS = ['gemini-2.5-flash', 'gemini-2.5-pro'];

/** Google's canonical status name per HTTP status. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(body));
}

const sendError = (response: ServerResponse, status: number, message: string, statusName = STATUS_NAMES[status] ?? 'UNKNOWN', details?: Json[]): void =>
  sendJson(response, status, { error: { code: status, message, status: statusName, ...(details ? { details } : {}) } });

// --- a MockTurn in Gemini's wire format ------------------------------------------------------

/** The turn's usageMetadata; `share` (0..1) gives the running counts a stream reports on the way. */
export function mockGeminiUsage(turn: MockTurn, share = 1): Json {
  const cacheRead = turn.usage.cacheRead ?? 0;
  const prompt = turn.usage.input + cacheRead;
  const thoughts = turn.thinking ? Math.min(turn.usage.output, Math.ceil(turn.thinking.length / 4)) : 0;
  const candidates = Math.round((turn.usage.output - thoughts) * share);
  const thoughtsSoFar = Math.round(thoughts * share);
  const usage: Json = { promptTokenCount: prompt };
  if (candidates > 0) usage.candidatesTokenCount = candidates;
  usage.totalTokenCount = prompt + candidates + thoughtsSoFar;
  if (cacheRead > 0) usage.cachedContentTokenCount = cacheRead;
  if (thoughtsSoFar > 0) usage.thoughtsTokenCount = thoughtsSoFar;
  return usage;
}

function finishReason(turn: MockTurn): 'STOP' | 'MAX_TOKENS' {
  const reason = turn.stopReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
  switch (reason) {
    case 'stop':
    case 'tool_calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    default: {
      const unexpected: never = reason;
      throw new Error(`unknown stop reason ${String(unexpected)}`);
    }
  }
}

/** Gemini's calls carry an id only when the script gave one (the Gemini API usually sends none). */
const callParts = (turn: MockTurn): Json[] =>
  (turn.toolCalls ?? []).map((call) => ({ functionCall: { ...(call.id ? { id: call.id } : {}), name: call.name, args: call.arguments } }));

const responseId = (): string => randomBytes(12).toString('base64url');

/** A turn as a whole GenerateContentResponse: thought parts first, then text, then calls. */
export function mockGeminiResponse(turn: MockTurn, model: string): Json {
  const parts: Json[] = [];
  if (turn.thinking) parts.push({ text: turn.thinking, thought: true });
  if (turn.text) parts.push({ text: turn.text });
  parts.push(...callParts(turn));
  return {
    candidates: [{ content: { parts, role: 'model' }, finishReason: finishReason(turn), index: 0 }],
    usageMetadata: mockGeminiUsage(turn),
    modelVersion: model,
    responseId: responseId(),
  };
}

const pieces = (text: string, length: number): string[] => {
  const result: string[] = [];
  for (let start = 0; start < text.length; start += length) result.push(text.slice(start, start + length));
  return result;
};

/**
 * The GenerateContentResponses a stream sends for a turn: thoughts and text in pieces, the calls
 * whole in the last one, usageMetadata on every one and cumulative, finishReason on the last.
 */
export function mockGeminiStreamResponses(turn: MockTurn, model: string): Json[] {
  const pieceLength = Math.max(1, turn.pieceLength ?? 4);
  const partsPerChunk: Json[][] = [
    ...pieces(turn.thinking ?? '', pieceLength).map((text) => [{ text, thought: true }]),
    ...pieces(turn.text ?? '', pieceLength).map((text) => [{ text }]),
  ];
  const calls = callParts(turn);
  if (calls.length > 0 || partsPerChunk.length === 0) partsPerChunk.push(calls.length > 0 ? calls : [{ text: '' }]);
  const id = responseId();
  return partsPerChunk.map((parts, index) => {
    const last = index === partsPerChunk.length - 1;
    const candidate: Json = { content: { parts, role: 'model' }, index: 0 };
    if (last) candidate.finishReason = finishReason(turn);
    return { candidates: [candidate], usageMetadata: mockGeminiUsage(turn, (index + 1) / partsPerChunk.length), modelVersion: model, responseId: id };
  });
}

// --- request checks, as the real API makes them ------------------------------------------------

const REQUEST_FIELDS = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'safetySettings', 'generationConfig', 'cachedContent']);
const SCHEMA_FIELDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

const camelCase = (name: string): string => name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The first keyword Google's Schema type lacks, with where it is, as Google words the 400. */
function unknownSchemaField(schema: unknown, where: string): string | undefined {
  if (!isObject(schema)) return undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (!SCHEMA_FIELDS.has(camelCase(key))) return `Invalid JSON payload received. Unknown name "${key}" at '${where}': Cannot find field.`;
    if (key === 'properties' && isObject(value)) {
      for (const [name, property] of Object.entries(value)) {
        const found = unknownSchemaField(property, `${where}.properties[${name}].value`);
        if (found) return found;
      }
    }
    if (key === 'items' || key === 'anyOf') {
      const nested = Array.isArray(value) ? value : [value];
      for (const [index, item] of nested.entries()) {
        const found = unknownSchemaField(item, `${where}.${key}${Array.isArray(value) ? `[${index}]` : ''}`);
        if (found) return found;
      }
    }
  }
  return undefined;
}

/** Why Google would refuse this generateContent body with a 400, or undefined when it would not. */
export function geminiRequestProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'Invalid JSON payload received. Expected an object.';
  for (const key of Object.keys(body)) {
    if (!REQUEST_FIELDS.has(camelCase(key))) return `Invalid JSON payload received. Unknown name "${key}": Cannot find field.`;
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified\n';
  for (const [index, content] of body.contents.entries()) {
    if (!isObject(content) || !Array.isArray(content.parts) || content.parts.length === 0) {
      return `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.\n`;
    }
    if (content.role !== undefined && content.role !== 'user' && content.role !== 'model') {
      return `Please use a valid role: user, model.`;
    }
  }
  const tools = Array.isArray(body.tools) ? body.tools : [];
  for (const [toolIndex, tool] of tools.entries()) {
    const declarations = isObject(tool) ? (tool.functionDeclarations ?? tool.function_declarations) : undefined;
    for (const [index, declaration] of (Array.isArray(declarations) ? declarations : []).entries()) {
      const found = isObject(declaration)
        ? unknownSchemaField(declaration.parameters, `tools[${toolIndex}].function_declarations[${index}].parameters`)
        : undefined;
      if (found) return found;
    }
  }
  const config = isObject(body.generationConfig) ? body.generationConfig : isObject(body.generation_config) ? body.generation_config : undefined;
  return config ? unknownSchemaField(config.responseSchema ?? config.response_schema, 'generation_config.response_schema') : undefined;
}

// --- countTokens and the model list ------------------------------------------------------------

function collectText(value: unknown, into: string[]): void {
  if (Array.isArray(value)) for (const item of value) collectText(item, into);
  else if (isObject(value)) {
    if (typeof value.text === 'string') into.push(value.text);
    if (isObject(value.functionCall)) into.push(JSON.stringify(value.functionCall));
    if (isObject(value.functionResponse)) into.push(JSON.stringify(value.functionResponse));
    if (Array.isArray(value.parts)) collectText(value.parts, into);
  }
}

/** The mock's own count, not Gemini's tokenizer: ceil(characters / 4) over the contents' text and calls. */
export function mockGeminiTokenCount(body: Json): number {
  const request = isObject(body.generateContentRequest) ? body.generateContentRequest : body;
  const texts: string[] = [];
  collectText(request.contents, texts);
  collectText(request.systemInstruction ?? request.system_instruction, texts);
  return Math.ceil(texts.reduce((sum, text) => sum + text.length, 0) / 4);
}

/**
 * Why Google would refuse a countTokens body: it takes `contents` or a whole
 * `generateContentRequest` (which names its model), not both (ai.google.dev/api/tokens).
 */
function countTokensProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'Invalid JSON payload received. Expected an object.';
  const inner = body.generateContentRequest ?? body.generate_content_request;
  if (inner === undefined) {
    const unknown = Object.keys(body).find((key) => camelCase(key) !== 'contents');
    return unknown ? `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.` : undefined;
  }
  if (body.contents !== undefined) return 'contents and generate_content_request cannot both be set.';
  if (!isObject(inner) || typeof inner.model !== 'string' || !inner.model.startsWith('models/')) {
    return '* CountTokensRequest.generate_content_request.model: model is required (models/{model})\n';
  }
  const { model: _model, ...request } = inner;
  return geminiRequestProblem(request);
}

const modelEntry = (id: string): Json => ({
  name: `models/${id}`,
  version: '001',
  displayName: id.replace(/^gemini-/, 'Gemini ').replace(/-/g, ' '),
  description: `Mock of ${id}`,
  inputTokenLimit: 1048576,
  outputTokenLimit: 65536,
  supportedGenerationMethods: ['generateContent', 'countTokens'],
});

// --- the server ------------------------------------------------------------------------------

const header = (request: ReceivedRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export async function startMockGemini(options: MockGeminiOptions): Promise<MockGemini> {
  let script: MockScript = options.script ?? (() => DEFAULT_TURN);
  let countScript = options.countTokens;
  const requests: MockGeminiRequestRecord[] = [];
  const models = options.models ?? DEFAULT_MODELS;
  let aborted = 0;

  const server = new LocalServer((request, response) => {
    const url = new URL(request.url, 'http://mock.invalid');
    const path = url.pathname;
    const query = Object.fromEntries(url.searchParams);
    let body: unknown;
    try {
      body = request.body === '' ? undefined : JSON.parse(request.body);
    } catch {
      body = undefined;
    }
    requests.push({ method: request.method, path, query, headers: request.headers, body, rawBody: request.body });
    countAborted(response, () => (aborted += 1));

    const key = header(request, 'x-goog-api-key') ?? query.key;
    if (!key) {
      return sendError(
        response,
        403,
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    }
    if (key !== options.key) {
      return sendError(response, 400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT', [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
      ]);
    }

    const route = /^\/(v1beta|v1)\/models(?:\/([^/:]+)(?::([A-Za-z]+))?)?$/.exec(path);
    const [, version, model, method] = route ?? [];
    if (!route) return sendError(response, 404, `Not found: ${request.method} ${path}`);
    if (request.method === 'GET' && model === undefined) return sendJson(response, 200, { models: models.map(modelEntry) });
    if (request.method === 'GET' && method === undefined && model !== undefined) {
      return models.includes(model)
        ? sendJson(response, 200, modelEntry(model))
        : sendError(response, 404, `models/${model} is not found for API version ${version}`);
    }
    if (request.method !== 'POST' || model === undefined || method === undefined) return sendError(response, 404, `Not found: ${request.method} ${path}`);
    if (method === 'countTokens') {
      const problem = countTokensProblem(body);
      if (problem || !isObject(body)) return sendError(response, 400, problem ?? 'Invalid JSON payload received.');
      const counted = countScript?.(body) ?? mockGeminiTokenCount(body);
      if (isMockFailure(counted)) return sendError(response, counted.status, counted.message, counted.type);
      return sendJson(response, 200, { totalTokens: counted });
    }
    if (method !== 'generateContent' && method !== 'streamGenerateContent') {
      return sendError(response, 404, `models/${model} is not found for API version ${version}, or is not supported for ${method}.`);
    }
    const problem = geminiRequestProblem(body);
    if (problem) return sendError(response, 400, problem);

    const answer = script(body, path);
    if (isMockFailure(answer)) return sendError(response, answer.status, answer.message, answer.type);
    if (method === 'generateContent') return sendJson(response, 200, mockGeminiResponse(answer, model));
    const chunks = mockGeminiStreamResponses(answer, model);
    if (query.alt !== 'sse') return sendJson(response, 200, chunks);
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    return writeEvents(
      response,
      chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`),
      answer.eventIntervalMs,
    );
  });
  await server.start();

  return {
    url: server.url,
    requests,
    get abortedResponses() {
      return aborted;
    },
    setScript: (next) => {
      script = next;
    },
    setCountScript: (next) => {
      countScript = next;
    },
    close: () => server.close(),
  };
}
