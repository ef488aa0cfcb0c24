import { describe, expect, it } from 'vitest';
import { mockAnthropicSse } from '../providers/anthropic/testing/mock-anthropic.js';
import { ChatTranslation, PassThroughSseReader } from './chat-translation.js';

/** Feeds a stream in pieces of `size` bytes, as sockets deliver it; returns what was forwarded. */
function relay(reader: { push(chunk: Buffer): Buffer | readonly Buffer[]; finish(): Buffer | undefined }, text: string, size: number): string {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    const forwarded = reader.push(bytes.subarray(at, at + size));
    out.push(...(Array.isArray(forwarded) ? forwarded : [forwarded as Buffer]));
  }
  const tail = reader.finish();
  if (tail) out.push(tail);
  return Buffer.concat(out).toString();
}

describe('an Anthropic stream passed through to an Anthropic client', () => {
  const sse = mockAnthropicSse(
    { text: 'Das ist ein Test mit Umlauten: äöü.', usage: { input: 40, output: 12, cacheRead: 100, cacheWrite: 20 }, pieceLength: 3 },
    'claude-x',
  );
  const translation = new ChatTranslation('anthropic', 'anthropic', 'claude-x', true);

  for (const size of [1, 7, 64, 100_000]) {
    it(`forwards the very bytes and reads the usage, in pieces of ${size}`, () => {
      const reader = translation.streamReader(undefined);
      expect(reader).toBeInstanceOf(PassThroughSseReader);
      expect(relay(reader, sse, size)).toBe(sse);
      expect(reader.observation.usage).toEqual({ promptTokens: 160, completionTokens: 12, cachedTokens: 100, cacheCreationTokens: 20 });
    });
  }

  it('counts the text when the stream ends without usage', () => {
    // A stream cut before its message_delta: only message_start carries usage, and its output count is not the answer's.
    const cut = sse.slice(0, sse.indexOf('event: message_delta'));
    const reader = translation.streamReader(undefined);
    const withoutUsage = cut.replace(/"usage":\{[^}]*\}/, '"usage":null');
    expect(relay(reader, withoutUsage, 100_000)).toBe(withoutUsage);
    expect(reader.observation.usage).toBeUndefined();
    expect(reader.observation.textParts.join('')).toBe('Das ist ein Test mit Umlauten: äöü.');
  });

  it('writes an error event in Anthropic’s shape', () => {
    const reader = translation.streamReader(undefined);
    expect(reader.errorEvent('upstream went silent', 'api_error')).toContain('"type":"error"');
  });
});
