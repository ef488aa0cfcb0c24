import { describe, expect, it } from 'vitest';
import { readChatStream } from './stream-reader';

const encoder = new TextEncoder();
const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;

/** A body delivering `bytes` in reads of `size` bytes; `cancelled` tells whether the reader let go early. */
function bodyOf(bytes: Uint8Array, size: number) {
  const state = { cancelled: false, offset: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(state.offset, state.offset + size));
      state.offset += size;
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

async function read(text: string, size: number) {
  const pieces: string[] = [];
  const { stream, state } = bodyOf(encoder.encode(text), size);
  const end = await readChatStream(stream, (piece) => pieces.push(piece));
  return { end, text: pieces.join(''), state };
}

describe('reading a streamed chat completion', () => {
  const reply = `${chunk('你好，')}${chunk('世界 🌍')}: keep-alive\n\n${chunk('!')}data: {"choices":[],"usage":{"total_tokens":9}}\n\ndata: [DONE]\n\n`;

  it('gives the whole reply whatever the read sizes, even with characters split between reads', async () => {
    for (const size of [1, 2, 3, 5, 7, 64, 4096]) {
      const { end, text } = await read(reply, size);
      expect(end).toEqual({ kind: 'done' });
      expect(text).toBe('你好，世界 🌍!');
    }
  });

  it('stops at [DONE] and at an error event, letting go of the rest', async () => {
    const afterDone = await read(`${chunk('a')}data: [DONE]\n\n${chunk('never')}`, 8);
    expect(afterDone.text).toBe('a');
    expect(afterDone.state.cancelled).toBe(true);

    const broken = await read(`${chunk('partial')}data: {"error":{"message":"上游连接中断","type":"upstream_error","code":"upstream_stream_broken"}}\n\n`, 16);
    expect(broken.end).toEqual({ kind: 'error', message: '上游连接中断 (upstream_stream_broken)' });
    expect(broken.text).toBe('partial');
  });

  it('calls a stream that ends without [DONE] cut, after giving what came', async () => {
    const { end, text } = await read(`${chunk('half')}${chunk(' way')}`, 10);
    expect(end).toEqual({ kind: 'cut' });
    expect(text).toBe('half way');
  });

  it('reads a last [DONE] that lacks its blank line', async () => {
    expect((await read(`${chunk('x')}data: [DONE]`, 4)).end).toEqual({ kind: 'done' });
  });

  it('throws when the read fails (an aborted fetch), so a stop is not mistaken for an error', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(chunk('some')));
        controller.error(new DOMException('The operation was aborted.', 'AbortError'));
      },
    });
    const pieces: string[] = [];
    await expect(readChatStream(stream, (piece) => pieces.push(piece))).rejects.toMatchObject({ name: 'AbortError' });
  });
});
