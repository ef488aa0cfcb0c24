import { OpenAIStreamReader } from '@modelgate/protocol';
import { ChatTranslation } from '../apps/server/src/relay/chat-translation.js';
import { anthropicStreamEvents, MOCK_CLAUDE_MODEL } from './mock-anthropic.js';
import { mockWords, openaiStreamEvents } from './mock-openai.js';

/**
 * In process, a second or two: what the relay's stream readers cost per stream on the mock's own
 * streams, each pushed as one buffer (as a fast upstream's events mostly arrive) and finished. The
 * wrk runs show the whole request; this shows the part a stream's format decides: OpenAI's fast-path
 * reader (usage-only event cut, no per-event parse), the reader of a same-format Anthropic stream
 * (ChatTranslation with no encoder), and the two converting readers.
 */

interface Reader {
  push(chunk: Buffer): unknown;
  finish(): unknown;
}

const WARMUP = 20_000;
const BLOCK = 20_000;
const BLOCKS = 5;

function run(make: () => Reader, stream: Buffer, count: number): void {
  for (let index = 0; index < count; index += 1) {
    const reader = make();
    reader.push(stream);
    reader.finish();
  }
}

/** The fastest of BLOCKS timed blocks: other work on the core only ever slows a block. */
function microsPerStream(make: () => Reader, stream: Buffer): number {
  run(make, stream, WARMUP);
  let best = Number.POSITIVE_INFINITY;
  for (let block = 0; block < BLOCKS; block += 1) {
    const start = performance.now();
    run(make, stream, BLOCK);
    best = Math.min(best, ((performance.now() - start) * 1000) / BLOCK);
  }
  return best;
}

export function streamReaderCosts(gptModel: string): string[] {
  const anthropic = Buffer.concat(anthropicStreamEvents(mockWords, 20));
  const openai = Buffer.concat(openaiStreamEvents(20));
  const cases: [string, () => Reader, Buffer][] = [
    ['OpenAI→OpenAI (fast path, OpenAIStreamReader)', () => new OpenAIStreamReader('chat', true), openai],
    [
      'Anthropic→Anthropic (ChatTranslation, no encoder)',
      () => new ChatTranslation('anthropic', 'anthropic', MOCK_CLAUDE_MODEL, true).streamReader(undefined),
      anthropic,
    ],
    [
      'OpenAI→Anthropic→OpenAI (Anthropic decoder, OpenAI encoder)',
      () => new ChatTranslation('openai', 'anthropic', MOCK_CLAUDE_MODEL, false).streamReader(undefined),
      anthropic,
    ],
    [
      'Anthropic→OpenAI→Anthropic (OpenAI decoder, Anthropic encoder)',
      () => new ChatTranslation('anthropic', 'openai', gptModel, true).streamReader(undefined),
      openai,
    ],
  ];
  const out = [
    `stream readers in process (each of the mock's streams as one buffer, read and finished; fastest of ${BLOCKS} blocks of ` +
      `${BLOCK.toLocaleString('en')} after ${WARMUP.toLocaleString('en')}; on this script's core, after the wrk runs):`,
  ];
  for (const [name, make, stream] of cases)
    out.push(`  ${name.padEnd(66)} ${microsPerStream(make, stream).toFixed(1).padStart(6)} µs per stream (${stream.length} bytes)`);
  return out;
}
