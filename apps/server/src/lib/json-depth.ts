import { AppError } from '../errors/app-error.js';

/**
 * JSON nesting limit for request bodies. JSON.parse itself copes with deep nesting, but the
 * code that walks the parsed value (zod, String(), JSON.stringify, our own converters) recurses,
 * and a 10,000-deep body overflows its stack into a 500. No API we serve nests anywhere near 64.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACKET = 0x5d; // ]
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACE = 0x7d; // }

/**
 * True when `text` opens more than `maxDepth` arrays or objects inside one another. One pass,
 * no allocation: brackets inside strings do not count, and a string is skipped with indexOf to
 * its closing quote (a quote preceded by an odd run of backslashes is escaped, not closing).
 * Malformed text is not judged here: JSON.parse does that after.
 */
export function exceedsJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  const length = text.length;
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = closingQuote(text, index);
      if (index === -1) return false;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return false;
}

/** Index of the quote that closes the string opened at `open`, or -1 when it never closes. */
function closingQuote(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    let backslashes = 0;
    for (let before = quote - 1; text.charCodeAt(before) === BACKSLASH; before -= 1) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/** The refusal, rendered as `{success:false}` on /api and as the caller's protocol error (400) on the relay. */
export const jsonTooDeep = (maxDepth = MAX_JSON_DEPTH) =>
  new AppError('request:json_too_deep', `JSON 嵌套层数超过 ${maxDepth} 层 (the JSON body nests deeper than ${maxDepth} levels)`, { status: 400 });
