import type { OpenAIEndpoint, StreamObservation } from '@modelgate/protocol';
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { ProviderAdaptor } from '../providers/provider-types.js';
import type { RequestAbort } from './request-abort.js';

/** How a relayed stream ended. */
export type StreamEnd = 'complete' | 'client_gone' | 'timeout' | 'upstream_broken';

export interface StreamResult {
  observation: StreamObservation;
  end: StreamEnd;
  /** Milliseconds from the request's start to the first upstream body byte; -1 if none came. */
  firstResponseMs: number;
}

export interface StreamRelayOptions {
  response: ServerResponse;
  upstream: Dispatcher.ResponseData;
  adaptor: ProviderAdaptor;
  endpoint: OpenAIEndpoint;
  /** Forward usage-only events (the client asked for usage, or the relay did not ask for it). */
  forwardUsage: boolean;
  idleTimeoutMs: number;
  /** Aborts the upstream request; its `clientLeft` says the client has gone. */
  abort: RequestAbort;
  /** performance.now() when the request arrived. */
  startedAt: number;
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
 * Writes respect backpressure (a slow client slows the upstream read, not memory). When the
 * upstream is silent for `idleTimeoutMs` the stream gets an error event, never a fake [DONE].
 * The caller ends the response once it has settled the bill.
 */
export async function relayStream(options: StreamRelayOptions): Promise<StreamResult> {
  const { response, upstream, abort } = options;
  // The headers leave with the first event, in one write, as any plain proxy sends them.
  response.writeHead(200, SSE_HEADERS);

  const reader = options.adaptor.readStream(options.endpoint, !options.forwardUsage);
  let firstResponseMs = -1;
  let timedOut = false;
  const idle = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, options.idleTimeoutMs);

  const forward = async (bytes: string | Buffer | undefined): Promise<void> => {
    if (bytes === undefined || bytes.length === 0 || abort.clientLeft) return;
    if (!response.write(bytes)) await drained(response);
  };

  let end: StreamEnd = 'complete';
  try {
    for await (const part of upstream.body) {
      idle.refresh();
      if (firstResponseMs < 0) firstResponseMs = Math.round(performance.now() - options.startedAt);
      await forward(reader.push(part as Buffer));
    }
  } catch {
    end = timedOut ? 'timeout' : abort.clientLeft ? 'client_gone' : 'upstream_broken';
  } finally {
    clearTimeout(idle);
  }
  const tail = reader.finish();
  // An unterminated last event goes out only when the upstream itself ended there; after a cut,
  // it would run into the error event.
  if (end === 'complete') await forward(tail);
  if (end === 'complete' && abort.clientLeft) end = 'client_gone';

  if (end === 'timeout' || end === 'upstream_broken') {
    const message =
      end === 'timeout'
        ? `上游超过 ${Math.round(options.idleTimeoutMs / 1000)} 秒没有返回数据，流已中断 (the upstream went silent; stream aborted)`
        : '上游连接中断，流已结束 (the upstream connection broke mid-stream)';
    const code = end === 'timeout' ? 'stream_timeout' : 'upstream_stream_broken';
    await forward(`data: ${JSON.stringify({ error: { message, type: 'upstream_error', param: null, code } })}\n\n`);
  }
  return { observation: reader.observation, end, firstResponseMs };
}

/** Resolves when the socket can take more, or when it is gone. */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
