import OpenAI, { toFile } from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

let env: RelayTestEnv;

beforeAll(async () => {
  env = await startRelayTestEnv();
});
afterAll(async () => {
  await env.close();
});

const MODELS = ['gpt-4o-mini', 'text-embedding-3-small', 'gpt-3.5-turbo-instruct', 'dall-e-3', 'tts-1', 'whisper-1', 'omni-moderation-latest', 'gpt-4.1'];

async function setup(options: { modelLimits?: string[]; modelMapping?: Record<string, string> } = {}) {
  const user = await seedUser(env.context);
  const token = await seedToken(env.context, user.id, { modelLimits: options.modelLimits });
  const key = unique('key');
  const channelId = await seedChannel(env.context, {
    key,
    baseUrl: env.upstream.url,
    models: MODELS,
    groups: [user.group],
    modelMapping: options.modelMapping,
  });
  const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });
  return { user, token, key, channelId, client, ids: { userId: user.id, tokenId: token.id } };
}

async function post(path: string, apiKey: string, body: unknown) {
  const response = await request(`${env.gateway}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
}

describe('endpoints', () => {
  it('relays embeddings (openai client) and bills their prompt tokens', async () => {
    const { client, key, ids } = await setup();
    const result = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'embed me' });
    expect(result.data[0]!.embedding).toEqual([0.5, 0.25, 0.125]);
    expect(env.upstream.requestsWithKey(key)[0]!.url).toBe('/v1/embeddings');
    await env.runtime.drain();
    const { logs } = await totals(env.context, ids);
    expect(logs[0]).toMatchObject({ model_name: 'text-embedding-3-small', prompt_tokens: 5, completion_tokens: 0, quota: Math.round(0.01 * 5) || 1 });
  });

  it('lists and retrieves the models this key may use (openai client)', async () => {
    const { client } = await setup();
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual([...MODELS].sort());
    const model = await client.models.retrieve('gpt-4o-mini');
    expect(model).toMatchObject({ id: 'gpt-4o-mini', object: 'model', owned_by: 'openai' });
    await expect(client.models.retrieve('claude-3-haiku-20240307')).rejects.toMatchObject({ status: 404 });

    const limited = await setup({ modelLimits: ['gpt-4o-mini', 'not-served'] });
    const limitedModels = [];
    for await (const item of limited.client.models.list()) limitedModels.push(item.id);
    expect(limitedModels).toEqual(['gpt-4o-mini']);
    await expect(limited.client.models.retrieve('tts-1')).rejects.toMatchObject({ status: 404 });
  });

  it('relays legacy completions, moderations and rerank', async () => {
    const { client, token, key, user } = await setup();
    const completion = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say done' });
    expect(completion.choices[0]!.text).toBe('done');
    const moderation = await client.moderations.create({ input: 'hello' });
    expect(moderation.results[0]!.flagged).toBe(false);
    // No model given: OpenAI's default moderation model is routed and billed.
    expect(env.upstream.requestsWithKey(key).at(-1)!.url).toBe('/v1/moderations');
    await seedChannel(env.context, { key: unique('rerank'), baseUrl: env.upstream.url, models: ['rerank-model'], groups: [user.group] });
    await setOption(env.context, 'ModelRatio', JSON.stringify({ ...env.context.options.json<Record<string, number>>('ModelRatio'), 'rerank-model': 0.05 }));
    const rerank = await post('/v1/rerank', token.apiKey, { model: 'rerank-model', query: 'q', documents: ['a', 'b'] });
    expect(rerank.status).toBe(200);
    expect(JSON.parse(rerank.body.toString())).toMatchObject({ results: [{ index: 0 }] });
  });

  it('relays the Responses API, streamed and not, billing input/output tokens', async () => {
    const { client, ids } = await setup();
    const response = await client.responses.create({ model: 'gpt-4.1', input: 'hi' });
    expect(response.output_text).toBe('Hi');
    const stream = await client.responses.create({ model: 'gpt-4.1', input: 'hi', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toEqual(['response.output_text.delta', 'response.completed']);
    await env.runtime.drain();
    const { logs } = await totals(env.context, ids);
    expect(logs.map((log) => [log.prompt_tokens, log.completion_tokens, log.is_stream])).toEqual([
      [9, 4, 0],
      [9, 4, 1],
    ]);
  });

  it('relays image generation and text-to-speech audio', async () => {
    const { client, ids } = await setup();
    const image = await client.images.generate({ model: 'dall-e-3', prompt: 'a cat' });
    expect(image.data![0]!.url).toBe('https://example.com/image.png');
    const speech = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there' });
    expect(speech.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await speech.arrayBuffer()).toString()).toBe('ID3-fake-mp3-bytes');
    await env.runtime.drain();
    const { logs } = await totals(env.context, ids);
    expect(Number(logs[0]!.quota)).toBe(Math.round(0.04 * 500_000));
    // Speech is priced per input character, as OpenAI prices tts-1.
    expect(logs[1]).toMatchObject({ model_name: 'tts-1', prompt_tokens: 'Hello there'.length, quota: Math.round(7.5 * 11) });
  });

  it('relays multipart transcriptions, rewriting the model field when it is mapped', async () => {
    const { client, key } = await setup({ modelMapping: { 'whisper-1': 'whisper-large-v3' } });
    const audio = await toFile(Buffer.from('RIFF-fake-wave'), 'speech.wav', { type: 'audio/wav' });
    const transcript = await client.audio.transcriptions.create({ model: 'whisper-1', file: audio });
    expect(transcript.text).toBe('hello world from the audio');
    const upstreamCall = env.upstream.requestsWithKey(key).at(-1)!;
    expect(upstreamCall.url).toBe('/v1/audio/transcriptions');
    const body = upstreamCall.body.toString('latin1');
    expect(body).toContain('whisper-large-v3');
    expect(body).not.toContain('name="model"\r\n\r\nwhisper-1');
    expect(body).toContain('RIFF-fake-wave');
  });

  it('emulates the OpenAI billing dashboard for the token', async () => {
    const { token } = await setup();
    await env.context.db.kysely
      .updateTable('tokens')
      .set({ unlimited_quota: 0, remain_quota: 250_000, used_quota: 250_000 })
      .where('id', '=', token.id)
      .execute();
    env.context.changes.emit('token', token.key);
    for (const prefix of ['', '/v1']) {
      const subscription = await request(`${env.gateway}${prefix}/dashboard/billing/subscription`, { headers: { authorization: `Bearer ${token.apiKey}` } });
      expect(await subscription.body.json()).toMatchObject({ object: 'billing_subscription', hard_limit_usd: 1, soft_limit_usd: 1, access_until: 0 });
      const usage = await request(`${env.gateway}${prefix}/dashboard/billing/usage`, { headers: { authorization: `Bearer ${token.apiKey}` } });
      expect(await usage.body.json()).toEqual({ object: 'list', total_usage: 50 });
    }
  });
});
