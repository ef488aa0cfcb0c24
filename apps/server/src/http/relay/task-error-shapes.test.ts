import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockMidjourney } from '../../providers/midjourney/testing/mock-midjourney.js';
import { startMockSuno, type MockSuno } from '../../providers/suno/testing/mock-suno.js';
import { SUNO_PRICES, seedSunoPayer, sunoCall } from '../../providers/suno/testing/suno-test-kit.js';
import { seedToken, setOption, startRelayTestEnv, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';
import { mjCall, QUIET, seedMjPayer } from './midjourney-testing.js';

/**
 * A task relay answers every failure in its own client's shape, the gateway's refusals (the key,
 * the model limits, no channel, the body, a path no route serves) as much as its task stages:
 * Suno's {code, message, data:null}, midjourney-proxy's {code, description, type, result}. A Suno
 * or Midjourney client reads nothing from OpenAI's {error:{...}}.
 */
let env: RelayTestEnv;
let suno: MockSuno;
let mj: MockMidjourney;

beforeAll(async () => {
  env = await startRelayTestEnv(QUIET);
  suno = await startMockSuno();
  mj = await new MockMidjourney().start();
  await setOption(env.context, 'ModelPrice', JSON.stringify({ ...env.context.options.json('ModelPrice'), ...SUNO_PRICES }));
});
afterAll(async () => {
  await env?.close();
  await suno?.close();
  await mj?.close();
});

const sunoShape = (code: string) => ({ code, message: expect.any(String), data: null });

async function raw(path: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }) {
  const response = await request(`${env.gateway}${path}`, init);
  return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
}

describe('/suno', () => {
  it('answers key refusals in its own shape', async () => {
    const none = await sunoCall(env.gateway, undefined, 'POST', '/suno/submit/music', { prompt: 'x' });
    expect(none).toEqual({ status: 401, json: sunoShape('missing_api_key') });
    const unknown = await sunoCall(env.gateway, 'sk-nosuchkey', 'GET', '/suno/fetch/abc');
    expect(unknown).toEqual({ status: 401, json: sunoShape('invalid_api_key') });
    const unknownFetch = await sunoCall(env.gateway, 'sk-nosuchkey', 'POST', '/suno/fetch', { ids: [] });
    expect(unknownFetch).toEqual({ status: 401, json: sunoShape('invalid_api_key') });

    const payer = await seedSunoPayer(env, suno);
    const limited = await seedToken(env.context, payer.user.id, { modelLimits: ['suno_lyrics'] });
    const refused = await sunoCall(env.gateway, limited.apiKey, 'POST', '/suno/submit/music', { prompt: 'x' });
    expect(refused).toEqual({ status: 403, json: sunoShape('model_not_allowed') });
    expect(String(refused.json.message)).toContain('suno_music');
  });

  it('answers a routing refusal (no channel) in its own shape', async () => {
    const payer = await seedSunoPayer(env, suno);
    await env.context.db.kysely.updateTable('abilities').set({ enabled: 0 }).where('channel_id', '=', payer.channelId).execute();
    env.context.changes.emit('channels');
    const refused = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'x' });
    expect(refused).toEqual({ status: 503, json: sunoShape('no_available_channel') });
  });

  it('answers a broken or oversized body and a path no route serves in its own shape', async () => {
    const payer = await seedSunoPayer(env, suno);
    const headers = { authorization: `Bearer ${payer.token.apiKey}`, 'content-type': 'application/json' };
    expect(await raw('/suno/submit/music', { method: 'POST', headers, body: '{"prompt":' })).toEqual({ status: 400, json: sunoShape('invalid_json') });
    const huge = await raw('/suno/submit/music', { method: 'POST', headers, body: JSON.stringify({ prompt: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(huge.status).toBe(413);
    expect(huge.json).toEqual(sunoShape(expect.any(String)));
    for (const [method, path] of [
      ['GET', '/suno/nope'],
      ['GET', '/suno'],
      ['GET', '/suno/fetch/a/b'],
    ] as const) {
      expect(await raw(path, { method, headers }), `${method} ${path}`).toEqual({ status: 404, json: sunoShape('invalid_url') });
    }
  });
});

describe('/mj', () => {
  const mjShape = (code: number) => ({ code, description: expect.any(String), type: expect.any(String), result: '' });

  it('answers key refusals in midjourney-proxy shape, under every speed prefix and either key header', async () => {
    for (const prefix of ['', '/fast', '/mj-relax']) {
      const path = `${prefix}/mj/submit/imagine`;
      expect(await raw(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"x"}' }), path).toEqual({
        status: 401,
        json: mjShape(4),
      });
      for (const header of ['mj', 'bearer'] as const) {
        const refused = await mjCall(env.gateway, 'sk-nosuchkey', 'POST', path, { prompt: 'x' }, header);
        expect([refused.status, refused.json], `${path} ${header}`).toEqual([401, mjShape(4)]);
      }
      const fetched = await mjCall(env.gateway, 'sk-nosuchkey', 'GET', `${prefix}/mj/task/abc/fetch`);
      expect([fetched.status, fetched.json]).toEqual([401, mjShape(4)]);
    }
  });

  it('answers model limits, no channel and a broken body in midjourney-proxy shape', async () => {
    const payer = await seedMjPayer(env.context, mj, { models: ['mj_imagine'] });
    const limited = await seedToken(env.context, payer.user.id, { modelLimits: ['mj_describe'] });
    const refused = await mjCall(env.gateway, limited.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'x' });
    expect([refused.status, refused.json]).toEqual([403, mjShape(4)]);
    const none = await mjCall(env.gateway, payer.token.apiKey, 'POST', '/fast/mj/submit/blend', { base64Array: [] });
    expect([none.status, none.json]).toEqual([503, mjShape(4)]);
    expect(none.json.description).toContain('mj_blend');
    const broken = await raw('/mj/submit/imagine', {
      method: 'POST',
      headers: { 'mj-api-secret': payer.token.apiKey, 'content-type': 'application/json' },
      body: '{"prompt":',
    });
    expect(broken).toEqual({ status: 400, json: mjShape(4) });
  });

  it('answers a path no route serves in midjourney-proxy shape', async () => {
    const headers = { 'mj-api-secret': 'sk-whatever' };
    for (const [method, path] of [
      ['GET', '/mj/nope'],
      ['GET', '/fast/mj/task/queue'],
      ['GET', '/mj-turbo/mj'],
      ['POST', '/relax/mj/account/list'],
    ] as const) {
      const answer = await raw(path, { method, headers });
      expect(answer, `${method} ${path}`).toEqual({ status: 404, json: mjShape(4) });
      expect(answer.json.description).toBe(`Invalid URL (${method} ${path})`);
    }
    // Outside /mj the relay's own shape stays.
    expect((await raw('/pg/nope', { method: 'GET' })).json).toMatchObject({ error: { code: 'invalid_url' } });
  });
});
