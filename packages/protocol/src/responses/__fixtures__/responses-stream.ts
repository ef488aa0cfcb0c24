/**
 * Streamed Responses API answers, written from OpenAI's streaming documentation
 * (https://platform.openai.com/docs/api-reference/responses-streaming: each event's payload;
 * https://platform.openai.com/docs/guides/streaming-responses: their order; the function calling
 * guide's "Streaming" section: a function_call item announced with empty arguments, then
 * response.function_call_arguments.delta events, .done, and output_item.done with the whole item).
 * Every event carries its `type` and `sequence_number`; as OpenAI sends them, the SSE `event:`
 * line repeats the type. Ids, texts and counts are filled in where a page elides them.
 */

type Event = Record<string, unknown> & { type: string };

/** Events as SSE text: with `event:` lines (as OpenAI sends them) or data lines only (as some compatible upstreams do). */
export function transcript(events: Event[], named = true): string {
  return events.map((event, sequence_number) => `${named ? `event: ${event.type}\n` : ''}data: ${JSON.stringify({ ...event, sequence_number })}\n\n`).join('');
}

const base = (id: string, model: string) => ({
  id,
  object: 'response',
  created_at: 1756308000,
  model,
  error: null,
  incomplete_details: null,
  output: [] as unknown[],
  usage: null,
});

const reasoningItem = {
  id: 'rs_68c1a2b3c4d58190a1b2c3d4e5f60718',
  type: 'reasoning',
  summary: [
    { type: 'summary_text', text: '**Planning the answer**\n\nThe user wants a haiku.' },
    { type: 'summary_text', text: '**Counting syllables**\n\nFive, seven, five.' },
  ],
};
const messageItem = {
  id: 'msg_68c1a2b4d5e68190b2c3d4e5f6071829',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', annotations: [], text: 'Quiet gateway hums' }],
};
const reasoningResponse = base('resp_68c1a2b2a3b48190f0e1d2c3b4a59687', 'o4-mini-2025-04-16');
const at = { output_index: 0, item_id: reasoningItem.id };
const atMessage = { output_index: 1, item_id: messageItem.id };

/** Thinking (two summary parts), then text, then response.completed with cached and reasoning counts. */
export const reasoningTextEvents: Event[] = [
  { type: 'response.created', response: { ...reasoningResponse, status: 'in_progress' } },
  { type: 'response.in_progress', response: { ...reasoningResponse, status: 'in_progress' } },
  { type: 'response.output_item.added', output_index: 0, item: { id: reasoningItem.id, type: 'reasoning', summary: [] } },
  { type: 'response.reasoning_summary_part.added', ...at, summary_index: 0, part: { type: 'summary_text', text: '' } },
  { type: 'response.reasoning_summary_text.delta', ...at, summary_index: 0, delta: '**Planning the answer**\n\n' },
  { type: 'response.reasoning_summary_text.delta', ...at, summary_index: 0, delta: 'The user wants a haiku.' },
  { type: 'response.reasoning_summary_text.done', ...at, summary_index: 0, text: reasoningItem.summary[0]!.text },
  { type: 'response.reasoning_summary_part.done', ...at, summary_index: 0, part: reasoningItem.summary[0] },
  { type: 'response.reasoning_summary_part.added', ...at, summary_index: 1, part: { type: 'summary_text', text: '' } },
  { type: 'response.reasoning_summary_text.delta', ...at, summary_index: 1, delta: '**Counting syllables**\n\nFive, seven, five.' },
  { type: 'response.reasoning_summary_text.done', ...at, summary_index: 1, text: reasoningItem.summary[1]!.text },
  { type: 'response.reasoning_summary_part.done', ...at, summary_index: 1, part: reasoningItem.summary[1] },
  { type: 'response.output_item.done', output_index: 0, item: reasoningItem },
  {
    type: 'response.output_item.added',
    output_index: 1,
    item: { id: messageItem.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
  },
  { type: 'response.content_part.added', ...atMessage, content_index: 0, part: { type: 'output_text', annotations: [], text: '' } },
  { type: 'response.output_text.delta', ...atMessage, content_index: 0, delta: 'Quiet ' },
  { type: 'response.output_text.delta', ...atMessage, content_index: 0, delta: 'gateway ' },
  { type: 'response.output_text.delta', ...atMessage, content_index: 0, delta: 'hums' },
  { type: 'response.output_text.done', ...atMessage, content_index: 0, text: 'Quiet gateway hums' },
  { type: 'response.content_part.done', ...atMessage, content_index: 0, part: messageItem.content[0] },
  { type: 'response.output_item.done', output_index: 1, item: messageItem },
  {
    type: 'response.completed',
    response: {
      ...reasoningResponse,
      status: 'completed',
      output: [reasoningItem, messageItem],
      usage: {
        input_tokens: 2048,
        input_tokens_details: { cached_tokens: 1536 },
        output_tokens: 320,
        output_tokens_details: { reasoning_tokens: 256 },
        total_tokens: 2368,
      },
    },
  },
];

const callParis = { id: 'fc_12345xyz', call_id: 'call_12345xyz', name: 'get_weather', arguments: '{"latitude":48.8566,"longitude":2.3522}' };
const callBogota = { id: 'fc_67890abc', call_id: 'call_67890abc', name: 'get_weather', arguments: '{"latitude":4.711,"longitude":-74.0721}' };
const toolResponse = base('resp_68c1a3c4d5e68190c3d4e5f607182930', 'gpt-4.1-2025-04-14');
const toolUsage = {
  input_tokens: 291,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 46,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 337,
};

/** Two function calls in one turn, each item announced with empty arguments, then argument deltas. */
export const parallelCallsEvents: Event[] = [
  { type: 'response.created', response: { ...toolResponse, status: 'in_progress' } },
  { type: 'response.in_progress', response: { ...toolResponse, status: 'in_progress' } },
  { type: 'response.output_item.added', output_index: 0, item: { ...callParis, type: 'function_call', arguments: '', status: 'in_progress' } },
  { type: 'response.function_call_arguments.delta', item_id: callParis.id, output_index: 0, delta: '{"latitude":48.8566,' },
  { type: 'response.function_call_arguments.delta', item_id: callParis.id, output_index: 0, delta: '"longitude":2.3522}' },
  { type: 'response.function_call_arguments.done', item_id: callParis.id, output_index: 0, arguments: callParis.arguments },
  { type: 'response.output_item.done', output_index: 0, item: { ...callParis, type: 'function_call', status: 'completed' } },
  { type: 'response.output_item.added', output_index: 1, item: { ...callBogota, type: 'function_call', arguments: '', status: 'in_progress' } },
  { type: 'response.function_call_arguments.delta', item_id: callBogota.id, output_index: 1, delta: '{"latitude":4.711,' },
  { type: 'response.function_call_arguments.delta', item_id: callBogota.id, output_index: 1, delta: '"longitude":-74.0721}' },
  { type: 'response.function_call_arguments.done', item_id: callBogota.id, output_index: 1, arguments: callBogota.arguments },
  { type: 'response.output_item.done', output_index: 1, item: { ...callBogota, type: 'function_call', status: 'completed' } },
  {
    type: 'response.completed',
    response: {
      ...toolResponse,
      status: 'completed',
      output: [
        { ...callParis, type: 'function_call', status: 'completed' },
        { ...callBogota, type: 'function_call', status: 'completed' },
      ],
      usage: toolUsage,
    },
  },
];

/** An upstream that sends a call's arguments only whole: the item announced, no deltas, output_item.done. */
export const wholeArgumentsEvents: Event[] = [
  { type: 'response.created', response: { ...toolResponse, status: 'in_progress' } },
  { type: 'response.output_item.added', output_index: 0, item: { ...callParis, type: 'function_call', arguments: '', status: 'in_progress' } },
  { type: 'response.output_item.done', output_index: 0, item: { ...callParis, type: 'function_call', status: 'completed' } },
  {
    type: 'response.completed',
    response: { ...toolResponse, status: 'completed', output: [{ ...callParis, type: 'function_call', status: 'completed' }], usage: toolUsage },
  },
];

const cutResponse = base('resp_68c1a4d5e6f78190d4e5f60718293a4b', 'gpt-4.1-2025-04-14');
const cutMessage = { id: 'msg_68c1a4d6f7a88190e5f60718293a4b5c', type: 'message', status: 'incomplete', role: 'assistant' };

/** A text answer cut at max_output_tokens: response.incomplete. */
export const incompleteEvents: Event[] = [
  { type: 'response.created', response: { ...cutResponse, status: 'in_progress' } },
  { type: 'response.output_item.added', output_index: 0, item: { ...cutMessage, status: 'in_progress', content: [] } },
  { type: 'response.output_text.delta', item_id: cutMessage.id, output_index: 0, content_index: 0, delta: 'Once upon a time,' },
  { type: 'response.output_text.delta', item_id: cutMessage.id, output_index: 0, content_index: 0, delta: ' in a land far' },
  {
    type: 'response.output_item.done',
    output_index: 0,
    item: { ...cutMessage, content: [{ type: 'output_text', annotations: [], text: 'Once upon a time, in a land far' }] },
  },
  {
    type: 'response.incomplete',
    response: {
      ...cutResponse,
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ ...cutMessage, content: [{ type: 'output_text', annotations: [], text: 'Once upon a time, in a land far' }] }],
      usage: {
        input_tokens: 14,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 16,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 30,
      },
    },
  },
];

/** A response that fails after some text: response.failed with the response's error. */
export const failedEvents: Event[] = [
  { type: 'response.created', response: { ...cutResponse, status: 'in_progress' } },
  { type: 'response.output_item.added', output_index: 0, item: { ...cutMessage, status: 'in_progress', content: [] } },
  { type: 'response.output_text.delta', item_id: cutMessage.id, output_index: 0, content_index: 0, delta: 'Half an answer' },
  {
    type: 'response.failed',
    response: { ...cutResponse, status: 'failed', error: { code: 'server_error', message: 'The model failed to generate a response.' } },
  },
];

/** An `error` event (the streaming reference's "error": code, message, param). */
export const errorEvents: Event[] = [
  { type: 'response.created', response: { ...cutResponse, status: 'in_progress' } },
  { type: 'error', code: 'rate_limit_exceeded', message: 'Rate limit reached for gpt-4.1 on tokens per min (TPM).', param: null },
];
