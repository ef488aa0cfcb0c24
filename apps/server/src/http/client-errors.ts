import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { renderError } from '../errors/render.js';
import { isMjModePath, isRelayPath, protocolOfPath } from './caller-protocol.js';

/** How long a refused connection may take to read our answer before it is closed anyway. */
const LINGER_MS = 2000;

/** The refusal for what Node's HTTP parser could not take: the request never reached a route. */
function refusalFor(code: string): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('request:header_too_large', '请求头或 URL 过长 (request header fields or URL too large)', { status: 431 });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request:timeout', '请求未在时限内收完 (the request was not received in time)', { status: 408 });
    default:
      return new AppError('request:malformed', '请求无法解析 (malformed HTTP request)', { status: 400 });
  }
}

/**
 * The path of the request the parser gave up on, from the bytes it had received (`rawPacket`):
 * the request line's path up to its query, when that packet starts with one. A long header can
 * arrive in a later packet than its request line; then the path cannot be told.
 */
export function pathOfRawPacket(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const head = rawPacket.subarray(0, 2048).toString('latin1');
  return /^[A-Z]+ (\/[^\s?#]*)/.exec(head)?.[1];
}

/**
 * Fastify's clientErrorHandler: what Node's HTTP server could not parse or did not receive in
 * time (REQUEST_HEADERS_TIMEOUT, REQUEST_TIMEOUT) is answered with its status in the caller's
 * shape, told by the path when the packet shows it (the envelope on /api, OpenAI's otherwise),
 * and the connection closed. A reset connection, or one whose answer has begun, is only closed.
 */
export function clientErrorHandler(log: FastifyBaseLogger): (error: ConnectionError, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // Node's own handler writes nothing either once an answer has started on this connection.
    const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (!socket.writable || answering) {
      socket.destroy();
      return;
    }
    const path = pathOfRawPacket(error.rawPacket);
    const refusal = refusalFor(error.code);
    const fields = { url: path, status: refusal.status, code: refusal.code, reason: error.code };
    // Idle keep-alive and preconnected sockets reach the header timeout all the time.
    if (refusal.status === 408) log.debug(fields, 'connection refused before its request was read');
    else log.info(fields, 'connection refused before its request was read');

    const body = JSON.stringify(renderError(refusal, protocolOfPath(path ?? '')));
    const cors = path !== undefined && (isRelayPath(path) || isMjModePath(path)) ? 'Access-Control-Allow-Origin: *\r\n' : '';
    socket.end(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${cors}` +
        'Connection: close\r\n\r\n' +
        body,
    );
    // end() half-closes: a client that never closes its side is cut off after the linger.
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}
