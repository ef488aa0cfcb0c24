import type { ChatChunk, ChatCompletion, ChatRequest, ChatUsage, ReasoningEffort } from '../openai/chat-types.js';

/**
 * A converter's result: the converted value and what could not be expressed in the target
 * format (dropped, each named in a warning the relay logs). A conversion never throws for a
 * field it cannot carry; it throws `ConversionError` only for input that is not a request at all.
 */
export interface Converted<T> {
  value: T;
  warnings: string[];
}

/** A request that cannot be converted (a required field missing or of the wrong type): the caller's mistake, a 400. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** The chat wire formats the relay speaks. OpenAI chat is the canonical one; `responses` is OpenAI's Responses API. */
export type ChatFormat = 'openai' | 'anthropic' | 'gemini' | 'cohere' | 'responses';

/** What an outbound conversion needs besides the canonical request (from options and the channel). */
export interface OutboundContext {
  /** The model to name upstream (after the channel's mapping and any `-thinking` suffix is handled). */
  model: string;
  /** claude.default_max_tokens for this model (Claude requires max_tokens; 8192 when unset). */
  defaultMaxTokens: number;
  /**
   * Thinking asked for by the model name (`<model>-thinking` with claude.thinking_adapter_enabled):
   * a budget in tokens. Otherwise reasoning_effort decides (`reasoningBudget`).
   */
  thinkingBudgetTokens?: number | undefined;
  /**
   * The most output tokens the upstream may return, thinking included: the relay caps a call at
   * what its payer's balance pays for. Beats max_tokens and shrinks (or turns off) a thinking budget.
   */
  outputCap?: number | undefined;
  /** gemini.safety_settings resolved for this model: category → threshold (default OFF for all). */
  safetyThreshold?: ((category: string) => string) | undefined;
}

/**
 * Thinking budgets for OpenAI's reasoning_effort on Claude and Gemini, and back (the nearest effort
 * for a budget). Claude's minimum budget is 1024.
 */
export const REASONING_BUDGETS: Readonly<Record<ReasoningEffort, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24576,
};

/**
 * Per-stream state: native stream events in, canonical chunks out. Pure apart from its own state.
 * `data` is one event's payload (an SSE event's data, a Bedrock frame's decoded JSON); `event` the
 * SSE event name when there is one.
 */
export interface StreamDecoder {
  push(data: string, event?: string): ChatChunk[];
  /** The stream ended: chunks still owed (a finish reason, usage), if any. */
  finish(): ChatChunk[];
  /** Set once the upstream reported a failure inside the stream (Anthropic's `error` event, an `error` object). */
  readonly error?: { message: string; type: string } | undefined;
  /**
   * The usage the upstream has reported so far, cumulative (Anthropic's message_start and
   * message_delta, Gemini's usageMetadata on every chunk), before the decoder writes its usage
   * chunk: for a relay that meters a stream as it passes. Absent for formats that report usage
   * only in chunks (OpenAI's).
   */
  readonly usageSoFar?: ChatUsage | undefined;
}

/** Per-stream state: canonical chunks in, the client's wire text out (whole SSE events). */
export interface StreamEncoder {
  push(chunk: ChatChunk): string;
  /** The stream ended normally: closing events (`message_stop`, `[DONE]`), if any. */
  finish(): string;
  /** The stream ends with a failure: the format's error event (after which nothing more is written). */
  error(message: string, type: string): string;
}

/** How a format converts to and from the canonical shape; each direction is optional per format. */
export interface ChatCodec {
  readonly format: ChatFormat;
  /** Inbound: a client's request in this format, as canonical. Throws ConversionError for a malformed one. */
  requestToCanonical?(body: Record<string, unknown>): Converted<ChatRequest>;
  /** Outbound: the canonical request in this format. */
  requestFromCanonical?(request: ChatRequest, context: OutboundContext): Converted<Record<string, unknown>>;
  /** Outbound: an upstream's whole answer in this format, as canonical. */
  responseToCanonical?(answer: Record<string, unknown>, model: string): ChatCompletion;
  /** Inbound: a canonical answer in this format, for the client. */
  responseFromCanonical?(completion: ChatCompletion): Record<string, unknown>;
  streamDecoder?(model: string): StreamDecoder;
  streamEncoder?(model: string, options: { includeUsage: boolean }): StreamEncoder;
}
