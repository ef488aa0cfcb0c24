import { randomBytes } from 'node:crypto';
import type { MockTurn } from '../../testing/mock-turn.js';

/**
 * A MockTurn as Anthropic's Messages API answers it (docs.anthropic.com/en/api/messages and
 * /en/docs/build-with-claude/streaming), for the mocks of the clouds that serve Claude
 * (Bedrock, Vertex). Whole: one Message; streamed: the event sequence.
 */

type AnthropicStop = 'end_turn' | 'max_tokens' | 'tool_use';

function stopReason(turn: MockTurn): AnthropicStop {
  const reason = turn.stopReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    default: {
      const unexpected: never = reason;
      throw new Error(`unknown stop reason ${String(unexpected)}`);
    }
  }
}

const toolId = (index: number, id: string | undefined): string => id ?? `toolu_mock${index}${randomBytes(6).toString('hex')}`;
const signatureOf = (thinking: string): string => Buffer.from(`sig:${thinking.length}`).toString('base64');

function usageOf(turn: MockTurn, outputTokens: number): Record<string, number> {
  return {
    input_tokens: turn.usage.input,
    cache_creation_input_tokens: turn.usage.cacheWrite ?? 0,
    cache_read_input_tokens: turn.usage.cacheRead ?? 0,
    output_tokens: outputTokens,
  };
}

function contentBlocks(turn: MockTurn): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (turn.thinking) blocks.push({ type: 'thinking', thinking: turn.thinking, signature: signatureOf(turn.thinking) });
  if (turn.text !== undefined && turn.text !== '') blocks.push({ type: 'text', text: turn.text });
  (turn.toolCalls ?? []).forEach((call, index) => blocks.push({ type: 'tool_use', id: toolId(index, call.id), name: call.name, input: call.arguments }));
  return blocks;
}

export function anthropicMessage(turn: MockTurn, model: string): Record<string, unknown> {
  return {
    id: `msg_mock${randomBytes(8).toString('hex')}`,
    type: 'message',
    role: 'assistant',
    model,
    content: contentBlocks(turn),
    stop_reason: stopReason(turn),
    stop_sequence: null,
    usage: usageOf(turn, turn.usage.output),
  };
}

const pieces = (text: string, length: number): string[] => {
  const result: string[] = [];
  for (let start = 0; start < text.length; start += length) result.push(text.slice(start, start + length));
  return result;
};

/** The stream events, in order, each an object with its `type` (also the SSE event name). */
export function anthropicStreamEvents(turn: MockTurn, model: string): Record<string, unknown>[] {
  const pieceLength = Math.max(1, turn.pieceLength ?? 4);
  const message = anthropicMessage(turn, model);
  const events: Record<string, unknown>[] = [
    { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: usageOf(turn, 1) } },
    { type: 'ping' },
  ];
  (message.content as Record<string, unknown>[]).forEach((block, index) => {
    switch (block.type) {
      case 'thinking':
        events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
        for (const piece of pieces(String(block.thinking), pieceLength)) {
          events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
        }
        events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
        break;
      case 'text':
        events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const piece of pieces(String(block.text), pieceLength)) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
        break;
      default:
        events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
        for (const piece of pieces(JSON.stringify(block.input), pieceLength)) {
          events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
        }
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: turn.usage.output } });
  events.push({ type: 'message_stop' });
  return events;
}

/** Anthropic's SSE text for a streamed turn. */
export const anthropicSse = (turn: MockTurn, model: string): string =>
  anthropicStreamEvents(turn, model)
    .map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
    .join('');
