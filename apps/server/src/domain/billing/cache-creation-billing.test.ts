import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletionBody, chatStream, sendJson } from '../../relay/testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

/**
 * CreateCacheRatio through the whole app: an upstream reporting prompt tokens read from and
 * written to its prompt cache (`prompt_tokens_details.cached_tokens` and `cached_creation_tokens`,
 * the canonical shape Claude's usage converts to) is billed by new-api's formula
 * groupRatio × modelRatio × ((prompt − cached − creation) + cached × cacheRatio
 * + creation × createCacheRatio + completion × completionRatio), and users, tokens, channels and
 * logs move by the same amount, even where the charge is above what the reservation held.
 */

const GROUP_RATIO = 2;
const MODEL_RATIO = 1.5;
const COMPLETION_RATIO = 5;
const CACHE_RATIO = 0.1;
const CREATE_CACHE_RATIO = 1.25;

let env: RelayTestEnv;
const group = unique('cc');
const model = unique('cc-model');
const unlisted = unique('cc-unlisted');

async function post(apiKey: string, body: Record<string, unknown>) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

async function payer(models: string[]) {
  const user = await seedUser(env.context, { quota: 1_000_000, group });
  const token = await seedToken(env.context, user.id, { remainQuota: 500_000, unlimited: false });
  const channelId = await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models, groups: [group] });
  return { token, ids: { userId: user.id, tokenId: token.id, channelIds: [channelId] } };
}

async function expectCharged(ids: { userId: number; tokenId: number; channelIds: number[] }, expected: number) {
  await env.runtime.drain();
  const after = await totals(env.context, ids);
  expect(after.logQuotaSum).toBe(expected);
  expect([1_000_000 - after.userQuota, after.userUsed, 500_000 - after.tokenRemain, after.tokenUsed, after.channelUsed.get(ids.channelIds[0]!)]).toEqual(
    Array(5).fill(expected),
  );
  return after.logs.map((log) => ({ quota: Number(log.quota), prompt: Number(log.prompt_tokens), other: JSON.parse(log.other) as Record<string, unknown> }));
}

const usage = (prompt: number, read: number, written: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: read, cached_creation_tokens: written },
});

beforeAll(async () => {
  env = await startRelayTestEnv();
  await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: GROUP_RATIO }));
  await setOption(env.context, 'ModelRatio', JSON.stringify({ [model]: MODEL_RATIO, [unlisted]: MODEL_RATIO }));
  await setOption(env.context, 'CompletionRatio', JSON.stringify({ [model]: COMPLETION_RATIO, [unlisted]: COMPLETION_RATIO }));
  await setOption(env.context, 'CacheRatio', JSON.stringify({ [model]: CACHE_RATIO, [unlisted]: CACHE_RATIO }));
  // `unlisted` has no cache-creation ratio: new-api's fallback 1.25.
  await setOption(env.context, 'CreateCacheRatio', JSON.stringify({ [model]: 2 }));
});
afterEach(() => env.upstream.respond());
afterAll(async () => env.close());

describe('cache-creation billing', () => {
  it('whole answer and stream: reads at the cache ratio, writes at the cache-creation ratio', async () => {
    const { token, ids } = await payer([model]);
    env.upstream.respond((incoming, response) => {
      if (incoming.json?.stream === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(chatStream(['Hi', '!'], true, usage(3000, 0, 2500, 40)));
        return;
      }
      sendJson(response, 200, chatCompletionBody('ok', usage(2950, 2000, 800, 120)));
    });
    expect((await post(token.apiKey, { model, messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    expect((await post(token.apiKey, { model, stream: true, messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    // 2 × 1.5 × (150 + 2000 × 0.1 + 800 × 2 + 120 × 5) = 3 × 2550 = 7650.
    const whole = Math.round(GROUP_RATIO * MODEL_RATIO * (150 + 2000 * CACHE_RATIO + 800 * 2 + 120 * COMPLETION_RATIO));
    // 3 × (500 + 2500 × 2 + 40 × 5) = 3 × 5700 = 17100: more than the prompt as plain tokens would cost.
    const stream = Math.round(GROUP_RATIO * MODEL_RATIO * (500 + 2500 * 2 + 40 * COMPLETION_RATIO));
    expect([whole, stream]).toEqual([7650, 17100]);
    const logs = await expectCharged(ids, whole + stream);
    expect(logs.map((log) => [log.quota, log.prompt, log.other.cache_tokens])).toEqual([
      [whole, 2950, 2000],
      [stream, 3000, 0],
    ]);
  });

  it('a model CreateCacheRatio does not list: new-api’s 1.25', async () => {
    const { token, ids } = await payer([unlisted]);
    env.upstream.respond((_incoming, response) => sendJson(response, 200, chatCompletionBody('ok', usage(1000, 0, 1000, 0))));
    expect((await post(token.apiKey, { model: unlisted, messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    // 3 × 1000 × 1.25 = 3750.
    await expectCharged(ids, Math.round(GROUP_RATIO * MODEL_RATIO * 1000 * CREATE_CACHE_RATIO));
  });
});
