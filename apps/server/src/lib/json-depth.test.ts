import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

describe('exceedsJsonDepth', () => {
  it('allows 64 levels and refuses 65, of arrays, objects or both', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(exceedsJsonDepth(nested(64))).toBe(false);
    expect(exceedsJsonDepth(nested(65))).toBe(true);
    expect(exceedsJsonDepth('{"a":'.repeat(64) + '1' + '}'.repeat(64))).toBe(false);
    expect(exceedsJsonDepth('{"a":['.repeat(33) + ']}'.repeat(33))).toBe(true);
    expect(exceedsJsonDepth(nested(10_000))).toBe(true);
  });

  it('counts depth, not how many containers there are', () => {
    const wide = `[${Array.from({ length: 5000 }, () => '{"a":[1,2,{"b":[]}]}').join(',')}]`;
    expect(exceedsJsonDepth(wide)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const brackets = '['.repeat(500);
    expect(exceedsJsonDepth(JSON.stringify({ content: brackets }))).toBe(false);
    expect(exceedsJsonDepth(JSON.stringify({ content: `say \\"${brackets}\\" twice "${brackets}"` }))).toBe(false);
    // A string ending in an escaped backslash closes at the next quote: the brackets after it count.
    expect(exceedsJsonDepth(`["a\\\\",${nested(70)}]`)).toBe(true);
    // An escaped quote does not close the string: these brackets are text.
    expect(exceedsJsonDepth(`["a\\"${'['.repeat(70)}"]`)).toBe(false);
  });

  it('leaves malformed text to JSON.parse', () => {
    expect(exceedsJsonDepth('"never closed [[[[')).toBe(false);
    expect(exceedsJsonDepth(']]]]')).toBe(false);
    expect(exceedsJsonDepth('')).toBe(false);
  });
});
