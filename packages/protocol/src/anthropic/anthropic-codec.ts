import type { ChatCodec } from '../convert/codec.js';
import { anthropicRequestFromCanonical } from './anthropic-request-from-canonical.js';
import { anthropicRequestToCanonical } from './anthropic-request-to-canonical.js';
import { anthropicResponseFromCanonical, anthropicResponseToCanonical } from './anthropic-response.js';
import { AnthropicStreamDecoder } from './anthropic-stream-decoder.js';
import { AnthropicStreamEncoder } from './anthropic-stream-encoder.js';

/** Anthropic Messages ↔ canonical (OpenAI chat), every direction. */
export const anthropicCodec: ChatCodec = {
  format: 'anthropic',
  requestToCanonical: anthropicRequestToCanonical,
  requestFromCanonical: (request, context) => {
    const { value, warnings } = anthropicRequestFromCanonical(request, context);
    return { value: value as unknown as Record<string, unknown>, warnings };
  },
  responseToCanonical: anthropicResponseToCanonical,
  responseFromCanonical: (completion) => anthropicResponseFromCanonical(completion) as unknown as Record<string, unknown>,
  streamDecoder: (model) => new AnthropicStreamDecoder(model),
  // Anthropic always reports usage at the end of a stream, so includeUsage changes nothing.
  streamEncoder: (model) => new AnthropicStreamEncoder(model),
};
