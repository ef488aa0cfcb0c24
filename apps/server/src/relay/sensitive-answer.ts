import { SseSplitter, type OpenAIEndpoint, type SseEvent, type StreamBytes } from '@modelgate/protocol';
import type { CompletionCheck } from '../domain/sensitive/sensitive-filter.js';
import { maskRanges, type WordRange } from '../domain/sensitive/word-matcher.js';
import { AppError } from '../errors/app-error.js';
import type { StreamReader } from '../providers/provider-types.js';

/**
 * The answer check (CheckSensitiveEnabled + CheckSensitiveOnCompletionEnabled), as new-api did it
 * while it had one (relay-openai.go, v0.2): the generated text is searched for the listed words,
 * which are replaced by "**###**" (SensitiveWordReplace).
 *
 * - A whole answer holding a word: with StopOnSensitiveEnabled the caller gets new-api's 400
 *   `sensitive words detected: <words>` (`sensitive_words_detected`) instead of the answer; without
 *   it, the answer with the words masked. Either way the call is billed for what the upstream
 *   generated, and its consume log names the words (`，敏感词：…`), as new-api's did.
 * - A stream: each event's text is searched together with the end of the text before it (the
 *   longest word's length less one, per choice and field), so a word cut across events is found in
 *   the event that completes it. That event goes out with its part of the word masked; with
 *   StopOnSensitiveEnabled it is the last one: `data: [DONE]` follows (chat and completions; the
 *   responses API has no [DONE] and simply ends), the upstream is read no further, and the call is
 *   billed for the text generated up to there (counted, since the upstream's usage never came).
 *   Without it the stream goes on, every later word masked. A word's first part that already went
 *   out in an earlier event cannot be taken back.
 *
 * Read are the fields that carry text: content, text, reasoning and refusal (chat, completions), and
 * the text deltas of the responses API. Tool-call arguments are left alone: masking inside them
 * would break their JSON.
 */
export const SENSITIVE_MASK = '**###**';

/** new-api's answer in place of a whole answer that holds listed words (with StopOnSensitiveEnabled). */
export function sensitiveAnswerRefusal(words: readonly string[]): AppError {
  return new AppError('request:sensitive_words_detected', `sensitive words detected: ${words.join(', ')}`, { status: 400, type: 'new_api_error' });
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Called with each text field and a key naming it; a string returned replaces the field. */
type Rewrite = (text: string, key: string) => string | undefined;

function rewriteField(holder: Json, field: string, key: string, rewrite: Rewrite): void {
  const value = holder[field];
  if (typeof value !== 'string' || value === '') return;
  const replaced = rewrite(value, key);
  if (replaced !== undefined) holder[field] = replaced;
}

const TEXT_FIELDS = ['content', 'reasoning_content', 'reasoning', 'refusal'] as const;

/** The text fields of a whole answer (`message`) or of a stream chunk (`delta`). */
function rewriteChoices(choices: unknown, inner: 'message' | 'delta', rewrite: Rewrite): void {
  if (!Array.isArray(choices)) return;
  choices.forEach((choice: unknown, position) => {
    if (!isObject(choice)) return;
    const index = typeof choice.index === 'number' ? choice.index : position;
    rewriteField(choice, 'text', `${index}:text`, rewrite);
    const holder = choice[inner];
    if (!isObject(holder)) return;
    for (const field of TEXT_FIELDS) rewriteField(holder, field, `${index}:${field}`, rewrite);
    if (Array.isArray(holder.content)) {
      holder.content.forEach((part: unknown, at) => {
        if (isObject(part)) rewriteField(part, 'text', `${index}:content:${at}`, rewrite);
      });
    }
  });
}

/** Words in a whole answer's generated text; without `stop` they are masked in `answer` itself. */
export function checkAnswer(check: CompletionCheck, endpoint: OpenAIEndpoint, answer: Json): string[] {
  const found = new Set<string>();
  const rewrite: Rewrite = (text) => {
    const ranges = check.matcher.ranges(text);
    if (ranges.length === 0) return undefined;
    for (const range of ranges) found.add(range.word);
    return check.stop ? undefined : maskRanges(text, ranges, SENSITIVE_MASK);
  };
  if (endpoint === 'responses') {
    if (Array.isArray(answer.output)) {
      answer.output.forEach((item: unknown, at) => {
        if (!isObject(item) || !Array.isArray(item.content)) return;
        item.content.forEach((part: unknown, partAt) => {
          if (isObject(part)) rewriteField(part, 'text', `${at}:${partAt}`, rewrite);
        });
      });
    }
  } else {
    rewriteChoices(answer.choices, 'message', rewrite);
  }
  return [...found];
}

/**
 * Finds listed words in streamed text: each piece is searched with the last characters of its
 * field (per choice and field `key`) before it, so a word cut across pieces is found in the piece
 * that completes it.
 */
export class StreamWordScanner {
  /** The words found so far, each once. */
  readonly words: string[] = [];
  /** The last characters of each text field so far, where a word may have begun. */
  private readonly tails = new Map<string, string>();

  constructor(private readonly check: CompletionCheck) {}

  /** Words that end in this piece of a field's text (with the field's tail before it): the piece masked. */
  scan(text: string, key: string): string | undefined {
    const { matcher } = this.check;
    const tail = this.tails.get(key) ?? '';
    const joined = tail + text;
    const keep = matcher.maxWordLength - 1;
    this.tails.set(key, keep > 0 ? joined.slice(-keep) : '');
    const ranges = matcher.ranges(joined, tail.length);
    if (ranges.length === 0) return undefined;
    const local: WordRange[] = [];
    for (const range of ranges) {
      if (!this.words.includes(range.word)) this.words.push(range.word);
      local.push({ start: Math.max(0, range.start - tail.length), end: range.end - tail.length, word: range.word });
    }
    return maskRanges(text, local, SENSITIVE_MASK);
  }
}

/**
 * Masks listed words in a canonical (OpenAI) stream chunk's text, in place; true when it found
 * one. Converted streams are checked this way before they are encoded for the client.
 */
export function checkChunk(scanner: StreamWordScanner, chunk: Json): boolean {
  let changed = false;
  rewriteChoices(chunk.choices, 'delta', (text, key) => {
    const masked = scanner.scan(text, key);
    if (masked !== undefined) changed = true;
    return masked;
  });
  return changed;
}

const DONE = Buffer.from('data: [DONE]\n\n');
const NOTHING: readonly Buffer[] = [];

/**
 * A stream reader that checks the text as it passes (see above) around the provider's own
 * reader, which still observes every event as the upstream sent it (usage, and the text billed
 * when the upstream reports no usage). Events are parsed one by one only while the check is on.
 */
export class SensitiveStreamReader implements StreamReader {
  stopped = false;
  private readonly splitter = new SseSplitter();
  private readonly scanner: StreamWordScanner;

  constructor(
    private readonly inner: StreamReader,
    private readonly endpoint: OpenAIEndpoint,
    private readonly check: CompletionCheck,
  ) {
    this.scanner = new StreamWordScanner(check);
  }

  /** The words found so far, each once. */
  get sensitiveWords(): readonly string[] {
    return this.scanner.words;
  }

  get observation() {
    return this.inner.observation;
  }

  push(chunk: Buffer): StreamBytes {
    if (this.stopped) return NOTHING;
    const out: Buffer[] = [];
    for (const event of this.splitter.push(chunk)) {
      const masked = this.inspect(event);
      const passed = this.inner.push(event.raw);
      if (masked) out.push(masked);
      else if (Array.isArray(passed)) out.push(...(passed as readonly Buffer[]));
      else out.push(passed as Buffer);
      if (this.stopped) {
        if (this.endpoint !== 'responses') out.push(DONE);
        break;
      }
    }
    return out;
  }

  finish(): Buffer | undefined {
    const tail = this.stopped ? undefined : this.splitter.finish();
    if (!tail) {
      this.inner.finish();
      return undefined;
    }
    const masked = this.inspect(tail);
    this.inner.push(tail.raw);
    const unterminated = this.inner.finish();
    if (!masked) return unterminated;
    return this.stopped && this.endpoint !== 'responses' ? Buffer.concat([masked, DONE]) : masked;
  }

  /** The event rebuilt with its words masked, or undefined when it holds none. */
  private inspect(event: SseEvent): Buffer | undefined {
    const data = event.data;
    if (data === '' || data === '[DONE]') return undefined;
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return undefined;
    }
    if (!isObject(json)) return undefined;
    let changed = false;
    const rewrite: Rewrite = (text, key) => {
      const masked = this.scanner.scan(text, key);
      if (masked !== undefined) changed = true;
      return masked;
    };
    if (this.endpoint === 'responses') {
      const type = typeof json.type === 'string' ? json.type : '';
      if (type.endsWith('.delta') && !type.includes('audio') && !type.includes('arguments')) {
        rewriteField(json, 'delta', `${String(json.item_id ?? json.output_index)}:${String(json.content_index)}:${type}`, rewrite);
      }
    } else {
      rewriteChoices(json.choices, 'delta', rewrite);
    }
    if (!changed) return undefined;
    if (this.check.stop) this.stopped = true;
    return Buffer.from(withData(event.raw.toString('utf8'), JSON.stringify(json)));
  }
}

/** An SSE event with its data lines replaced by one carrying `data`; its other fields kept. */
function withData(raw: string, data: string): string {
  const lines: string[] = [];
  let placed = false;
  for (const line of raw.split(/\r\n|\r|\n/)) {
    if (line === '') continue;
    if (!line.startsWith('data:')) lines.push(line);
    else if (!placed) {
      lines.push(`data: ${data}`);
      placed = true;
    }
  }
  return `${lines.join('\n')}\n\n`;
}
