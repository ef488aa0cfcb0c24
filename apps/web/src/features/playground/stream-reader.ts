import { createSseParser, interpretEvent } from './sse';

/** How a chat-completions stream ended: at `[DONE]`, at an error event, or cut off before either. */
export type StreamReadEnd = { kind: 'done' } | { kind: 'error'; message: string } | { kind: 'cut' };

/**
 * Reads the body of a streamed chat completion: bytes (a UTF-8 character may be split between
 * reads) to text, text to events, events to the reply's pieces passed to `onText`. Stops reading
 * at `[DONE]` or at the first error event. A read that fails (the fetch was aborted) throws, so
 * the caller can tell a stop from a failure.
 */
export async function readChatStream(
  body: ReadableStream<Uint8Array>,
  onText: (text: string) => void,
  onEvent?: (data: string) => void,
): Promise<StreamReadEnd> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = createSseParser();
  const handle = (events: string[]): StreamReadEnd | null => {
    for (const data of events) {
      onEvent?.(data);
      const event = interpretEvent(data);
      if (event.kind === 'delta') onText(event.text);
      else if (event.kind === 'done') return { kind: 'done' };
      else if (event.kind === 'error') return { kind: 'error', message: event.message };
    }
    return null;
  };

  for (;;) {
    const { done, value } = await reader.read();
    if (done) return handle([...parser.push(decoder.decode()), ...parser.finish()]) ?? { kind: 'cut' };
    const end = handle(parser.push(decoder.decode(value, { stream: true })));
    if (end) {
      // Whatever follows [DONE] or an error is not read; the connection is released.
      await reader.cancel().catch(() => undefined);
      return end;
    }
  }
}
