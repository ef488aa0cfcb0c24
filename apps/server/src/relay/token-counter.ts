import { promptTextOf, type OpenAIEndpoint, type TokenUsage } from '@modelgate/protocol';

type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base');

let encoding: Promise<Encoding> | undefined;
/** The tokenizer loads on first use (it costs ~100 MB and 0.2 s), never when upstreams report usage. */
const loadEncoding = (): Promise<Encoding> => (encoding ??= import('gpt-tokenizer/encoding/o200k_base'));

/** Special-token text in user input is counted as the plain text it is. */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Tokens of the texts under o200k_base, the encoding of OpenAI's current models. */
export async function countTextTokens(texts: readonly string[]): Promise<number> {
  if (texts.length === 0) return 0;
  const { countTokens } = await loadEncoding();
  let total = 0;
  for (const text of texts) if (text !== '') total += countTokens(text, AS_PLAIN_TEXT);
  return total;
}

/**
 * Prompt tokens of a request, counted. Text-to-speech is priced per input character (as OpenAI
 * prices tts-1), so its "prompt tokens" are characters.
 */
export async function countPromptTokens(endpoint: OpenAIEndpoint, fields: Record<string, unknown>): Promise<number> {
  if (endpoint === 'speech') return typeof fields.input === 'string' ? [...fields.input].length : 0;
  const prompt = promptTextOf(endpoint, fields);
  return prompt.overheadTokens + (await countTextTokens(prompt.texts));
}

/**
 * Usage for an answer that reported none: the counted prompt, and the generated text counted as
 * completion. A transcript is what a transcription generates, so it counts as completion too.
 */
export async function countedUsage(
  endpoint: OpenAIEndpoint,
  fields: Record<string, unknown>,
  completionTexts: readonly string[],
): Promise<TokenUsage> {
  const transcription = endpoint === 'transcriptions' || endpoint === 'translations';
  const [promptTokens, completionTokens] = await Promise.all([
    transcription ? Promise.resolve(0) : countPromptTokens(endpoint, fields),
    // Stream pieces are joined first: token boundaries do not follow chunk boundaries.
    countTextTokens([completionTexts.join('')]),
  ]);
  return { promptTokens, completionTokens };
}
