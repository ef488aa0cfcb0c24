import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicMessageBody, anthropicStreamEvents } from './mock-anthropic.js';
import { completionBody, created, mockWords as words, streamEvents, streamTail as tail } from './mock-openai.js';

/**
 * The upstream every target talks to: an OpenAI-style /v1/chat/completions that answers at once
 * with fixed bodies, so what the bench measures is the code between client and upstream.
 *
 * - non-stream: one JSON with usage;
 * - stream: an SSE of MOCK_STREAM_CHUNKS chunks, a usage chunk and [DONE], written without delay
 *   (each chunk its own write, as a real upstream does);
 * - paced stream, when the request names the model MOCK_PACED_MODEL (gpt-4o): MOCK_PACED_CHUNKS
 *   chunks, one every MOCK_PACE_MS, for the many-streams test. Choosing by model lets one channel
 *   table and one reference proxy reach both behaviours without extra routing.
 * - Anthropic's POST /v1/messages (mock-anthropic.ts): a fixed Message with usage, or an SSE in
 *   Anthropic's event sequence with MOCK_STREAM_CHUNKS text deltas.
 * - GET /bench/last-request: the SHA-256, size and key headers of the last POST body received (the
 *   body is only kept, and hashed when asked), so the bench can check a relay forwards a client's
 *   own bytes.
 *
 * Run as a process (MOCK_PORT, 0 = any): prints one JSON line {port} once it listens.
 */

const streamChunks = Number(process.env.MOCK_STREAM_CHUNKS ?? 20);
const pacedChunks = Number(process.env.MOCK_PACED_CHUNKS ?? 100);
const paceMs = Number(process.env.MOCK_PACE_MS ?? 50);
const pacedModel = process.env.MOCK_PACED_MODEL ?? 'gpt-4o';

const fastEvents = streamEvents(streamChunks);
const pacedEvents = streamEvents(pacedChunks);

const modelList = Buffer.from(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created, owned_by: 'system' }] }));
const streamRequested = /"stream"\s*:\s*true/;
const pacedRequested = new RegExp(`"model"\\s*:\\s*"${pacedModel}"`);

const anthropicMessage = anthropicMessageBody(words);
const anthropicEvents = anthropicStreamEvents(words, streamChunks);

/** The last POST this mock received; hashed only when /bench/last-request asks. */
let last: { path: string; body: Buffer; headers: Record<string, string | undefined> } | undefined;

function lastRequest(response: ServerResponse): void {
  const payload = last ? { path: last.path, bytes: last.body.length, sha256: createHash('sha256').update(last.body).digest('hex'), headers: last.headers } : {};
  const text = JSON.stringify(payload);
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function handleMessages(body: Buffer, response: ServerResponse): void {
  if (!streamRequested.test(body.toString('latin1'))) {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': anthropicMessage.length });
    response.end(anthropicMessage);
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (let index = 0; index < anthropicEvents.length - 1; index += 1) response.write(anthropicEvents[index]!);
  response.end(anthropicEvents.at(-1));
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  if (request.method === 'GET' && request.url === '/bench/last-request') {
    lastRequest(response);
    return;
  }
  if (request.method === 'POST' && request.url?.endsWith('/messages')) {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = Buffer.concat(parts);
      last = {
        path: request.url ?? '',
        body,
        headers: {
          'x-api-key': request.headers['x-api-key'] as string | undefined,
          'anthropic-version': request.headers['anthropic-version'] as string | undefined,
        },
      };
      handleMessages(body, response);
    });
    return;
  }
  if (request.method === 'GET' && request.url?.endsWith('/models')) {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': modelList.length });
    response.end(modelList);
    return;
  }
  if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
    return;
  }
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    const bytes = Buffer.concat(parts);
    last = { path: request.url ?? '', body: bytes, headers: {} };
    const body = bytes.toString('latin1');
    if (!streamRequested.test(body)) {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': completionBody.length });
      response.end(completionBody);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (!pacedRequested.test(body)) {
      for (const event of fastEvents) response.write(event);
      response.end(tail);
      return;
    }
    response.flushHeaders();
    // Absolute deadlines so timer lateness does not add up over a hundred chunks.
    const start = performance.now();
    let next = 0;
    const send = () => {
      if (response.destroyed) return;
      if (next === pacedEvents.length) {
        response.end(tail);
        return;
      }
      response.write(pacedEvents[next]!);
      next += 1;
      setTimeout(send, Math.max(0, start + next * paceMs - performance.now()));
    };
    send();
  });
}

const server = createServer({ keepAliveTimeout: 60_000 }, handle);
// A deep accept queue: the many-streams test opens a thousand connections at once, and Node's
// default backlog (511) would drop SYNs that the kernel then retries only after a second.
server.listen({ port: Number(process.env.MOCK_PORT ?? 0), host: '127.0.0.1', backlog: 4096 }, () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
