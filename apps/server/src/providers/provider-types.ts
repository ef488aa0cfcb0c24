import type { ChatFormat, OpenAIEndpoint, StreamBytes, StreamObservation, TokenUsage, UpstreamErrorBody } from '@modelgate/protocol';
import type { FormData } from 'undici';
import type { z } from 'zod';

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
  /** POST unless said (model lists are GETs). */
  method?: 'GET' | 'POST' | undefined;
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
  /** Listed words the answer check found so far, each once; undefined while the check is off. */
  readonly sensitiveWords?: readonly string[] | undefined;
  /**
   * Present on the reader of a capped call's stream (relay/output-meter.ts): set once the meter
   * ended the answer at the output its payer paid for, the reader being `stopped` from then on.
   */
  readonly cutAtCap?: boolean;
}

export interface ProviderAdaptor {
  readonly name: string;
  /** The upstream understands `stream_options.include_usage`. */
  readonly streamUsageOption: boolean;
  /**
   * The chat field that limits output when the relay must set one and the caller named none:
   * OpenAI's own API refuses `max_tokens` for its reasoning models; most compatible vendors know
   * only `max_tokens` (the default).
   */
  readonly chatOutputLimitField?: 'max_tokens' | 'max_completion_tokens';
  supports(endpoint: OpenAIEndpoint): boolean;
  buildRequest(call: UpstreamCall): UpstreamRequest;
  /** Usage from a complete (non-stream) answer, if it reports one. */
  parseUsage(endpoint: OpenAIEndpoint, answer: unknown): TokenUsage | undefined;
  /** Generated text of a complete answer, counted when no usage was reported. */
  completionText(endpoint: OpenAIEndpoint, answer: unknown): string[];
  /** A reader for one answer stream: chunks in, bytes to forward out, usage and text observed. */
  readStream(endpoint: OpenAIEndpoint, dropUsageOnly: boolean): StreamReader;
  classifyError(failure: UpstreamFailure): ErrorVerdict;
  /**
   * Present for providers whose chat API is not OpenAI's (Claude, Gemini, Vertex, Bedrock, Cohere):
   * the relay converts chat calls to and from the provider's format through the codecs in
   * `@modelgate/protocol`, and `buildRequest` is used only for the other endpoints `supports` names.
   */
  readonly nativeChat?: NativeChat;
  /** How to list the models the upstream offers (the console's 获取模型列表); absent: OpenAI's GET /v1/models with a Bearer key. */
  readonly modelList?: ModelListing;
  /**
   * The adaptor finds the upstream's address itself (Bedrock from the key's region, Vertex from the
   * channel's region): a channel needs no base URL. One that is set still overrides it.
   */
  readonly ownOrigin?: boolean;
  /**
   * Splits the channel's key field into keys when one per line does not fit (Vertex: a
   * service-account JSON spans many lines; several are a JSON array).
   */
  readonly channelKeys?: (keyField: string) => string[];
  /**
   * Present for upstreams that serve OpenAI's Realtime API (GET /v1/realtime over a WebSocket):
   * where a session for the model is opened, and the handshake's credentials.
   */
  readonly realtimeTarget?: (call: RealtimeCall) => RealtimeTarget;
}

/** One upstream Realtime session to open. */
export interface RealtimeCall {
  channel: ChannelEndpoint;
  key: string;
  /** The model of the session (after the channel's mapping). */
  upstreamModel: string;
}

/** Where an upstream Realtime session is opened. */
export interface RealtimeTarget {
  /** A ws:// or wss:// address, its query included. */
  url: string;
  /** The handshake's headers (credentials), lower case. */
  headers: Record<string, string>;
}

/** A chat format other than OpenAI's. */
export type NativeChatFormat = Exclude<ChatFormat, 'openai'>;

export interface NativeChatCall {
  channel: ChannelEndpoint;
  key: string;
  /** The model to call upstream (after the channel's mapping; Bedrock and Vertex map it further to their ids). */
  upstreamModel: string;
  stream: boolean;
  /**
   * The request in the provider's format, with `model` and `stream` where that format keeps them
   * (Anthropic: in the body; Gemini: nowhere, the URL says both). Owned by the adaptor: it may change it.
   */
  body: Record<string, unknown>;
  /**
   * The client's own request text when it came in this very format and needs no change (model
   * included): an adaptor that sends the body as it is sends these bytes.
   */
  raw: string | undefined;
  /** Request headers the upstream should see: the client's anthropic-version and anthropic-beta, claude.model_headers_settings. */
  clientHeaders: Readonly<Record<string, string>>;
  /** gemini.version_settings for this model (v1beta unless set): the API version in Gemini's paths, unless its channel names its own. */
  apiVersion: string;
}

/** Splits an upstream's streamed answer into event payloads; SSE unless the adaptor says otherwise. */
export interface FrameDecoder {
  push(chunk: Buffer): { data: string; event?: string | undefined }[];
  /** The stream ended: a last frame the upstream left unterminated, if any. */
  finish?(): { data: string; event?: string | undefined }[];
}

export interface NativeChat {
  /** The format the upstream speaks for this model (Vertex: Claude models speak Anthropic's, the rest Gemini's). */
  formatFor(upstreamModel: string): NativeChatFormat;
  /** May be asynchronous (Vertex fetches an access token, cached until it expires). */
  buildRequest(call: NativeChatCall): UpstreamRequest | Promise<UpstreamRequest>;
  /** Bedrock's binary event-stream framing; absent: SSE. */
  frameDecoder?(): FrameDecoder;
  /**
   * The upstream's own prompt counter (Anthropic's count_tokens, Gemini's countTokens …), used by
   * /v1/messages/count_tokens and Gemini's :countTokens; absent: the relay counts locally.
   */
  readonly tokenCount?: NativeTokenCount;
}

/** An upstream's token-count endpoint, for prompts in the format `formatFor` names. */
export interface NativeTokenCount {
  /**
   * The count request for `call.body` (a request in the model's format; `stream` is false), or
   * undefined when this model has no count endpoint there. May be asynchronous (Vertex's token).
   */
  request(call: NativeChatCall): UpstreamRequest | Promise<UpstreamRequest> | undefined;
  /** The prompt's tokens in the upstream's answer; undefined when the answer names none. */
  parse(answer: unknown): number | undefined;
}

export type ModelListing =
  | {
      kind: 'fetch';
      request(channel: ChannelEndpoint, key: string): UpstreamRequest | Promise<UpstreamRequest>;
      /** The model ids in the upstream's answer. */
      parse(answer: unknown): string[];
    }
  /** Upstreams without a usable list call (Vertex's publisher models): the ids this version knows. */
  | { kind: 'known'; models: readonly string[] }
  /**
   * Listed from the channel's base URL (trailing slashes removed) with one or more GETs, each
   * answer checked against its schema: Gemini follows its pages, Ollama lists its tags.
   */
  | { kind: 'base'; list(base: string, key: string, get: UpstreamJsonGet): Promise<string[]> };

/** GETs a JSON document from the upstream and checks its shape; a failure is described to the console by the caller. */
export type UpstreamJsonGet = <T extends z.ZodType>(url: string, headers: Record<string, string>, schema: T) => Promise<z.output<T>>;
