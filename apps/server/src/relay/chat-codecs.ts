import { anthropicCodec, cohereCodec, geminiCodec, openaiCodec, responsesCodec, type ChatCodec, type ChatFormat } from '@modelgate/protocol';
import type { ErrorProtocol } from '../errors/render.js';

/** The codec of each chat format the relay converts between (packages/protocol). */
const CODECS: Readonly<Record<ChatFormat, ChatCodec>> = {
  openai: openaiCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
  cohere: cohereCodec,
  responses: responsesCodec,
};

export const codecFor = (format: ChatFormat): ChatCodec => CODECS[format];

/**
 * The error shape a client of each format reads. Cohere is only ever an upstream format here (no
 * route takes Cohere's requests), so its refusals are rendered the way the relay's default reads.
 * The Responses API answers a refused request with OpenAI's error body.
 */
const ERROR_PROTOCOLS: Readonly<Record<ChatFormat, Exclude<ErrorProtocol, 'api'>>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  cohere: 'openai',
  responses: 'openai',
};

export const errorProtocolFor = (format: ChatFormat): Exclude<ErrorProtocol, 'api'> => ERROR_PROTOCOLS[format];
