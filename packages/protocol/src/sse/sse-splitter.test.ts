import { describe, expect, it } from 'vitest';
import { SseSplitter } from './sse-splitter.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const texts = (events: { raw: Buffer }[]) => events.map((event) => event.raw.toString('utf8'));

describe('SseSplitter', () => {
  it('keeps every event byte for byte whatever the chunking, multi-byte characters included', () => {
    const stream = bytes('data: {"a":"héllo ✓"}\n\nevent: x\ndata: line1\ndata: line2\n\n: comment\n\ndata: [DONE]\n\n');
    for (let size = 1; size <= stream.length; size += 1) {
      const splitter = new SseSplitter();
      const events = [];
      for (let offset = 0; offset < stream.length; offset += size) events.push(...splitter.push(stream.subarray(offset, offset + size)));
      expect(Buffer.concat(events.map((event) => event.raw)).equals(stream)).toBe(true);
      expect(events.map((event) => event.data)).toEqual(['{"a":"héllo ✓"}', 'line1\nline2', '', '[DONE]']);
      expect(events[1]!.event).toBe('x');
      expect(splitter.finish()).toBeUndefined();
    }
  });

  it('understands CRLF and lone CR line ends', () => {
    const splitter = new SseSplitter();
    const events = [...splitter.push(bytes('data: one\r\n\r\ndata: two\r\r')), ...splitter.push(bytes('data: three\r\n'))];
    expect(events.map((event) => event.data)).toEqual(['one', 'two']);
    expect(texts(splitter.push(bytes('\r\n')))).toEqual(['data: three\r\n\r\n']);
  });

  it('waits when a CR ends the buffer, since an LF may follow', () => {
    const splitter = new SseSplitter();
    expect(splitter.push(bytes('data: x\r\n\r'))).toEqual([]);
    expect(texts(splitter.push(bytes('\n')))).toEqual(['data: x\r\n\r\n']);
  });

  it('hands back an unterminated tail at the end', () => {
    const splitter = new SseSplitter();
    expect(splitter.push(bytes('data: partial'))).toEqual([]);
    const tail = splitter.finish()!;
    expect([tail.raw.toString(), tail.data]).toEqual(['data: partial', 'partial']);
  });
});
