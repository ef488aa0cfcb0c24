/**
 * The OpenAI API surfaces the relay serves. One name per surface; the HTTP paths and how each is
 * billed live with the relay, the wire shapes here.
 */
export const OPENAI_ENDPOINTS = [
  'chat',
  'completions',
  'responses',
  'embeddings',
  'images',
  'speech',
  'transcriptions',
  'translations',
  'moderations',
  'rerank',
] as const;

export type OpenAIEndpoint = (typeof OPENAI_ENDPOINTS)[number];

/** Endpoints whose answers may be a token stream with usage in it. */
export const STREAMING_ENDPOINTS: ReadonlySet<OpenAIEndpoint> = new Set(['chat', 'completions', 'responses']);

/** Endpoints that accept `stream_options.include_usage` (the chat-style streams). */
export const STREAM_USAGE_OPTION_ENDPOINTS: ReadonlySet<OpenAIEndpoint> = new Set(['chat', 'completions']);
