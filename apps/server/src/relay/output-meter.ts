import { loadTextTokenCounter } from './token-counter.js';

/** Longest stretch of a text stream left uncounted (text without spaces: CJK, code, long runs). */
const MAX_TAIL = 256;

/** A stream's text since its last word start, and its tokens. */
interface Tail {
  text: string;
  tokens: number;
}

/**
 * What a capped call's stream has generated, against the output its payer paid for
 * (completion-cap.ts): the safety net for an upstream that ignores the limit it was sent. Made per
 * attempt, only for capped streams; the stream readers (metered-chat-stream.ts,
 * metered-event-stream.ts) hand it each event's generated text and the upstream's own counts.
 *
 * Text is counted with the tokenizer billing uses when an upstream reports no usage (o200k_base,
 * token-counter.ts), so the meter agrees with that bill. Each text stream (a choice's content, its
 * reasoning, a tool call's arguments) is counted up to its last word start, where o200k_base's
 * pre-tokenizer always splits, and the unfinished word after it is recounted with the next piece:
 * the running count is the count of the whole text, not a sum of pieces that splits tokens. A count
 * the upstream reports mid-stream (Gemini's usageMetadata on every chunk, Anthropic's
 * message_start) replaces ours for the text it covers.
 */
export class OutputMeter {
  /** The upstream's last reported output count, covering the text until it. */
  private reported = 0;
  /** The highest report seen: a report is news only above it. */
  private lastReport: number | undefined;
  /** Tokens of text counted since that report, the tails excepted. */
  private counted = 0;
  private readonly tails = new Map<string, Tail>();
  private tailTokens = 0;
  /** The current event's report says it passes the budget although its text fits our count. */
  private reportPasses = false;
  /** The budget is spent and generated text was left over: the answer ends here. */
  exceeded = false;

  constructor(
    /** Output tokens the call is held for: its cap times its choices. */
    readonly budget: number,
    /** Our count of the prompt: what is billed as prompt when the upstream reported none by the cut. */
    readonly promptTokens: number,
    private readonly count: (text: string) => number,
  ) {}

  /** A meter once the tokenizer is loaded (a capped call counted its prompt, so it usually is). */
  static async load(budget: number, promptTokens: number): Promise<OutputMeter> {
    return new OutputMeter(budget, promptTokens, await loadTextTokenCounter());
  }

  /** Output tokens generated so far, as far as the meter knows. */
  get metered(): number {
    return this.reported + this.counted + this.tailTokens;
  }

  /**
   * An event's report of the upstream's cumulative output count, read before the event's text
   * (`withText`). True when it covers that text: the count is the upstream's from here on and the
   * text passes uncounted. Only a count above every earlier one is news: a repeat says nothing, and
   * counts that fall are not cumulative (per-chunk counts would otherwise keep the meter near zero). A report past the budget with text in its event is not taken: that text
   * is counted and cut by our count, and the answer ends after it (eventDone). One past the budget
   * with no text came after the text it counts had passed (a closing usage event): it is taken, and
   * any text after it is cut.
   */
  report(tokens: number | undefined, withText: boolean): boolean {
    if (tokens === undefined || (this.lastReport !== undefined && tokens <= this.lastReport)) return false;
    this.lastReport = tokens;
    if (withText && tokens > this.budget) {
      this.reportPasses = true;
      return false;
    }
    this.reported = tokens;
    this.counted = 0;
    this.tails.clear();
    this.tailTokens = 0;
    return true;
  }

  /** After an event's text was taken: an upstream report that passed the budget ends the answer. */
  eventDone(): void {
    if (!this.reportPasses) return;
    this.reportPasses = false;
    this.exceeded = true;
  }

  /**
   * A piece of one text stream, keyed by `stream`: all of it while it fits in the budget, else the
   * longest start of it that does (then `exceeded` is set); '' once the budget is spent.
   */
  take(stream: string, text: string): string {
    if (text === '') return text;
    if (this.exceeded) return '';
    const tail = this.tails.get(stream);
    const before = tail?.text ?? '';
    const beforeTokens = tail?.tokens ?? 0;
    // What this stream's tail and the piece may take together.
    const room = this.budget - this.metered + beforeTokens;
    const joined = before + text;
    const tokens = this.count(joined);
    if (tokens <= room) {
      this.keep(stream, joined, tokens, beforeTokens);
      return text;
    }
    this.exceeded = true;
    // The longest start of the piece that fits: a handful of counts of a short text.
    let low = 0;
    let high = text.length;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.count(before + text.slice(0, middle)) <= room) low = middle;
      else high = middle - 1;
    }
    // Never half a surrogate pair.
    if (low > 0 && isHighSurrogate(text.charCodeAt(low - 1))) low -= 1;
    const kept = text.slice(0, low);
    this.keep(stream, before + kept, this.count(before + kept), beforeTokens);
    return kept;
  }

  /** Counts a stream's text up to its last word start and keeps the rest as its tail. */
  private keep(stream: string, text: string, tokens: number, beforeTokens: number): void {
    let cut = lastWordStart(text);
    if (cut <= 0 && text.length > MAX_TAIL) cut = text.length;
    if (cut <= 0) {
      this.tails.set(stream, { text, tokens });
      this.tailTokens += tokens - beforeTokens;
      return;
    }
    const rest = text.slice(cut);
    const restTokens = this.count(rest);
    this.counted += tokens - restTokens;
    this.tails.set(stream, { text: rest, tokens: restTokens });
    this.tailTokens += restTokens - beforeTokens;
  }
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isSpace = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11;

/**
 * Where the last word of `text` starts: a space followed by a character that is not one. o200k_base's
 * pre-tokenizer starts a piece there whatever came before (" word", " 123", " (x"), so the text
 * before it counts the same alone as in the whole. -1 when there is none.
 */
function lastWordStart(text: string): number {
  for (let index = text.length - 2; index > 0; index -= 1) {
    if (text.charCodeAt(index) === 32 && !isSpace(text.charCodeAt(index + 1))) return index;
  }
  return -1;
}
