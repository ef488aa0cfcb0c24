import { SseSplitter } from '../sse/sse-splitter.js';
import type { OpenAIEndpoint } from './endpoints.js';
import { SseEvent } from '../sse/sse-splitter.js';
import {
  createStreamObservation,
  finishStreamObservation,
  holdUnread,
  observeStreamEvent,
  observeUsageEvent,
  singleDataLine,
  usageMentionAt,
  type StreamObservation,
} from './stream-observer.js';

/**
 * Bytes to forward for one upstream chunk: the chunk itself or part of it, or the pieces left
 * around a dropped event, to be written in order (an empty buffer or list: nothing).
 */
export type StreamBytes = Buffer | readonly Buffer[];

/**
 * Reads an OpenAI-style SSE stream as a relay passes it on: each chunk in, the bytes to forward
 * out, and an observation (usage, text) kept on the side. Pure apart from its own state.
 *
 * The usual chunk (whole events, none carrying usage) is forwarded as the very buffer that came
 * in and held unparsed, with no per-event work at all; only chunks with usage or cut events go
 * through the event splitter.
 */
export class OpenAIStreamReader {
  readonly observation: StreamObservation = createStreamObservation();
  private readonly splitter = new SseSplitter();

  constructor(
    private readonly endpoint: OpenAIEndpoint,
    /** Drop events carrying only usage (the relay asked for usage; the client did not). */
    private readonly dropUsageOnly: boolean,
  ) {}

  /** Returns what to forward for this chunk: the chunk itself, part of it, or nothing. */
  push(chunk: Buffer): StreamBytes {
    if (this.splitter.pendingLength === 0 && endsWithBlankLine(chunk)) {
      const text = chunk.toString('latin1');
      const at = usageMentionAt(text, 0);
      if (at === -1) {
        holdUnread(this.endpoint, this.observation, text);
        return chunk;
      }
      // Whole events with \n line ends (the usual stream): only the events with usage are read.
      if (chunk.indexOf(CR) === -1) return this.pushWithUsage(chunk, text, at);
    }
    const carried = this.splitter.pendingLength > 0;
    const events = this.splitter.push(chunk);
    const kept: Buffer[] = [];
    for (const event of events) {
      const verdict = observeStreamEvent(this.endpoint, this.observation, event);
      if (!(verdict.usageOnly && this.dropUsageOnly)) kept.push(event.raw);
    }
    // Whole events with nothing dropped go out as the very bytes that came in.
    if (kept.length === events.length && !carried && this.splitter.pendingLength === 0) return chunk;
    return kept.length === 1 ? kept[0]! : kept;
  }

  /**
   * A chunk of whole `\n`-terminated events where `first` is the first usage mention: the events
   * around each mention are read, the stretches between them held unread, and a usage-only event
   * cut out when the client did not ask for it.
   */
  private pushWithUsage(chunk: Buffer, text: string, first: number): StreamBytes {
    const kept: Buffer[] = [];
    let cursor = 0;
    let keptFrom = 0;
    for (let at = first; at !== -1; at = usageMentionAt(text, cursor)) {
      const blank = text.lastIndexOf('\n\n', at);
      const start = blank < cursor ? cursor : blank + 2;
      const end = text.indexOf('\n\n', at) + 2;
      if (start > cursor) holdUnread(this.endpoint, this.observation, text.slice(cursor, start));
      // The usual event is one data line, read straight from the text; any other through SseEvent.
      const data = singleDataLine(text, start, end - 2) ?? new SseEvent(chunk.subarray(start, end), text.slice(start, end)).data;
      const verdict = observeUsageEvent(this.endpoint, this.observation, data);
      if (verdict.usageOnly && this.dropUsageOnly) {
        if (start > keptFrom) kept.push(chunk.subarray(keptFrom, start));
        keptFrom = end;
      }
      cursor = end;
    }
    if (cursor < text.length) holdUnread(this.endpoint, this.observation, text.slice(cursor));
    if (keptFrom === 0) return chunk;
    if (keptFrom < chunk.length) kept.push(chunk.subarray(keptFrom));
    return kept.length === 1 ? kept[0]! : kept;
  }

  /** Ends the stream: returns an unterminated last event to forward, and completes the observation. */
  finish(): Buffer | undefined {
    const tail = this.splitter.finish();
    if (tail) observeStreamEvent(this.endpoint, this.observation, tail);
    finishStreamObservation(this.endpoint, this.observation);
    return tail?.raw;
  }
}

const CR = 13;

function endsWithBlankLine(chunk: Buffer): boolean {
  const length = chunk.length;
  return length >= 2 && chunk[length - 1] === 10 && chunk[length - 2] === 10;
}
