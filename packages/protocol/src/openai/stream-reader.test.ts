import { describe, expect, it } from 'vitest';
import { OpenAIStreamReader } from './stream-reader.js';

const chunk = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
const content = (text: string) => chunk({ choices: [{ index: 0, delta: { content: text } }], usage: null });
const usage = chunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } });

function relay(reader: OpenAIStreamReader, parts: string[]): string {
  const out = parts.flatMap((part) => reader.push(Buffer.from(part)));
  const tail = reader.finish();
  return Buffer.concat(tail ? [...out, tail] : out).toString();
}

describe('OpenAIStreamReader', () => {
  it('forwards the very buffers of chunks holding whole events', () => {
    const reader = new OpenAIStreamReader('chat', true);
    const first = Buffer.from(content('Hel') + content('lo'));
    expect(reader.push(first)).toBe(first);
  });

  it('drops the usage-only event when asked, whatever the chunking, and keeps the usage', () => {
    const stream = content('Hel') + content('lo') + usage + 'data: [DONE]\n\n';
    for (const size of [1, 7, 50, stream.length]) {
      const parts = [];
      for (let offset = 0; offset < stream.length; offset += size) parts.push(stream.slice(offset, offset + size));
      const dropping = new OpenAIStreamReader('chat', true);
      expect(relay(dropping, parts)).toBe(stream.replace(usage, ''));
      expect(dropping.observation.usage).toEqual({ promptTokens: 3, completionTokens: 2 });
      const keeping = new OpenAIStreamReader('chat', false);
      expect(relay(keeping, parts)).toBe(stream);
    }
  });

  it('reads the text of a stream without usage at the end', () => {
    const reader = new OpenAIStreamReader('chat', true);
    relay(reader, [content('Hel'), content('lo'), 'data: [DONE]\n\n']);
    expect(reader.observation.usage).toBeUndefined();
    expect(reader.observation.textParts.join('')).toBe('Hello');
  });

  it('reads the usage events of a chunk of many, cutting only the usage-only one', () => {
    // Moonshot puts usage on the last choice: that event carries text too and is always kept.
    const onChoice = chunk({ choices: [{ index: 0, delta: { content: '!' }, usage: { prompt_tokens: 5, completion_tokens: 4 } }] });
    const stream = content('Hel') + onChoice + content('lo') + usage + 'data: [DONE]\n\n';
    const dropping = new OpenAIStreamReader('chat', true);
    expect(relay(dropping, [stream])).toBe(stream.replace(usage, ''));
    expect(dropping.observation.usage).toEqual({ promptTokens: 3, completionTokens: 2 });
    const keeping = new OpenAIStreamReader('chat', false);
    const whole = Buffer.from(stream);
    expect(keeping.push(whole)).toBe(whole);
    expect(keeping.observation.usage).toEqual({ promptTokens: 3, completionTokens: 2 });
  });

  it('counts the text of a last event that the upstream left without its blank line', () => {
    for (const last of ['data: {"choices":[{"delta":{"content":"lo"}}]}', 'event: x\ndata: {"choices":[{"delta":{"content":"lo"}}]}\n']) {
      const reader = new OpenAIStreamReader('chat', true);
      expect(relay(reader, [content('Hel'), last])).toBe(content('Hel') + last);
      expect(reader.observation.textParts.join('')).toBe('Hello');
    }
  });

  it('counts the text when the only usage mention is null', () => {
    const reader = new OpenAIStreamReader('chat', true);
    relay(reader, [content('Hel') + chunk({ choices: [], usage: null }) + content('lo') + 'data: [DONE]\n\n']);
    expect(reader.observation.usage).toBeUndefined();
    expect(reader.observation.textParts.join('')).toBe('Hello');
  });

  it('reads the text of held events of any shape, on short and on long streams, however they are cut', () => {
    const pieces = [
      content('狐狸 '),
      ': keep-alive\n\n',
      `event: message\n${content('relays ')}`,
      'data: {"choices":[{"delta":\ndata: {"content":"the "}}]}\n\n',
      content('message').replace(/\n/g, '\r\n'),
      content(' ✓ '),
    ];
    // Once: held to the end. Forty times (about 14 KB): read early, in 8 KiB batches.
    for (const repeat of [1, 40]) {
      const stream = `${pieces.join('').repeat(repeat)}data: [DONE]\n\n`;
      const bytes = Buffer.from(stream);
      for (const size of [bytes.length, 97, 7]) {
        const parts: Buffer[] = [];
        for (let offset = 0; offset < bytes.length; offset += size) parts.push(bytes.subarray(offset, offset + size));
        const reader = new OpenAIStreamReader('chat', true);
        const out = parts.flatMap((part) => reader.push(part));
        const tail = reader.finish();
        expect(Buffer.concat(tail ? [...out, tail] : out).toString(), `${repeat} x, ${size}-byte parts`).toBe(stream);
        expect(reader.observation.textParts.join(''), `${repeat} x, ${size}-byte parts`).toBe('狐狸 relays the message ✓ '.repeat(repeat));
      }
    }
  });
});
