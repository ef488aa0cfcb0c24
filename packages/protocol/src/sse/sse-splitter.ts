/**
 * Splits a server-sent-events byte stream into whole events, without decoding it.
 *
 * Events are views of the bytes received, terminator included, so a relay can forward them
 * exactly, or drop one, without decoding and re-encoding text; `data` is decoded only when
 * someone reads it. Splitting bytes at line ends is safe for UTF-8 (no multi-byte sequence
 * contains \r or \n). Searching is done on a latin1 view of the bytes (one character per byte,
 * so indexes match), where the engine's string search is fastest. The splitter holds only the
 * unfinished tail of the stream; it does no I/O.
 */
export class SseEvent {
  private parsed: { event: string | undefined; data: string } | undefined;

  constructor(
    /** The event exactly as received, including its blank-line terminator. */
    readonly raw: Buffer,
    /** The same bytes as latin1 text: for searching ASCII markers, not for reading content. */
    readonly bytesAsText: string,
  ) {}

  /** The `data:` lines joined with '\n' (the SSE rule), '' when there were none. */
  get data(): string {
    return (this.parsed ??= parseFields(this.raw.toString('utf8'))).data;
  }

  /** The `event:` field, when present. */
  get event(): string | undefined {
    return (this.parsed ??= parseFields(this.raw.toString('utf8'))).event;
  }
}

const LF = 10;
const CR = 13;

export class SseSplitter {
  private pending: Buffer | undefined;

  /** Feeds bytes; returns the events they completed. */
  push(chunk: Buffer): SseEvent[] {
    const buffer = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const text = buffer.toString('latin1');
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const end = findEventEnd(text, start);
      if (end === -1) break;
      events.push(new SseEvent(buffer.subarray(start, end), text.slice(start, end)));
      start = end;
    }
    // The tail is copied so that it does not keep the whole chunk alive.
    this.pending = start === buffer.length ? undefined : Buffer.from(buffer.subarray(start));
    return events;
  }

  /** What remains once the stream ended without a final blank line (still forwarded by relays). */
  finish(): SseEvent | undefined {
    const pending = this.pending;
    this.pending = undefined;
    return pending ? new SseEvent(pending, pending.toString('latin1')) : undefined;
  }

  /** Bytes held back waiting for the end of an event. */
  get pendingLength(): number {
    return this.pending?.length ?? 0;
  }
}

/**
 * Index just past the blank line that ends the event starting at `from`, or -1 when the event is
 * not complete yet. Lines end in \n, \r\n or \r; a lone \r at the end of the buffer is undecided
 * until the next byte shows whether \n follows.
 */
function findEventEnd(text: string, from: number): number {
  const blank = text.indexOf('\n\n', from);
  const cr = text.indexOf('\r', from);
  // The usual stream: \n line ends only.
  if (cr === -1 || (blank !== -1 && cr > blank)) return blank === -1 ? -1 : blank + 2;
  const length = text.length;
  let lineStart = from;
  while (lineStart < length) {
    let lineEnd = lineStart;
    for (let code = text.charCodeAt(lineEnd); lineEnd < length && code !== LF && code !== CR; code = text.charCodeAt(lineEnd)) lineEnd += 1;
    if (lineEnd === length) return -1;
    let next = lineEnd + 1;
    if (text.charCodeAt(lineEnd) === CR) {
      if (next === length) return -1;
      if (text.charCodeAt(next) === LF) next += 1;
    }
    if (lineEnd === lineStart) return next;
    lineStart = next;
  }
  return -1;
}

function parseFields(raw: string): { event: string | undefined; data: string } {
  // The usual event, one data line: no need to split.
  if (raw.startsWith('data: ')) {
    const end = raw.search(/[\r\n]/);
    const rest = end === -1 ? '' : raw.slice(end).replace(/^[\r\n]+/, '');
    if (rest === '') return { event: undefined, data: raw.slice(6, end === -1 ? undefined : end) };
  }
  let event: string | undefined;
  let data: string | undefined;
  for (const line of raw.split(/\r\n|\r|\n/)) {
    if (line === '' || line.charCodeAt(0) === 58 /* ':' comment */) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (field === 'event') event = value;
  }
  return { event, data: data ?? '' };
}
