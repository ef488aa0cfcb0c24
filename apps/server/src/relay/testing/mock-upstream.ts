import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server standing in for OpenAI-style upstreams in whole-app tests. Every request is
 * recorded; a handler decides the answer. The default handler answers like OpenAI, naming the key
 * it was called with so a test can tell which channel served it.
 */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The key from `Authorization: Bearer` or Azure's `api-key`. */
  key: string;
  body: Buffer;
  /** The body as JSON when it was JSON, else undefined. */
  json: Record<string, unknown> | undefined;
}

export type UpstreamHandler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

export const DEFAULT_USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

/** A chat completion; `usage: null` leaves usage out, as some upstreams do. */
export function chatCompletionBody(content: string, usage: object | null = DEFAULT_USAGE): string {
  return JSON.stringify({
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: 1700000000,
    model: 'mock-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    ...(usage ? { usage } : {}),
  });
}

export const chatChunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-mock',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'mock-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  })}\n\n`;

export const usageChunk = (usage: object = DEFAULT_USAGE) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1700000000, model: 'mock-model', choices: [], usage })}\n\n`;

/** The SSE an OpenAI upstream sends for `words`, with the usage chunk when asked for. */
export function chatStream(words: readonly string[], includeUsage: boolean, usage: object = DEFAULT_USAGE): string {
  const usageField = includeUsage ? { usage: null } : {};
  let text = chatChunk({ role: 'assistant', content: '' }, null, usageField);
  for (const word of words) text += chatChunk({ content: word }, null, usageField);
  text += chatChunk({}, 'stop', usageField);
  if (includeUsage) text += usageChunk(usage);
  return `${text}data: [DONE]\n\n`;
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

const wantsUsage = (json: Record<string, unknown> | undefined) =>
  typeof json?.stream_options === 'object' && json.stream_options !== null && (json.stream_options as { include_usage?: unknown }).include_usage === true;

/** OpenAI-like answers for every endpoint the relay serves. */
export const openAILikeHandler: UpstreamHandler = (request, response) => {
  const path = request.url.split('?')[0]!;
  const json = request.json;
  if (path.endsWith('/chat/completions')) {
    if (json?.stream === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.end(chatStream(['Hello', ' from', ` ${request.key}`], wantsUsage(json)));
      return;
    }
    sendJson(response, 200, chatCompletionBody(`Hello from ${request.key}`));
    return;
  }
  if (path.endsWith('/embeddings')) {
    const vector = [0.5, 0.25, 0.125];
    // The openai client asks for base64 unless told otherwise, as OpenAI's own SDKs do.
    const embedding = json?.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    sendJson(response, 200, {
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding }],
      model: json?.model,
      usage: { prompt_tokens: 5, total_tokens: 5 },
    });
    return;
  }
  if (path.endsWith('/completions')) {
    sendJson(response, 200, {
      id: 'cmpl-mock',
      object: 'text_completion',
      choices: [{ index: 0, text: 'done', finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
    return;
  }
  if (path.endsWith('/responses')) {
    if (json?.stream === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hi"}\n\n' +
          'event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":9,"output_tokens":4,"total_tokens":13}}}\n\n',
      );
      return;
    }
    sendJson(response, 200, {
      id: 'resp-mock',
      object: 'response',
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hi' }] }],
      usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 },
    });
    return;
  }
  if (path.endsWith('/images/generations')) {
    sendJson(response, 200, { created: 1700000000, data: [{ url: 'https://example.com/image.png' }] });
    return;
  }
  if (path.endsWith('/audio/speech')) {
    const audio = Buffer.from('ID3-fake-mp3-bytes');
    response.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': audio.length });
    response.end(audio);
    return;
  }
  if (path.endsWith('/audio/transcriptions') || path.endsWith('/audio/translations')) {
    sendJson(response, 200, { text: 'hello world from the audio' });
    return;
  }
  if (path.endsWith('/moderations')) {
    sendJson(response, 200, { id: 'modr-mock', model: json?.model, results: [{ flagged: false }] });
    return;
  }
  if (path.endsWith('/rerank')) {
    sendJson(response, 200, { results: [{ index: 0, relevance_score: 0.9 }], usage: { total_tokens: 12 } });
    return;
  }
  sendJson(response, 404, { error: { message: `mock has no ${path}`, type: 'invalid_request_error' } });
};

export class MockUpstream {
  readonly requests: RecordedRequest[] = [];
  private handler: UpstreamHandler = openAILikeHandler;
  private server: Server | undefined;
  private readonly sockets = new Set<import('node:net').Socket>();
  /** Responses whose client went away before they ended. */
  abortedResponses = 0;
  url = '';

  async start(): Promise<this> {
    const server = createServer((request, response) => void this.handle(request, response));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  /** Sets the handler for the next requests; undefined restores the OpenAI-like default. */
  respond(handler?: UpstreamHandler): void {
    this.handler = handler ?? openAILikeHandler;
  }

  /** Requests made with one key (one channel), in order. */
  requestsWithKey(key: string): RecordedRequest[] {
    return this.requests.filter((request) => request.key === key);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of request) parts.push(part as Buffer);
    const body = Buffer.concat(parts);
    let json: Record<string, unknown> | undefined;
    if (String(request.headers['content-type'] ?? '').includes('json')) {
      try {
        json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
    }
    const authorization = String(request.headers.authorization ?? '');
    const key = authorization.replace(/^Bearer\s+/i, '') || String(request.headers['api-key'] ?? '');
    const recorded: RecordedRequest = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, key, body, json };
    this.requests.push(recorded);
    response.on('close', () => {
      if (!response.writableFinished) this.abortedResponses += 1;
    });
    try {
      await this.handler(recorded, response);
    } catch (error) {
      if (!response.headersSent) sendJson(response, 500, { error: { message: String(error), type: 'mock_error' } });
    }
  }
}

/** What an upstream that honours output limits answers: its prompt count and the answer it would give. */
export interface LimitedAnswer {
  promptTokens: number;
  /** The answer's length when nothing limits it. */
  completionTokens: number;
}

/**
 * OpenAI's chat completions as the real API behaves with a limit: the answer stops at
 * `max_completion_tokens` (or `max_tokens`) with finish_reason `length`, and usage counts what was
 * generated. Streams end with the usage chunk when it was asked for.
 */
export function limitHonouringChat(answer: (request: RecordedRequest) => LimitedAnswer): UpstreamHandler {
  return (request, response) => {
    const json = request.json ?? {};
    const { promptTokens, completionTokens } = answer(request);
    const limit = [json.max_completion_tokens, json.max_tokens].find((value) => typeof value === 'number') as number | undefined;
    const generated = limit === undefined ? completionTokens : Math.min(limit, completionTokens);
    const finish = generated < completionTokens ? 'length' : 'stop';
    const usage = { prompt_tokens: promptTokens, completion_tokens: generated, total_tokens: promptTokens + generated };
    if (json.stream === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      let text = chatChunk({ role: 'assistant', content: '' }) + chatChunk({ content: 'words' }) + chatChunk({}, finish);
      if (wantsUsage(json)) text += usageChunk(usage);
      response.end(`${text}data: [DONE]\n\n`);
      return;
    }
    const body = JSON.parse(chatCompletionBody('words', usage)) as { choices: { finish_reason: string }[] };
    body.choices[0]!.finish_reason = finish;
    sendJson(response, 200, body);
  };
}
