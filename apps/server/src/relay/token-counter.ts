import { promptTextOf, type OpenAIEndpoint, type TokenUsage } from '@modelgate/protocol';
import type { ImageTokenCounter } from './image-tokens.js';

type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base');

let encoding: Promise<Encoding> | undefined;
/** The tokenizer loads on first use (it costs ~100 MB and 0.2 s), never when upstreams report usage. */
const loadEncoding = (): Promise<Encoding> => (encoding ??= import('gpt-tokenizer/encoding/o200k_base'));

/** Special-token text in user input is counted as the plain text it is. */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Longest run without whitespace counted in one piece (see piecesOf). */
const MAX_RUN = 256;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN + 1},}`);
const LONG_RUNS = new RegExp(LONG_RUN.source, 'g');

/**
 * The text in pieces the tokenizer handles in bounded time. Byte-pair encoding of one long run
 * without whitespace takes time that grows with the square of its length (160,000 repeated
 * letters took 26 s, holding the event loop); a prompt or an answer with such a run could stall
 * the relay. Runs longer than MAX_RUN are cut into MAX_RUN pieces counted apart, which changes
 * the count by at most a token per cut. Ordinary text (words, code, JSON) has no such runs and is
 * counted whole.
 */
export function piecesOf(text: string): string[] {
  if (!LONG_RUN.test(text)) return [text];
  const pieces: string[] = [];
  let last = 0;
  for (const match of text.matchAll(LONG_RUNS)) {
    if (match.index > last) pieces.push(text.slice(last, match.index));
    for (let start = 0; start < match[0].length; start += MAX_RUN) pieces.push(match[0].slice(start, start + MAX_RUN));
    last = match.index + match[0].length;
  }
  if (last < text.length) pieces.push(text.slice(last));
  return pieces;
}

/** Tokens of the texts under o200k_base, the encoding of OpenAI's current models. */
export async function countTextTokens(texts: readonly string[]): Promise<number> {
  if (texts.length === 0) return 0;
  const { countTokens } = await loadEncoding();
  let total = 0;
  for (const text of texts) {
    if (text === '') continue;
    for (const piece of piecesOf(text)) total += countTokens(piece, AS_PLAIN_TEXT);
  }
  return total;
}

/**
 * A counter of text tokens (o200k_base, long runs in pieces as above) that runs synchronously once
 * the tokenizer is loaded: for metering a stream chunk by chunk as it passes (output-meter.ts).
 */
export async function loadTextTokenCounter(): Promise<(text: string) => number> {
  const { countTokens } = await loadEncoding();
  return (text) => {
    if (text === '') return 0;
    let total = 0;
    for (const piece of piecesOf(text)) total += countTokens(piece, AS_PLAIN_TEXT);
    return total;
  };
}

/** What an image costs when nothing reads its size: a low-detail image's 85 tokens, a floor. */
const TOKENS_PER_IMAGE = 85;

/**
 * Prompt tokens of a request, counted. Text-to-speech is priced per input character (as OpenAI
 * prices tts-1), so its "prompt tokens" are characters. Images are counted by `images` (their
 * sizes read, see image-tokens.ts), else at 85 tokens each.
 */
export async function countPromptTokens(endpoint: OpenAIEndpoint, fields: Record<string, unknown>, images?: ImageTokenCounter): Promise<number> {
  if (endpoint === 'speech') return typeof fields.input === 'string' ? [...fields.input].length : 0;
  const prompt = promptTextOf(endpoint, fields);
  const model = typeof fields.model === 'string' ? fields.model : '';
  const [textTokens, imageTokens] = await Promise.all([
    countTextTokens(prompt.texts),
    prompt.images.length === 0 ? 0 : images ? images.tokens(prompt.images, model) : prompt.images.length * TOKENS_PER_IMAGE,
  ]);
  return prompt.overheadTokens + textTokens + imageTokens;
}

/**
 * Usage for an answer that reported none: the counted prompt, and the generated text counted as
 * completion. A transcript is what a transcription generates, so it counts as completion too.
 */
export async function countedUsage(
  endpoint: OpenAIEndpoint,
  fields: Record<string, unknown>,
  completionTexts: readonly string[],
  images?: ImageTokenCounter,
): Promise<TokenUsage> {
  const transcription = endpoint === 'transcriptions' || endpoint === 'translations';
  const [promptTokens, completionTokens] = await Promise.all([
    transcription ? Promise.resolve(0) : countPromptTokens(endpoint, fields, images),
    // Stream pieces are joined first: token boundaries do not follow chunk boundaries.
    countTextTokens([completionTexts.join('')]),
  ]);
  return { promptTokens, completionTokens };
}
