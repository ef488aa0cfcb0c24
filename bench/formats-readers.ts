import { anthropicCodec, type ChatCodec, type ChatFormat, type ChatRequest, OpenAIStreamReader, responsesCodec } from '@modelgate/protocol';
import { ChatTranslation } from '../apps/server/src/relay/chat-translation.js';
import { anthropicMessageBody, anthropicStreamEvents, MOCK_CLAUDE_MODEL } from './mock-anthropic.js';
import { completionBody, mockWords, openaiStreamEvents } from './mock-openai.js';
import { MOCK_RESPONSES_MODEL, responsesAnswerBody, responsesBody, responsesStreamEvents } from './mock-responses.js';

/**
 * In process, about a minute: what the relay's conversions cost per call on the mock's own
 * answers. The wrk runs show the whole request; this shows the part a format decides.
 *
 * - Stream readers: each of the mock's streams pushed as one buffer (as a fast upstream's events
 *   mostly arrive) and finished: OpenAI's fast-path reader (usage-only event cut, no per-event
 *   parse), the reader of a same-format Anthropic stream (ChatTranslation with no encoder), and the
 *   converting readers, Anthropic's and the Responses API's in both directions.
 * - Request and whole answer: the client's request parsed, converted and written for the channel,
 *   and the channel's whole answer parsed, converted and written for the client, as the relay does
 *   for a call that converts (chat-attempt.ts, ChatTranslation.whole).
 *
 * The Responses rows are measured here only, not also through the relay with wrk as Anthropic's
 * are: the section's mock answers no /v1/responses. They are judged against Anthropic's same
 * conversion of the same blocks (formats-report.ts).
 */

export type ConversionKey =
  | 'openaiFastPath'
  | 'anthropicPassThrough'
  | 'streamOpenaiToAnthropic'
  | 'streamAnthropicToOpenai'
  | 'streamOpenaiToResponses'
  | 'streamResponsesToOpenai'
  | 'wholeOpenaiToAnthropic'
  | 'wholeAnthropicToOpenai'
  | 'wholeOpenaiToResponses'
  | 'wholeResponsesToOpenai';

export interface ConversionCosts {
  lines: string[];
  /** Microseconds per call (the fastest block), by case. */
  micros: Record<ConversionKey, number>;
}

interface Case {
  key: ConversionKey;
  name: string;
  /** What one call carries: the stream's bytes, or the request's and the answer's. */
  bytes: string;
  run(): void;
}

const WARMUP = 20_000;
const BLOCK = 20_000;
const BLOCKS = 5;

function repeat(run: () => void, count: number): void {
  for (let index = 0; index < count; index += 1) run();
}

/**
 * The fastest of BLOCKS timed blocks per case (other work on the core only ever slows a block),
 * the cases taken in turn within each round so that a slow spell of the host falls on all of them.
 */
function fastestMicros(cases: Case[]): Map<ConversionKey, number> {
  for (const item of cases) repeat(item.run, WARMUP);
  const best = new Map<ConversionKey, number>();
  for (let block = 0; block < BLOCKS; block += 1) {
    for (const item of cases) {
      const start = performance.now();
      repeat(item.run, BLOCK);
      const micros = ((performance.now() - start) * 1000) / BLOCK;
      best.set(item.key, Math.min(best.get(item.key) ?? Number.POSITIVE_INFINITY, micros));
    }
  }
  return best;
}

function streamCase(key: ConversionKey, name: string, make: () => { push(chunk: Buffer): unknown; finish(): unknown }, stream: Buffer): Case {
  return {
    key,
    name,
    bytes: `${stream.length} bytes`,
    run: () => {
      const reader = make();
      reader.push(stream);
      reader.finish();
    },
  };
}

/** A chat client on a channel of `format`: its request converted out, the channel's whole answer back. */
function chatClientCase(key: ConversionKey, name: string, format: ChatFormat, codec: ChatCodec, model: string, chatBody: string, answer: Buffer): Case {
  const context = { model, defaultMaxTokens: 8192 };
  return {
    key,
    name,
    bytes: `${Buffer.byteLength(chatBody)} + ${answer.length} bytes`,
    run: () => {
      const request = JSON.parse(chatBody) as ChatRequest;
      JSON.stringify(codec.requestFromCanonical!(request, context).value);
      new ChatTranslation('openai', format, model, false).whole(JSON.parse(answer.toString('utf8')));
    },
  };
}

/** A client of `format` on an OpenAI channel: its request converted to chat, the chat answer back. */
function formatClientCase(key: ConversionKey, name: string, format: ChatFormat, codec: ChatCodec, model: string, body: string): Case {
  return {
    key,
    name,
    bytes: `${Buffer.byteLength(body)} + ${completionBody.length} bytes`,
    run: () => {
      JSON.stringify(codec.requestToCanonical!(JSON.parse(body)).value);
      new ChatTranslation(format, 'openai', model, true).whole(JSON.parse(completionBody.toString('utf8')));
    },
  };
}

export function conversionCosts(options: {
  gptModel: string;
  chatBody(model: string, stream: boolean): string;
  anthropicBody(model: string, stream: boolean): string;
}): ConversionCosts {
  const { gptModel } = options;
  const anthropic = Buffer.concat(anthropicStreamEvents(mockWords, 20));
  const responses = Buffer.concat(responsesStreamEvents(mockWords, 20));
  const openai = Buffer.concat(openaiStreamEvents(20));
  const streams: Case[] = [
    streamCase('openaiFastPath', 'OpenAI→OpenAI (fast path, OpenAIStreamReader)', () => new OpenAIStreamReader('chat', true), openai),
    streamCase(
      'anthropicPassThrough',
      'Anthropic→Anthropic (ChatTranslation, no encoder)',
      () => new ChatTranslation('anthropic', 'anthropic', MOCK_CLAUDE_MODEL, true).streamReader(undefined),
      anthropic,
    ),
    streamCase(
      'streamOpenaiToAnthropic',
      'OpenAI→Anthropic→OpenAI (Anthropic decoder, OpenAI encoder)',
      () => new ChatTranslation('openai', 'anthropic', MOCK_CLAUDE_MODEL, false).streamReader(undefined),
      anthropic,
    ),
    streamCase(
      'streamAnthropicToOpenai',
      'Anthropic→OpenAI→Anthropic (OpenAI decoder, Anthropic encoder)',
      () => new ChatTranslation('anthropic', 'openai', gptModel, true).streamReader(undefined),
      openai,
    ),
    streamCase(
      'streamOpenaiToResponses',
      'OpenAI→Responses→OpenAI (Responses decoder, OpenAI encoder)',
      () => new ChatTranslation('openai', 'responses', MOCK_RESPONSES_MODEL, false).streamReader(undefined),
      responses,
    ),
    streamCase(
      'streamResponsesToOpenai',
      'Responses→OpenAI→Responses (OpenAI decoder, Responses encoder)',
      () => new ChatTranslation('responses', 'openai', gptModel, true).streamReader(undefined),
      openai,
    ),
  ];
  const wholes: Case[] = [
    chatClientCase(
      'wholeOpenaiToAnthropic',
      'OpenAI→Anthropic→OpenAI',
      'anthropic',
      anthropicCodec,
      MOCK_CLAUDE_MODEL,
      options.chatBody(MOCK_CLAUDE_MODEL, false),
      anthropicMessageBody(mockWords),
    ),
    formatClientCase('wholeAnthropicToOpenai', 'Anthropic→OpenAI→Anthropic', 'anthropic', anthropicCodec, gptModel, options.anthropicBody(gptModel, false)),
    chatClientCase(
      'wholeOpenaiToResponses',
      'OpenAI→Responses→OpenAI',
      'responses',
      responsesCodec,
      MOCK_RESPONSES_MODEL,
      options.chatBody(MOCK_RESPONSES_MODEL, false),
      responsesAnswerBody(mockWords),
    ),
    formatClientCase('wholeResponsesToOpenai', 'Responses→OpenAI→Responses', 'responses', responsesCodec, gptModel, responsesBody(gptModel, false)),
  ];
  const micros = fastestMicros([...streams, ...wholes]);
  const row = (item: Case) => `  ${item.name.padEnd(66)} ${micros.get(item.key)!.toFixed(1).padStart(6)} µs per call (${item.bytes})`;
  const lines = [
    `conversions in process (fastest of ${BLOCKS} interleaved blocks of ${BLOCK.toLocaleString('en')} after ${WARMUP.toLocaleString('en')}; on this script's core, after the wrk runs):`,
    "  stream readers (each of the mock's streams as one buffer, read and finished):",
    ...streams.map(row),
    '  request and whole answer (the client request parsed, converted and written; the whole answer parsed, converted and written):',
    ...wholes.map(row),
  ];
  return { lines, micros: Object.fromEntries(micros) as Record<ConversionKey, number> };
}
