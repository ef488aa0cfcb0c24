import { describe, expect, it } from 'vitest';
import { maskRanges, parseSensitiveWords, WordMatcher } from './word-matcher.js';

/** The obvious way, to check the automaton against on random inputs. */
const naiveFind = (words: string[], text: string): boolean => words.some((word) => text.toLowerCase().includes(word.toLowerCase()));

describe('WordMatcher', () => {
  it('finds a listed word anywhere, ignoring case, and names it as listed', () => {
    const matcher = new WordMatcher(['炸弹', 'Forbidden', 'he']);
    expect(matcher.find('如何制作炸弹？')).toBe('炸弹');
    expect(matcher.find('This is FORBIDDEN text')).toBe('Forbidden');
    expect(matcher.find('she sells')).toBe('he');
    expect(matcher.find('nothing to see')).toBeUndefined();
    expect(matcher.find('')).toBeUndefined();
  });

  it('follows failure links: a word inside another word’s unfinished prefix', () => {
    const matcher = new WordMatcher(['abcd', 'bc', 'cde']);
    expect(matcher.find('abce')).toBe('bc');
    expect(matcher.find('xxabcx')).toBe('bc');
    expect(new WordMatcher(['abcd', 'cdx']).find('abcdx')).toBe('abcd');
    expect(new WordMatcher(['aab']).find('aaab')).toBe('aab');
  });

  it('ignores blank words, and an empty list finds nothing', () => {
    expect(new WordMatcher(['', '  ']).find('anything')).toBeUndefined();
    expect(new WordMatcher([]).size).toBe(0);
    expect(parseSensitiveWords('one\r\n\n  two  \nthree\n')).toEqual(['one', 'two', 'three']);
  });

  it('agrees with a plain substring search on random words and texts', () => {
    // mulberry32: integer arithmetic, so the sequence does not lose its low bits to rounding.
    let seed = 7;
    const random = () => {
      seed = (seed + 0x6d2b79f5) >>> 0;
      let mixed = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
      return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
    };
    const alphabet = 'abcAB敏感';
    const word = (length: number) => Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    for (let round = 0; round < 1000; round += 1) {
      const words = Array.from({ length: 1 + Math.floor(random() * 6) }, () => word(1 + Math.floor(random() * 4)));
      const text = word(Math.floor(random() * 20));
      const matcher = new WordMatcher(words);
      const found = matcher.find(text);
      expect(found !== undefined, `${JSON.stringify(words)} in ${text}`).toBe(naiveFind(words, text));
      if (found !== undefined) expect(text.toLowerCase()).toContain(found.toLowerCase());
      // Every occurrence of every word lies inside some reported range.
      const covered = new Array<boolean>(text.length).fill(false);
      for (const range of matcher.ranges(text)) {
        expect(text.slice(range.start, range.end).toLowerCase()).toBe(range.word.toLowerCase());
        for (let at = range.start; at < range.end; at += 1) covered[at] = true;
      }
      for (const listed of words) {
        for (let at = text.toLowerCase().indexOf(listed.toLowerCase()); at !== -1; at = text.toLowerCase().indexOf(listed.toLowerCase(), at + 1)) {
          expect(covered.slice(at, at + listed.length).every(Boolean), `${listed} at ${at} in ${text}`).toBe(true);
        }
      }
    }
  });

  it('builds 10,000 words and scans a long text without depending on their number', () => {
    const words = Array.from({ length: 10_000 }, (_, index) => `word${index}x`);
    const matcher = new WordMatcher(words);
    expect(matcher.size).toBe(10_000);
    const text = 'lorem ipsum dolor sit amet word12 word999 '.repeat(200);
    expect(matcher.find(text)).toBeUndefined();
    expect(matcher.find(`${text} WORD9999X`)).toBe('word9999x');
  });

  it('reads states with many edges (searched by halves) as well as those with few', () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const matcher = new WordMatcher([...letters].map((letter) => `q${letter}z`));
    for (const letter of letters) expect(matcher.find(`xxq${letter.toUpperCase()}zxx`)).toBe(`q${letter}z`);
    expect(matcher.find('qz q-z')).toBeUndefined();
    expect(matcher.find('q1z')).toBeUndefined();
  });

  it('keeps one word per lower-cased form and knows the longest', () => {
    const matcher = new WordMatcher(['Spam', 'SPAM', 'spam', 'eggs and ham']);
    expect(matcher.words).toEqual(['Spam', 'eggs and ham']);
    expect(matcher.maxWordLength).toBe(12);
  });

  it('folds case one code unit at a time, so ranges index the original text', () => {
    // 'İ'.toLowerCase() is two code units; the fold keeps it as one, so positions do not shift.
    const text = 'İİ ÄRGER und Ärger';
    const ranges = new WordMatcher(['ärger']).ranges(text);
    expect(ranges.map((range) => text.slice(range.start, range.end))).toEqual(['ÄRGER', 'Ärger']);
  });

  it('lists every word from a given position on, and masks them merged as new-api does', () => {
    const matcher = new WordMatcher(['abc', 'b', 'cd', 'xyz']);
    const text = 'zabcdz xyz';
    const ranges = matcher.ranges(text);
    expect(ranges.map((range) => range.word)).toEqual(['b', 'abc', 'cd', 'xyz']);
    expect(maskRanges(text, ranges, '**###**')).toBe('z**###**z **###**');
    expect(matcher.ranges(text, 5).map((range) => range.word)).toEqual(['xyz']);
    expect(maskRanges('clean', [], '*')).toBe('clean');
  });
});
