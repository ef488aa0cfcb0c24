import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestAbort } from '../relay/request-abort.js';
import { UpstreamClient } from './upstream-client.js';

/**
 * UpstreamClient.collect with `stream`: the answer is handed over once the socket read with its
 * headers is parsed, whole when that read held its end, else as a body fed from then on, read at
 * the reader's pace, cancelled when destroyed, and with no body timeout (the relay watches a
 * stream's silence itself). Against a real HTTP server on loopback.
 */

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
const handlers = new Map<string, Handler>();
let server: Server;
let origin: string;
const client = new UpstreamClient({ silenceTimeoutMs: 200 });

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => handlers.get(request.url ?? '')?.(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const sse = (index: number) => `data: {"n":${index}}\n\n`;

function streamed(path: string, handler: Handler, abort = new RequestAbort()) {
  handlers.set(path, handler);
  return client.collect({ origin, path, headers: { 'content-type': 'application/json' }, body: '{"stream":true}' }, { abort, limit: 1024, stream: true });
}

async function readAll(body: AsyncIterable<unknown>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

describe('UpstreamClient.collect, a stream', () => {
  it('sent whole with its headers comes collected, in one buffer, past the whole-answer limit too', async () => {
    const events = Array.from({ length: 100 }, (_, index) => sse(index)).join('');
    const answer = await streamed('/whole', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': Buffer.byteLength(events) });
      response.end(events);
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(answer.collected?.toString('utf8')).toBe(events);
    expect(answer.respondedAt).toBeGreaterThan(0);
  });

  it('still coming is handed over at its headers, with what came with them, and the rest follows through its body', async () => {
    let next: (() => void) | undefined;
    const answer = await streamed('/drip', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(sse(0));
      let sent = 1;
      next = () => {
        if (sent === 5) response.end();
        else response.write(sse(sent++));
      };
    });
    // Handed over before the upstream sent more than its first event.
    expect(answer.collected).toBeUndefined();
    const reading = readAll(answer.body);
    for (let index = 0; index < 5; index += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      next!();
    }
    expect(await reading).toBe([0, 1, 2, 3, 4].map(sse).join(''));
  });

  it("has no body timeout: an upstream silent between events for longer than the silence limit (past undici's timer tick of about a second) still delivers", async () => {
    const answer = await streamed('/pause', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(sse(0));
      setTimeout(() => response.end(sse(1)), 1500);
    });
    expect(await readAll(answer.body)).toBe(sse(0) + sse(1));
  });

  it('is read at the reader pace: an unread body holds the upstream back instead of memory', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    let written = 0;
    let held: (() => void) | undefined;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const answer = await streamed('/flood', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = () => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', pump);
            held!();
            return;
          }
        }
        response.end();
      };
      pump();
    });
    await holding;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const whileUnread = written;
    // Socket buffers on both sides and the body's own: a few megabytes at most, not 64.
    expect(whileUnread).toBeLessThan(16 * 1024 * 1024);
    let read = 0;
    for await (const part of answer.body) read += (part as Buffer).length;
    expect(read).toBe(64 * 1024 * 1024);
  });

  it('is cancelled when its body is destroyed, and when the call aborts: the upstream connection closes', async () => {
    for (const how of ['destroy', 'abort'] as const) {
      let closed: (() => void) | undefined;
      const closing = new Promise<void>((resolve) => (closed = resolve));
      const abort = new RequestAbort();
      const answer = await streamed(
        `/cancel-${how}`,
        (_request, response) => {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.write(sse(0));
          const drip = setInterval(() => response.write(sse(1)), 50);
          response.on('close', () => {
            clearInterval(drip);
            closed!();
          });
        },
        abort,
      );
      answer.body.on('error', () => undefined);
      const at = performance.now();
      if (how === 'destroy') answer.body.destroy();
      else abort.abort();
      await closing;
      expect(performance.now() - at).toBeLessThan(1000);
    }
  });

  it('refused with an error status hands the error body over as any answer', async () => {
    const answer = await streamed('/refused', (_request, response) => {
      response.writeHead(429, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"slow down"}}');
    });
    expect(answer.statusCode).toBe(429);
    expect(answer.collected?.toString('utf8')).toBe('{"error":{"message":"slow down"}}');
  });
});
