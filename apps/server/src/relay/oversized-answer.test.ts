import { describe, expect, it } from 'vitest';
import { createOpenAICompatibleAdaptor } from '../providers/openai-compatible/openai-compatible-adaptor.js';
import { AnswerTail, usageFromTail } from './oversized-answer.js';

const adaptor = createOpenAICompatibleAdaptor({ name: 'openai', streamUsageOption: true });

/** The last bytes of an answer, pushed in chunks of `size`. */
function tailOf(text: string, size = 1000): string {
  const tail = new AnswerTail();
  const bytes = Buffer.from(text);
  for (let start = 0; start < bytes.length; start += size) tail.push(bytes.subarray(start, start + size));
  return tail.text();
}

describe('usage from the end of an oversized answer', () => {
  it('reads the usage an embeddings answer ends with, after megabytes of vectors', () => {
    const vectors = Array.from({ length: 2000 }, (_, index) => `{"object":"embedding","index":${index},"embedding":[${'0.0123456789,'.repeat(100)}0.5]}`).join(
      ',',
    );
    const answer = `{"object":"list","data":[${vectors}],"model":"text-embedding-3-large","usage":{"prompt_tokens":81234,"total_tokens":81234}}`;
    expect(answer.length).toBeGreaterThan(2_000_000);
    expect(usageFromTail(tailOf(answer), adaptor, 'embeddings')).toEqual({ promptTokens: 81234, completionTokens: 0 });
  });

  it('is not fooled by text that quotes a usage object, and finds none when the answer has none', () => {
    const content = JSON.stringify('the model wrote "usage": {"prompt_tokens": 1, "completion_tokens": 1} here');
    const withUsage = `{"choices":[{"message":{"content":${content}}}],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46},"system_fingerprint":"fp"}`;
    expect(usageFromTail(tailOf(withUsage, 7), adaptor, 'chat')).toEqual({ promptTokens: 12, completionTokens: 34 });
    const without = `{"choices":[{"message":{"content":${content}}}]}`;
    expect(usageFromTail(tailOf(without), adaptor, 'chat')).toBeUndefined();
  });

  it('keeps at least the last 64 KiB and not much more', () => {
    const text = tailOf('x'.repeat(1_000_000) + 'END', 4096);
    expect(text.endsWith('END')).toBe(true);
    expect(text.length).toBeGreaterThanOrEqual(64 * 1024);
    expect(text.length).toBeLessThanOrEqual(64 * 1024 + 4096);
  });
});
