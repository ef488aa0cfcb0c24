import type { MockTurn } from '../../testing/mock-turn.js';

/**
 * A MockTurn as Gemini's generateContent answers it (GenerateContentResponse,
 * cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference and
 * ai.google.dev/api/generate-content#v1beta.GenerateContentResponse), whole or as the chunks of
 * streamGenerateContent?alt=sse, each chunk carrying the usage so far.
 *
 * Usage: promptTokenCount = input + cacheRead (Gemini counts cached tokens inside the prompt and
 * names them in cachedContentTokenCount); the output is split into thoughtsTokenCount (a
 * character-based share when there is thinking) and candidatesTokenCount.
 */

type Json = Record<string, unknown>;

function finishReason(turn: MockTurn): 'STOP' | 'MAX_TOKENS' {
  const reason = turn.stopReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
  switch (reason) {
    case 'stop':
    case 'tool_calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    default: {
      const unexpected: never = reason;
      throw new Error(`unknown stop reason ${String(unexpected)}`);
    }
  }
}

function thoughtTokens(turn: MockTurn): number {
  if (!turn.thinking) return 0;
  return Math.min(turn.usage.output, Math.max(1, Math.ceil(turn.thinking.length / 4)));
}

/** Usage once `fraction` (0..1) of the output has been produced. */
export function geminiUsage(turn: MockTurn, fraction = 1): Json {
  const prompt = turn.usage.input + (turn.usage.cacheRead ?? 0);
  const thoughts = thoughtTokens(turn);
  const candidates = Math.round((turn.usage.output - thoughts) * fraction);
  const thoughtsSoFar = Math.round(thoughts * fraction);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates + thoughtsSoFar,
    ...(turn.usage.cacheRead ? { cachedContentTokenCount: turn.usage.cacheRead } : {}),
    ...(thoughtsSoFar > 0 ? { thoughtsTokenCount: thoughtsSoFar } : {}),
  };
}

function parts(turn: MockTurn): Json[] {
  const result: Json[] = [];
  if (turn.thinking) result.push({ text: turn.thinking, thought: true });
  if (turn.text) result.push({ text: turn.text });
  for (const call of turn.toolCalls ?? []) result.push({ functionCall: { name: call.name, args: call.arguments } });
  return result;
}

const response = (model: string, candidateParts: Json[], usage: Json, finish?: string): Json => ({
  candidates: [{ content: { role: 'model', parts: candidateParts }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
  usageMetadata: usage,
  modelVersion: model,
  responseId: 'mock-response-id',
});

export const geminiResponse = (turn: MockTurn, model: string): Json => response(model, parts(turn), geminiUsage(turn), finishReason(turn));

/** The streamed chunks: thinking and text in pieces, each function call whole, the last chunk with finishReason. */
export function geminiStreamChunks(turn: MockTurn, model: string): Json[] {
  const pieceLength = Math.max(1, turn.pieceLength ?? 4);
  const pending: Json[] = [];
  const split = (text: string, thought: boolean): void => {
    for (let start = 0; start < text.length; start += pieceLength) pending.push(thought ? { text: text.slice(start, start + pieceLength), thought: true } : { text: text.slice(start, start + pieceLength) });
  };
  if (turn.thinking) split(turn.thinking, true);
  if (turn.text) split(turn.text, false);
  for (const call of turn.toolCalls ?? []) pending.push({ functionCall: { name: call.name, args: call.arguments } });
  if (pending.length === 0) pending.push({ text: '' });
  return pending.map((part, index) => {
    const last = index === pending.length - 1;
    return response(model, [part], geminiUsage(turn, (index + 1) / pending.length), last ? finishReason(turn) : undefined);
  });
}

/** Gemini's SSE text (`alt=sse`): `data: <chunk>` lines separated by CRLF pairs, as Google sends them. */
export const geminiSse = (turn: MockTurn, model: string): string =>
  geminiStreamChunks(turn, model)
    .map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`)
    .join('');
