import type { ServerResponse } from 'node:http';
import { isMockFailure, type MockScript, type MockToolCall, type MockTurn } from '../../providers/testing/mock-turn.js';
import { type RecordedRequest, sendJson, type UpstreamHandler } from './mock-upstream.js';

/**
 * A mock upstream that behaves like a model driving a coding agent: it reads the conversation the
 * agent sent (in the upstream's own wire format, after the relay converted it), calls the agent's
 * file-reading tool when asked to read a file and repeats what the tool returned. The Anthropic
 * and Gemini mocks take it as their MockScript; OpenAI's chat completions get it through
 * `openAIChatModel`, which renders a MockTurn as OpenAI does, whole or streamed.
 */
export type WireFormat = 'openai' | 'anthropic' | 'gemini';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The text of a tool result or message content: a string, or the strings inside it (parts, a JSON object's fields) a line each. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (isObject(value)) return Object.values(value).map(textOf).join('\n');
  return value === undefined || value === null ? '' : String(value);
}

export interface OfferedTool {
  name: string;
  /** The names of its parameters (its JSON schema's properties). */
  parameters: string[];
}

export interface Conversation {
  /** The tools the request offers, in the upstream's format. */
  tools: OfferedTool[];
  /** The text of every tool result in the request. */
  toolResults: string[];
}

const offered = (name: unknown, schema: unknown): OfferedTool => ({
  name: String(name ?? ''),
  parameters: isObject(schema) && isObject(schema.properties) ? Object.keys(schema.properties) : [],
});

/** What a model would read from a request body of each wire format. */
export function conversationOf(format: WireFormat, body: unknown): Conversation {
  const request = isObject(body) ? body : {};
  switch (format) {
    case 'openai':
      return {
        tools: list(request.tools)
          .map((tool) => (isObject(tool) && isObject(tool.function) ? tool.function : {}))
          .map((definition) => offered(definition.name, definition.parameters)),
        toolResults: list(request.messages)
          .filter((message) => isObject(message) && message.role === 'tool')
          .map((message) => textOf((message as Json).content)),
      };
    case 'anthropic':
      return {
        tools: list(request.tools)
          .filter(isObject)
          .map((tool) => offered(tool.name, tool.input_schema)),
        toolResults: list(request.messages)
          .flatMap((message) => (isObject(message) ? list(message.content) : []))
          .filter((block) => isObject(block) && block.type === 'tool_result')
          .map((block) => textOf((block as Json).content)),
      };
    case 'gemini':
      return {
        tools: list(request.tools)
          .flatMap((tool) => (isObject(tool) ? list(tool.functionDeclarations ?? tool.function_declarations) : []))
          .filter(isObject)
          .map((declaration) => offered(declaration.name, declaration.parameters ?? declaration.parametersJsonSchema)),
        toolResults: list(request.contents)
          .flatMap((content) => (isObject(content) ? list(content.parts) : []))
          .map((part) => (isObject(part) ? (part.functionResponse ?? part.function_response) : undefined))
          .filter(isObject)
          .map((response) => textOf(response.response)),
      };
    default: {
      const unexpected: never = format;
      throw new Error(`unknown wire format ${String(unexpected)}`);
    }
  }
}

/** Whether the conversation offers `call`'s tool with every argument it is called with. */
export function offersTool(conversation: Conversation, call: MockToolCall): boolean {
  const tool = conversation.tools.find((candidate) => candidate.name === call.name);
  return tool !== undefined && Object.keys(call.arguments).every((argument) => tool.parameters.includes(argument));
}

const USAGE = { input: 1500, output: 40 };

/** A model that answers every call with `text`. */
export const answeringModel =
  (text: string): MockScript =>
  () => ({ text, usage: USAGE });

/**
 * A model that reads a file through the agent's tool: while the conversation holds no tool result
 * it calls `call` (which must be among the offered tools, with these parameters, as a real model
 * only calls those), then answers with the line of the tool result that holds `secret`.
 */
export function fileReadingModel(format: WireFormat, call: MockToolCall, secret: string): MockScript {
  return (body) => {
    const conversation = conversationOf(format, body);
    if (conversation.toolResults.length === 0) {
      if (!offersTool(conversation, call)) {
        const tools = conversation.tools.map((tool) => `${tool.name}(${tool.parameters.join(', ')})`).join(', ');
        return { text: `No tool ${call.name} taking ${Object.keys(call.arguments).join(', ')} was offered; the tools: ${tools}.`, usage: USAGE };
      }
      return { text: 'Let me read that file.', toolCalls: [call], usage: USAGE };
    }
    const line = conversation.toolResults
      .join('\n')
      .split('\n')
      .find((candidate) => candidate.includes(secret));
    return { text: line ? `The file says: ${line.trim()}` : 'The tool result did not hold the secret.', usage: USAGE };
  };
}

// --- OpenAI's chat completions ----------------------------------------------------------------

const completionId = 'chatcmpl-agentmock';

function openAIUsage(turn: MockTurn): Json {
  const cached = turn.usage.cacheRead ?? 0;
  return {
    prompt_tokens: turn.usage.input + cached,
    completion_tokens: turn.usage.output,
    total_tokens: turn.usage.input + cached + turn.usage.output,
    ...(cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
  };
}

const finishReason = (turn: MockTurn): string => turn.stopReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');

const callId = (call: MockToolCall, index: number) => call.id ?? `call_agentmock${index}`;

function chunk(model: string, delta: Json, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: completionId, object: 'chat.completion.chunk', created: 1700000000, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/** The SSE OpenAI sends for a turn: the text in pieces, each call's name then its arguments in pieces, the finish, the usage when asked. */
export function openAIChatStream(turn: MockTurn, model: string, includeUsage: boolean): string {
  const pieceLength = Math.max(1, turn.pieceLength ?? 4);
  let text = chunk(model, { role: 'assistant', content: '' });
  const content = turn.text ?? '';
  for (let start = 0; start < content.length; start += pieceLength) text += chunk(model, { content: content.slice(start, start + pieceLength) });
  (turn.toolCalls ?? []).forEach((call, index) => {
    text += chunk(model, { tool_calls: [{ index, id: callId(call, index), type: 'function', function: { name: call.name, arguments: '' } }] });
    const args = JSON.stringify(call.arguments);
    for (let start = 0; start < args.length; start += pieceLength) {
      text += chunk(model, { tool_calls: [{ index, function: { arguments: args.slice(start, start + pieceLength) } }] });
    }
  });
  text += chunk(model, {}, finishReason(turn));
  if (includeUsage)
    text += `data: ${JSON.stringify({ id: completionId, object: 'chat.completion.chunk', created: 1700000000, model, choices: [], usage: openAIUsage(turn) })}\n\n`;
  return `${text}data: [DONE]\n\n`;
}

export function openAIChatCompletion(turn: MockTurn, model: string): Json {
  const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({
    id: callId(call, index),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  return {
    id: completionId,
    object: 'chat.completion',
    created: 1700000000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: turn.text ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: finishReason(turn),
      },
    ],
    usage: openAIUsage(turn),
  };
}

/** A MockUpstream handler answering /chat/completions from a MockScript, as OpenAI does. */
export function openAIChatModel(script: () => MockScript): UpstreamHandler {
  return (request: RecordedRequest, response: ServerResponse) => {
    const path = request.url.split('?')[0] ?? '';
    const body = request.json;
    if (!path.endsWith('/chat/completions') || !body) {
      sendJson(response, 404, { error: { message: `mock has no ${path}`, type: 'invalid_request_error' } });
      return;
    }
    const answer = script()(body, path);
    if (isMockFailure(answer)) {
      sendJson(response, answer.status, { error: { message: answer.message, type: answer.type ?? 'api_error' } });
      return;
    }
    const model = String(body.model);
    if (body.stream !== true) {
      sendJson(response, 200, openAIChatCompletion(answer, model));
      return;
    }
    const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.end(openAIChatStream(answer, model, includeUsage));
  };
}
