import { SseSplitter, type SseEvent } from '../sse/sse-splitter.js';
import type { OpenAIEndpoint } from './endpoints.js';
import { normaliseUsage, type TokenUsage } from './usage.js';

/**
 * What a relay learns from an OpenAI-style stream while passing it on: the usage the upstream
 * reported (its last non-null `usage`), and the generated text, for counting when it reported
 * none. One observation per stream; observing has no side effect beyond it.
 *
 * Most events carry no usage; those are not parsed as they pass but kept, and read only if the
 * stream ends without usage (finishStreamObservation) or once more than UNREAD_LIMIT bytes wait,
 * which bounds a long stream's memory to its text plus that much. Chunks are read
 * with hand-written guards, not zod schemas: this runs for every chunk of every stream, where a
 * schema parse would cost more than relaying the chunk does. Anything not of the expected type is
 * ignored, never trusted.
 */
export interface StreamObservation {
  usage: TokenUsage | undefined;
  /** Generated text pieces: content, reasoning and tool-call arguments. */
  textParts: string[];
  /**
   * Whole events not parsed yet (no usage in them), one or several per entry, as latin1 text: a
   * string of its own, where holding the received buffers would pin the far larger buffers they
   * are views of.
   */
  unread: string[];
  unreadBytes: number;
  /** `data: [DONE]` was seen. */
  done: boolean;
  /** An event carried an `error` object (some upstreams report failures mid-stream). */
  errorMessage: string | undefined;
}

export interface StreamEventVerdict {
  /**
   * The event carries only usage (`choices: []`): a client that did not ask for usage must not
   * see it, since the relay asked for it on the client's behalf.
   */
  usageOnly: boolean;
}

export const createStreamObservation = (): StreamObservation => ({
  usage: undefined,
  textParts: [],
  unread: [],
  unreadBytes: 0,
  done: false,
  errorMessage: undefined,
});

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const addText = (parts: string[], value: unknown) => {
  if (typeof value === 'string' && value !== '') parts.push(value);
};

const KEEP: StreamEventVerdict = { usageOnly: false };
const DROP_IF_UNASKED: StreamEventVerdict = { usageOnly: true };

export function observeStreamEvent(endpoint: OpenAIEndpoint, observation: StreamObservation, event: SseEvent): StreamEventVerdict {
  const text = event.bytesAsText;
  if (text.length <= DONE_EVENT_MAX && text.includes('[DONE]')) {
    observation.done = event.data === '[DONE]';
    if (observation.done) return KEEP;
  }
  if (!mentionsUsage(text)) {
    holdUnread(endpoint, observation, text);
    return KEEP;
  }
  return readEvent(endpoint, observation, event.data);
}

/** Keeps whole events without usage for reading later, if ever. */
export function holdUnread(endpoint: OpenAIEndpoint, observation: StreamObservation, events: string): void {
  observation.unread.push(events);
  observation.unreadBytes += events.length;
  if (observation.unreadBytes > UNREAD_LIMIT) readUnread(endpoint, observation);
}

/**
 * Reads the events passed over unparsed. Call once the stream has ended; afterwards `textParts`
 * holds all the text (needed only when `usage` is still undefined).
 */
export function finishStreamObservation(endpoint: OpenAIEndpoint, observation: StreamObservation): void {
  if (observation.usage !== undefined) {
    observation.unread = [];
    observation.unreadBytes = 0;
    return;
  }
  readUnread(endpoint, observation);
}

function readUnread(endpoint: OpenAIEndpoint, observation: StreamObservation): void {
  const unread = observation.unread;
  observation.unread = [];
  observation.unreadBytes = 0;
  // Text from usage-bearing events was read as they came, so pieces may be slightly out of order;
  // such events are rare mid-stream and the token count barely notices.
  for (const events of unread) readHeld(endpoint, observation, events);
}

/**
 * Reads held events (latin1 text of whole events). The usual event, a single `data: ` line ended
 * by \n\n, is read straight from the held text; any other shape (\r line ends, several lines,
 * other fields) goes through the event splitter. On a long stream every event passes here, so the
 * usual one skips the splitter's copies and views.
 */
function readHeld(endpoint: OpenAIEndpoint, observation: StreamObservation, events: string): void {
  if (events.includes('\r')) {
    readSplit(endpoint, observation, events);
    return;
  }
  const length = events.length;
  let start = 0;
  while (start < length) {
    const blank = events.indexOf('\n\n', start);
    const end = blank === -1 ? length : blank;
    const next = blank === -1 ? length : blank + 2;
    const data = singleDataLine(events, start, end);
    if (data !== undefined) readEvent(endpoint, observation, data);
    else if (end > start) readSplit(endpoint, observation, events.slice(start, next));
    start = next;
  }
}

/**
 * The data of an event that is one `data: ` line, from the latin1 text of `\n`-ended events
 * (`end`: where the line's \n is, or the text's end); undefined for any other shape.
 */
export function singleDataLine(events: string, start: number, end: number): string | undefined {
  if (!events.startsWith('data: ', start)) return undefined;
  const lineEnd = events.indexOf('\n', start);
  if (lineEnd !== -1 && lineEnd < end) return undefined;
  const payload = events.slice(start + 6, end);
  // latin1 text of UTF-8 bytes: decoded only when it holds a non-ASCII byte.
  return NON_ASCII.test(payload) ? Buffer.from(payload, 'latin1').toString('utf8') : payload;
}

const NON_ASCII = /[\u0080-\u00ff]/;

function readSplit(endpoint: OpenAIEndpoint, observation: StreamObservation, events: string): void {
  const splitter = new SseSplitter();
  for (const event of splitter.push(Buffer.from(events, 'latin1'))) readEvent(endpoint, observation, event.data);
  const tail = splitter.finish();
  if (tail) readEvent(endpoint, observation, tail.data);
}

function readEvent(endpoint: OpenAIEndpoint, observation: StreamObservation, data: string): StreamEventVerdict {
  if (data === '' || data === '[DONE]') return KEEP;
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return KEEP;
  }
  if (!isObject(json)) return KEEP;
  return endpoint === 'responses' ? observeResponsesEvent(observation, json) : observeChatChunk(observation, json);
}

const DONE_EVENT_MAX = 32;
/** Bytes of unparsed events a stream may hold before they are read (and let go). */
const UNREAD_LIMIT = 8 * 1024;

/**
 * Whether an event's JSON may hold a non-null `usage`, read without decoding. Inside JSON strings
 * quotes are escaped, so `"usage"` followed by a colon can only be a key.
 */
export function mentionsUsage(text: string): boolean {
  return usageMentionAt(text, 0) !== -1;
}

/**
 * A `"usage"` key whose value is not null. One regular-expression scan finds it faster than
 * stepping through every `"usage":null` that OpenAI-style streams put in each chunk.
 */
const USAGE_KEY = /"usage"\s*:(?!\s*null)/g;

/** Where the next `"usage":` key with a non-null value starts in `text`, from `from` on; -1 when none. */
export function usageMentionAt(text: string, from: number): number {
  USAGE_KEY.lastIndex = from;
  const match = USAGE_KEY.exec(text);
  return match === null ? -1 : match.index;
}

/** Reads one event's data that may carry usage (see usageMentionAt); says whether it carries only usage. */
export function observeUsageEvent(endpoint: OpenAIEndpoint, observation: StreamObservation, data: string): StreamEventVerdict {
  return readEvent(endpoint, observation, data);
}

function observeChatChunk(observation: StreamObservation, chunk: Json): StreamEventVerdict {
  if (chunk.error !== undefined && chunk.error !== null) observation.errorMessage = errorMessageOf(chunk.error);
  const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
  const parts = observation.textParts;
  for (const choice of choices) {
    if (!isObject(choice)) continue;
    addText(parts, choice.text);
    // Moonshot reports usage on the last choice rather than beside it.
    const choiceUsage = normaliseUsage(choice.usage);
    if (choiceUsage) observation.usage = choiceUsage;
    const delta = choice.delta;
    if (!isObject(delta)) continue;
    addText(parts, delta.content);
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') parts.push(delta.reasoning_content);
    else addText(parts, delta.reasoning);
    addText(parts, delta.refusal);
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) if (isObject(call) && isObject(call.function)) addText(parts, call.function.arguments);
    }
  }
  const usage = normaliseUsage(chunk.usage);
  if (usage) observation.usage = usage;
  return usage !== undefined && choices.length === 0 ? DROP_IF_UNASKED : KEEP;
}

function observeResponsesEvent(observation: StreamObservation, event: Json): StreamEventVerdict {
  const type = typeof event.type === 'string' ? event.type : '';
  if (type.endsWith('.delta') && !type.includes('audio')) {
    addText(observation.textParts, event.delta);
  } else if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
    const usage = isObject(event.response) ? normaliseUsage(event.response.usage) : undefined;
    if (usage) observation.usage = usage;
  } else if (type === 'error') {
    observation.errorMessage = typeof event.message === 'string' ? event.message : 'upstream stream error';
  }
  return KEEP;
}

function errorMessageOf(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isObject(error) && typeof error.message === 'string') return error.message;
  return 'upstream stream error';
}
