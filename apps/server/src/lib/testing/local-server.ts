import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type LocalHandler = (request: ReceivedRequest, response: ServerResponse) => unknown;

/** A real HTTP server on 127.0.0.1 for tests: records what it receives, answers with `handler`. */
export class LocalServer {
  readonly received: ReceivedRequest[] = [];
  url = '';
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(public handler: LocalHandler) {}

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

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of request) parts.push(part as Buffer);
    const received = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(parts).toString('utf8') };
    this.received.push(received);
    try {
      await this.handler(received, response);
    } catch {
      if (!response.headersSent) response.writeHead(500).end();
    }
  }
}

/** Answers with `bytes` as `contentType`, optionally after `delayMs`. */
export const serveBytes =
  (bytes: Buffer, contentType = 'image/png', delayMs = 0): LocalHandler =>
  async (_request, response) => {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    response.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length });
    response.end(bytes);
  };
