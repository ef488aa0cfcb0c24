import { SseSplitter, type StreamBytes, type StreamObservation, type TokenUsage } from '@modelgate/protocol';
import type { StreamReader } from '../providers/provider-types.js';
import type { OutputMeter } from './output-meter.js';

/** One endpoint's events through the output meter, and how its answer ends when the meter ends it. */
export interface EventMeter {
  /**
   * Reads one event: undefined to forward it as received, else its replacement (its text cut at
   * the budget; '' for nothing).
   */
  admit(data: string, name: string | undefined): string | undefined;
  /** The meter ended the answer with the last event admitted. */
  readonly ended: boolean;
  /** The events that end the answer in the endpoint's protocol, and what was delivered, to bill. */
  closing(): { events: string; usage: TokenUsage };
}

type Json = Record<string, unknown>;

export const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An event's data as a JSON object, or undefined ([DONE], comments, anything else). */
export function parseEvent(data: string): Json | undefined {
  if (data === '' || data === '[DONE]') return undefined;
  try {
    const parsed: unknown = JSON.parse(data);
    return isJson(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export const sseEvent = (name: string | undefined, data: string): string => `${name ? `event: ${name}\n` : ''}data: ${data}\n\n`;

const EMPTY = Buffer.alloc(0);

/**
 * A capped call's stream of OpenAI's legacy completions or Responses API events: each event goes
 * through the endpoint's meter, then on to `inner` (the adaptor's reader, with the answer check
 * when it is on) as received, so the client gets the upstream's own bytes until the budget is
 * spent. Then the event that passed it goes out cut, followed by the endpoint's ending, and the
 * reader reports itself stopped: the relay lets the upstream go and ends the response.
 */
export class MeteredEventReader implements StreamReader {
  private readonly splitter = new SseSplitter();
  private ended = false;

  constructor(
    private readonly inner: StreamReader,
    private readonly events: EventMeter,
  ) {}

  get observation(): StreamObservation {
    return this.inner.observation;
  }

  get sensitiveWords(): readonly string[] | undefined {
    return this.inner.sensitiveWords;
  }

  get cutAtCap(): boolean {
    return this.ended;
  }

  get stopped(): boolean {
    return this.ended || this.inner.stopped === true;
  }

  push(chunk: Buffer): StreamBytes {
    if (this.stopped) return EMPTY;
    const out: Buffer[] = [];
    for (const event of this.splitter.push(chunk)) {
      const replacement = this.events.admit(event.data, event.event);
      if (replacement !== '') collect(out, this.inner.push(replacement === undefined ? event.raw : Buffer.from(replacement)));
      if (this.inner.stopped) break;
      if (this.events.ended) {
        this.ended = true;
        const { events, usage } = this.events.closing();
        this.inner.observation.usage = usage;
        out.push(Buffer.from(events));
        break;
      }
    }
    return out;
  }

  finish(): Buffer | undefined {
    if (this.ended) return undefined;
    // An unterminated last event: the inner reader holds it and hands it back at its finish.
    const tail = this.splitter.finish();
    if (tail) {
      this.events.admit(tail.data, tail.event);
      this.inner.push(tail.raw);
    }
    return this.inner.finish();
  }
}

function collect(out: Buffer[], bytes: StreamBytes): void {
  if (Array.isArray(bytes)) out.push(...(bytes as readonly Buffer[]));
  else if ((bytes as Buffer).length > 0) out.push(bytes as Buffer);
}

/**
 * OpenAI's legacy completions stream: `choices[].text` is metered, a count in `usage` (some
 * upstreams report it on every chunk) replaces ours. The ending: a chunk finishing every open
 * choice with `length`, the usage chunk when the client asked for usage, and `[DONE]`.
 */
export class CompletionsEventMeter implements EventMeter {
  ended = false;
  private id = 'cmpl-metered';
  private created = Math.floor(Date.now() / 1000);
  private model = '';
  private reportedPrompt: number | undefined;
  private readonly open = new Set<number>();
  private readonly finished = new Set<number>();

  constructor(
    private readonly meter: OutputMeter,
    /** The client asked for usage (stream_options.include_usage): the ending carries it. */
    private readonly includeUsage: boolean,
  ) {}

  admit(data: string, name: string | undefined): string | undefined {
    const chunk = parseEvent(data);
    if (chunk === undefined) return undefined;
    if (typeof chunk.id === 'string') this.id = chunk.id;
    if (typeof chunk.created === 'number') this.created = chunk.created;
    if (typeof chunk.model === 'string') this.model = chunk.model;
    const choices = Array.isArray(chunk.choices) ? chunk.choices.filter(isJson) : [];
    const usage = isJson(chunk.usage) ? chunk.usage : undefined;
    if (typeof usage?.prompt_tokens === 'number') this.reportedPrompt = usage.prompt_tokens;
    const reported = typeof usage?.completion_tokens === 'number' ? usage.completion_tokens : undefined;
    const covered = this.meter.report(
      reported,
      choices.some((choice) => typeof choice.text === 'string' && choice.text !== ''),
    );
    let cut = false;
    for (const choice of choices) {
      const index = typeof choice.index === 'number' ? choice.index : 0;
      if (choice.finish_reason) {
        this.finished.add(index);
        this.open.delete(index);
      } else if (!this.finished.has(index)) {
        this.open.add(index);
      }
      if (covered || typeof choice.text !== 'string' || choice.text === '') continue;
      const kept = this.meter.take(String(index), choice.text);
      if (kept !== choice.text) {
        choice.text = kept;
        cut = true;
      }
    }
    this.meter.eventDone();
    this.ended = this.meter.exceeded;
    return cut ? sseEvent(name, JSON.stringify(chunk)) : undefined;
  }

  closing(): { events: string; usage: TokenUsage } {
    const head = { id: this.id, object: 'text_completion', created: this.created, model: this.model };
    const promptTokens = this.reportedPrompt ?? this.meter.promptTokens;
    const completionTokens = this.meter.metered;
    let events = '';
    if (this.open.size > 0) {
      const choices = [...this.open].map((index) => ({ text: '', index, logprobs: null, finish_reason: 'length' }));
      events += sseEvent(undefined, JSON.stringify({ ...head, choices }));
    }
    if (this.includeUsage) {
      const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
      events += sseEvent(undefined, JSON.stringify({ ...head, choices: [], usage }));
    }
    return { events: `${events}data: [DONE]\n\n`, usage: { promptTokens, completionTokens } };
  }
}
