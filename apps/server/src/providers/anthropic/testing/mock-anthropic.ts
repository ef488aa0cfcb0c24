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
 * Anthropic's API on 127.0.0.1, for tests: `POST /v1/messages` (whole or streamed),
 * `POST /v1/messages/count_tokens` and `GET /v1/models`, with the checks the real API makes first
 * (x-api-key, anthropic-version, max_tokens and messages) and its error shape
 * (https://docs.anthropic.com/en/api/errors). What it answers comes from a MockScript.
 */
export interface MockAnthropicOptions {
  key: string;
  script?: MockScript;
  /** What GET /v1/models lists (default: two Claude ids). */
  models?: string[];
  /** What count_tokens answers (default, or undefined from it: mockAnthropicTokenCount). */
  countTokens?: MockCountScript;
  /** Check thinking in the history as Claude does (anthropicThinkingProblem): signatures this mock issued, thinking first in a tool loop. */
  checkThinking?: boolean;
}

export interface MockAnthropic {
  url: string;
  requests: MockRequestRecord[];
  /** Responses whose client went away before they ended. */
  readonly abortedResponses: number;
  setScript(script: MockScript): void;
  setCountScript(script: MockCountScript | undefined): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

const DEFAULT_TURN: MockTurn = { text: 'Hello from Claude.', usage: { input: 12, output: 6 } };
const DEFAULT_MODELS = ['claude-sonnet-4-20250514', 'claude-3-5-haiku-20241022'];

/** Anthropic's error type per HTTP status (https://docs.anthropic.com/en/api/errors). */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const requestId = (): string => `req_mock${randomBytes(8).toString('hex')}`;

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId() });
  response.end(JSON.stringify(body));
}

const sendError = (response: ServerResponse, status: number, message: string, type = ERROR_TYPES[status] ?? 'api_error'): void =>
  sendJson(response, status, { type: 'error', error: { type, message } });

// --- a MockTurn in Anthropic's wire format ---------------------------------------------------

function stopReason(turn: MockTurn): 'end_turn' | 'max_tokens' | 'tool_use' {
  const reason = turn.stopReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    default: {
      const unexpected: never = reason;
      throw new Error(`unknown stop reason ${String(unexpected)}`);
    }
  }
}

function usageOf(turn: MockTurn, outputTokens: number): Json {
  const written = turn.usage.cacheWrite ?? 0;
  const hour = turn.usage.cacheWrite1h;
  return {
    input_tokens: turn.usage.input,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: turn.usage.cacheRead ?? 0,
    // Claude's split of the writes by lifetime, when a turn names its one-hour share.
    ...(hour === undefined ? {} : { cache_creation: { ephemeral_5m_input_tokens: written - hour, ephemeral_1h_input_tokens: hour } }),
    output_tokens: outputTokens,
  };
}

/** The signature this mock gives a thinking text (Claude's are opaque; this one can be checked). */
export const mockThinkingSignature = (thinking: string): string => Buffer.from(`mock-signature:${thinking.length}`).toString('base64');

/** The `data` of a redacted_thinking block this mock issues. */
export const mockRedactedData = (text: string): string => Buffer.from(`mock-redacted:${text}`).toString('base64');

/**
 * Why Claude would refuse the thinking in this history, or undefined: every thinking block must
 * carry the signature it was issued with and every redacted_thinking block the data
 * (docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks), and
 * with thinking on, an assistant turn whose tool calls are being answered must open with its thinking.
 */
export function anthropicThinkingProblem(body: Json): string | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  for (const [index, message] of messages.entries()) {
    if (message?.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const [blockIndex, block] of (message.content as Json[]).entries()) {
      const where = `messages.${index}.content.${blockIndex}`;
      if (block?.type === 'thinking' && (typeof block.thinking !== 'string' || block.signature !== mockThinkingSignature(block.thinking))) {
        return `${where}: Invalid \`signature\` in \`thinking\` block`;
      }
      if (block?.type === 'redacted_thinking' && !Buffer.from(String(block.data), 'base64').toString('utf8').startsWith('mock-redacted:')) {
        return `${where}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
  }
  const thinking = body.thinking as Json | undefined;
  if (thinking?.type !== 'enabled' && thinking?.type !== 'adaptive') return undefined;
  const last = messages.findLastIndex((message) => message?.role === 'assistant');
  const assistant = messages[last];
  const answered = messages.slice(last + 1).some((message) => JSON.stringify(message?.content ?? '').includes('"tool_result"'));
  if (!assistant || !answered || !Array.isArray(assistant.content)) return undefined;
  const first = (assistant.content as Json[])[0];
  if (first?.type === 'thinking' || first?.type === 'redacted_thinking') return undefined;
  return (
    `messages.${last}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, ` +
    'a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).'
  );
}

/** A turn as Anthropic's whole Message: thinking first, then text, then one tool_use per call. */
export function mockAnthropicMessage(turn: MockTurn, model: string): Json {
  const content: Json[] = [];
  if (turn.thinking) content.push({ type: 'thinking', thinking: turn.thinking, signature: mockThinkingSignature(turn.thinking) });
  if (turn.redactedThinking) content.push({ type: 'redacted_thinking', data: mockRedactedData(turn.redactedThinking) });
  if (turn.text) content.push({ type: 'text', text: turn.text });
  (turn.toolCalls ?? []).forEach((call, index) =>
    content.push({ type: 'tool_use', id: call.id ?? `toolu_mock${index}${randomBytes(6).toString('hex')}`, name: call.name, input: call.arguments }),
  );
  return {
    id: `msg_mock${randomBytes(8).toString('hex')}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason(turn),
    stop_sequence: null,
    usage: usageOf(turn, turn.usage.output),
  };
}

const pieces = (text: string, length: number): string[] => {
  const result: string[] = [];
  for (let start = 0; start < text.length; start += length) result.push(text.slice(start, start + length));
  return result;
};

/**
 * The stream events Anthropic sends for a turn, in order (https://docs.anthropic.com/en/docs/build-with-claude/streaming):
 * message_start, ping, per block content_block_start / _delta… / _stop, message_delta, message_stop.
 */
export function mockAnthropicStreamEvents(turn: MockTurn, model: string): Json[] {
  const pieceLength = Math.max(1, turn.pieceLength ?? 4);
  const message = mockAnthropicMessage(turn, model);
  const events: Json[] = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: usageOf(turn, 1) } }, { type: 'ping' }];
  (message.content as Json[]).forEach((block, index) => {
    if (block.type === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of pieces(String(block.thinking), pieceLength))
        events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'redacted_thinking') {
      // Sent whole in its start event, with no deltas.
      events.push({ type: 'content_block_start', index, content_block: block });
    } else if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of pieces(String(block.text), pieceLength))
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      // Anthropic opens each tool's input with an empty piece.
      for (const piece of ['', ...pieces(JSON.stringify(block.input), pieceLength)]) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: turn.usage.output } });
  events.push({ type: 'message_stop' });
  return events;
}

/** Anthropic's SSE text for a streamed turn. */
export const mockAnthropicSse = (turn: MockTurn, model: string): string =>
  mockAnthropicStreamEvents(turn, model)
    .map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
    .join('');

// --- count_tokens ---------------------------------------------------------------------------

function collectText(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectText(item, into);
  else if (value !== null && typeof value === 'object') {
    const block = value as Json;
    if (block.type === 'image' || block.type === 'document') return;
    if (block.type === 'tool_use') into.push(block.name as string, JSON.stringify(block.input ?? {}));
    else for (const [field, inner] of Object.entries(block)) if (field === 'text' || field === 'content' || field === 'thinking') collectText(inner, into);
  }
}

/**
 * The mock's own token count, not Claude's tokenizer: ceil(characters / 4) over the system prompt,
 * the messages' text (tool calls and results included) and the tool definitions as JSON.
 */
export function mockAnthropicTokenCount(body: Json): number {
  const texts: string[] = [];
  collectText(body.system, texts);
  for (const message of Array.isArray(body.messages) ? body.messages : []) collectText((message as Json)?.content, texts);
  if (Array.isArray(body.tools)) texts.push(JSON.stringify(body.tools));
  return Math.ceil(texts.reduce((sum, text) => sum + text.length, 0) / 4);
}

/** The body fields count_tokens takes; any other is refused as an extra input. */
const COUNT_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'mcp_servers',
  'context_management',
  'output_config',
  'output_format',
]);

// --- the server -----------------------------------------------------------------------------

const header = (request: ReceivedRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

function modelList(models: string[]): Json {
  const data = models.map((id, index) => ({
    id,
    type: 'model',
    display_name: id.replace(/^claude-/, 'Claude ').replace(/-\d{8}$/, ''),
    created_at: new Date(Date.UTC(2025, 0, 1 + index)).toISOString(),
  }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

export async function startMockAnthropic(options: MockAnthropicOptions): Promise<MockAnthropic> {
  let script: MockScript = options.script ?? (() => DEFAULT_TURN);
  let countScript = options.countTokens;
  const requests: MockRequestRecord[] = [];
  let aborted = 0;

  const server = new LocalServer((request, response) => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    let body: unknown;
    try {
      body = request.body === '' ? undefined : JSON.parse(request.body);
    } catch {
      body = undefined;
    }
    requests.push({ method: request.method, path, headers: request.headers, body, rawBody: request.body });
    countAborted(response, () => (aborted += 1));

    // The API takes the key as x-api-key, and (API version 2026-10-21, the SDK's default since 1.0) as a bearer token.
    if (header(request, 'x-api-key') !== options.key && header(request, 'authorization') !== `Bearer ${options.key}`) {
      return sendError(response, 401, 'invalid x-api-key');
    }
    if (!header(request, 'anthropic-version')) return sendError(response, 400, 'anthropic-version: header is required');

    if (request.method === 'GET' && path === '/v1/models') return sendJson(response, 200, modelList(options.models ?? DEFAULT_MODELS));
    if (request.method !== 'POST' || (path !== '/v1/messages' && path !== '/v1/messages/count_tokens')) {
      return sendError(response, 404, `Not found: ${request.method} ${path}`);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return sendError(response, 400, 'The request body is not valid JSON.');
    const fields = body as Json;
    if (typeof fields.model !== 'string') return sendError(response, 400, 'model: Field required');
    if (!Array.isArray(fields.messages)) return sendError(response, 400, 'messages: Field required');
    if (path === '/v1/messages/count_tokens') {
      // The count endpoint takes the prompt's fields only (docs.anthropic.com/en/api/messages-count-tokens).
      const extra = Object.keys(fields).find((field) => !COUNT_FIELDS.has(field));
      if (extra) return sendError(response, 400, `${extra}: Extra inputs are not permitted`);
      const counted = countScript?.(fields) ?? mockAnthropicTokenCount(fields);
      if (isMockFailure(counted)) return sendError(response, counted.status, counted.message, counted.type);
      return sendJson(response, 200, { input_tokens: counted });
    }
    if (typeof fields.max_tokens !== 'number') return sendError(response, 400, 'max_tokens: Field required');
    const thinkingProblem = options.checkThinking ? anthropicThinkingProblem(fields) : undefined;
    if (thinkingProblem) return sendError(response, 400, thinkingProblem);

    const answer = script(body, path);
    if (isMockFailure(answer)) return sendError(response, answer.status, answer.message, answer.type);
    if (fields.stream !== true) return sendJson(response, 200, mockAnthropicMessage(answer, fields.model));
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId() });
    const events = mockAnthropicStreamEvents(answer, fields.model).map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
    return writeEvents(response, events, answer.eventIntervalMs);
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
