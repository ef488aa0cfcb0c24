import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countTextTokens, piecesOf } from './token-counter.js';

describe('token counting', () => {
  it('counts ordinary text whole, exactly as the tokenizer does', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. {"a": [1, 2, 3]} — 你好，世界';
    expect(piecesOf(text)).toEqual([text]);
    expect(await countTextTokens([text, text])).toBe(2 * countTokens(text));
  });

  it('counts a megabyte without whitespace in bounded time, close to the true count', async () => {
    const started = performance.now();
    const counted = await countTextTokens(['x'.repeat(1_000_000)]);
    expect(performance.now() - started).toBeLessThan(5000);
    // Eight letters a token, as the tokenizer counts shorter runs of the same letter.
    expect(counted).toBe(125_000);
  });

  it('keeps every character when it cuts long runs', () => {
    const text = `before ${'ab'.repeat(700)} middle\n${'z'.repeat(300)} after`;
    const pieces = piecesOf(text);
    expect(pieces.join('')).toBe(text);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(256);
  });
});
