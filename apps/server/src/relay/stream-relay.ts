import type { OpenAIEndpoint, StreamBytes, StreamObservation } from '@modelgate/protocol';
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { CompletionCheck } from '../domain/sensitive/sensitive-filter.js';
import type { ProviderAdaptor, StreamReader } from '../providers/provider-types.js';
import type { RequestAbort } from './request-abort.js';
import { SensitiveStreamReader } from './sensitive-answer.js';
import type { StreamWatchdog } from './stream-watchdog.js';
import { upstreamDrained, upstreamEnded } from './upstream-body.js';

/** How a relayed stream ended. */
export type StreamEnd = 'complete' | 'client_gone' | 'timeout' | 'upstream_broken';

export interface StreamResult {
  observation: StreamObservation;
  end: StreamEnd;
  /**
   * The client got the headers (the upstream sent at least one byte, or ended cleanly). When
   * false nothing was written and the relay may still try another channel.
   */
  committed: boolean;
  /** Milliseconds from the request's start to the first upstream body byte; -1 if none came. */
  firstResponseMs: number;
  /** Listed words the answer check found (undefined: the check was off). */
  sensitiveWords: readonly string[] | undefined;
  /**
   * The upstream's last bytes, not written yet: a complete stream leaves them to the response's
   * end (endStream), so they and the closing chunk go out in one write with nothing after them.
   */
  last: readonly Buffer[];
}

export interface StreamRelayOptions {
  response: ServerResponse;
  /** Called once, just before the headers are written: from then on the answer is this stream's. */
  commit: () => void;
  upstream: Dispatcher.ResponseData;
  adaptor: ProviderAdaptor;
  endpoint: OpenAIEndpoint;
  /** Forward usage-only events (the client asked for usage, or the relay did not ask for it). */
  forwardUsage: boolean;
  /** Ends the stream when the upstream goes silent (STREAMING_TIMEOUT; before the first byte, the first-byte limit). */
  watchdog: StreamWatchdog;
  /** Aborts the upstream request; its `clientLeft` says the client has gone. */
  abort: RequestAbort;
  /** performance.now() when the request arrived. */
  startedAt: number;
  /** Check the generated text for listed words (sensitive-answer.ts); undefined: no check, no cost. */
  completionCheck?: CompletionCheck | undefined;
  /**
   * StreamCacheQueueLength: how many upstream reads may wait in memory for a slow client before
   * the upstream read is paused. 0 pauses at the first full socket (the least memory); a few
   * reads keep a fast upstream streaming through a client's short stalls.
   */
  queueLength?: number;
  /**
   * The reader of a stream whose format the relay converts (chat-translation.ts; it does its own
   * answer check); absent: the adaptor's own OpenAI reader, wrapped for the check.
   */
  reader?: StreamReader | undefined;
  /** The answer's content type when it is not SSE (Gemini's JSON-array stream). */
  contentType?: string | undefined;
  /** The error event in the client's format; absent: OpenAI's `data: {"error": …}`. */
  errorEvent?: ((message: string, code: string) => string | undefined) | undefined;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
  // The response bypasses the reply object, so the relay's CORS header is repeated here.
  'access-control-allow-origin': '*',
} as const;

/**
 * Passes an upstream SSE stream to the client as it arrives, observing it for usage and text.
 * Writes respect backpressure (a slow client pauses the upstream read, not memory). When the
 * upstream is silent for STREAMING_TIMEOUT (see the watchdog) the stream gets an error event,
 * never a fake [DONE].
 * Nothing is written before the upstream's first byte: a stream silent or broken before it is
 * returned uncommitted, so that the caller can try another channel.
 * The caller ends the response once it has settled the bill.
 *
 * The body is read through its events rather than an async iterator: the iterator costs a
 * promise per chunk and a set of end-of-stream listeners per stream, on a path every stream takes.
 */
export async function relayStream(options: StreamRelayOptions): Promise<StreamResult> {
  const { response, upstream, abort, watchdog } = options;
  const body = upstream.body;
  let committed = false;
  // The headers leave with the first event, in one write, as any plain proxy sends them.
  const commit = () => {
    committed = true;
    options.commit();
    response.writeHead(200, options.contentType ? { ...SSE_HEADERS, 'content-type': options.contentType } : SSE_HEADERS);
  };

  const read = options.reader ?? options.adaptor.readStream(options.endpoint, !options.forwardUsage);
  const reader = options.completionCheck && !options.reader ? new SensitiveStreamReader(read, options.endpoint, options.completionCheck) : read;
  const sensitiveWords = reader.sensitiveWords;
  // Readers that may end the answer themselves: the answer check, a capped call's output meter.
  const mayStop = sensitiveWords !== undefined || read.cutAtCap !== undefined;
  // The reader ended the answer (a listed word with StopOnSensitiveEnabled, the output cap): the upstream is let go.
  let stopped = false;
  let firstResponseMs = -1;
  // The bytes read when the upstream had already ended: they wait for the response's end.
  let last: StreamBytes | undefined;
  let timedOut = false;
  // An upstream that answered at once has its whole stream in the body already (often one socket
  // read brought every event and the end): it is read here and now, with no silence to watch and
  // no events to wait for.
  const arrived = upstreamEnded(body);
  // Destroying the body aborts the upstream request without marking the call aborted: the next
  // channel may still be tried when nothing was written.
  const watched = arrived
    ? undefined
    : watchdog.watch(() => {
        timedOut = true;
        body.destroy();
      });

  // Read while the client keeps up; past the queue length of full-socket writes the relay stops
  // reading (the body's buffer fills and undici stops reading the upstream socket) until the
  // client drains, or leaves.
  const queueLength = options.queueLength ?? 0;
  let queued = 0;
  let paused = false;
  // Everything one socket read brought (often the whole answer: each event is an HTTP chunk of
  // its own) comes out of one body.read() as one buffer: one observation and one write (one
  // chunked-encoding frame) for all of it, where a 'data' listener ran once per event.
  const readAvailable = () => {
    let chunk: Buffer | null = null;
    while (!paused && !stopped && (chunk = body.read() as Buffer | null) !== null) {
      const now = performance.now();
      if (watched) watched.lastActivity = now;
      if (firstResponseMs < 0) {
        firstResponseMs = Math.round(now - options.startedAt);
        if (watched) watchdog.started(watched);
      }
      if (!committed) commit();
      const bytes = reader.push(chunk);
      // Often the whole answer came in one socket read: held back, it leaves with the response's
      // end (headers, events and the closing chunk in one write) instead of in a write of its own.
      // Only once usage is known: the bill is then settled at once, where counting the text of an
      // answer without usage would keep the client waiting for its last bytes.
      if (reader.observation.usage !== undefined && upstreamDrained(body)) last = bytes;
      else if (!write(response, bytes, abort) && (queued += 1) > queueLength) {
        paused = true;
        if (watched) watched.held = true;
      }
      if (mayStop && reader.stopped) {
        stopped = true;
        // undici's body errors when destroyed before its end is emitted; an answer read at once
        // has no other listener for it.
        body.once('error', ignore);
        body.destroy();
      }
    }
  };
  let end: StreamEnd;
  if (!watched) {
    // One read takes everything (a body not flowing hands over all it holds); a write the client
    // cannot take yet is buffered by the response, as it would be for a single event.
    readAvailable();
    end = 'complete';
  } else {
    const resume = () => {
      queued = 0;
      if (!paused) return;
      paused = false;
      // The time the client kept the upstream waiting is not the upstream's silence.
      watched.held = false;
      watched.lastActivity = performance.now();
      readAvailable();
    };
    response.on('drain', resume);
    response.on('close', resume);
    end = await new Promise<StreamEnd>((resolve) => {
      // A promise settles once: whichever of end, error and close comes first decides.
      const broken = (): StreamEnd => (stopped ? 'complete' : timedOut ? 'timeout' : abort.clientLeft ? 'client_gone' : 'upstream_broken');
      body.on('readable', readAvailable);
      body.once('end', () => resolve('complete'));
      body.once('error', () => resolve(broken()));
      // A body destroyed without an error (never expected from undici) still ends the stream.
      body.once('close', () => resolve(body.readableEnded ? 'complete' : broken()));
    });
    response.off('drain', resume);
    response.off('close', resume);
    watchdog.unwatch(watched);
  }
  if (!committed) {
    if (end !== 'complete' || abort.clientLeft)
      return { observation: reader.observation, end: abort.clientLeft ? 'client_gone' : end, committed, firstResponseMs, sensitiveWords, last: [] };
    // An upstream that ended cleanly without a byte answered an empty stream: that is passed on.
    commit();
  }

  const tail = reader.finish();
  if (end === 'complete' && abort.clientLeft) end = 'client_gone';
  if (end === 'complete') {
    // An unterminated last event goes out only when the upstream itself ended there; after a cut,
    // it would run into the error event.
    return { observation: reader.observation, end, committed, firstResponseMs, sensitiveWords, last: piecesOf(last, tail) };
  }
  write(response, last, abort);

  if (end === 'timeout' || end === 'upstream_broken') {
    const message =
      end === 'timeout'
        ? `上游超过 ${Math.round(watchdog.idleMs / 1000)} 秒没有返回数据，流已中断 (the upstream went silent; stream aborted)`
        : '上游连接中断，流已结束 (the upstream connection broke mid-stream)';
    const code = end === 'timeout' ? 'stream_timeout' : 'upstream_stream_broken';
    const event = options.errorEvent?.(message, code) ?? `data: ${JSON.stringify({ error: { message, type: 'upstream_error', param: null, code } })}\n\n`;
    write(response, event, abort);
  }
  return { observation: reader.observation, end, committed, firstResponseMs, sensitiveWords, last: [] };
}

const ignore = () => undefined;

function piecesOf(held: StreamBytes | undefined, tail: Buffer | undefined): readonly Buffer[] {
  const pieces: Buffer[] = held === undefined ? [] : Array.isArray(held) ? [...held] : [held as Buffer];
  if (tail !== undefined) pieces.push(tail);
  return pieces;
}

/**
 * Ends a relayed stream with its held last bytes: Node corks the socket for `end`, so the pieces,
 * the closing chunk and, if nothing was written yet, the headers leave in one write.
 */
export function endStream(response: ServerResponse, last: readonly Buffer[]): void {
  if (response.writableEnded) return;
  let final: Buffer | undefined;
  response.cork();
  for (const piece of last) {
    if (piece.length === 0) continue;
    if (final !== undefined) response.write(final);
    final = piece;
  }
  if (final === undefined) response.end();
  else response.end(final);
  response.uncork();
}

/**
 * Writes what the reader passed on: nothing, one buffer, or the pieces left around a dropped
 * event (corked, so they leave in one write). Returns false when the socket wants a pause.
 */
function write(response: ServerResponse, bytes: StreamBytes | string | undefined, abort: RequestAbort): boolean {
  if (bytes === undefined || abort.clientLeft) return true;
  if (!Array.isArray(bytes)) return bytes.length === 0 || response.write(bytes);
  response.cork();
  let more = true;
  for (const piece of bytes) if (piece.length > 0) more = response.write(piece);
  response.uncork();
  return more;
}
