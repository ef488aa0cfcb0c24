import type { ChatCodec } from '../convert/codec.js';
import { responsesRequestToChat } from './responses-request.js';
import { responsesResponseFromChat } from './responses-response.js';
import { ResponsesStreamEncoder } from './responses-stream-encoder.js';

/**
 * OpenAI's Responses API ↔ canonical (OpenAI chat). Inbound: a Responses client (Codex) served by
 * any chat channel. Outbound (a model set to be served through Responses): see the
 * `requestFromCanonical`, `responseToCanonical` and `streamDecoder` directions.
 */
export const responsesCodec: ChatCodec = {
  format: 'responses',
  requestToCanonical: responsesRequestToChat,
  responseFromCanonical: (completion) => responsesResponseFromChat(completion) as unknown as Record<string, unknown>,
  // A Responses stream always ends with the whole response and its usage.
  streamEncoder: (model) => new ResponsesStreamEncoder(model),
};
