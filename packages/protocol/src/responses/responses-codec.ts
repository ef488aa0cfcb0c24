import type { ChatCodec } from '../convert/codec.js';
import { responsesRequestFromChat } from './responses-request-from-chat.js';
import { responsesRequestToChat } from './responses-request.js';
import { responsesResponseFromChat } from './responses-response.js';
import { responsesResponseToChat } from './responses-response-to-chat.js';
import { ResponsesStreamDecoder } from './responses-stream-decoder.js';
import { ResponsesStreamEncoder } from './responses-stream-encoder.js';

/**
 * OpenAI's Responses API ↔ canonical (OpenAI chat), every direction. Inbound: a Responses client
 * (Codex) served by any chat channel. Outbound: a model an upstream serves only through
 * /v1/responses answers chat clients (the request converted to Responses, its answer and stream back).
 */
export const responsesCodec: ChatCodec = {
  format: 'responses',
  requestToCanonical: responsesRequestToChat,
  requestFromCanonical: responsesRequestFromChat,
  responseToCanonical: responsesResponseToChat,
  responseFromCanonical: (completion) => responsesResponseFromChat(completion) as unknown as Record<string, unknown>,
  streamDecoder: (model) => new ResponsesStreamDecoder(model),
  // A Responses stream always ends with the whole response and its usage.
  streamEncoder: (model) => new ResponsesStreamEncoder(model),
};
