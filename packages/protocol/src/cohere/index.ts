import type { ChatCodec } from '../convert/codec.js';
import { cohereRequestFromCanonical } from './cohere-request.js';
import { cohereResponseToCanonical } from './cohere-response.js';
import { CohereStreamDecoder } from './cohere-stream.js';

export { cohereRequestFromCanonical } from './cohere-request.js';
export { cohereFinishReason, cohereResponseToCanonical, cohereToolCalls, cohereUsage } from './cohere-response.js';
export { CohereStreamDecoder } from './cohere-stream.js';
export type { CohereChatRequest, CohereFinishReason, CohereMessage, CohereTool, CohereToolCall, CohereUsage } from './cohere-types.js';

/**
 * Cohere v2 chat, outbound only: the relay sends canonical requests to Cohere channels and reads
 * their answers back; no client speaks Cohere's format to us.
 */
export const cohereCodec: ChatCodec = {
  format: 'cohere',
  requestFromCanonical: cohereRequestFromCanonical,
  responseToCanonical: cohereResponseToCanonical,
  streamDecoder: (model) => new CohereStreamDecoder(model),
};
