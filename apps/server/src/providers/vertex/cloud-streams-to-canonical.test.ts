import { anthropicCodec, geminiCodec, SseSplitter, type ChatChunk, type StreamDecoder } from '@modelgate/protocol';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokenCache } from '../../lib/google-service-account.js';
import { buildBedrockChatRequest } from '../aws-bedrock/bedrock-adaptor.js';
import { BedrockFrameDecoder } from '../aws-bedrock/bedrock-event-stream.js';
import { startMockBedrock, type MockBedrock } from '../aws-bedrock/testing/mock-bedrock.js';
import type { NativeChatCall, UpstreamRequest } from '../provider-types.js';
import type { MockTurn } from '../testing/mock-turn.js';
import { startMockVertex, type MockVertex } from './testing/mock-vertex.js';
import { createVertexAdaptor } from './vertex-adaptor.js';

/**
 * What the relay will do with these clouds' streams, short of the relay itself: the frames each
 * adaptor's decoder (Bedrock's event stream, else SSE) yields go through the Anthropic or Gemini
 * codec's stream decoder into canonical chunks, whose text, tool call and usage must be the turn's.
 */
const TURN: MockTurn = {
  text: 'It is sunny.',
  toolCalls: [{ id: 'toolu_w1', name: 'get_weather', arguments: { location: 'Paris' } }],
  usage: { input: 40, output: 12, cacheRead: 8, cacheWrite: 4 },
  pieceLength: 3,
};

const ANTHROPIC_BODY = { model: 'claude-sonnet-4-20250514', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'Weather in Paris?' }] };
const GEMINI_BODY = { contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }] };

const baseCall = (overrides: Partial<NativeChatCall>): NativeChatCall => ({
  channel: { type: 0, origin: '', basePath: '', other: '', organization: '' },
  key: '',
  upstreamModel: 'claude-sonnet-4-20250514',
  stream: true,
  body: structuredClone(ANTHROPIC_BODY),
  raw: undefined,
  clientHeaders: {},
  apiVersion: 'v1beta',
  ...overrides,
});

async function streamBytes(upstream: UpstreamRequest): Promise<Buffer[]> {
  const answer = await request(`${upstream.origin}${upstream.path}`, { method: 'POST', headers: upstream.headers, body: upstream.body as string });
  expect(answer.statusCode).toBe(200);
  const pieces: Buffer[] = [];
  for await (const piece of answer.body) pieces.push(piece as Buffer);
  return pieces;
}

function decodeSse(pieces: Buffer[], decoder: StreamDecoder): ChatChunk[] {
  const splitter = new SseSplitter();
  const chunks: ChatChunk[] = [];
  for (const piece of pieces) for (const event of splitter.push(piece)) if (event.data !== '') chunks.push(...decoder.push(event.data, event.event));
  return [...chunks, ...decoder.finish()];
}

function summary(chunks: ChatChunk[]) {
  const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
  const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
  const argumentsText = calls.map((call) => call.function?.arguments ?? '').join('');
  const usage = chunks.findLast((chunk) => chunk.usage)?.usage;
  return {
    text,
    toolName: calls.find((call) => call.function?.name)?.function?.name,
    args: argumentsText === '' ? undefined : JSON.parse(argumentsText),
    usage,
  };
}

describe('cloud streams through the codecs', () => {
  let bedrock: MockBedrock;
  let vertex: MockVertex;
  beforeAll(async () => {
    bedrock = await startMockBedrock({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret/example', region: 'us-west-2', script: () => TURN });
    vertex = await startMockVertex({ script: () => TURN });
  });
  afterAll(async () => {
    await bedrock.close();
    await vertex.close();
  });

  it('Bedrock: event-stream frames → Anthropic events → canonical chunks', async () => {
    const upstream = buildBedrockChatRequest(
      baseCall({ channel: { type: 33, origin: bedrock.url, basePath: '', other: '', organization: '' }, key: 'AKIAEXAMPLE|secret/example|us-west-2' }),
    );
    const frames = new BedrockFrameDecoder();
    const decoder = anthropicCodec.streamDecoder!('claude-sonnet-4-20250514');
    const chunks: ChatChunk[] = [];
    for (const piece of await streamBytes(upstream)) for (const frame of frames.push(piece)) chunks.push(...decoder.push(frame.data, frame.event));
    expect(frames.finish()).toEqual([]);
    chunks.push(...decoder.finish());
    const result = summary(chunks);
    expect(result).toMatchObject({ text: 'It is sunny.', toolName: 'get_weather', args: { location: 'Paris' } });
    expect(result.usage).toMatchObject({ prompt_tokens: 52, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 8 } });
    expect(decoder.error).toBeUndefined();
  });

  it('Vertex Claude: streamRawPredict SSE → canonical chunks', async () => {
    const adaptor = createVertexAdaptor({ tokens: new AccessTokenCache() });
    const upstream = await Promise.resolve(
      adaptor.nativeChat!.buildRequest(
        baseCall({ channel: { type: 41, origin: vertex.url, basePath: '', other: 'us-east5', organization: '' }, key: vertex.serviceAccountKey }),
      ),
    );
    const result = summary(decodeSse(await streamBytes(upstream), anthropicCodec.streamDecoder!('claude-sonnet-4-20250514')));
    expect(result).toMatchObject({ text: 'It is sunny.', toolName: 'get_weather', args: { location: 'Paris' } });
    expect(result.usage).toMatchObject({ prompt_tokens: 52, completion_tokens: 12 });
  });

  it('Vertex Gemini: streamGenerateContent SSE → canonical chunks (prompt counts cached tokens, no cache writes)', async () => {
    const adaptor = createVertexAdaptor({ tokens: new AccessTokenCache() });
    const upstream = await Promise.resolve(
      adaptor.nativeChat!.buildRequest(
        baseCall({
          channel: { type: 41, origin: vertex.url, basePath: '', other: 'us-central1', organization: '' },
          key: vertex.serviceAccountKey,
          upstreamModel: 'gemini-2.5-flash',
          body: structuredClone(GEMINI_BODY),
        }),
      ),
    );
    const result = summary(decodeSse(await streamBytes(upstream), geminiCodec.streamDecoder!('gemini-2.5-flash')));
    expect(result).toMatchObject({ text: 'It is sunny.', toolName: 'get_weather', args: { location: 'Paris' } });
    expect(result.usage).toMatchObject({ prompt_tokens: 48, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 8 } });
  });
});
