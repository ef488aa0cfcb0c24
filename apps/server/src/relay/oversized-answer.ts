import type { OutgoingHttpHeaders } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { OpenAIEndpoint, TokenUsage } from '@modelgate/protocol';
import type { RelayReply } from './relay-exchange.js';
import type { Dispatcher } from 'undici';
import type { ProviderAdaptor } from '../providers/provider-types.js';
import { countPromptTokens } from './token-counter.js';

/**
 * Whole (non-stream) answers larger than RELAY_MAX_BUFFERED_BYTES: passed to the client as they
 * arrive instead of being held, and billed from the usage found in their last bytes (OpenAI-style
 * answers end with it), else from an estimate.
 */

/** Bytes kept from an answer's end; usage and what follows it are a few hundred. */
const TAIL_BYTES = 64 * 1024;

/** The last TAIL_BYTES (or a little more) of what passed, kept as the chunks that brought them. */
export class AnswerTail {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= TAIL_BYTES) this.size -= this.chunks.shift()!.length;
  }

  text(): string {
    // A first character cut in half decodes as a replacement character, which no search here needs.
    return Buffer.concat(this.chunks, this.size).toString('utf8');
  }
}

/** Index just past the JSON value that opens with `{` at `open`, or -1 when it does not close. */
function objectEnd(text: string, open: number): number {
  let depth = 0;
  let inString = false;
  for (let index = open; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c /* \ */) index += 1;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b /* { */) depth += 1;
    else if (char === 0x7d /* } */ && (depth -= 1) === 0) return index + 1;
  }
  return -1;
}

const USAGE_KEY = /"usage"\s*:\s*\{/g;

/**
 * The usage an answer reports, from its last bytes: the last `"usage": {...}` that parses and that
 * the adaptor reads as usage. A quote inside a JSON string is escaped, so text the model wrote
 * cannot pose as the key.
 */
export function usageFromTail(text: string, adaptor: ProviderAdaptor, endpoint: OpenAIEndpoint): TokenUsage | undefined {
  const opens = [...text.matchAll(USAGE_KEY)].map((match) => match.index + match[0].length - 1);
  for (const open of opens.reverse()) {
    const end = objectEnd(text, open);
    if (end < 0) continue;
    try {
      const usage = adaptor.parseUsage(endpoint, { usage: JSON.parse(text.slice(open, end)) as unknown });
      if (usage) return usage;
    } catch {
      // Not JSON after all: look further back.
    }
  }
  return undefined;
}

/**
 * Usage for an oversized answer that reported none. Counting the text of hundreds of megabytes
 * would hold the event loop for minutes, so generated output is estimated at one token per four
 * bytes (what o200k_base averages over English text and escaped JSON alike); the prompt is counted.
 */
export async function estimatedUsage(endpoint: OpenAIEndpoint, fields: Record<string, unknown>, bytes: number): Promise<TokenUsage> {
  switch (endpoint) {
    case 'chat':
    case 'completions':
    case 'responses':
      return { promptTokens: await countPromptTokens(endpoint, fields), completionTokens: Math.ceil(bytes / 4) };
    case 'transcriptions':
    case 'translations':
      // A transcript is what these generate; they have no prompt to count (see countedUsage).
      return { promptTokens: 0, completionTokens: Math.ceil(bytes / 4) };
    case 'embeddings':
    case 'moderations':
    case 'rerank':
    case 'images':
    case 'speech':
      return { promptTokens: await countPromptTokens(endpoint, fields), completionTokens: 0 };
    default: {
      const unreachable: never = endpoint;
      return unreachable;
    }
  }
}

/**
 * Sends the answer: the bytes already read (`head`), then the rest as it arrives, at the pace the
 * client reads. Each chunk is shown to `observe` on its way. Resolves true when all of it was
 * written; the response is left open for the caller to end (or destroy, when false).
 */
export async function passAnswerThrough(
  reply: RelayReply,
  upstream: Dispatcher.ResponseData,
  head: readonly Buffer[],
  contentType: string,
  observe: (chunk: Buffer) => void,
): Promise<boolean> {
  reply.hijack();
  // The relay's own headers (CORS) were set on the reply, which is bypassed from here on.
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = typeof value === 'number' ? String(value) : value;
  headers['content-type'] = contentType;
  const declared = upstream.headers['content-length'];
  if (typeof declared === 'string') headers['content-length'] = declared;
  reply.raw.writeHead(upstream.statusCode, headers);
  async function* chunks(): AsyncGenerator<Buffer> {
    for (const chunk of head) {
      observe(chunk);
      yield chunk;
    }
    for await (const chunk of upstream.body) {
      observe(chunk as Buffer);
      yield chunk as Buffer;
    }
  }
  try {
    await pipeline(chunks, reply.raw, { end: false });
    return true;
  } catch {
    // The upstream broke or went silent, or the client left; the caller tells which.
    if (!upstream.body.destroyed) upstream.body.destroy();
    return false;
  }
}
