import { anthropicCodec, cohereCodec, geminiCodec, openaiCodec, type ChatCodec, type ChatFormat } from '@modelgate/protocol';

/** The codec of each chat format the relay converts between (packages/protocol). */
const CODECS: Readonly<Record<ChatFormat, ChatCodec>> = {
  openai: openaiCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
  cohere: cohereCodec,
};

export const codecFor = (format: ChatFormat): ChatCodec => CODECS[format];
