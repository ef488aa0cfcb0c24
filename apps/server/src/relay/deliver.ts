import type { OpenAIEndpoint, TokenUsage } from '@modelgate/protocol';
import type { RelayReply } from './relay-exchange.js';
import type { Dispatcher } from 'undici';
import type { CompletionCheck } from '../domain/sensitive/sensitive-filter.js';
import { renderError } from '../errors/render.js';
import type { ProviderAdaptor, StreamReader } from '../providers/provider-types.js';
import type { UpstreamResponse } from '../providers/upstream-client.js';
import type { ChatTranslation } from './chat-translation.js';
import { AnswerTail, estimatedUsage, passAnswerThrough, usageFromTail } from './oversized-answer.js';
import type { RequestAbort } from './request-abort.js';
import { checkAnswer, sensitiveAnswerRefusal } from './sensitive-answer.js';
import { endStream, relayStream, type StreamEnd } from './stream-relay.js';
import type { StreamWatchdog } from './stream-watchdog.js';
import { arrivedBody } from './upstream-body.js';
import { errorProtocolFor } from './chat-codecs.js';
import { badResponseBody, clientErrorForConnection, upstreamTimeout } from './upstream-failure.js';

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
  /** Listed words the answer check found in the answer (logged with its charge). */
  sensitiveWords?: readonly string[] | undefined;
  /** A capped call's stream the output meter ended at the cap (set by the relay, for capped calls only). */
  cutAtCap?: boolean;
  /** Sends the answer (buffered answers) or ends the stream; called once billing is settled. */
  finish(): void;
}

export interface DeliverOptions {
  reply: RelayReply;
  upstream: UpstreamResponse;
  adaptor: ProviderAdaptor;
  endpoint: OpenAIEndpoint;
  startedAt: number;
  abort: RequestAbort;
  /**
   * Check the generated text of chat, completions and responses answers for listed words
   * (sensitive-answer.ts); undefined: no check. Answers past the buffer cap are not checked.
   */
  completionCheck?: CompletionCheck | undefined;
}

const isJson = (contentType: string) => contentType.includes('json');

/** Endpoints whose answer is JSON whatever the upstream calls it; audio ones may answer text. */
const answersJson = (endpoint: OpenAIEndpoint, contentType: string) =>
  isJson(contentType) || (endpoint !== 'transcriptions' && endpoint !== 'translations' && endpoint !== 'speech');

/**
 * What a whole answer's delivery needs beyond DeliverOptions. A separate object of one shape,
 * never spread into the options: a spread gives V8 a new hidden class per call, and every property
 * read of such an object then misses its inline cache (seen in `perf` as new maps per request).
 */
export interface BufferedSettings {
  /** Largest answer held whole (RELAY_MAX_BUFFERED_BYTES); a larger one is passed through. */
  maxBufferedBytes: number;
  /** The request's fields: an oversized answer without usage is billed from its counted prompt. */
  fields: Record<string, unknown>;
  /**
   * Given for a stream request answered whole: undici's body timeout is off for stream requests,
   * so the stream watchdog bounds the silence instead (its first-byte limit).
   */
  watchdog: StreamWatchdog | undefined;
  /** A chat answer in another format than the client's (or a native one passed through): read and converted by it. */
  translation: ChatTranslation | undefined;
}

/**
 * A whole answer read into memory and sent unchanged, byte for byte, after billing. Its JSON is
 * parsed only to read usage (or the text to count when there is none); a JSON endpoint's answer
 * that does not parse is an upstream failure (nothing was sent yet, another channel may be tried).
 * An answer larger than `maxBufferedBytes` is passed through as it arrives instead (see
 * oversized-answer.ts).
 */
export async function deliverBuffered(options: DeliverOptions, settings: BufferedSettings): Promise<Delivery> {
  const { upstream, adaptor, endpoint, reply } = options;
  const firstResponseMs = Math.round((upstream.respondedAt ?? performance.now()) - options.startedAt);
  const contentType = String(upstream.headers['content-type'] ?? 'application/json');
  const declared = Number(upstream.headers['content-length'] ?? Number.NaN);
  const collected = upstream.collected;
  const silence = collected === undefined && settings.watchdog ? watchSilence(settings.watchdog, upstream.body) : undefined;
  let body: Buffer;
  const translation = settings.translation;
  try {
    // A converted answer must be read whole; one past the cap cannot be converted.
    // Read whole already (UpstreamClient.collect), or read here.
    if (collected !== undefined) body = collected;
    else if (declared > settings.maxBufferedBytes) {
      if (translation) throw badResponseBody(`${declared} bytes, too large to convert`);
      return await deliverOversized(options, settings.fields, [], contentType, firstResponseMs, silence);
    } else if (declared >= 0 && !silence) {
      // The usual answer: of a known length within the cap, often all here already (then read at
      // once), else taken whole by undici's own reader.
      body = arrivedBody(upstream.body) ?? Buffer.from(await upstream.body.arrayBuffer());
    } else {
      const read = await readCapped(upstream.body, settings.maxBufferedBytes, silence);
      if (read.body === undefined) {
        if (translation) {
          upstream.body.destroy();
          throw badResponseBody(`more than ${settings.maxBufferedBytes} bytes, too large to convert`);
        }
        return await deliverOversized(options, settings.fields, read.head, contentType, firstResponseMs, silence);
      }
      body = read.body;
    }
  } catch (error) {
    throw silence?.timedOut ? upstreamTimeout(error) : error;
  } finally {
    silence?.stop();
  }
  let answer: unknown;
  let completionTexts: readonly string[] = [];
  if (answersJson(endpoint, contentType)) {
    try {
      answer = JSON.parse(body.toString('utf8'));
    } catch {
      throw badResponseBody(`HTTP ${upstream.statusCode}, ${contentType}, ${body.length} bytes that are not JSON`);
    }
    if (typeof answer !== 'object' || answer === null) throw badResponseBody(`HTTP ${upstream.statusCode}, JSON that is not an object`);
  } else {
    // response_format text/srt/vtt: the body is the transcript.
    completionTexts = [body.toString('utf8')];
  }
  if (translation && answer !== undefined)
    return deliverTranslated(options, translation, answer as Record<string, unknown>, body, contentType, firstResponseMs);
  const usage = answer === undefined ? undefined : adaptor.parseUsage(endpoint, answer);
  if (usage === undefined && answer !== undefined) completionTexts = adaptor.completionText(endpoint, answer);
  // After usage and text are read: billing counts what the upstream generated, words and all.
  const check = options.completionCheck;
  const sensitiveWords =
    check && answer !== undefined && CHECKED_ENDPOINTS.has(endpoint) ? checkAnswer(check, endpoint, answer as Record<string, unknown>) : undefined;
  const found = sensitiveWords !== undefined && sensitiveWords.length > 0;
  // With StopOnSensitiveEnabled the caller gets new-api's refusal instead; without it, the answer masked.
  const refusal = found && check?.stop ? sensitiveAnswerRefusal(sensitiveWords) : undefined;
  const sent = found && !refusal ? Buffer.from(JSON.stringify(answer)) : body;
  return {
    isStream: false,
    usage,
    completionTexts,
    billable: true,
    firstResponseMs,
    streamEnd: undefined,
    sensitiveWords,
    finish: () => {
      if (refusal) void reply.code(refusal.status).send(renderError(refusal, 'openai'));
      else void reply.code(upstream.statusCode).header('content-type', contentType).send(sent);
    },
  };
}

/** A whole chat answer converted to the client's format (or a native one passed on as it came). */
function deliverTranslated(
  options: DeliverOptions,
  translation: ChatTranslation,
  answer: Record<string, unknown>,
  body: Buffer,
  contentType: string,
  firstResponseMs: number,
): Delivery {
  const { reply, upstream } = options;
  const translated = translation.whole(answer, options.completionCheck);
  const refusal = translated.refusal;
  return {
    isStream: false,
    usage: translated.usage,
    completionTexts: translated.usage === undefined ? translated.texts : [],
    billable: true,
    firstResponseMs,
    streamEnd: undefined,
    sensitiveWords: translated.sensitiveWords,
    finish: () => {
      if (refusal) void reply.code(refusal.status).send(renderError(refusal, errorProtocolFor(translation.inbound)));
      else if (translated.body) void reply.code(200).header('content-type', 'application/json').send(translated.body);
      else void reply.code(upstream.statusCode).header('content-type', contentType).send(body);
    },
  };
}

/** Answers whose generated text the sensitive-word check reads. */
const CHECKED_ENDPOINTS: ReadonlySet<OpenAIEndpoint> = new Set(['chat', 'completions', 'responses']);

/** Watches a body the stream watchdog guards; `timedOut` tells its abort from others. */
interface SilenceWatch {
  timedOut: boolean;
  touch(): void;
  stop(): void;
}

function watchSilence(watchdog: StreamWatchdog, body: Dispatcher.ResponseData['body']): SilenceWatch {
  const watch: SilenceWatch = {
    timedOut: false,
    touch: () => (watched.lastActivity = performance.now()),
    stop: () => watchdog.unwatch(watched),
  };
  const watched = watchdog.watch(() => {
    watch.timedOut = true;
    body.destroy();
  });
  return watch;
}

/**
 * Reads a body until it ends (`body`) or passes `cap` bytes (`head`: what was read, the body
 * paused). Read through its events, as streams are, rather than an iterator's promise per chunk.
 */
function readCapped(
  body: Dispatcher.ResponseData['body'],
  cap: number,
  silence: SilenceWatch | undefined,
): Promise<{ body: Buffer; head?: undefined } | { body?: undefined; head: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (part: Buffer) => {
      silence?.touch();
      parts.push(part);
      size += part.length;
      if (size <= cap) return;
      body.pause();
      body.off('data', onData);
      body.off('end', onEnd);
      // The error listener stays until the pass-through reads on: an error meanwhile is then no crash.
      resolve({ head: parts });
    };
    const onEnd = () => {
      body.off('error', reject);
      resolve({ body: parts.length === 1 ? parts[0]! : Buffer.concat(parts, size) });
    };
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', reject);
  });
}

/**
 * An answer past the cap: passed through unparsed, billed from the usage in its last bytes, else
 * the counted prompt and an estimate of the output. An answer the upstream cut off is not billed
 * (the client got broken JSON); one the client left is billed for what passed.
 */
async function deliverOversized(
  options: DeliverOptions,
  fields: Record<string, unknown>,
  head: Buffer[],
  contentType: string,
  firstResponseMs: number,
  silence: SilenceWatch | undefined,
): Promise<Delivery> {
  const { reply, upstream, abort, adaptor, endpoint } = options;
  const tail = new AnswerTail();
  let bytes = 0;
  // A client that reads slowly pauses the upstream read: its drains are progress, not silence.
  if (silence) reply.raw.on('drain', silence.touch);
  const complete = await passAnswerThrough(reply, upstream, head, contentType, (chunk) => {
    silence?.touch();
    bytes += chunk.length;
    tail.push(chunk);
  });
  if (silence) reply.raw.off('drain', silence.touch);
  const billable = complete || abort.clientLeft;
  const usage = billable ? (usageFromTail(tail.text(), adaptor, endpoint) ?? (await estimatedUsage(endpoint, fields, bytes))) : undefined;
  return {
    isStream: false,
    usage,
    completionTexts: [],
    billable,
    firstResponseMs,
    streamEnd: undefined,
    finish: () => {
      if (complete) reply.raw.end();
      else reply.raw.destroy();
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

/**
 * Relays a stream. One that ended before its first byte (silent past the first-byte limit, or
 * broken) has sent the client nothing: it fails like a connection failure, so another channel
 * may be tried.
 */
export interface StreamSettings {
  /** Forward usage-only events (the client asked for usage, or the relay did not ask for it). */
  forwardUsage: boolean;
  watchdog: StreamWatchdog;
  queueLength: number;
  /** A converting reader (chat-translation.ts) or a capped call's metered one; undefined: the adaptor's own OpenAI reader. */
  reader: StreamReader | undefined;
  errorEvent: ((message: string, code: string) => string | undefined) | undefined;
  contentType: string | undefined;
}

export async function deliverStream(options: DeliverOptions, settings: StreamSettings): Promise<Delivery> {
  const { reply } = options;
  const result = await relayStream({
    response: reply.raw,
    commit: () => reply.hijack(),
    upstream: options.upstream,
    adaptor: options.adaptor,
    endpoint: options.endpoint,
    forwardUsage: settings.forwardUsage,
    watchdog: settings.watchdog,
    abort: options.abort,
    startedAt: options.startedAt,
    completionCheck: options.completionCheck,
    queueLength: settings.queueLength,
    reader: settings.reader,
    errorEvent: settings.errorEvent,
    contentType: settings.contentType,
  });
  if (!result.committed) {
    throw result.end === 'timeout' ? upstreamTimeout() : clientErrorForConnection(new Error(`the upstream stream ended before its first byte (${result.end})`));
  }
  const { observation } = result;
  return {
    isStream: true,
    usage: observation.usage,
    completionTexts: observation.textParts,
    billable: observation.usage !== undefined || observation.textParts.length > 0,
    firstResponseMs: result.firstResponseMs,
    streamEnd: result.end,
    sensitiveWords: result.sensitiveWords,
    finish: () => endStream(reply.raw, result.last),
  };
}
