/**
 * The OpenAI Responses API's answers to the formats section's request, built once, with the same
 * words and token counts as the OpenAI and Anthropic answers beside them: a whole response (one
 * message item of output_text, usage) and the events of a streamed one in the order of OpenAI's
 * streaming reference (https://platform.openai.com/docs/api-reference/responses-streaming):
 * response.created, response.in_progress, output_item.added, content_part.added, output_text.delta
 * × n, output_text.done, content_part.done, output_item.done, response.completed with the whole
 * response and its usage. Each event carries its sequence_number; each is its own write.
 */

export const MOCK_RESPONSES_MODEL = 'gpt-4.1-mini-2025-04-14';
const id = 'resp_BENCH000000000000000000000000000000000000000000';
const messageId = 'msg_BENCH000000000000000000000000000000000000000000';
const createdAt = Math.floor(Date.now() / 1000);
const promptTokens = 24;
const completionTokens = 96;
const usage = {
  input_tokens: promptTokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: completionTokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: promptTokens + completionTokens,
};

/** The relay section's request in Responses' shape: the system prompt as instructions, the same turn and limits. */
export const responsesBody = (model: string, stream: boolean) =>
  JSON.stringify({
    model,
    instructions: 'You are a helpful assistant that answers briefly.',
    input: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Write one sentence about a fox that relays messages between two forests.' }] },
    ],
    max_output_tokens: 256,
    temperature: 0.7,
    store: false,
    ...(stream ? { stream: true } : {}),
  });

const response = (status: string, text: string | undefined) => ({
  id,
  object: 'response',
  created_at: createdAt,
  status,
  error: null,
  incomplete_details: null,
  instructions: 'You are a helpful assistant that answers briefly.',
  max_output_tokens: 256,
  model: MOCK_RESPONSES_MODEL,
  output:
    text === undefined
      ? []
      : [{ id: messageId, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], text }] }],
  parallel_tool_calls: true,
  store: false,
  temperature: 0.7,
  tool_choice: 'auto',
  tools: [],
  top_p: 1,
  truncation: 'disabled',
  usage: text === undefined ? null : usage,
});

export function responsesAnswerBody(words: string[]): Buffer {
  const text = Array.from({ length: completionTokens }, (_, index) => words[index % words.length]).join(' ');
  return Buffer.from(JSON.stringify({ ...response('completed', text), output_text: text }));
}

/** The events of one streamed response with `deltas` text deltas; each is its own write. */
export function responsesStreamEvents(words: string[], deltas: number): Buffer[] {
  let sequence = 0;
  const event = (type: string, payload: Record<string, unknown>) => {
    const data = JSON.stringify({ type, sequence_number: sequence, ...payload });
    sequence += 1;
    return Buffer.from(`event: ${type}\ndata: ${data}\n\n`);
  };
  const at = { item_id: messageId, output_index: 0 };
  const pieces = Array.from({ length: deltas }, (_, index) => `${words[index % words.length]} `);
  const text = pieces.join('');
  const part = { type: 'output_text', annotations: [], text };
  const events = [
    event('response.created', { response: response('in_progress', undefined) }),
    event('response.in_progress', { response: response('in_progress', undefined) }),
    event('response.output_item.added', {
      output_index: 0,
      item: { id: messageId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    }),
    event('response.content_part.added', { ...at, content_index: 0, part: { ...part, text: '' } }),
  ];
  for (const delta of pieces) events.push(event('response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [] }));
  events.push(
    event('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] }),
    event('response.content_part.done', { ...at, content_index: 0, part }),
    event('response.output_item.done', {
      output_index: 0,
      item: { id: messageId, type: 'message', status: 'completed', role: 'assistant', content: [part] },
    }),
    event('response.completed', { response: response('completed', text) }),
  );
  return events;
}
