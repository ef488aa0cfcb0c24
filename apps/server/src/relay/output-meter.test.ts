import { describe, expect, it } from 'vitest';
import { OutputMeter } from './output-meter.js';
import { countTextTokens } from './token-counter.js';

const TEXTS = {
  prose:
    "The relay meters a capped stream as it passes. When the counted completion reaches the cap, it ends the stream cleanly in the caller's protocol, and aborts the upstream request.\n\n" +
    'Numbers: 12345, 3.14159; punctuation!!! "quoted" (parens) [brackets]   multiple   spaces\tand tabs.\n',
  code: 'function add(a, b) {\n  return a + b; // sum\n}\nconst x = add(1, 2);\nconsole.log(`x=${x}`);\n'.repeat(10),
  // No spaces at all: counted in stretches of at most 256 characters.
  chinese: '中转站在流经过时为封顶的调用计量输出。当计数达到上限时，它以调用方的协议结束流，并中止上游请求。'.repeat(8),
};

/** The text in pieces of `size` characters, as a stream delivers it. */
const piecesOf = (text: string, size: number): string[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, index) => text.slice(index * size, (index + 1) * size));

describe('OutputMeter', () => {
  it('counts a text streamed in pieces as the whole text counts, not as the sum of its pieces', async () => {
    for (const [name, text] of Object.entries(TEXTS)) {
      const whole = await countTextTokens([text]);
      for (const size of [1, 3, 7, 50]) {
        const meter = await OutputMeter.load(1_000_000, 0);
        for (const piece of piecesOf(text, size)) expect(meter.take('content', piece)).toBe(piece);
        // Text without spaces is committed every 256 characters, where a token may be split.
        const slack = name === 'chinese' ? Math.ceil(text.length / 256) : 0;
        expect(Math.abs(meter.metered - whole), `${name} in pieces of ${size}`).toBeLessThanOrEqual(slack);
      }
    }
  });

  it('keeps the longest start of the piece that passes the budget, then nothing', async () => {
    const meter = await OutputMeter.load(40, 0);
    let kept = '';
    for (const piece of piecesOf(TEXTS.prose, 13)) kept += meter.take('content', piece);
    expect(meter.exceeded).toBe(true);
    expect(meter.metered).toBe(40);
    expect(await countTextTokens([kept])).toBe(40);
    expect(TEXTS.prose.startsWith(kept)).toBe(true);
    expect(meter.take('reasoning', 'more')).toBe('');
  });

  it('never splits a surrogate pair', async () => {
    const meter = await OutputMeter.load(3, 0);
    const kept = meter.take('content', '😀😀😀😀😀😀😀😀');
    expect(kept.length % 2).toBe(0);
    expect(meter.metered).toBeLessThanOrEqual(3);
  });

  it('takes the upstream’s running count for the text it covers, and counts on from it', async () => {
    const meter = await OutputMeter.load(100, 0);
    meter.take('content', ' word'.repeat(10));
    // A report arriving with text covers it: that text passes uncounted.
    expect(meter.report(30, true)).toBe(true);
    expect(meter.metered).toBe(30);
    // Repeats are no news, nor are counts that fall (per-chunk counts, not running ones).
    expect(meter.report(30, false)).toBe(false);
    expect(meter.report(2, true)).toBe(false);
    meter.take('content', ' word'.repeat(5));
    expect(meter.metered).toBe(35);
  });

  it('ends the answer after an event whose report passes the budget, its text cut by our count', async () => {
    const meter = await OutputMeter.load(50, 0);
    expect(meter.report(48, true)).toBe(true);
    // The next event says 56: its eight words are cut to the two tokens the budget has left.
    expect(meter.report(56, true)).toBe(false);
    expect(meter.take('content', ' word'.repeat(8))).toBe(' word'.repeat(2));
    meter.eventDone();
    expect([meter.exceeded, meter.metered]).toEqual([true, 50]);
  });

  it('takes a report past the budget that came without text (a closing usage event) without ending the answer', async () => {
    const meter = await OutputMeter.load(50, 0);
    meter.take('content', ' word'.repeat(45));
    expect(meter.report(60, false)).toBe(true);
    meter.eventDone();
    expect([meter.exceeded, meter.metered]).toEqual([false, 60]);
    // Any text after it is past the budget.
    expect(meter.take('content', ' word')).toBe('');
    expect(meter.exceeded).toBe(true);
  });
});
