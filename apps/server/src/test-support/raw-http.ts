import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 answer read off a raw socket. */
export interface RawExchange {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** The body parsed as JSON. */
  body: unknown;
  /** Milliseconds from connecting to the whole answer. */
  answeredAfter: number;
  /** Milliseconds from connecting to the connection's close. */
  closedAfter: Promise<number>;
}

/**
 * Connects to 127.0.0.1:`port`, lets `send` write the request at its own pace (slow clients,
 * malformed requests an HTTP client library would not send) and reads one answer with a
 * Content-Length and a JSON body.
 */
export function rawExchange(port: number, send: (socket: Socket) => void): Promise<RawExchange> {
  const started = performance.now();
  const socket = connect(port, '127.0.0.1');
  const closedAfter = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now() - started)));
  // A server that refuses a request may reset the connection while the client still writes.
  socket.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const [statusLine = '', ...lines] = received.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length']);
      if (received.length < headEnd + 4 + length) return;
      const text = received.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(text), answeredAfter: performance.now() - started, closedAfter });
    });
    socket.on('close', () => reject(new Error(`closed without an answer; received ${JSON.stringify(received.toString('latin1'))}`)));
    socket.on('connect', () => send(socket));
  });
}
