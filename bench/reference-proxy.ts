import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

/**
 * The floor a gateway is measured against: the least a relay in Node must do. It reads the whole
 * request, parses its JSON, forwards it over an undici Pool, and either reads and parses the whole
 * answer or passes stream chunks through as they come. No auth, routing, billing or logging.
 *
 * Run as a process with UPSTREAM=http://127.0.0.1:<port>; prints one JSON line {port}.
 */

const upstream = new Pool(process.env.UPSTREAM ?? 'http://127.0.0.1:8081', { connections: null, pipelining: 1 });

const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    void (async () => {
      try {
        const payload = JSON.parse(Buffer.concat(parts).toString('utf8')) as { stream?: boolean };
        const answer = await upstream.request({
          method: 'POST',
          path: request.url ?? '/v1/chat/completions',
          headers: { 'content-type': 'application/json', authorization: 'Bearer upstream-key' },
          body: JSON.stringify(payload),
        });
        const contentType = String(answer.headers['content-type'] ?? 'application/json');
        if (payload.stream === true) {
          response.writeHead(answer.statusCode, { 'content-type': contentType, 'cache-control': 'no-cache' });
          for await (const part of answer.body) response.write(part as Buffer);
          response.end();
          return;
        }
        const result: unknown = JSON.parse(await answer.body.text());
        const text = JSON.stringify(result);
        response.writeHead(answer.statusCode, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
        response.end(text);
      } catch (error) {
        if (response.headersSent) {
          response.destroy();
          return;
        }
        response.writeHead(502, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: String(error), type: 'proxy_error' } }));
      }
    })();
  });
});

// backlog: see mock-upstream.ts (a thousand connections arrive at once).
server.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1', backlog: 4096 }, () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
