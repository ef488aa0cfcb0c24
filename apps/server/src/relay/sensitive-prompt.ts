import type { OpenAIEndpoint } from '@modelgate/protocol';
import type { WordMatcher } from '../domain/sensitive/word-matcher.js';
import { AppError } from '../errors/app-error.js';

/**
 * The prompt check (CheckSensitiveEnabled + CheckSensitiveOnPromptEnabled): the text a caller
 * sends, read in place from the parsed body, one string at a time (no joined copy, so a word
 * cannot be made of the end of one message and the start of the next): messages' string content
 * and text parts (system prompts are messages), `instructions` and `input` of the responses API,
 * `prompt` of completions, images and transcriptions, `input` of embeddings, moderations and
 * speech, a rerank's query and documents. Tool definitions, tool-call arguments and image
 * addresses are not read, as new-api reads only message text.
 */
export function sensitivePromptWord(matcher: WordMatcher, endpoint: OpenAIEndpoint, body: Record<string, unknown>): string | undefined {
  switch (endpoint) {
    case 'chat':
      return inMessages(matcher, body.messages);
    case 'responses':
      return inText(matcher, body.instructions) ?? inMessages(matcher, body.input);
    case 'completions':
    case 'images':
    case 'transcriptions':
    case 'translations':
      return inContent(matcher, body.prompt);
    case 'embeddings':
    case 'moderations':
    case 'speech':
      return inContent(matcher, body.input);
    case 'rerank':
      return inText(matcher, body.query) ?? inContent(matcher, body.documents);
    default: {
      const unreachable: never = endpoint;
      return unreachable;
    }
  }
}

/** new-api's answer to a prompt holding a listed word, naming the word found. */
export function sensitivePromptRefusal(word: string): AppError {
  return new AppError('request:sensitive_words_detected', `sensitive words detected: ${word}`, { status: 400, type: 'new_api_error' });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const inText = (matcher: WordMatcher, value: unknown): string | undefined => (typeof value === 'string' ? matcher.find(value) : undefined);

/** A string, or a message list (chat `messages`, responses `input` items). */
function inMessages(matcher: WordMatcher, messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return inText(matcher, messages);
  for (const message of messages) {
    const found = isObject(message) ? (inContent(matcher, message.content) ?? inText(matcher, message.output)) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A string, or a list of strings and parts with `text` (token-id lists hold no text). */
function inContent(matcher: WordMatcher, content: unknown): string | undefined {
  if (!Array.isArray(content)) return inText(matcher, content);
  for (const part of content) {
    const found = typeof part === 'string' ? matcher.find(part) : isObject(part) ? inText(matcher, part.text) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}
