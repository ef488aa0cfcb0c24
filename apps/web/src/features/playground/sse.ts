/**
 * Server-sent events as the playground reads them: the bytes of `POST /pg/chat/completions`
 * arrive in arbitrary pieces (an event, a line or a JSON value may be split anywhere), so lines
 * are assembled across pieces and an event is complete at its blank line, per the SSE rules
 * (LF, CRLF or CR line ends; `data:` lines of one event joined by "\n"; `:` comments ignored).
 */
export interface SseParser {
  /** Feeds decoded text; answers the data of every event completed by it. */
  push(text: string): string[];
  /** The stream ended: answers the data of an event left without its blank line, if any. */
  finish(): string[];
}

export function createSseParser(): SseParser {
  let pending = '';
  // A CR at the very end of a piece may be the first half of a CRLF split across pieces.
  let skipLeadingLf = false;
  let data: string[] = [];
  let hasData = false;

  const takeLine = (line: string, events: string[]) => {
    if (line === '') {
      if (hasData) events.push(data.join('\n'));
      data = [];
      hasData = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    data.push(value);
    hasData = true;
  };

  return {
    push(text) {
      const events: string[] = [];
      let input = text;
      if (skipLeadingLf && input.startsWith('\n')) input = input.slice(1);
      skipLeadingLf = false;
      pending += input;
      let start = 0;
      for (let index = 0; index < pending.length; index += 1) {
        const char = pending[index];
        if (char !== '\n' && char !== '\r') continue;
        takeLine(pending.slice(start, index), events);
        if (char === '\r') {
          if (index + 1 === pending.length) skipLeadingLf = true;
          else if (pending[index + 1] === '\n') index += 1;
        }
        start = index + 1;
      }
      pending = pending.slice(start);
      return events;
    },
    finish() {
      const events: string[] = [];
      if (pending !== '') takeLine(pending, events);
      pending = '';
      takeLine('', events);
      return events;
    },
  };
}

/** What one event of an OpenAI chat-completions stream means to the chat box. */
export type StreamEvent =
  | { kind: 'delta'; text: string }
  | { kind: 'done' }
  | { kind: 'error'; message: string }
  /** A chunk without text (the role chunk, the usage chunk, an empty choice). */
  | { kind: 'empty' };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The text of an OpenAI-style error object (`{error:{message,type,code}}`), or of new-api's
 * envelope (`{success:false,message}`); null when `payload` is neither.
 */
export function errorMessageOf(payload: unknown): string | null {
  if (!isRecord(payload)) return null;
  const { error } = payload;
  if (typeof error === 'string' && error !== '') return error;
  if (isRecord(error)) {
    const message = typeof error.message === 'string' && error.message !== '' ? error.message : JSON.stringify(error);
    const code = typeof error.code === 'string' || typeof error.code === 'number' ? String(error.code) : '';
    return code && !message.includes(code) ? `${message} (${code})` : message;
  }
  if (payload.success === false && typeof payload.message === 'string') return payload.message;
  return null;
}

/** Reads one event's data: text from `choices[0].delta.content`, the end at `[DONE]`, or the error it carries. */
export function interpretEvent(data: string): StreamEvent {
  const trimmed = data.trim();
  if (trimmed === '[DONE]') return { kind: 'done' };
  if (trimmed === '') return { kind: 'empty' };
  let payload: unknown;
  try {
    payload = JSON.parse(trimmed);
  } catch {
    // Not JSON: the data itself is the best account of what went wrong.
    return { kind: 'error', message: trimmed };
  }
  const error = errorMessageOf(payload);
  if (error !== null) return { kind: 'error', message: error };
  if (!isRecord(payload) || !Array.isArray(payload.choices)) return { kind: 'empty' };
  const choice: unknown = payload.choices[0];
  const delta = isRecord(choice) && isRecord(choice.delta) ? choice.delta : undefined;
  const content = delta?.content;
  return typeof content === 'string' && content !== '' ? { kind: 'delta', text: content } : { kind: 'empty' };
}
