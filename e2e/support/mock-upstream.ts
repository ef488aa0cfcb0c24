import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the mock upstream received. */
export interface SeenRequest {
  method: string;
  path: string;
  authorization: string;
  body: Record<string, unknown> | null;
}

export interface MockUpstream {
  /** Base URL for a channel, e.g. http://127.0.0.1:40123 */
  url: string;
  seen: SeenRequest[];
  close: () => Promise<void>;
}

/** A key the mock refuses with 401, as a revoked OpenAI key would be. */
export const REJECTED_KEY = 'sk-mock-revoked';

/** Usage the mock reports per completion: large enough for the cost to show in dollars. */
export const MOCK_USAGE = { prompt_tokens: 100_000, completion_tokens: 100_000, total_tokens: 200_000 };

/*
 * A streamed call whose last user message starts with one of these prompts is answered otherwise:
 * SLOW_PROMPT with a word every SLOW_INTERVAL_MS for a minute (for stopping a reply half-way),
 * BROKEN_PROMPT with some text and then a dropped connection without [DONE], MARKDOWN_PROMPT with
 * MARKDOWN_REPLY_PIECES. Any other call gets the usual answer.
 */
export const SLOW_PROMPT = '/slow';
export const BROKEN_PROMPT = '/broken';
export const MARKDOWN_PROMPT = '/markdown';
export const MARKDOWN_REPLY_PIECES = ['Here is **code**:\n\n`', '``ts\nconst answer', ' = 42;\n', '```\n\nDone.'];
const SLOW_INTERVAL_MS = 300;

function lastUserText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
  const last = messages.filter((message) => message.role === 'user').at(-1);
  return typeof last?.content === 'string' ? last.content : '';
}

function streamSlowly(response: ServerResponse, chunk: (delta: Record<string, unknown>) => string): void {
  let sent = 0;
  const timer = setInterval(() => {
    sent += 1;
    if (sent > 200) {
      clearInterval(timer);
      response.end('data: [DONE]\n\n');
      return;
    }
    response.write(chunk({ content: `word${sent} ` }));
  }, SLOW_INTERVAL_MS);
  // The gateway aborts its upstream request when the caller stops: the mock stops writing then.
  response.on('close', () => clearInterval(timer));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return null;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * A tiny OpenAI-compatible upstream on a free port: /v1/models, /v1/chat/completions (streamed when
 * asked, its usage in a last chunk; SLOW_PROMPT, BROKEN_PROMPT and MARKDOWN_PROMPT stream otherwise) and the
 * billing endpoints the balance query reads. The gateway under test talks to it over loopback.
 */
export async function startMockUpstream(models = ['gpt-4o-mini', 'mock-model-b']): Promise<MockUpstream> {
  const seen: SeenRequest[] = [];
  const server = createServer(async (request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const authorization = String(request.headers.authorization ?? '');
    const body = await readJson(request);
    seen.push({ method: request.method ?? 'GET', path, authorization, body });
    const send = (status: number, payload: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    if (authorization === `Bearer ${REJECTED_KEY}`) {
      return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    if (request.method === 'GET' && path === '/v1/models') {
      return send(200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'mock' })) });
    }
    if (request.method === 'POST' && path === '/v1/chat/completions' && body?.stream === true) {
      const chunk = (delta: Record<string, unknown>) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 0, model: String(body.model ?? 'unknown'), choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const prompt = lastUserText(body);
      if (prompt.startsWith(SLOW_PROMPT)) return streamSlowly(response, chunk);
      if (prompt.startsWith(BROKEN_PROMPT)) {
        // Some text, then the connection drops without [DONE], as an upstream crashing mid-answer.
        response.write(chunk({ role: 'assistant', content: 'This answer will break' }));
        setTimeout(() => response.socket?.destroy(), 100);
        return;
      }
      if (prompt.startsWith(MARKDOWN_PROMPT)) {
        // The fence and its code arrive split across chunks, as tokens do.
        for (const piece of MARKDOWN_REPLY_PIECES) response.write(chunk({ content: piece }));
        response.write(
          `data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 0, model: String(body.model ?? 'unknown'), choices: [], usage: MOCK_USAGE })}\n\n`,
        );
        return response.end('data: [DONE]\n\n');
      }
      response.write(chunk({ role: 'assistant', content: 'Hello from ' }));
      response.write(chunk({ content: 'the mock upstream.' }));
      response.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 0, model: String(body.model ?? 'unknown'), choices: [], usage: MOCK_USAGE })}\n\n`,
      );
      return response.end('data: [DONE]\n\n');
    }
    if (request.method === 'POST' && path === '/v1/chat/completions') {
      return send(200, {
        id: 'chatcmpl-mock',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: String(body?.model ?? 'unknown'),
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the mock upstream.' }, finish_reason: 'stop' }],
        usage: MOCK_USAGE,
      });
    }
    if (request.method === 'GET' && path === '/v1/dashboard/billing/subscription') {
      return send(200, { object: 'billing_subscription', has_payment_method: true, hard_limit_usd: 100 });
    }
    if (request.method === 'GET' && path === '/v1/dashboard/billing/usage') {
      return send(200, { object: 'list', total_usage: 2500 });
    }
    return send(404, { error: { message: `mock upstream has no ${request.method} ${path}`, type: 'invalid_request_error' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
