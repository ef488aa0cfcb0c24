import { randomBytes } from 'node:crypto';
import {
  createStreamObservation,
  ResponsesStreamEncoder,
  responsesResponseFromChat,
  type ResponsesResponse,
  normaliseUsage,
  SseSplitter,
  type ChatChunk,
  type ChatCompletion,
  type ChatFormat,
  type StreamBytes,
  type StreamDecoder,
  type StreamEncoder,
  type TokenUsage,
} from '@modelgate/protocol';
import type { FrameDecoder, StreamReader } from '../providers/provider-types.js';
import type { CompletionCheck } from '../domain/sensitive/sensitive-filter.js';
import type { AppError } from '../errors/app-error.js';
import { codecFor } from './chat-codecs.js';
import { JsonArrayEncoder } from './json-array-encoder.js';
import { MeteredChatDecoder, MeteredChatReader } from './metered-chat-stream.js';
import type { OutputMeter } from './output-meter.js';
import { checkAnswer, checkChunk, sensitiveAnswerRefusal, StreamWordScanner } from './sensitive-answer.js';

const EMPTY = Buffer.alloc(0);

/** SSE framing: each event's data and name. */
export class SseFrameDecoder implements FrameDecoder {
  private readonly splitter = new SseSplitter();

  push(chunk: Buffer): { data: string; event?: string | undefined }[] {
    return this.splitter.push(chunk).map((event) => ({ data: event.data, event: event.event }));
  }

  finish(): { data: string; event?: string | undefined }[] {
    const tail = this.splitter.finish();
    return tail ? [{ data: tail.data, event: tail.event }] : [];
  }
}

/**
 * A decoded frame as an SSE event, named as Anthropic's events are (clients dispatch on the name):
 * by the frame's own name, else the `type` its JSON carries.
 */
function sseEvent(frame: { data: string; event?: string | undefined }): string {
  let name = frame.event;
  if (name === undefined) {
    try {
      const type = (JSON.parse(frame.data) as { type?: unknown }).type;
      if (typeof type === 'string') name = type;
    } catch {
      // Not JSON: sent without a name.
    }
  }
  return `${name ? `event: ${name}\n` : ''}data: ${frame.data}\n\n`;
}

/** Usage and generated text seen in canonical chunks, for billing. */
function observeChunk(observation: ReturnType<typeof createStreamObservation>, chunk: ChatChunk): void {
  if (chunk.usage) {
    const usage = normaliseUsage(chunk.usage);
    if (usage) observation.usage = usage;
  }
  for (const choice of chunk.choices) {
    const delta = choice.delta;
    if (!delta) continue;
    if (typeof delta.content === 'string' && delta.content !== '') observation.textParts.push(delta.content);
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') observation.textParts.push(delta.reasoning_content);
    if (delta.tool_calls) {
      for (const call of delta.tool_calls) {
        const piece = call.function?.arguments;
        if (typeof piece === 'string' && piece !== '') observation.textParts.push(piece);
      }
    }
  }
}

/**
 * A stream in one chat format relayed to a client of another: upstream frames are decoded into
 * canonical chunks, observed for usage and text, and encoded in the client's format. With no
 * encoder (the client speaks the upstream's format) the upstream's bytes go out untouched and the
 * chunks are only observed.
 */
export class TranslatingStreamReader implements StreamReader {
  readonly observation = createStreamObservation();
  /** The answer check ended the answer at a listed word (StopOnSensitiveEnabled). */
  stopped = false;
  private failed = false;
  private readonly scanner: StreamWordScanner | undefined;

  constructor(
    private readonly frames: FrameDecoder,
    private readonly decoder: StreamDecoder,
    private readonly encoder: StreamEncoder | undefined,
    private readonly check?: CompletionCheck | undefined,
    /** Pass-through over a framing that is not SSE (Bedrock's event stream): each decoded event goes out as SSE. */
    private readonly reframe = false,
  ) {
    this.scanner = check ? new StreamWordScanner(check) : undefined;
  }

  get sensitiveWords(): readonly string[] | undefined {
    return this.scanner?.words;
  }

  push(chunk: Buffer): StreamBytes {
    if (this.stopped) return EMPTY;
    const out = this.decode(this.frames.push(chunk));
    if (!this.encoder && !this.reframe) return chunk;
    return out === '' ? EMPTY : Buffer.from(out);
  }

  finish(): Buffer | undefined {
    // After a stop the closing events went out with the word.
    if (this.stopped) return undefined;
    let out = this.decode(this.frames.finish?.() ?? []);
    if (this.stopped) return out === '' ? undefined : Buffer.from(out);
    const last = this.decoder.finish();
    for (const chunk of last) {
      observeChunk(this.observation, chunk);
      if (this.encoder && !this.failed) out += this.encoder.push(chunk);
    }
    if (this.encoder && !this.failed) out += this.encoder.finish();
    return out === '' ? undefined : Buffer.from(out);
  }

  /** The error event in the client's format (a stream cut off or gone silent). */
  errorEvent(message: string, type: string): string | undefined {
    return this.encoder?.error(message, type);
  }

  private decode(frames: { data: string; event?: string | undefined }[]): string {
    let out = '';
    for (const frame of frames) {
      if (this.failed) break;
      if (!this.encoder && this.reframe) out += sseEvent(frame);
      for (const chunk of this.decoder.push(frame.data, frame.event)) {
        // Billing counts what was generated, the words included.
        observeChunk(this.observation, chunk);
        const masked = this.scanner !== undefined && checkChunk(this.scanner, chunk as unknown as Record<string, unknown>);
        if (this.encoder) out += this.encoder.push(chunk);
        if (masked && this.check?.stop) {
          this.stopped = true;
          if (this.encoder) out += this.encoder.finish();
          return out;
        }
      }
      const error = this.decoder.error;
      if (error) {
        this.failed = true;
        this.observation.errorMessage = error.message;
        if (this.encoder) out += this.encoder.error(error.message, error.type);
      }
    }
    return out;
  }
}

/** Where an event that may carry usage (or report an error) begins to be named, from `from`; -1 when none. */
function nextMention(text: string, from: number): number {
  const usage = text.indexOf('usage', from);
  const error = text.indexOf('error', from);
  if (usage === -1) return error;
  if (error === -1) return usage;
  return Math.min(usage, error);
}

/** Events held unread by a pass-through reader before they are read after all (bounds a long stream's memory). */
const HELD_LIMIT = 8 * 1024;

/**
 * A stream in the client's own SSE format (an Anthropic client on a Claude channel): forwarded as
 * the very buffers received, and read only where billing needs it. A chunk of whole events that
 * mentions neither usage nor an error is held as text, unparsed (the usual chunk: text deltas);
 * only events that may carry usage go through the decoder. Held events are read if the stream ends
 * without usage (the text is then counted) or once more than 8 KiB wait. The same economy as the
 * OpenAI reader's (packages/protocol/src/openai/stream-reader.ts).
 */
export class PassThroughSseReader implements StreamReader {
  readonly observation = createStreamObservation();
  private readonly splitter = new SseSplitter();
  private held: string[] = [];
  private heldLength = 0;

  constructor(
    private readonly decoder: StreamDecoder,
    /** The client's format's encoder, made only for an error event. */
    private readonly encoderForErrors: () => StreamEncoder,
  ) {}

  /** The error event in the client's format (a stream cut off or gone silent). */
  errorEvent(message: string, type: string): string {
    return this.encoderForErrors().error(message, type);
  }

  push(chunk: Buffer): StreamBytes {
    const length = chunk.length;
    if (this.splitter.pendingLength === 0 && length >= 2 && chunk[length - 1] === 10 && chunk[length - 2] === 10) {
      const text = chunk.toString('latin1');
      // Whole events with \n line ends (the usual stream): only the events that may carry usage are read.
      if (!text.includes('\r')) {
        this.readMentions(chunk, text);
        return chunk;
      }
    }
    for (const event of this.splitter.push(chunk)) this.read(event.data, event.event);
    return chunk;
  }

  /** Reads the events of whole-event `text` that mention usage or an error; holds the stretches between. */
  private readMentions(chunk: Buffer, text: string): void {
    let cursor = 0;
    for (let at = nextMention(text, 0); at !== -1; at = nextMention(text, cursor)) {
      const blank = text.lastIndexOf('\n\n', at);
      const start = blank < cursor ? cursor : blank + 2;
      const end = text.indexOf('\n\n', at) + 2;
      if (start > cursor) this.hold(text.slice(cursor, start));
      for (const event of new SseSplitter().push(chunk.subarray(start, end))) this.read(event.data, event.event);
      cursor = end;
    }
    if (cursor < text.length) this.hold(text.slice(cursor));
  }

  finish(): Buffer | undefined {
    const tail = this.splitter.finish();
    if (tail) this.read(tail.data, tail.event);
    // The decoder reports the usage it saw (Anthropic's comes whole with message_stop, held unread here).
    for (const chunk of this.decoder.finish()) observeChunk(this.observation, chunk);
    if (this.observation.usage === undefined) this.readHeld();
    return undefined;
  }

  private hold(text: string): void {
    this.held.push(text);
    this.heldLength += text.length;
    if (this.heldLength > HELD_LIMIT) this.readHeld();
  }

  /** Reads the held events: their text, for counting when no usage comes. */
  private readHeld(): void {
    const held = this.held;
    this.held = [];
    this.heldLength = 0;
    for (const text of held) {
      const splitter = new SseSplitter();
      for (const event of splitter.push(Buffer.from(text, 'latin1'))) this.read(event.data, event.event);
    }
  }

  private read(data: string, event: string | undefined): void {
    for (const chunk of this.decoder.push(data, event)) observeChunk(this.observation, chunk);
    const error = this.decoder.error;
    if (error && this.observation.errorMessage === undefined) this.observation.errorMessage = error.message;
  }
}

/** A whole answer converted for the client: what to bill and what to send. */
export interface TranslatedAnswer {
  usage: TokenUsage | undefined;
  texts: string[];
  /** undefined: send the upstream's own bytes (the client speaks its format). */
  body: Buffer | undefined;
  /** Listed words the answer check found (undefined while it is off). */
  sensitiveWords?: string[] | undefined;
  /** Sent instead of the answer: it held listed words and StopOnSensitiveEnabled is on. */
  refusal?: AppError | undefined;
}

/**
 * How one call's answer travels from the upstream's chat format to the client's. Made per
 * attempt; the OpenAI-to-OpenAI call never gets one (it keeps the relay's pass-through path).
 */
export class ChatTranslation {
  /**
   * The answer sent to a Responses client, once whole (its id and output items): what a later
   * call continues with previous_response_id (domain/responses/response-store.ts).
   */
  completedResponse: ResponsesResponse | undefined;
  /** The id a Responses client's answer gets: made here, so that it names this answer alone. */
  readonly responseId: string | undefined;

  constructor(
    readonly inbound: ChatFormat,
    readonly upstream: ChatFormat,
    private readonly model: string,
    private readonly includeUsage: boolean,
    /** The client's stream is one JSON array (Gemini without `alt=sse`), not SSE. */
    readonly jsonArray = false,
  ) {
    this.responseId = inbound === 'responses' ? `resp_${randomBytes(24).toString('hex')}` : undefined;
  }

  /** The client's format's stream encoder (a Responses one with this answer's id, telling when it completes). */
  private encoder(): StreamEncoder {
    if (this.inbound === 'responses') {
      return new ResponsesStreamEncoder(this.model, { id: this.responseId, onComplete: (response) => (this.completedResponse = response) });
    }
    return codecFor(this.inbound).streamEncoder!(this.model, { includeUsage: this.includeUsage });
  }

  /** The client speaks the upstream's format: its answer needs no conversion (a JSON-array stream still does). */
  get passThrough(): boolean {
    return this.inbound === this.upstream;
  }

  /**
   * With the answer check on, a stream in the client's own format is re-encoded too: masking
   * works on the canonical chunks.
   */
  streamReader(frames: FrameDecoder | undefined, check?: CompletionCheck | undefined): TranslatingStreamReader | PassThroughSseReader {
    const decoder = codecFor(this.upstream).streamDecoder!(this.model);
    const untouched = this.passThrough && !check && !this.jsonArray;
    // The client's own SSE format, bytes forwarded as they come: read only for usage.
    if (untouched && frames === undefined) return new PassThroughSseReader(decoder, () => this.encoder());
    let encoder = untouched ? undefined : this.encoder();
    if (encoder && this.jsonArray) encoder = new JsonArrayEncoder(encoder);
    return new TranslatingStreamReader(frames ?? new SseFrameDecoder(), decoder, encoder, check, encoder === undefined && frames !== undefined);
  }

  /**
   * A capped call's stream (metered-chat-stream.ts): decoded through the output meter and encoded
   * for the client even in its own format, so that one meter over canonical chunks serves every
   * format and the ending is written by the client format's encoder. What the canonical shape does
   * not carry (Anthropic's thinking signatures, Gemini's thought signatures) is lost, as it is when
   * the answer check re-encodes a stream.
   */
  meteredStreamReader(frames: FrameDecoder | undefined, check: CompletionCheck | undefined, meter: OutputMeter): MeteredChatReader {
    const decoder = new MeteredChatDecoder(codecFor(this.upstream).streamDecoder!(this.model), meter);
    let encoder = this.encoder();
    if (this.jsonArray) encoder = new JsonArrayEncoder(encoder);
    return new MeteredChatReader(new TranslatingStreamReader(frames ?? new SseFrameDecoder(), decoder, encoder, check), decoder, encoder);
  }

  /** The upstream's whole answer as canonical. */
  completion(answer: Record<string, unknown>): ChatCompletion {
    return codecFor(this.upstream).responseToCanonical!(answer, this.model);
  }

  /**
   * A whole answer: what to bill (from the upstream's usage, else its text) and what to send. With
   * the answer check on, listed words are masked (re-encoding an answer in the client's own
   * format), or with StopOnSensitiveEnabled the answer is refused.
   */
  whole(answer: Record<string, unknown>, check?: CompletionCheck | undefined): TranslatedAnswer {
    const completion = this.completion(answer);
    const usage = completion.usage ? normaliseUsage(completion.usage) : undefined;
    const texts: string[] = [];
    for (const choice of completion.choices) {
      const message = choice.message;
      if (typeof message.content === 'string' && message.content !== '') texts.push(message.content);
      if (typeof message.reasoning_content === 'string' && message.reasoning_content !== '') texts.push(message.reasoning_content);
      for (const call of message.tool_calls ?? []) texts.push(call.function.name, call.function.arguments);
    }
    const words = check ? checkAnswer(check, 'chat', completion as unknown as Record<string, unknown>) : undefined;
    const found = words !== undefined && words.length > 0;
    if (found && check?.stop) return { usage, texts, body: undefined, sensitiveWords: words, refusal: sensitiveAnswerRefusal(words) };
    if (this.passThrough && !found) return { usage, texts, body: undefined, sensitiveWords: words };
    let sent: Record<string, unknown>;
    if (this.inbound === 'responses') {
      const response = { ...responsesResponseFromChat(completion), id: this.responseId! };
      this.completedResponse = response;
      sent = response as unknown as Record<string, unknown>;
    } else sent = codecFor(this.inbound).responseFromCanonical!(completion);
    return { usage, texts, body: Buffer.from(JSON.stringify(sent)), sensitiveWords: words };
  }
}
