import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.js';
import { signSigV4 } from '../../lib/aws-sigv4.js';
import type { ChannelEndpoint, NativeChatCall, UpstreamRequest } from '../provider-types.js';
import { bedrockAdaptor, buildBedrockChatRequest, buildBedrockModelListRequest, classifyBedrockError, parseBedrockKey } from './bedrock-adaptor.js';
import { BedrockFrameDecoder } from './bedrock-event-stream.js';
import { bedrockModelId } from './bedrock-models.js';
import { startMockBedrock, type MockBedrock } from './testing/mock-bedrock.js';

/** The Messages API request of docs.anthropic.com/en/api/messages, with the tool of its tool-use guide. */
const ANTHROPIC_REQUEST = JSON.parse(readFileSync(new URL('./__fixtures__/anthropic-messages-request.json', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;

const ACCESS_KEY = 'AKIAMOCKEXAMPLE12345';
const SECRET = 'mockSecret/Key+0123456789abcdefghijklmno';
const KEY = `${ACCESS_KEY}|${SECRET}|us-east-1`;
const noBaseUrl: ChannelEndpoint = { type: 33, origin: '', basePath: '', other: '', organization: '' };

const call = (overrides: Partial<NativeChatCall> = {}): NativeChatCall => ({
  channel: noBaseUrl,
  key: KEY,
  upstreamModel: 'claude-3-5-sonnet-20241022',
  stream: false,
  body: structuredClone(ANTHROPIC_REQUEST),
  raw: undefined,
  clientHeaders: {},
  apiVersion: 'v1beta',
  ...overrides,
});

async function send(upstream: UpstreamRequest): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const answer = await request(`${upstream.origin}${upstream.path}`, {
    method: upstream.method ?? 'POST',
    headers: upstream.headers,
    body: upstream.method === 'GET' ? undefined : (upstream.body as string),
  });
  return { status: answer.statusCode, headers: answer.headers, body: Buffer.from(await answer.body.arrayBuffer()) };
}

describe('Bedrock requests', () => {
  it('goes to the region’s runtime with the mapped, cross-region model id, its colon encoded', () => {
    const built = buildBedrockChatRequest(call());
    expect(built.origin).toBe('https://bedrock-runtime.us-east-1.amazonaws.com');
    expect(built.path).toBe('/model/us.anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke');
    expect(built.headers['content-type']).toBe('application/json');
    expect(built.headers.accept).toBe('application/json');
    expect(built.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAMOCKEXAMPLE12345\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    expect(JSON.stringify(built)).not.toContain(SECRET);
  });

  it('sends the Anthropic body without model and stream, with Bedrock’s version and the client’s betas', () => {
    const built = buildBedrockChatRequest(
      call({
        stream: true,
        body: { ...structuredClone(ANTHROPIC_REQUEST), stream: true },
        clientHeaders: { 'anthropic-beta': 'prompt-caching-2024-07-31, token-efficient-tools-2025-02-19' },
      }),
    );
    expect(built.path).toBe('/model/us.anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke-with-response-stream');
    expect(built.headers.accept).toBe('application/vnd.amazon.eventstream');
    const { model: _model, stream: _stream, ...rest } = ANTHROPIC_REQUEST;
    expect(JSON.parse(built.body as string)).toEqual({
      ...rest,
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['prompt-caching-2024-07-31', 'token-efficient-tools-2025-02-19'],
    });
  });

  it('fields Bedrock does not take (metadata, service_tier) are left out, as new-api leaves them', () => {
    const built = buildBedrockChatRequest(
      call({
        body: { ...structuredClone(ANTHROPIC_REQUEST), metadata: { user_id: 'u1' }, service_tier: 'auto', thinking: { type: 'enabled', budget_tokens: 2048 } },
      }),
    );
    const body = JSON.parse(built.body as string) as Record<string, unknown>;
    expect(body).not.toHaveProperty('metadata');
    expect(body).not.toHaveProperty('service_tier');
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it('a base URL replaces the region’s address (the mock in tests)', () => {
    const built = buildBedrockChatRequest(call({ channel: { ...noBaseUrl, origin: 'http://127.0.0.1:9', basePath: '/aws' } }));
    expect(built.origin).toBe('http://127.0.0.1:9');
    expect(built.path.startsWith('/aws/model/')).toBe(true);
  });

  it('model ids: Claude names map, cross-region prefixes follow the region, Bedrock ids pass as they are', () => {
    expect(bedrockModelId('claude-sonnet-4-20250514', 'eu-central-1')).toBe('eu.anthropic.claude-sonnet-4-20250514-v1:0');
    expect(bedrockModelId('claude-3-5-sonnet-20241022', 'ap-northeast-1')).toBe('apac.anthropic.claude-3-5-sonnet-20241022-v2:0');
    expect(bedrockModelId('claude-3-5-sonnet-20241022', 'eu-west-1')).toBe('anthropic.claude-3-5-sonnet-20241022-v2:0');
    expect(bedrockModelId('claude-3-opus-20240229', 'us-west-2')).toBe('us.anthropic.claude-3-opus-20240229-v1:0');
    expect(bedrockModelId('claude-3-haiku-20240307', 'ca-central-1')).toBe('anthropic.claude-3-haiku-20240307-v1:0');
    expect(bedrockModelId('anthropic.claude-v2:1', 'us-east-1')).toBe('anthropic.claude-v2:1');
    expect(bedrockModelId('us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'us-east-1')).toBe('us.anthropic.claude-3-7-sonnet-20250219-v1:0');
  });

  it('a malformed key is a clear error naming the format, never the key', () => {
    for (const bad of ['onlyonepart', `${ACCESS_KEY}|${SECRET}|`, `${ACCESS_KEY}|${SECRET}|not a region`, `${ACCESS_KEY}||us-east-1`, 'a|b|c|us-east-1']) {
      let error: unknown;
      try {
        parseBedrockKey(bad);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).message).toContain('AccessKeyId|SecretAccessKey|Region');
      expect((error as AppError).message).not.toContain(SECRET);
      expect((error as AppError).message).not.toContain(ACCESS_KEY);
    }
    expect(parseBedrockKey('bedrock-api-key-abc|us-west-2')).toEqual({ kind: 'api-key', apiKey: 'bedrock-api-key-abc', region: 'us-west-2' });
  });

  it('the adaptor: chat only, Anthropic format, needs no base URL', () => {
    expect(bedrockAdaptor.supports('chat')).toBe(true);
    expect(bedrockAdaptor.supports('embeddings')).toBe(false);
    expect(bedrockAdaptor.nativeChat?.formatFor('anything')).toBe('anthropic');
    expect(bedrockAdaptor.ownOrigin).toBe(true);
    expect(bedrockAdaptor.streamUsageOption).toBe(false);
  });
});

describe('Bedrock errors', () => {
  const verdict = (status: number, message: string, type = '') => classifyBedrockError({ status, message, type, code: '' });
  it('rejected credentials disable the channel and let another try', () => {
    expect(verdict(403, 'The security token included in the request is invalid.')).toEqual({ retryable: true, disableChannel: true });
    expect(verdict(403, 'The request signature we calculated does not match the signature you provided.')).toEqual({ retryable: true, disableChannel: true });
    expect(verdict(400, "You don't have access to the model with the specified model ID.", 'AccessDeniedException')).toEqual({
      retryable: true,
      disableChannel: true,
    });
  });
  it('throttling and server trouble are retried without disabling; a bad request is neither', () => {
    expect(verdict(429, 'Too many requests, please wait before trying again.')).toEqual({ retryable: true, disableChannel: false });
    expect(verdict(503, 'Bedrock is unable to process your request.')).toEqual({ retryable: true, disableChannel: false });
    expect(verdict(529, 'Overloaded')).toEqual({ retryable: true, disableChannel: false });
    expect(verdict(400, 'Malformed input request: #: required key [messages] not found')).toEqual({ retryable: false, disableChannel: false });
  });
});

describe('Bedrock against the signature-checking mock', () => {
  let mock: MockBedrock;
  let channel: ChannelEndpoint;
  beforeAll(async () => {
    mock = await startMockBedrock({ accessKeyId: ACCESS_KEY, secretAccessKey: SECRET, region: 'us-east-1' });
    const url = new URL(mock.url);
    channel = { ...noBaseUrl, origin: url.origin };
  });
  afterAll(() => mock.close());

  it('a signed invoke is answered with an Anthropic Message', async () => {
    mock.setScript(() => ({ text: 'Hi there', usage: { input: 30, output: 4, cacheRead: 10 } }));
    const answer = await send(buildBedrockChatRequest(call({ channel })));
    expect(answer.status).toBe(200);
    const message = JSON.parse(answer.body.toString('utf8'));
    expect(message).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'Hi there' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 30, cache_read_input_tokens: 10, output_tokens: 4 },
    });
    expect(mock.requests.at(-1)?.path).toBe('/model/us.anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke');
  });

  it('a streamed invoke decodes to the Anthropic events, tool call included', async () => {
    mock.setScript(() => ({
      text: 'Checking.',
      toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { location: 'Paris' } }],
      usage: { input: 40, output: 20 },
    }));
    const answer = await send(buildBedrockChatRequest(call({ channel, stream: true })));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/vnd.amazon.eventstream');
    const decoder = new BedrockFrameDecoder();
    const events = decoder.push(answer.body).map((event) => JSON.parse(event.data) as Record<string, unknown>);
    expect(events[0]?.type).toBe('message_start');
    expect(events.at(-1)?.type).toBe('message_stop');
    const toolJson = events
      .filter((event) => (event.delta as { type?: string } | undefined)?.type === 'input_json_delta')
      .map((event) => (event.delta as { partial_json: string }).partial_json)
      .join('');
    expect(JSON.parse(toolJson)).toEqual({ location: 'Paris' });
    expect(events.find((event) => event.type === 'message_delta')).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 20 } });
  });

  it('an exception mid-stream arrives as an Anthropic error event after the events before it', async () => {
    mock.setScript(() => ({ text: 'Partial answer', usage: { input: 5, output: 5 } }));
    mock.setStreamException({ afterEvents: 3, type: 'throttlingException', message: 'Too many tokens, please wait before trying again.' });
    try {
      const answer = await send(buildBedrockChatRequest(call({ channel, stream: true })));
      const events = new BedrockFrameDecoder().push(answer.body).map((event) => JSON.parse(event.data) as Record<string, unknown>);
      expect(events.map((event) => event.type)).toEqual(['message_start', 'ping', 'content_block_start', 'error']);
      expect(events[3]).toEqual({ type: 'error', error: { type: 'throttlingException', message: 'Too many tokens, please wait before trying again.' } });
    } finally {
      mock.setStreamException(undefined);
    }
  });

  it('a wrong secret is refused with AWS’s signature error, which disables the channel', async () => {
    const answer = await send(buildBedrockChatRequest(call({ channel, key: `${ACCESS_KEY}|wrong-secret-0000000000000000000000000000|us-east-1` })));
    expect(answer.status).toBe(403);
    expect(answer.headers['x-amzn-errortype']).toMatch(/^InvalidSignatureException/);
    const message = JSON.parse(answer.body.toString('utf8')).message as string;
    expect(message).toMatch(/signature we calculated does not match/);
    expect(classifyBedrockError({ status: 403, message, type: '', code: '' }).disableChannel).toBe(true);
  });

  it('another region’s key or an unknown access key is refused', async () => {
    const otherRegion = await send(buildBedrockChatRequest(call({ channel, key: `${ACCESS_KEY}|${SECRET}|us-west-2` })));
    expect(otherRegion.status).toBe(403);
    const unknownKey = await send(buildBedrockChatRequest(call({ channel, key: `AKIAOTHER|${SECRET}|us-east-1` })));
    expect(JSON.parse(unknownKey.body.toString('utf8')).message).toBe('The security token included in the request is invalid.');
  });

  it('a body still holding model is refused as Bedrock does; an unmapped Claude name is an invalid model id', async () => {
    const path = '/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke';
    const body = JSON.stringify({ ...ANTHROPIC_REQUEST, anthropic_version: 'bedrock-2023-05-31' });
    const signed = signSigV4({
      method: 'POST',
      host: new URL(mock.url).host,
      path,
      headers: { 'content-type': 'application/json' },
      body,
      service: 'bedrock',
      region: 'us-east-1',
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET },
    });
    const withModel = await send({ origin: channel.origin, path, headers: signed.headers, body });
    expect(withModel.status).toBe(400);
    expect(JSON.parse(withModel.body.toString('utf8')).message).toContain('extraneous key [model] is not permitted');
    const badModel = await send(buildBedrockChatRequest(call({ channel, upstreamModel: 'claude-unknown-1' })));
    expect(badModel.status).toBe(400);
    expect(JSON.parse(badModel.body.toString('utf8')).message).toBe('The provided model identifier is invalid.');
  });

  it('a scripted throttle answers 429 with ThrottlingException', async () => {
    mock.setScript(() => ({ status: 429, message: 'Too many requests, please wait before trying again.' }));
    const answer = await send(buildBedrockChatRequest(call({ channel })));
    expect(answer.status).toBe(429);
    expect(answer.headers['x-amzn-errortype']).toMatch(/^ThrottlingException/);
  });

  it('the model list is a signed GET of the foundation models', async () => {
    const listing = bedrockAdaptor.modelList;
    if (listing?.kind !== 'fetch') throw new Error('expected a fetch listing');
    const built = await listing.request(channel, KEY);
    expect(built.method).toBe('GET');
    expect(built.path).toBe('/foundation-models?byProvider=anthropic');
    const answer = await send(built);
    expect(answer.status).toBe(200);
    expect(listing.parse(JSON.parse(answer.body.toString('utf8')))).toContain('anthropic.claude-sonnet-4-20250514-v1:0');
    expect(buildBedrockModelListRequest(noBaseUrl, `${ACCESS_KEY}|${SECRET}|eu-west-3`).origin).toBe('https://bedrock.eu-west-3.amazonaws.com');
  });

  it('a Bedrock API key travels as a Bearer token', async () => {
    const keyed = await startMockBedrock({ accessKeyId: ACCESS_KEY, secretAccessKey: SECRET, region: 'us-east-1', apiKey: 'ABSKmockapikey' });
    try {
      const answer = await send(buildBedrockChatRequest(call({ channel: { ...channel, origin: new URL(keyed.url).origin }, key: 'ABSKmockapikey|us-east-1' })));
      expect(answer.status).toBe(200);
      expect(keyed.requests[0]?.headers.authorization).toBe('Bearer ABSKmockapikey');
    } finally {
      await keyed.close();
    }
  });
});
