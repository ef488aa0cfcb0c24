import type { OpenAIEndpoint, TokenUsage } from '@modelgate/protocol';
import type { FastifyReply } from 'fastify';
import type { Dispatcher } from 'undici';
import type { ProviderAdaptor } from '../providers/provider-types.js';
import type { RequestAbort } from './request-abort.js';
import { relayStream, type StreamEnd } from './stream-relay.js';
import type { StreamWatchdog } from './stream-watchdog.js';

/** An upstream answer received (and, for streams, passed on) and ready to be billed. */
export interface Delivery {
  isStream: boolean;
  /** Usage the upstream reported; undefined means count it. */
  usage: TokenUsage | undefined;
  /** The generated text, counted when no usage was reported. */
  completionTexts: readonly string[];
  /** Something was generated; a stream that produced nothing is not billed. */
  billable: boolean;
  firstResponseMs: number;
  streamEnd: StreamEnd | undefined;
  /** Sends the answer (buffered answers) or ends the stream; called once billing is settled. */
  finish(): void;
}

export interface DeliverOptions {
  reply: FastifyReply;
  upstream: Dispatcher.ResponseData;
  adaptor: ProviderAdaptor;
  endpoint: OpenAIEndpoint;
  startedAt: number;
  abort: RequestAbort;
}

const isJson = (contentType: string) => contentType.includes('json');

/**
 * A whole answer read into memory and sent unchanged, byte for byte, after billing. Its JSON is
 * parsed only to read usage (or the text to count when there is none).
 */
export async function deliverBuffered(options: DeliverOptions): Promise<Delivery> {
  const { upstream, adaptor, endpoint, reply } = options;
  const firstResponseMs = Math.round(performance.now() - options.startedAt);
  const body = Buffer.from(await upstream.body.arrayBuffer());
  const contentType = String(upstream.headers['content-type'] ?? 'application/json');
  let answer: unknown;
  let completionTexts: readonly string[] = [];
  if (isJson(contentType)) {
    try {
      answer = JSON.parse(body.toString('utf8'));
    } catch {
      answer = undefined;
    }
  } else if (endpoint === 'transcriptions' || endpoint === 'translations') {
    // response_format text/srt/vtt: the body is the transcript.
    completionTexts = [body.toString('utf8')];
  }
  const usage = answer === undefined ? undefined : adaptor.parseUsage(endpoint, answer);
  if (usage === undefined && answer !== undefined) completionTexts = adaptor.completionText(endpoint, answer);
  return {
    isStream: false,
    usage,
    completionTexts,
    billable: true,
    firstResponseMs,
    streamEnd: undefined,
    finish: () => {
      void reply.code(upstream.statusCode).header('content-type', contentType).send(body);
    },
  };
}

/** Audio and other binary answers are piped through, never held whole in memory. */
export function deliverPiped(options: DeliverOptions): Delivery {
  const { upstream, reply } = options;
  const contentType = String(upstream.headers['content-type'] ?? 'application/octet-stream');
  return {
    isStream: false,
    usage: undefined,
    completionTexts: [],
    billable: true,
    firstResponseMs: Math.round(performance.now() - options.startedAt),
    streamEnd: undefined,
    finish: () => {
      void reply.code(upstream.statusCode).header('content-type', contentType).send(upstream.body);
    },
  };
}

export async function deliverStream(options: DeliverOptions & { forwardUsage: boolean; watchdog: StreamWatchdog }): Promise<Delivery> {
  const { reply } = options;
  reply.hijack();
  const result = await relayStream({
    response: reply.raw,
    upstream: options.upstream,
    adaptor: options.adaptor,
    endpoint: options.endpoint,
    forwardUsage: options.forwardUsage,
    watchdog: options.watchdog,
    abort: options.abort,
    startedAt: options.startedAt,
  });
  const { observation } = result;
  return {
    isStream: true,
    usage: observation.usage,
    completionTexts: observation.textParts,
    billable: observation.usage !== undefined || observation.textParts.length > 0,
    firstResponseMs: result.firstResponseMs,
    streamEnd: result.end,
    finish: () => {
      if (!reply.raw.writableEnded) reply.raw.end();
    },
  };
}
