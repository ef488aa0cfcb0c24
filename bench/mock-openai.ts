/**
 * The mock upstream's OpenAI answers, built once: a whole chat completion with usage, and the
 * chunks of a streamed one (role, text pieces, finish), then a usage-only chunk and [DONE].
 * A module of its own so the formats section can time the relay's stream readers on the same bytes.
 */

export const created = Math.floor(Date.now() / 1000);
const id = 'chatcmpl-BENCH0000000000000000000000000';
const model = 'gpt-4o-mini-2024-07-18';
const fingerprint = 'fp_0ba0d124f1';
export const mockWords = 'The quick brown fox jumps over the lazy dog while a careful gateway relays every token it hears.'.split(' ');
const usage = {
  prompt_tokens: 24,
  completion_tokens: 96,
  total_tokens: 120,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};

export const completionBody = Buffer.from(
  JSON.stringify({
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: Array.from({ length: 96 }, (_, index) => mockWords[index % mockWords.length]).join(' '),
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage,
    service_tier: 'default',
    system_fingerprint: fingerprint,
  }),
);

const sse = (payload: unknown) => Buffer.from(`data: ${JSON.stringify(payload)}\n\n`);
const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
  sse({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    service_tier: 'default',
    system_fingerprint: fingerprint,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  });

export function streamEvents(count: number): Buffer[] {
  const events = [chunk({ role: 'assistant', content: '', refusal: null }, null)];
  for (let index = 1; index < count - 1; index += 1) events.push(chunk({ content: `${mockWords[index % mockWords.length]} ` }, null));
  events.push(chunk({}, 'stop'));
  return events;
}

export const streamTail = Buffer.concat([
  sse({ id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: fingerprint, choices: [], usage }),
  Buffer.from('data: [DONE]\n\n'),
]);

/** One whole fast stream (`count` chunks, the usage chunk, [DONE]), as its events. */
export const openaiStreamEvents = (count: number): Buffer[] => [...streamEvents(count), streamTail];
