import { createStreamObservation, SseSplitter, type OpenAIEndpoint, type StreamObservation } from '@modelgate/protocol';
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
  abort: RequestAbort;
  /** performance.now() when the request arrived. */
  startedAt: number;
  /** Whether the client has gone (set by the caller's close listener). */
  clientGone: () => boolean;
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
  const { response, upstream, adaptor, endpoint, forwardUsage, abort } = options;
  // The headers leave with the first event, in one write, as any plain proxy sends them.
  response.writeHead(200, SSE_HEADERS);

  const splitter = new SseSplitter();
  const observation = createStreamObservation();
  let firstResponseMs = -1;
  let timedOut = false;
  const idle = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, options.idleTimeoutMs);

  const forward = async (bytes: string | Buffer): Promise<void> => {
    if (bytes.length === 0 || options.clientGone()) return;
    if (!response.write(bytes)) await drained(response);
  };

  let end: StreamEnd = 'complete';
  try {
    for await (const part of upstream.body) {
      idle.refresh();
      const chunk = part as Buffer;
      if (firstResponseMs < 0) firstResponseMs = Math.round(performance.now() - options.startedAt);
      const carried = splitter.pendingLength > 0;
      const events = splitter.push(chunk);
      if (forwardUsage) {
        for (const event of events) adaptor.observeStreamEvent(endpoint, observation, event);
        // Nothing is dropped: the upstream's bytes go out exactly as they came.
        await forward(chunk);
        continue;
      }
      const kept: Buffer[] = [];
      for (const event of events) {
        if (!adaptor.observeStreamEvent(endpoint, observation, event).usageOnly) kept.push(event.raw);
      }
      // A chunk of whole events with nothing dropped goes out as the very bytes that came in.
      const whole = kept.length === events.length && !carried && splitter.pendingLength === 0;
      await forward(whole ? chunk : kept.length === 1 ? kept[0]! : Buffer.concat(kept));
    }
    const tail = splitter.finish();
    if (tail) {
      adaptor.observeStreamEvent(endpoint, observation, tail);
      if (!forwardUsage) await forward(tail.raw);
    }
  } catch {
    end = timedOut ? 'timeout' : options.clientGone() ? 'client_gone' : 'upstream_broken';
  } finally {
    clearTimeout(idle);
    adaptor.finishStream(endpoint, observation);
  }
  if (end === 'complete' && options.clientGone()) end = 'client_gone';

  if (end === 'timeout' || end === 'upstream_broken') {
    const message =
      end === 'timeout'
        ? `上游超过 ${Math.round(options.idleTimeoutMs / 1000)} 秒没有返回数据，流已中断 (the upstream went silent; stream aborted)`
        : '上游连接中断，流已结束 (the upstream connection broke mid-stream)';
    const code = end === 'timeout' ? 'stream_timeout' : 'upstream_stream_broken';
    await forward(`data: ${JSON.stringify({ error: { message, type: 'upstream_error', param: null, code } })}\n\n`);
  }
  return { observation, end, firstResponseMs };
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
