import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.js';
import { AccessTokenCache } from '../../lib/google-service-account.js';
import type { ChannelEndpoint, NativeChatCall, UpstreamRequest } from '../provider-types.js';
import { startMockVertex, type MockVertex } from './testing/mock-vertex.js';
import { classifyVertexError, createVertexAdaptor } from './vertex-adaptor.js';
import { vertexClaudeModel, vertexOrigin, vertexRegion } from './vertex-models.js';

/** The generateContent body of cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference (curl example). */
const GEMINI_REQUEST = JSON.parse(readFileSync(new URL('./__fixtures__/gemini-generate-content-request.json', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;
/** The Messages body of cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude, as the relay hands it over (model and stream kept). */
const CLAUDE_REQUEST = JSON.parse(readFileSync(new URL('./__fixtures__/claude-raw-predict-request.json', import.meta.url), 'utf8')) as Record<string, unknown>;

let mock: MockVertex;
let channel: ChannelEndpoint;
const adaptor = createVertexAdaptor({ tokens: new AccessTokenCache() });

beforeAll(async () => {
  mock = await startMockVertex({ projectId: 'relay-project' });
  channel = { type: 41, origin: mock.url, basePath: '', other: 'us-east5', organization: '' };
});
afterAll(() => mock.close());

const call = (overrides: Partial<NativeChatCall>): NativeChatCall => ({
  channel,
  key: mock.serviceAccountKey,
  upstreamModel: 'gemini-2.5-flash',
  stream: false,
  body: structuredClone(GEMINI_REQUEST),
  raw: undefined,
  clientHeaders: {},
  apiVersion: 'v1beta',
  ...overrides,
});

const claudeCall = (overrides: Partial<NativeChatCall> = {}): NativeChatCall =>
  call({ upstreamModel: 'claude-3-5-sonnet-20241022', body: structuredClone(CLAUDE_REQUEST), ...overrides });

const build = (chat: NativeChatCall): Promise<UpstreamRequest> => Promise.resolve(adaptor.nativeChat!.buildRequest(chat));

async function send(upstream: UpstreamRequest): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const answer = await request(`${upstream.origin}${upstream.path}`, { method: 'POST', headers: upstream.headers, body: upstream.body as string });
  return { status: answer.statusCode, headers: answer.headers, text: await answer.body.text() };
}

describe('Vertex requests', () => {
  it('Gemini: generateContent under publishers/google of the account’s project and the channel’s region, with a bearer token', async () => {
    const built = await build(call({}));
    expect(built.path).toBe('/v1/projects/relay-project/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent');
    expect(built.headers.authorization).toMatch(/^Bearer ya29\.mock-/);
    expect(built.headers['x-goog-user-project']).toBe('relay-project');
    expect(JSON.parse(built.body as string)).toEqual(GEMINI_REQUEST);
    expect((await build(call({ stream: true }))).path).toMatch(/:streamGenerateContent\?alt=sse$/);
  });

  it('Claude: rawPredict under publishers/anthropic with the @-versioned id, Vertex’s anthropic_version and no model', async () => {
    const built = await build(claudeCall({ clientHeaders: { 'anthropic-beta': 'output-128k-2025-02-19' } }));
    expect(built.path).toBe('/v1/projects/relay-project/locations/us-east5/publishers/anthropic/models/claude-3-5-sonnet-v2@20241022:rawPredict');
    expect(built.headers['anthropic-beta']).toBe('output-128k-2025-02-19');
    expect(JSON.parse(built.body as string)).toEqual({ max_tokens: 256, messages: CLAUDE_REQUEST.messages, anthropic_version: 'vertex-2023-10-16' });
    const streamed = await build(claudeCall({ stream: true, body: { ...structuredClone(CLAUDE_REQUEST), stream: true } }));
    expect(streamed.path).toMatch(/claude-3-5-sonnet-v2@20241022:streamRawPredict\?alt=sse$/);
    // Google's streamRawPredict examples send "stream": true in the body; without it Vertex answers one Message.
    expect(JSON.parse(streamed.body as string)).toMatchObject({ stream: true, anthropic_version: 'vertex-2023-10-16' });
    expect(JSON.parse(streamed.body as string)).not.toHaveProperty('model');
  });

  it('without a base URL the region picks the host; global has none in front', async () => {
    const regional = await build(call({ channel: { ...channel, origin: '', other: 'europe-west4' } }));
    expect(regional.origin).toBe('https://europe-west4-aiplatform.googleapis.com');
    expect(vertexOrigin('global')).toBe('https://aiplatform.googleapis.com');
    const global = await build(call({ channel: { ...channel, origin: '', other: '' } }));
    expect(global.origin).toBe('https://aiplatform.googleapis.com');
    expect(global.path).toContain('/locations/global/');
  });

  it('region from `other`: a name, or new-api’s JSON map with default; bad values are clear errors', () => {
    expect(vertexRegion('us-central1', 'gemini-2.5-pro')).toBe('us-central1');
    const map = JSON.stringify({ default: 'us-central1', 'claude-3-5-sonnet-20241022': 'us-east5' });
    expect(vertexRegion(map, 'claude-3-5-sonnet-20241022')).toBe('us-east5');
    expect(vertexRegion(map, 'gemini-2.5-pro')).toBe('us-central1');
    expect(vertexRegion('{"claude-3-opus-20240229":"us-east5"}', 'gemini-2.5-pro')).toBe('global');
    expect(vertexRegion('', 'gemini-2.5-pro')).toBe('global');
    expect(() => vertexRegion('{"default": ', 'x')).toThrow(AppError);
    expect(() => vertexRegion('evil.example.com/', 'x')).toThrow(/not a region name/);
  });

  it('Claude names map as new-api maps them; other dated names get @', () => {
    expect(vertexClaudeModel('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet-v2@20241022');
    expect(vertexClaudeModel('claude-sonnet-4-20250514')).toBe('claude-sonnet-4@20250514');
    expect(vertexClaudeModel('claude-sonnet-9-20300101')).toBe('claude-sonnet-9@20300101');
    expect(vertexClaudeModel('claude-3-7-sonnet@20250219')).toBe('claude-3-7-sonnet@20250219');
    expect(vertexClaudeModel('claude-opus-4-6')).toBe('claude-opus-4-6');
  });

  it('formats, endpoints and model list', () => {
    expect(adaptor.nativeChat?.formatFor('claude-sonnet-4-20250514')).toBe('anthropic');
    expect(adaptor.nativeChat?.formatFor('gemini-2.5-pro')).toBe('gemini');
    expect(adaptor.supports('chat')).toBe(true);
    expect(adaptor.supports('embeddings')).toBe(false);
    expect(adaptor.ownOrigin).toBe(true);
    expect(adaptor.modelList).toMatchObject({ kind: 'known' });
    const models = adaptor.modelList?.kind === 'known' ? adaptor.modelList.models : [];
    expect(models).toContain('claude-3-5-sonnet-20241022');
    expect(models).toContain('gemini-2.5-pro');
  });

  it('a key that is not a service account is a clear error', async () => {
    await expect(build(call({ key: 'AIzaSyNotAServiceAccount' }))).rejects.toThrow(/not valid JSON/);
  });
});

describe('Vertex errors', () => {
  const verdict = (status: number, message: string, type = '') => classifyVertexError({ status, message, type, code: String(status) });
  it('refused credentials disable the channel; quota and overload are retried; bad requests are not', () => {
    expect(verdict(403, 'Permission denied on resource project x.')).toEqual({ retryable: true, disableChannel: true });
    expect(verdict(401, 'Request had invalid authentication credentials.')).toEqual({ retryable: true, disableChannel: true });
    expect(verdict(400, 'PERMISSION_DENIED: billing disabled')).toEqual({ retryable: true, disableChannel: true });
    expect(verdict(429, 'Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute')).toEqual({
      retryable: true,
      disableChannel: false,
    });
    expect(verdict(529, 'Overloaded', 'overloaded_error')).toEqual({ retryable: true, disableChannel: false });
    expect(verdict(503, 'The service is currently unavailable.')).toEqual({ retryable: true, disableChannel: false });
    expect(verdict(400, 'Invalid JSON payload received.')).toEqual({ retryable: false, disableChannel: false });
  });
});

describe('Vertex against the token-checking mock', () => {
  it('Gemini whole and streamed answers (usage counts cached tokens in the prompt)', async () => {
    mock.setScript(() => ({ text: 'Once upon a time', usage: { input: 20, output: 8, cacheRead: 5 } }));
    const whole = await send(await build(call({})));
    expect(whole.status).toBe(200);
    expect(JSON.parse(whole.text)).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Once upon a time' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 25, candidatesTokenCount: 8, cachedContentTokenCount: 5 },
    });
    const streamed = await send(await build(call({ stream: true })));
    expect(streamed.headers['content-type']).toBe('text/event-stream');
    const chunks = streamed.text
      .split('\r\n\r\n')
      .filter((event) => event.startsWith('data: '))
      .map(
        (event) => JSON.parse(event.slice(6)) as { candidates: { content: { parts: { text: string }[] } }[]; usageMetadata: { candidatesTokenCount: number } },
      );
    expect(chunks.map((chunk) => chunk.candidates[0]!.content.parts[0]!.text).join('')).toBe('Once upon a time');
    expect(chunks.at(-1)?.usageMetadata.candidatesTokenCount).toBe(8);
  });

  it('Claude whole and streamed answers in Anthropic’s format', async () => {
    mock.setScript(() => ({ text: 'Hello!', usage: { input: 10, output: 3 } }));
    const whole = await send(await build(claudeCall()));
    expect(whole.status).toBe(200);
    expect(JSON.parse(whole.text)).toMatchObject({ type: 'message', model: 'claude-3-5-sonnet-v2@20241022', content: [{ type: 'text', text: 'Hello!' }] });
    const streamed = await send(await build(claudeCall({ stream: true, body: { ...structuredClone(CLAUDE_REQUEST), stream: true } })));
    expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(streamed.text).toContain('event: message_start');
    expect(streamed.text).toContain('event: message_stop');
  });

  it('a revoked token is refused with 401 UNAUTHENTICATED, which disables the channel and drops the cached token', async () => {
    const fresh = createVertexAdaptor({ tokens: new AccessTokenCache() });
    const built = await Promise.resolve(fresh.nativeChat!.buildRequest(call({})));
    mock.revokeTokens();
    const answer = await send(built);
    expect(answer.status).toBe(401);
    const error = JSON.parse(answer.text).error as { message: string; status: string };
    expect(error.status).toBe('UNAUTHENTICATED');
    expect(fresh.classifyError({ status: 401, message: error.message, type: '', code: '401' })).toEqual({ retryable: true, disableChannel: true });
    const retried = await Promise.resolve(fresh.nativeChat!.buildRequest(call({})));
    expect(retried.headers.authorization).not.toBe(built.headers.authorization);
    expect((await send(retried)).status).toBe(200);
    // The shared adaptor of the other tests holds a revoked token too: a 401 clears it.
    adaptor.classifyError({ status: 401, message: error.message, type: '', code: '401' });
  });

  it('the mock refuses an unmapped Claude name and another project', async () => {
    const unmapped = await build(claudeCall());
    const wrongModel = await send({ ...unmapped, path: unmapped.path.replace('claude-3-5-sonnet-v2@20241022', 'claude-3-5-sonnet-20241022') });
    expect(wrongModel.status).toBe(404);
    const otherProject = await send({ ...unmapped, path: unmapped.path.replace('relay-project', 'someone-else') });
    expect(otherProject.status).toBe(403);
  });

  it('a function response id (which Vertex refuses) is taken out; a body without one goes byte for byte', async () => {
    const contents = [
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'get_weather', args: { location: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'get_weather', response: { temperature: 21 } } }] },
    ];
    const raw = JSON.stringify({ contents });
    const built = await build(call({ body: { contents: structuredClone(contents) }, raw }));
    expect(JSON.parse(built.body as string).contents[2].parts[0].functionResponse).toEqual({ name: 'get_weather', response: { temperature: 21 } });
    expect((await send(built)).status).toBe(200);
    const withId = await send({ ...built, body: raw });
    expect(withId.status).toBe(400);
    expect(withId.text).toContain('Unknown name \\"id\\"');
    const plainRaw = JSON.stringify(GEMINI_REQUEST);
    expect((await build(call({ raw: plainRaw }))).body).toBe(plainRaw);
  });

  it('scripted failures keep Google’s shape, Claude’s own errors Anthropic’s', async () => {
    mock.setScript(() => ({ status: 429, message: 'Quota exceeded.' }));
    const quota = await send(await build(call({})));
    expect(JSON.parse(quota.text)).toEqual({ error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED' } });
    mock.setScript(() => ({ status: 529, message: 'Overloaded', type: 'overloaded_error' }));
    const overloaded = await send(await build(claudeCall()));
    expect(JSON.parse(overloaded.text)).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    mock.setScript(() => ({ text: 'ok', usage: { input: 1, output: 1 } }));
  });
});
