import { randomUUID } from 'node:crypto';
import type { MockTurn } from '../../testing/mock-turn.js';

/**
 * A MockTurn as Cohere's v2 chat answers it (https://docs.cohere.com/v2/reference/chat and
 * https://docs.cohere.com/v2/docs/streaming). Thinking is the tool plan when the turn calls tools,
 * a reasoning model's `thinking` content otherwise.
 */

type CohereFinish = 'COMPLETE' | 'MAX_TOKENS' | 'TOOL_CALL';

function finishReason(turn: MockTurn): CohereFinish {
  const reason = turn.stopReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
  switch (reason) {
    case 'stop':
      return 'COMPLETE';
    case 'length':
      return 'MAX_TOKENS';
    case 'tool_calls':
      return 'TOOL_CALL';
    default: {
      const unexpected: never = reason;
      throw new Error(`unknown stop reason ${String(unexpected)}`);
    }
  }
}

/** Cohere has no cache writes; reads are part of the processed input and reported as cached_tokens. */
function usageOf(turn: MockTurn): Record<string, unknown> {
  const input = turn.usage.input + (turn.usage.cacheRead ?? 0) + (turn.usage.cacheWrite ?? 0);
  const usage: Record<string, unknown> = {
    billed_units: { input_tokens: input, output_tokens: turn.usage.output },
    tokens: { input_tokens: input, output_tokens: turn.usage.output },
  };
  if (turn.usage.cacheRead) usage.cached_tokens = turn.usage.cacheRead;
  return usage;
}

const toolCalls = (turn: MockTurn) =>
  (turn.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `${call.name}_mock${index}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));

export function cohereChatResponse(turn: MockTurn): Record<string, unknown> {
  const calls = toolCalls(turn);
  const message: Record<string, unknown> = { role: 'assistant' };
  const content: Record<string, unknown>[] = [];
  if (turn.thinking && calls.length === 0) content.push({ type: 'thinking', thinking: turn.thinking });
  if (turn.text) content.push({ type: 'text', text: turn.text });
  if (content.length > 0) message.content = content;
  if (calls.length > 0) {
    if (turn.thinking) message.tool_plan = turn.thinking;
    message.tool_calls = calls;
  }
  return { id: randomUUID(), finish_reason: finishReason(turn), message, usage: usageOf(turn) };
}

const pieces = (text: string, size: number): string[] => {
  const out: string[] = [];
  for (let offset = 0; offset < text.length; offset += size) out.push(text.slice(offset, offset + size));
  return out;
};

/** The turn as the SSE events of a v2 chat stream (each with its `event:` line, as Cohere sends them). */
export function cohereChatStream(turn: MockTurn): string[] {
  const size = turn.pieceLength ?? 4;
  const events: string[] = [];
  const send = (payload: Record<string, unknown>) => events.push(`event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`);
  const calls = toolCalls(turn);
  send({ id: randomUUID(), type: 'message-start', delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } } });
  let contentIndex = 0;
  if (turn.thinking && calls.length > 0) {
    for (const piece of pieces(turn.thinking, size)) send({ type: 'tool-plan-delta', delta: { message: { tool_plan: piece } } });
  } else if (turn.thinking) {
    send({ type: 'content-start', index: contentIndex, delta: { message: { content: { type: 'thinking', thinking: '' } } } });
    for (const piece of pieces(turn.thinking, size)) send({ type: 'content-delta', index: contentIndex, delta: { message: { content: { thinking: piece } } } });
    send({ type: 'content-end', index: contentIndex++ });
  }
  if (turn.text) {
    send({ type: 'content-start', index: contentIndex, delta: { message: { content: { type: 'text', text: '' } } } });
    for (const piece of pieces(turn.text, size)) send({ type: 'content-delta', index: contentIndex, delta: { message: { content: { text: piece } } } });
    send({ type: 'content-end', index: contentIndex });
  }
  calls.forEach((call, index) => {
    send({
      type: 'tool-call-start',
      index,
      delta: { message: { tool_calls: { id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } } } },
    });
    for (const piece of pieces(call.function.arguments, size))
      send({ type: 'tool-call-delta', index, delta: { message: { tool_calls: { function: { arguments: piece } } } } });
    send({ type: 'tool-call-end', index });
  });
  send({ type: 'message-end', delta: { finish_reason: finishReason(turn), usage: usageOf(turn) } });
  return events;
}
