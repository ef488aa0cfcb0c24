import { SseSplitter } from '../sse/sse-splitter.js';
import type { OpenAIEndpoint } from './endpoints.js';
import { createStreamObservation, finishStreamObservation, holdUnread, mentionsUsage, observeStreamEvent, type StreamObservation } from './stream-observer.js';

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
  push(chunk: Buffer): Buffer {
    if (this.splitter.pendingLength === 0 && endsWithBlankLine(chunk)) {
      const text = chunk.toString('latin1');
      if (!mentionsUsage(text)) {
        holdUnread(this.endpoint, this.observation, text);
        return chunk;
      }
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
    return kept.length === 1 ? kept[0]! : Buffer.concat(kept);
  }

  /** Ends the stream: returns an unterminated last event to forward, and completes the observation. */
  finish(): Buffer | undefined {
    const tail = this.splitter.finish();
    if (tail) observeStreamEvent(this.endpoint, this.observation, tail);
    finishStreamObservation(this.endpoint, this.observation);
    return tail?.raw;
  }
}

function endsWithBlankLine(chunk: Buffer): boolean {
  const length = chunk.length;
  return length >= 2 && chunk[length - 1] === 10 && chunk[length - 2] === 10;
}
