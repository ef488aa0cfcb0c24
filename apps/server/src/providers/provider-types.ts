import type { OpenAIEndpoint, StreamBytes, StreamObservation, TokenUsage, UpstreamErrorBody } from '@modelgate/protocol';
import type { FormData } from 'undici';

/**
 * The contract every upstream kind implements. The required core is small: build the request,
 * read usage from an answer, observe a stream event, classify an upstream error. Everything else
 * (retries, billing, caching) is the relay's.
 */

/** Where and how a channel is reached, parsed once when the channel is loaded. */
export interface ChannelEndpoint {
  type: number;
  /** `scheme://host[:port]` of the base URL. */
  origin: string;
  /** Path of the base URL without a trailing slash ('' for none); for Custom the full path and query. */
  basePath: string;
  /** `other`: Azure's api-version. */
  other: string;
  organization: string;
}

export type UpstreamBody =
  | {
      kind: 'json';
      /** The client's request, parsed. */
      json: Record<string, unknown>;
      /** The client's request text, forwarded as is when nothing needs changing. */
      raw: string;
    }
  | {
      kind: 'multipart';
      /** The client's form with its fields; rebuilt only when the model changes. */
      form: FormData;
      raw: Buffer;
      contentType: string;
    };

export interface UpstreamCall {
  endpoint: OpenAIEndpoint;
  channel: ChannelEndpoint;
  key: string;
  /** The model the client named. */
  model: string;
  /** The model to send upstream (after the channel's model mapping). */
  upstreamModel: string;
  body: UpstreamBody;
  /** Add `stream_options.include_usage: true` (the client did not ask; billing needs it). */
  askStreamUsage: boolean;
}

export interface UpstreamRequest {
  origin: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | FormData;
}

export interface UpstreamFailure extends UpstreamErrorBody {
  status: number;
}

export interface ErrorVerdict {
  /** Another channel may succeed where this one failed. */
  retryable: boolean;
  /** The failure says the channel itself is unusable (key rejected, account gone, quota spent upstream). */
  disableChannel: boolean;
}

/** Per-stream state of a provider's stream transform; it does no I/O. */
export interface StreamReader {
  readonly observation: StreamObservation;
  /** What to forward for this upstream chunk: the chunk, a part, pieces of it, or nothing (empty). */
  push(chunk: Buffer): StreamBytes;
  /** Ends the stream: a last unterminated event to forward, if any. */
  finish(): Buffer | undefined;
  /**
   * Set by a reader that ended the answer itself (the sensitive-word check stopping at a word):
   * the relay reads no more from the upstream and ends the stream as complete.
   */
  readonly stopped?: boolean;
}

export interface ProviderAdaptor {
  readonly name: string;
  /** The upstream understands `stream_options.include_usage`. */
  readonly streamUsageOption: boolean;
  supports(endpoint: OpenAIEndpoint): boolean;
  buildRequest(call: UpstreamCall): UpstreamRequest;
  /** Usage from a complete (non-stream) answer, if it reports one. */
  parseUsage(endpoint: OpenAIEndpoint, answer: unknown): TokenUsage | undefined;
  /** Generated text of a complete answer, counted when no usage was reported. */
  completionText(endpoint: OpenAIEndpoint, answer: unknown): string[];
  /** A reader for one answer stream: chunks in, bytes to forward out, usage and text observed. */
  readStream(endpoint: OpenAIEndpoint, dropUsageOnly: boolean): StreamReader;
  classifyError(failure: UpstreamFailure): ErrorVerdict;
}
