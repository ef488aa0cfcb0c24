/**
 * The mock upstream's Anthropic answers (POST /v1/messages), built once: a whole Message and the
 * events of a streamed one, in the order of Anthropic's streaming documentation
 * (https://docs.anthropic.com/en/docs/build-with-claude/streaming): message_start,
 * content_block_start, content_block_delta × n, content_block_stop, message_delta with the output
 * usage, message_stop. The same words and token counts as the OpenAI answers beside them.
 */

export const MOCK_CLAUDE_MODEL = 'claude-haiku-4-5-20251001';
const id = 'msg_01BENCH00000000000000000000';
const promptTokens = 24;
const completionTokens = 96;

export function anthropicMessageBody(words: string[]): Buffer {
  return Buffer.from(
    JSON.stringify({
      id,
      type: 'message',
      role: 'assistant',
      model: MOCK_CLAUDE_MODEL,
      content: [{ type: 'text', text: Array.from({ length: completionTokens }, (_, index) => words[index % words.length]).join(' ') }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: promptTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: completionTokens,
        service_tier: 'standard',
      },
    }),
  );
}

const event = (name: string, payload: unknown) => Buffer.from(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);

/** The events of one streamed Message with `deltas` text deltas; each is its own write. */
export function anthropicStreamEvents(words: string[], deltas: number): Buffer[] {
  const events = [
    event('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: MOCK_CLAUDE_MODEL,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: promptTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: 'standard' },
      },
    }),
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  ];
  for (let index = 0; index < deltas; index += 1) {
    events.push(
      event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `${words[index % words.length]} ` } }),
    );
  }
  events.push(
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: completionTokens } }),
    event('message_stop', { type: 'message_stop' }),
  );
  return events;
}
