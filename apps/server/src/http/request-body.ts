import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { finished, Transform, type Readable, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';

/** A request body must bring at least `minBytesPerSecond × windowSeconds` bytes in every window of its upload. */
export interface BodyRateLimits {
  /** 0 turns the check off. */
  minBytesPerSecond: number;
  windowSeconds: number;
}

/** The codings RFC 9110 names that node:zlib decodes; HTTP's `deflate` is the zlib format. */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

const unsupportedEncoding = (value: string) =>
  new AppError('request:unsupported_encoding', `不支持的 Content-Encoding：${value} (supported: gzip, deflate, br; one coding at most)`, { status: 415 });
const undecodable = (coding: string) =>
  new AppError('request:invalid_encoding', `请求体无法按 Content-Encoding: ${coding} 解压 (the body is not valid ${coding} data)`, { status: 400 });
const tooLargeDecoded = (limit: number) =>
  new AppError('request:body_too_large', `请求体过大 (the body is larger than ${limit} bytes once decompressed)`, { status: 413 });
const tooSlow = (limits: BodyRateLimits) =>
  new AppError('request:body_timeout', `请求体传输过慢 (the body arrived slower than ${limits.minBytesPerSecond} bytes/s over ${limits.windowSeconds} s)`, {
    status: 408,
  });

/**
 * A request body as the content-type parsers read it: the bytes received, counted for the rate
 * check, and decoded when the request names a Content-Encoding. The decoded size is checked as
 * the decoder produces it, so a small body that inflates past the route's limit stops the decoder
 * one 16 KiB piece after the limit instead of being inflated whole.
 */
export class RequestBody extends Transform {
  /** Bytes received as sent. Fastify compares them with Content-Length and the limit (content-type-parser.js). */
  receivedEncodedLength = 0;
  private decodedLength = 0;

  constructor(
    private readonly decoder: Transform | undefined,
    private readonly coding: string,
    private readonly limit: number,
  ) {
    super();
    if (!decoder) return;
    decoder.on('data', (chunk: Buffer) => {
      this.decodedLength += chunk.length;
      if (this.decodedLength > limit) this.fail(tooLargeDecoded(limit));
      else this.push(chunk);
    });
    decoder.on('error', () => this.fail(undecodable(coding)));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.receivedEncodedLength += chunk.length;
    if (!this.decoder) {
      callback(null, chunk);
      return;
    }
    // Called once the decoder has taken in this chunk, so the socket is read no faster than it decodes.
    this.decoder.write(chunk, (error) => {
      if (!error) callback();
    });
  }

  override _flush(callback: TransformCallback): void {
    if (!this.decoder) {
      callback();
      return;
    }
    this.decoder.once('end', () => callback());
    this.decoder.end();
  }

  /** Ends the body with the refusal the content-type parser hands on to the error handler. */
  fail(error: AppError): void {
    if (this.destroyed) return;
    this.decoder?.destroy();
    this.destroy(error);
  }
}

/** A body the rate check watches: its request, and where its current window began. */
interface WatchedBody {
  request: IncomingMessage;
  windowStart: number;
  /** The socket's bytesRead when the window began. */
  windowBytes: number;
}

/**
 * Refuses bodies that trickle in. Every body is noted as its route starts reading (an array slot:
 * no stream, listener or timer per request, which cost a usual call about 10 µs when each body
 * went through a counting stream). One sweep per event-loop turn forgets the bodies that have
 * arrived whole by then, the usual relay call, so the guard keeps no request alive past its turn
 * (holding each for up to a second made them outlive the young generation and cost the collector
 * more than the check itself). The rest are watched: one shared check a second measures them by
 * their socket's bytes read. A body is refused between one window and one window plus a check
 * after it stalls: the refusal reaches the body's reader as an error, so it is answered 408 in
 * the caller's shape with the connection closed.
 */
export class BodyRateGuard {
  private readonly bodies = new Set<WatchedBody>();
  /** Bodies noted this turn, and their sockets' bytesRead then. */
  private noted: IncomingMessage[] = [];
  private notedBytes: number[] = [];
  private sweepQueued = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly windowMs: number;
  private readonly minBytesPerWindow: number;
  private readonly sweep = () => this.sweepNoted();

  constructor(private readonly limits: BodyRateLimits) {
    this.windowMs = limits.windowSeconds * 1000;
    this.minBytesPerWindow = limits.minBytesPerSecond * limits.windowSeconds;
  }

  get enabled(): boolean {
    return this.minBytesPerWindow > 0;
  }

  /** Bodies still arriving that the once-a-second check measures. */
  get watching(): number {
    return this.bodies.size;
  }

  watch(request: IncomingMessage): void {
    this.noted.push(request);
    this.notedBytes.push(request.socket?.bytesRead ?? 0);
    if (this.sweepQueued) return;
    this.sweepQueued = true;
    setImmediate(this.sweep);
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private sweepNoted(): void {
    this.sweepQueued = false;
    const { noted, notedBytes } = this;
    this.noted = [];
    this.notedBytes = [];
    const now = performance.now();
    for (let index = 0; index < noted.length; index += 1) {
      const request = noted[index]!;
      if (request.complete || request.destroyed) continue;
      this.bodies.add({ request, windowStart: now, windowBytes: notedBytes[index]! });
    }
    if (this.bodies.size > 0) this.timer ??= setInterval(() => this.check(), Math.min(1000, this.windowMs / 4)).unref();
  }

  private check(): void {
    const now = performance.now();
    for (const body of this.bodies) {
      const { request } = body;
      // Received whole: what is left is decoding and parsing, not the client's pace.
      if (request.complete || request.destroyed) {
        this.bodies.delete(body);
        continue;
      }
      if (now - body.windowStart < this.windowMs) continue;
      const read = request.socket?.bytesRead ?? 0;
      if (read - body.windowBytes < this.minBytesPerWindow) {
        this.bodies.delete(body);
        // The body's reader (Fastify's, or the decoding stream's) takes it as the body's failure.
        if (request.listenerCount('error') > 0) request.emit('error', tooSlow(this.limits));
        else request.destroy();
        continue;
      }
      body.windowStart = now;
      body.windowBytes = read;
    }
    if (this.bodies.size === 0) this.close();
  }
}

/** The one coding a request's body is sent in; undefined for none (or identity). */
function codingOf(request: FastifyRequest): string | undefined {
  const header = request.headers['content-encoding'];
  if (header === undefined) return undefined;
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return undefined;
  if (codings.length > 1 || !Object.hasOwn(DECODERS, codings[0]!)) throw unsupportedEncoding(header);
  return codings[0];
}

/** Whether a request carries a body (Content-Length above 0, or chunked). */
export const hasRequestBody = (headers: IncomingHttpHeaders) =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * One preParsing hook for every route: decodes gzip, deflate and br bodies (any other coding is
 * refused with 415) with the route's body limit applied to the decoded size, and watches bodies
 * still arriving for the minimum rate. A body that arrived whole and is not encoded, the usual
 * relay call, passes through untouched.
 */
export function installRequestBodyHook(app: FastifyInstance, guard: BodyRateGuard): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (!hasRequestBody(request.headers)) {
      done(null, payload);
      return;
    }
    let coding: string | undefined;
    try {
      coding = codingOf(request);
    } catch (error) {
      done(error as AppError);
      return;
    }
    if (guard.enabled && request.raw.complete === false) guard.watch(request.raw);
    if (coding === undefined) {
      done(null, payload);
      return;
    }
    const limit = request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? Number.POSITIVE_INFINITY;
    const body = new RequestBody(DECODERS[coding]!(), coding, limit);
    // A client that hangs up mid-body (or is refused for its pace) ends the read instead of leaving it waiting.
    finished(payload, (error) => {
      if (error) body.destroy(error);
    });
    payload.pipe(body);
    done(null, body as Readable);
  });
}
