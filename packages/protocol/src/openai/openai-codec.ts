import type { ChatCodec, StreamDecoder, StreamEncoder } from '../convert/codec.js';
import { ConversionError } from '../convert/codec.js';
import type { ChatChunk, ChatCompletion, ChatRequest } from './chat-types.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * OpenAI chat streams as canonical chunks: each event's JSON is already one. `[DONE]` and events
 * that are not chunks are skipped; an `error` object ends the stream as a failure.
 */
class OpenAIChunkDecoder implements StreamDecoder {
  error: { message: string; type: string } | undefined;

  push(data: string): ChatChunk[] {
    if (data === '' || data === '[DONE]') return [];
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return [];
    }
    if (!isObject(json)) return [];
    if (isObject(json.error)) {
      this.error = { message: String(json.error.message ?? 'upstream stream error'), type: String(json.error.type ?? 'upstream_error') };
      return [];
    }
    if (!Array.isArray(json.choices) && !isObject(json.usage)) return [];
    if (!Array.isArray(json.choices)) json.choices = [];
    return [json as unknown as ChatChunk];
  }

  finish(): ChatChunk[] {
    return [];
  }
}

/**
 * Canonical chunks as an OpenAI stream. Usage goes out only when the client asked for it
 * (`stream_options.include_usage`), on a chunk of its own as OpenAI sends it.
 */
class OpenAIChunkEncoder implements StreamEncoder {
  constructor(private readonly includeUsage: boolean) {}

  push(chunk: ChatChunk): string {
    if (chunk.usage && !this.includeUsage) {
      if (chunk.choices.length === 0) return '';
      const { usage: _dropped, ...rest } = chunk;
      return `data: ${JSON.stringify(rest)}\n\n`;
    }
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }

  finish(): string {
    return 'data: [DONE]\n\n';
  }

  error(message: string, type: string): string {
    return `data: ${JSON.stringify({ error: { message, type, param: null, code: null } })}\n\n`;
  }
}

/**
 * OpenAI chat is the canonical shape: converting is checking. A request must be an object with a
 * messages array; everything else passes as sent.
 */
export const openaiCodec: ChatCodec = {
  format: 'openai',
  requestToCanonical(body) {
    if (!Array.isArray(body.messages)) throw new ConversionError('messages 必须是数组 (messages must be an array)');
    return { value: body as ChatRequest, warnings: [] };
  },
  requestFromCanonical(request, context) {
    return { value: { ...request, model: context.model }, warnings: [] };
  },
  responseToCanonical(answer, model) {
    const completion = answer as unknown as ChatCompletion;
    if (!Array.isArray(completion.choices)) completion.choices = [];
    if (typeof completion.model !== 'string') completion.model = model;
    return completion;
  },
  responseFromCanonical(completion) {
    return completion as unknown as Record<string, unknown>;
  },
  streamDecoder: () => new OpenAIChunkDecoder(),
  streamEncoder: (_model, options) => new OpenAIChunkEncoder(options.includeUsage),
};
