import type { ChatFormat, OpenAIEndpoint } from '@modelgate/protocol';

/** One relayed OpenAI endpoint: where clients call it and what its body is. */
export interface RelayEndpointSpec {
  endpoint: OpenAIEndpoint;
  path: string;
  body: 'json' | 'multipart';
  /** The model OpenAI assumes when the request names none. */
  defaultModel?: string;
  /** The wire format of the client's request and of the answer it expects; OpenAI's unless said. */
  format?: ChatFormat;
}

export const RELAY_ENDPOINTS: readonly RelayEndpointSpec[] = [
  { endpoint: 'chat', path: '/v1/chat/completions', body: 'json' },
  { endpoint: 'completions', path: '/v1/completions', body: 'json' },
  { endpoint: 'responses', path: '/v1/responses', body: 'json' },
  { endpoint: 'embeddings', path: '/v1/embeddings', body: 'json' },
  { endpoint: 'images', path: '/v1/images/generations', body: 'json', defaultModel: 'dall-e-2' },
  { endpoint: 'speech', path: '/v1/audio/speech', body: 'json' },
  { endpoint: 'transcriptions', path: '/v1/audio/transcriptions', body: 'multipart' },
  { endpoint: 'translations', path: '/v1/audio/translations', body: 'multipart' },
  { endpoint: 'moderations', path: '/v1/moderations', body: 'json', defaultModel: 'omni-moderation-latest' },
  { endpoint: 'rerank', path: '/v1/rerank', body: 'json' },
];

/**
 * The console's playground: chat completions for the signed-in user (new-api's /pg/chat/completions),
 * billed without a token (playground-caller.ts); its route calls RelayService.handleSession.
 */
export const PLAYGROUND_ENDPOINT: RelayEndpointSpec = { endpoint: 'chat', path: '/pg/chat/completions', body: 'json' };

/** Anthropic's Messages API (`@anthropic-ai/sdk` and Claude Code call it). */
export const ANTHROPIC_MESSAGES_ENDPOINT: RelayEndpointSpec = { endpoint: 'chat', path: '/v1/messages', body: 'json', format: 'anthropic' };

/** Gemini's generateContent and streamGenerateContent; the model and the stream are named in the URL. */
export const GEMINI_GENERATE_ENDPOINT: RelayEndpointSpec = { endpoint: 'chat', path: '/v1beta/models/*', body: 'json', format: 'gemini' };
