/**
 * Finds any of many words in a text in one pass (Aho–Corasick): the cost depends on the text's
 * length, not on how many words are listed, so a list of 10,000 words costs a prompt what a list
 * of ten does. Matching ignores case, as new-api's does.
 *
 * Built once per word list into flat typed arrays: the root's transitions as a table indexed by
 * UTF-16 code unit (every character of the text starts there, and most leave at once), the other
 * states' transitions as sorted runs of (code unit, target), a failure link per state, and the
 * longest listed word ending at each state. Scanning allocates nothing.
 */

/** A stretch of a text covered by a listed word: [start, end) in UTF-16 code units. */
export interface WordRange {
  start: number;
  end: number;
  /** The word as it was listed (trimmed). */
  word: string;
}

export class WordMatcher {
  /** Words as listed, trimmed, one per distinct lower-cased form, in list order. */
  readonly words: readonly string[];
  /** Length of the longest word: a text cut anywhere carries at most this minus one of a word over the cut. */
  readonly maxWordLength: number;
  private readonly root: Int32Array;
  /** Edges of state s are edgeCodes/edgeTargets[edgeStart[s] .. edgeStart[s + 1]), sorted by code. */
  private readonly edgeStart: Int32Array;
  private readonly edgeCodes: Uint16Array;
  private readonly edgeTargets: Int32Array;
  private readonly fail: Int32Array;
  /** Index in `words` of the longest word ending at this state (its own, or through its failure links); -1: none. */
  private readonly output: Int32Array;

  constructor(list: Iterable<string>) {
    const lower = lowerTable();
    const words: string[] = [];
    const seen = new Set<string>();
    // Built with a Map per state, then packed into the arrays the scan reads.
    const next: Map<number, number>[] = [new Map()];
    const wordAt: number[] = [-1];
    let maxWordLength = 0;
    for (const raw of list) {
      const word = raw.trim();
      const folded = foldCase(word, lower);
      if (folded === '' || seen.has(folded)) continue;
      seen.add(folded);
      let state = 0;
      for (let index = 0; index < folded.length; index += 1) {
        const code = folded.charCodeAt(index);
        let target = next[state]!.get(code);
        if (target === undefined) {
          target = next.length;
          next.push(new Map());
          wordAt.push(-1);
          next[state]!.set(code, target);
        }
        state = target;
      }
      wordAt[state] = words.length;
      words.push(word);
      maxWordLength = Math.max(maxWordLength, folded.length);
    }
    this.words = words;
    this.maxWordLength = maxWordLength;

    const states = next.length;
    const fail = new Int32Array(states);
    const output = Int32Array.from(wordAt);
    // Breadth-first: a state's failure link is its longest proper suffix that is also a prefix,
    // and its output the longer of its own word and its failure link's output.
    const queue: number[] = [...next[0]!.values()];
    for (let head = 0; head < queue.length; head += 1) {
      const state = queue[head]!;
      for (const [code, child] of next[state]!) {
        let fallback = fail[state]!;
        let target = next[fallback]!.get(code);
        while (target === undefined && fallback !== 0) {
          fallback = fail[fallback]!;
          target = next[fallback]!.get(code);
        }
        fail[child] = target ?? 0;
        const inherited = output[fail[child]!]!;
        if (output[child] === -1) output[child] = inherited;
        queue.push(child);
      }
    }
    this.fail = fail;
    this.output = output;

    this.root = new Int32Array(0x10000);
    for (const [code, target] of next[0]!) this.root[code] = target;
    const edgeStart = new Int32Array(states + 1);
    let edges = 0;
    for (let state = 1; state < states; state += 1) {
      edgeStart[state] = edges;
      edges += next[state]!.size;
    }
    edgeStart[states] = edges;
    this.edgeStart = edgeStart;
    this.edgeCodes = new Uint16Array(edges);
    this.edgeTargets = new Int32Array(edges);
    for (let state = 1; state < states; state += 1) {
      const sorted = [...next[state]!].sort((a, b) => a[0] - b[0]);
      let at = edgeStart[state]!;
      for (const [code, target] of sorted) {
        this.edgeCodes[at] = code;
        this.edgeTargets[at] = target;
        at += 1;
      }
    }
  }

  get size(): number {
    return this.words.length;
  }

  /** The first listed word found in `text` (as listed), or undefined. */
  find(text: string): string | undefined {
    if (this.words.length === 0) return undefined;
    const lower = lowerTable();
    let state = 0;
    for (let index = 0; index < text.length; index += 1) {
      state = this.step(state, lower[text.charCodeAt(index)]!);
      const found = this.output[state]!;
      if (found !== -1) return this.words[found];
    }
    return undefined;
  }

  /**
   * Every stretch of `text` that is a listed word ending at or after `from` (earlier ones were seen
   * before, when a caller scans a stream's tail again): at each position, the longest word ending
   * there. Ranges may overlap; they come in order of their ends.
   */
  ranges(text: string, from = 0): WordRange[] {
    const found: WordRange[] = [];
    if (this.words.length === 0) return found;
    const lower = lowerTable();
    let state = 0;
    for (let index = 0; index < text.length; index += 1) {
      state = this.step(state, lower[text.charCodeAt(index)]!);
      const word = this.output[state]!;
      if (word === -1 || index < from) continue;
      const listed = this.words[word]!;
      found.push({ start: index + 1 - listed.length, end: index + 1, word: listed });
    }
    return found;
  }

  /** The state after reading `code` in `state`: its edge, else its failure links' edges, else the root's. */
  private step(state: number, code: number): number {
    const { edgeStart, edgeCodes, edgeTargets, fail } = this;
    while (state !== 0) {
      let low = edgeStart[state]!;
      const end = edgeStart[state + 1]!;
      if (end - low <= 8) {
        // Most states have one or two edges.
        for (; low < end; low += 1) if (edgeCodes[low] === code) return edgeTargets[low]!;
      } else {
        let high = end - 1;
        while (low <= high) {
          const middle = (low + high) >>> 1;
          const found = edgeCodes[middle]!;
          if (found === code) return edgeTargets[middle]!;
          if (found < code) low = middle + 1;
          else high = middle - 1;
        }
      }
      state = fail[state]!;
    }
    return this.root[code]!;
  }
}

/**
 * `text` with every stretch covered by `ranges` (overlapping or touching ones merged) replaced by
 * `mask`, as new-api's SensitiveWordReplace does with "**###**".
 */
export function maskRanges(text: string, ranges: readonly WordRange[], mask: string): string {
  if (ranges.length === 0) return text;
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  let out = '';
  let kept = 0;
  let index = 0;
  while (index < sorted.length) {
    const start = Math.max(sorted[index]!.start, kept);
    let end = sorted[index]!.end;
    index += 1;
    while (index < sorted.length && sorted[index]!.start <= end) {
      end = Math.max(end, sorted[index]!.end);
      index += 1;
    }
    if (end <= kept) continue;
    out += text.slice(kept, start) + mask;
    kept = end;
  }
  return out + text.slice(kept);
}

/** The SensitiveWords option: one word per line (blank lines ignored). */
export const parseSensitiveWords = (option: string): string[] =>
  option
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');

let lowerCodes: Uint16Array | undefined;

/**
 * Lower case per UTF-16 code unit. Each unit maps to one unit (those whose lower case is longer,
 * as 'İ', stay as they are), so positions in the folded text are positions in the text: no folded
 * copy is made, and a found word's range can be cut from the original. Built once, on first use
 * (about 5 ms).
 */
function lowerTable(): Uint16Array {
  if (lowerCodes) return lowerCodes;
  const table = new Uint16Array(0x10000);
  for (let code = 0; code < 0x10000; code += 1) {
    const lowered = String.fromCharCode(code).toLowerCase();
    table[code] = lowered.length === 1 ? lowered.charCodeAt(0) : code;
  }
  return (lowerCodes = table);
}

function foldCase(text: string, lower: Uint16Array): string {
  let folded = '';
  for (let index = 0; index < text.length; index += 1) folded += String.fromCharCode(lower[text.charCodeAt(index)]!);
  return folded;
}
