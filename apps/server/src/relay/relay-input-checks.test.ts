import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOpenAIFields } from './relay-input-checks.js';
import { seedChannel, seedToken, seedUser, startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * Fields the relay reads itself (model, stream, n, the max-tokens spellings, stream_options), sent
 * with the wrong type or value, through the whole app: a 400 in the caller's protocol, the
 * upstream never asked, where before such a field was read as absent (a default model, no stream).
 */
let env: RelayTestEnv;
let apiKey: string;
let channelKey: string;

const MODELS = [
  'gpt-4o-mini',
  'dall-e-2',
  'dall-e-3',
  'gpt-3.5-turbo-instruct',
  'gpt-4.1',
  'text-embedding-3-small',
  'tts-1',
  'omni-moderation-latest',
  'rerank-model',
  'claude-x',
  'gemini-x',
];

beforeAll(async () => {
  env = await startRelayTestEnv();
  const user = await seedUser(env.context);
  apiKey = (await seedToken(env.context, user.id)).apiKey;
  channelKey = unique('key');
  await seedChannel(env.context, { key: channelKey, baseUrl: env.upstream.url, models: MODELS, groups: [user.group] });
});
afterAll(async () => {
  await env.close();
});

async function post(path: string, body: unknown) {
  const response = await request(`${env.gateway}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, json: (await response.body.json()) as Record<string, any> };
}

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

describe('OpenAI-format endpoints', () => {
  const refused: [string, string, Record<string, unknown>, string][] = [
    ['/v1/images/generations', 'a number for model', { model: 123, prompt: 'a cat' }, 'model'],
    ['/v1/images/generations', 'an object for model', { model: { name: 'dall-e-3' }, prompt: 'a cat' }, 'model'],
    ['/v1/images/generations', 'a string for n', { prompt: 'a cat', n: '2' }, 'n'],
    ['/v1/images/generations', 'n of 0', { prompt: 'a cat', n: 0 }, 'n'],
    ['/v1/images/generations', 'a fractional n', { prompt: 'a cat', n: 1.5 }, 'n'],
    ['/v1/chat/completions', 'a string for stream', { ...chat, stream: 'yes' }, 'stream'],
    ['/v1/chat/completions', 'a number for stream', { ...chat, stream: 1 }, 'stream'],
    ['/v1/chat/completions', 'a string for max_tokens', { ...chat, max_tokens: '100' }, 'max_tokens'],
    ['/v1/chat/completions', 'a negative max_tokens', { ...chat, max_tokens: -5 }, 'max_tokens'],
    ['/v1/chat/completions', 'a fractional max_tokens', { ...chat, max_tokens: 10.5 }, 'max_tokens'],
    ['/v1/chat/completions', 'max_tokens of 0', { ...chat, max_tokens: 0 }, 'max_tokens'],
    ['/v1/chat/completions', 'an unsafe max_tokens', { ...chat, max_tokens: 1e300 }, 'max_tokens'],
    ['/v1/chat/completions', 'a string for max_completion_tokens', { ...chat, max_completion_tokens: 'lots' }, 'max_completion_tokens'],
    ['/v1/chat/completions', 'a string for n', { ...chat, n: '3' }, 'n'],
    ['/v1/chat/completions', 'a string for stream_options', { ...chat, stream: true, stream_options: 'include_usage' }, 'stream_options'],
    ['/v1/chat/completions', 'a string for include_usage', { ...chat, stream: true, stream_options: { include_usage: 'yes' } }, 'stream_options.include_usage'],
    ['/v1/chat/completions', 'a number for model', { ...chat, model: 4 }, 'model'],
    ['/v1/completions', 'a string for stream', { model: 'gpt-3.5-turbo-instruct', prompt: 'x', stream: 'true' }, 'stream'],
    ['/v1/completions', 'a string for max_tokens', { model: 'gpt-3.5-turbo-instruct', prompt: 'x', max_tokens: '16' }, 'max_tokens'],
    ['/v1/responses', 'a string for stream', { model: 'gpt-4.1', input: 'hi', stream: 'yes' }, 'stream'],
    ['/v1/responses', 'a negative max_output_tokens', { model: 'gpt-4.1', input: 'hi', max_output_tokens: -1 }, 'max_output_tokens'],
    ['/v1/embeddings', 'a number for model', { model: 5, input: 'x' }, 'model'],
    ['/v1/moderations', 'an array for model', { model: ['omni-moderation-latest'], input: 'x' }, 'model'],
    ['/v1/audio/speech', 'a boolean for model', { model: true, input: 'x', voice: 'alloy' }, 'model'],
    ['/v1/rerank', 'a number for model', { model: 1, query: 'q', documents: ['a'] }, 'model'],
  ];

  it.each(refused)('%s refuses %s with a 400 in OpenAI shape', async (path, _what, body, field) => {
    const before = env.upstream.requestsWithKey(channelKey).length;
    const answer = await post(path, body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      error: {
        message: expect.stringContaining(`${field} `),
        type: 'invalid_request_error',
        param: null,
        code: expect.stringMatching(/^invalid_(type|value)$/),
      },
    });
    expect(env.upstream.requestsWithKey(channelKey).length).toBe(before);
  });

  it('still takes null as absent, and well-typed fields as before', async () => {
    const answer = await post('/v1/chat/completions', { ...chat, stream: null, n: null, max_tokens: null, stream_options: null });
    expect(answer.status).toBe(200);
    const image = await post('/v1/images/generations', { model: null, prompt: 'a cat', n: 2 });
    expect(image.status).toBe(200);
    // No model named: OpenAI's default image model is what went upstream.
    expect(env.upstream.requestsWithKey(channelKey).at(-1)!.json).toEqual({ model: 'dall-e-2', prompt: 'a cat', n: 2 });
  });

  it('holds an enormous but well-formed cap against the balance, not a 500', async () => {
    // Chat: the balance cannot pay for that output, so the call is capped at what it does pay for.
    const capped = await post('/v1/chat/completions', { ...chat, max_tokens: Number.MAX_SAFE_INTEGER });
    expect(capped.status).toBe(200);
    // Images cannot be capped: n images at a fixed price the balance does not cover.
    const images = await post('/v1/images/generations', { prompt: 'a cat', n: Number.MAX_SAFE_INTEGER });
    expect([images.status, images.json.error.code]).toEqual([403, 'insufficient_user_quota']);
  });
});

describe("Anthropic's and Gemini's endpoints", () => {
  const messages = { model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };

  it.each([
    ['a string for stream', { ...messages, stream: 'yes' }, 'stream'],
    ['a string for max_tokens', { ...messages, max_tokens: '64' }, 'max_tokens'],
    ['a negative max_tokens', { ...messages, max_tokens: -1 }, 'max_tokens'],
    ['a number for model', { ...messages, model: 7 }, 'model'],
  ])('/v1/messages refuses %s with a 400 in Anthropic shape', async (_what, body, field) => {
    const answer = await post('/v1/messages', body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining(field) } });
  });

  const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
  it.each([
    ['a string for maxOutputTokens', { contents, generationConfig: { maxOutputTokens: '100' } }, 'maxOutputTokens'],
    ['a negative max_output_tokens', { contents, generation_config: { max_output_tokens: -3 } }, 'maxOutputTokens'],
    ['a string for candidateCount', { contents, generationConfig: { candidateCount: 'two' } }, 'candidateCount'],
    ['a string for generationConfig', { contents, generationConfig: 'fast' }, 'generationConfig'],
  ])('generateContent refuses %s with a 400 in Gemini shape', async (_what, body, field) => {
    const before = env.upstream.requestsWithKey(channelKey).length;
    const answer = await post('/v1beta/models/gemini-x:generateContent', body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining(field) } });
    expect(env.upstream.requestsWithKey(channelKey).length).toBe(before);
  });
});

describe('checkOpenAIFields', () => {
  it('passes a well-typed body and every field left out', () => {
    expect(() => checkOpenAIFields({})).not.toThrow();
    expect(() =>
      checkOpenAIFields({
        model: 'm',
        stream: true,
        n: 2,
        max_tokens: 1,
        max_completion_tokens: 5,
        max_output_tokens: 9,
        stream_options: { include_usage: false },
      }),
    ).not.toThrow();
  });
});
