import type { ChatCodec } from '../convert/codec.js';
import { chatRequestToGemini } from './gemini-request-from-chat.js';
import { geminiRequestToChat } from './gemini-request-to-chat.js';
import { chatResponseToGemini, geminiResponseToChat } from './gemini-response.js';
import { GeminiStreamDecoder } from './gemini-stream-decoder.js';
import { GeminiStreamEncoder } from './gemini-stream-encoder.js';

/** Gemini generateContent / streamGenerateContent (alt=sse) to and from OpenAI chat. */
export const geminiCodec: ChatCodec = {
  format: 'gemini',
  requestToCanonical: geminiRequestToChat,
  requestFromCanonical: chatRequestToGemini,
  responseToCanonical: geminiResponseToChat,
  responseFromCanonical: chatResponseToGemini,
  streamDecoder: (model) => new GeminiStreamDecoder(model),
  // Gemini reports usage on its last chunk whatever the client asked, so includeUsage is not read.
  streamEncoder: (model) => new GeminiStreamEncoder(model),
};
