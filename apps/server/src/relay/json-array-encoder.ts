import type { ChatChunk, StreamEncoder } from '@modelgate/protocol';

/**
 * Gemini's streamGenerateContent without `alt=sse` answers one JSON array whose elements arrive as
 * they are generated (`[{…}\r\n,{…}]`). This wraps the Gemini SSE encoder: each event's data becomes
 * an element.
 */
export class JsonArrayEncoder implements StreamEncoder {
  private opened = false;
  private closed = false;

  constructor(private readonly inner: StreamEncoder) {}

  push(chunk: ChatChunk): string {
    return this.elements(this.inner.push(chunk));
  }

  finish(): string {
    return this.close(this.elements(this.inner.finish()));
  }

  error(message: string, type: string): string {
    return this.close(this.elements(this.inner.error(message, type)));
  }

  private close(text: string): string {
    if (this.closed) return text;
    this.closed = true;
    return `${text}${this.opened ? '' : '['}]`;
  }

  /** The `data:` payloads of whole SSE events, as array elements. */
  private elements(events: string): string {
    if (events === '' || this.closed) return '';
    let out = '';
    for (const event of events.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '') continue;
      out += this.opened ? `,\r\n${data}` : `[${data}`;
      this.opened = true;
    }
    return out;
  }
}
