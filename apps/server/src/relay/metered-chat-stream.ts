import type { ChatChunk, ChatUsage, StreamBytes, StreamDecoder, StreamEncoder, StreamObservation } from '@modelgate/protocol';
import type { StreamReader } from '../providers/provider-types.js';
import type { OutputMeter } from './output-meter.js';

/**
 * A capped call's chat stream in canonical chunks: the upstream format's decoder with the output
 * meter behind it. Chunks pass as decoded while the generated text fits in what the payer paid
 * for; the chunk that passes it is cut at the budget, and the answer ends there with a finish
 * chunk (`length`) for every choice still open and a usage chunk of what was delivered. The
 * client format's encoder turns those into its own ending (OpenAI's finish_reason and [DONE],
 * Anthropic's max_tokens message_delta and message_stop, Gemini's MAX_TOKENS).
 */
export class MeteredChatDecoder implements StreamDecoder {
  /** The meter ended the answer: the closing chunks went out and nothing more is decoded. */
  ended = false;
  /** The usage the upstream reported last, for the prompt and cache counts of the closing usage. */
  private reported: ChatUsage | undefined;
  /** The last chunk decoded: the closing chunks carry its id and model. */
  private last: ChatChunk | undefined;
  private readonly open = new Set<number>();
  private readonly finished = new Set<number>();

  constructor(
    private readonly inner: StreamDecoder,
    private readonly meter: OutputMeter,
  ) {}

  get error(): { message: string; type: string } | undefined {
    return this.ended ? undefined : this.inner.error;
  }

  push(data: string, event?: string): ChatChunk[] {
    if (this.ended) return [];
    // Also an event that decodes to no chunk: it may carry a count (a message_delta with usage alone).
    return this.metered(this.inner.push(data, event));
  }

  /** The upstream ended on its own: what its decoder still owes (the usage) passes as it is. */
  finish(): ChatChunk[] {
    return this.ended ? [] : this.inner.finish();
  }

  private metered(chunks: ChatChunk[]): ChatChunk[] {
    let usage = this.inner.usageSoFar;
    for (const chunk of chunks) if (chunk.usage) usage = chunk.usage;
    if (usage) this.reported = usage;
    const covered = this.meter.report(usage?.completion_tokens, chunks.some(hasText));
    const kept: ChatChunk[] = [];
    for (const chunk of chunks) {
      this.track(chunk);
      if (!covered) this.take(chunk);
      kept.push(chunk);
      if (this.meter.exceeded) break;
    }
    this.meter.eventDone();
    if (!this.meter.exceeded) return kept;
    this.ended = true;
    kept.push(...this.closing());
    return kept;
  }

  /** Which choices are open: they get the closing finish chunk. */
  private track(chunk: ChatChunk): void {
    this.last = chunk;
    for (const choice of chunk.choices) {
      if (choice.finish_reason) {
        this.finished.add(choice.index);
        this.open.delete(choice.index);
      } else if (!this.finished.has(choice.index)) {
        this.open.add(choice.index);
      }
    }
  }

  /** The chunk's generated text through the meter, cut where the budget ends. */
  private take(chunk: ChatChunk): void {
    for (const choice of chunk.choices) {
      const delta = choice.delta;
      if (!delta) continue;
      const reasoning = delta.reasoning_content;
      if (reasoning) delta.reasoning_content = this.meter.take(`${choice.index}:reasoning`, reasoning);
      const content = delta.content;
      if (content) delta.content = this.meter.take(`${choice.index}:content`, content);
      for (const call of delta.tool_calls ?? []) {
        const piece = call.function?.arguments;
        if (call.function && piece) call.function.arguments = this.meter.take(`${choice.index}:tool:${call.index}`, piece);
      }
    }
  }

  private closing(): ChatChunk[] {
    const last = this.last;
    const head = {
      id: last?.id ?? 'chatcmpl-metered',
      object: 'chat.completion.chunk' as const,
      created: last?.created ?? Math.floor(Date.now() / 1000),
      model: last?.model ?? '',
    };
    const chunks: ChatChunk[] = [];
    if (this.open.size > 0) {
      chunks.push({ ...head, choices: [...this.open].map((index) => ({ index, delta: {}, finish_reason: 'length' as const })) });
    }
    chunks.push({ ...head, choices: [], usage: this.deliveredUsage() });
    return chunks;
  }

  /** What was delivered: the metered output, and the prompt as the upstream reported it, else as we counted it. */
  private deliveredUsage(): ChatUsage {
    const completion = this.meter.metered;
    const reported = this.reported;
    if (reported && reported.prompt_tokens > 0) {
      const usage: ChatUsage = { prompt_tokens: reported.prompt_tokens, completion_tokens: completion, total_tokens: reported.prompt_tokens + completion };
      if (reported.prompt_tokens_details) usage.prompt_tokens_details = reported.prompt_tokens_details;
      return usage;
    }
    const prompt = this.meter.promptTokens;
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  }
}

function hasText(chunk: ChatChunk): boolean {
  for (const choice of chunk.choices) {
    const delta = choice.delta;
    if (!delta) continue;
    if (delta.content || delta.reasoning_content) return true;
    for (const call of delta.tool_calls ?? []) if (call.function?.arguments) return true;
  }
  return false;
}

/** A converting reader (chat-translation.ts's TranslatingStreamReader) as the metered reader sees it. */
export interface ConvertingReader extends StreamReader {
  readonly stopped: boolean;
  errorEvent(message: string, type: string): string | undefined;
}

const EMPTY = Buffer.alloc(0);

/**
 * The converting reader of a capped call's chat stream, decoding through a MeteredChatDecoder and
 * always encoding for the client, its own format included. Once the meter has ended the answer it
 * adds the encoder's closing events and reports itself stopped, so the relay lets the upstream go
 * (the request is aborted) and ends the response.
 */
export class MeteredChatReader implements StreamReader {
  constructor(
    private readonly inner: ConvertingReader,
    private readonly decoder: MeteredChatDecoder,
    private readonly encoder: StreamEncoder,
  ) {}

  get observation(): StreamObservation {
    return this.inner.observation;
  }

  get sensitiveWords(): readonly string[] | undefined {
    return this.inner.sensitiveWords;
  }

  get cutAtCap(): boolean {
    return this.decoder.ended;
  }

  get stopped(): boolean {
    return this.decoder.ended || this.inner.stopped;
  }

  push(chunk: Buffer): StreamBytes {
    if (this.stopped) return EMPTY;
    const out = this.inner.push(chunk) as Buffer;
    // The answer check may have ended the answer in the same event: its closing went out then.
    if (!this.decoder.ended || this.inner.stopped) return out;
    return Buffer.concat([out, Buffer.from(this.encoder.finish())]);
  }

  finish(): Buffer | undefined {
    return this.decoder.ended ? undefined : this.inner.finish();
  }

  errorEvent(message: string, type: string): string | undefined {
    return this.inner.errorEvent(message, type);
  }
}
