import type { ServerResponse } from 'node:http';

/**
 * What a scripted mock upstream answers, whatever protocol it speaks: each mock (mock-anthropic,
 * mock-gemini, mock-vertex, mock-bedrock, mock-cohere) renders a turn in its own wire format,
 * whole or streamed, so one test script can drive any provider.
 */
export interface MockToolCall {
  /** The provider's call id; mocks that have ids make one up when absent. */
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface MockTurn {
  text?: string;
  /** Thinking text (Claude thinking blocks, Gemini thought parts). */
  thinking?: string;
  /** Claude only: a redacted_thinking block after the thinking, its `data` made from this text. */
  redactedThinking?: string;
  toolCalls?: MockToolCall[];
  /** Default: 'tool_calls' when there are tool calls, else 'stop'. */
  stopReason?: 'stop' | 'length' | 'tool_calls';
  /**
   * Usage in provider-neutral terms: `input` is the uncached input, `cacheRead` and `cacheWrite`
   * come on top of it (Anthropic's input_tokens / cache_read_input_tokens /
   * cache_creation_input_tokens; Gemini's promptTokenCount is input + cacheRead, and it has no
   * cache writes). `output` includes thinking.
   */
  usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number; cacheWrite1h?: number };
  /** Streamed answers: the text is sent in pieces of this many characters (default 4). */
  pieceLength?: number;
  /**
   * Streamed answers: milliseconds between events, as a generating upstream sends them (default:
   * every event at once). Writing stops when the client goes away.
   */
  eventIntervalMs?: number;
}

/** A request a mock received, for tests to check what went upstream. */
export interface MockRequestRecord {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  rawBody: string;
}

/** A scripted failure: the mock answers this status with a body in its protocol's error shape. */
export interface MockFailure {
  status: number;
  message: string;
  /** The provider's error type/status string (e.g. Anthropic `overloaded_error`, Gemini `RESOURCE_EXHAUSTED`). */
  type?: string;
}

/** Decides each answer from the request body (already parsed); default: a fixed turn. */
export type MockScript = (body: unknown, path: string) => MockTurn | MockFailure;

/** What a mock's token-count endpoint answers for a request: a count, or a failure; default: the mock's own count. */
export type MockCountScript = (body: Record<string, unknown>) => number | MockFailure | undefined;

export const isMockFailure = (answer: MockTurn | MockFailure | number): answer is MockFailure => typeof answer === 'object' && 'status' in answer;

/**
 * Writes a stream's events, all at once or `intervalMs` apart, then ends it; stops early when the
 * client goes away. Resolves once it is done either way.
 */
export async function writeEvents(response: ServerResponse, events: readonly string[], intervalMs = 0): Promise<void> {
  if (intervalMs <= 0) {
    for (const event of events) response.write(event);
    response.end();
    return;
  }
  for (const event of events) {
    if (response.destroyed) return;
    response.write(event);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  if (!response.destroyed) response.end();
}

/** Counts the responses whose client went away before they ended (an aborted upstream request). */
export function countAborted(response: ServerResponse, aborted: () => void): void {
  response.on('close', () => {
    if (!response.writableFinished) aborted();
  });
}
