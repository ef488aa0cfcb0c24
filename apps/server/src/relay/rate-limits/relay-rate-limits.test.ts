import { Pool } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatChunk, usageChunk } from '../testing/mock-upstream.js';
import { eventually, HoldingUpstream, LIMITED_MODEL, relayCall, seedLimitedPayer, setTokenLimits, setUserLimits } from '../testing/rate-limit-kit.js';
import { seedToken, setOption, startRelayTestEnv, totals, type RelayTestEnv } from '../testing/relay-fixtures.js';

/**
 * Rate limits through the relay on one node, counters in memory (issue 27): each kind refuses
 * exactly past its figure, with a 429 in the caller's protocol carrying Retry-After and OpenAI's
 * x-ratelimit headers; a refused call reaches no upstream and is never charged; every limit that
 * applies is checked (token, user, group, model); a gate's slot comes back on every ending.
 */

// The mock upstream's usage: 11 prompt and 7 completion tokens a call.
const TOKENS_PER_CALL = 18;

describe('rate limits on one node (SQLite, in memory)', () => {
  let env: RelayTestEnv;

  beforeAll(async () => {
    env = await startRelayTestEnv();
  });
  afterEach(async () => {
    env.upstream.respond();
    await setOption(env.context, 'GroupRateLimits', '{}');
    await setOption(env.context, 'ModelRateLimits', '{}');
  });
  afterAll(async () => {
    await env.close();
  });

  it('RPM: N calls a minute are admitted, the next gets 429 with Retry-After and the x-ratelimit headers, and is not charged', async () => {
    const payer = await seedLimitedPayer(env, { token: { rpm: 3 } });
    for (let index = 0; index < 3; index += 1) {
      const admitted = await relayCall(env.gateway, payer.token.apiKey);
      expect(admitted.status).toBe(200);
      expect(admitted.headers['retry-after']).toBeUndefined();
    }
    await env.runtime.flush();
    const before = await totals(env.context, { userId: payer.userId, tokenId: payer.token.id });
    const upstreamCalls = env.upstream.requests.length;

    const refused = await relayCall(env.gateway, payer.token.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.json().error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect(refused.json().error.message).toMatch(
      /^该令牌的请求过于频繁：每分钟最多 3 次，请 \d+ (秒|分钟)后再试 \(Rate limit reached for requests per min \(RPM\) on this token: Limit 3, Used 3/,
    );
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(Number(refused.headers['retry-after-ms'])).toBeGreaterThan((retryAfter - 1) * 1000);
    expect(refused.headers['x-ratelimit-limit-requests']).toBe('3');
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(refused.headers['x-ratelimit-reset-requests']).toMatch(/^\d+(\.\d)?s$|^\d+m\d+(\.\d)?s$/);

    // Never charged: no upstream call, no consume log, balances as they were.
    expect(env.upstream.requests.length).toBe(upstreamCalls);
    await env.runtime.flush();
    const after = await totals(env.context, { userId: payer.userId, tokenId: payer.token.id });
    expect(after.logs).toHaveLength(3);
    expect(after.userUsed).toBe(before.userUsed);
    expect(after.tokenUsed).toBe(before.tokenUsed);
    expect(after.requestCount).toBe(before.requestCount);
  });

  it('RPD: N calls a day, then 429 naming the daily limit', async () => {
    const payer = await seedLimitedPayer(env, { token: { rpd: 2 } });
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(200);
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(200);
    const refused = await relayCall(env.gateway, payer.token.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.json().error.message).toMatch(/^该令牌的请求次数已达每日上限：每天最多 2 次.*requests per day \(RPD\)/);
    expect(refused.headers['x-ratelimit-limit-requests']).toBe('2');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(2 * 86_400);
  });

  it('TPM: tokens count when a call settles; calls are admitted while the window is under the figure, refused once it is reached', async () => {
    // 36 = two calls: the third is refused.
    const exact = await seedLimitedPayer(env, { token: { tpm: 2 * TOKENS_PER_CALL } });
    expect((await relayCall(env.gateway, exact.token.apiKey)).status).toBe(200);
    expect((await relayCall(env.gateway, exact.token.apiKey)).status).toBe(200);
    const refused = await relayCall(env.gateway, exact.token.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.json().error).toMatchObject({ type: 'tokens', code: 'rate_limit_exceeded' });
    expect(refused.json().error.message).toMatch(
      /^该令牌的 token 用量已达每分钟上限：每分钟最多 36 个，已用 36 个.*tokens per min \(TPM\) on this token: Limit 36, Used 36/,
    );
    expect(refused.headers['x-ratelimit-limit-tokens']).toBe('36');
    expect(refused.headers['x-ratelimit-remaining-tokens']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // 37: the third call starts under the figure (36) and takes the window past it; the fourth is refused.
    const over = await seedLimitedPayer(env, { token: { tpm: 2 * TOKENS_PER_CALL + 1 } });
    for (let index = 0; index < 3; index += 1) expect((await relayCall(env.gateway, over.token.apiKey)).status).toBe(200);
    expect((await relayCall(env.gateway, over.token.apiKey)).status).toBe(429);
  });

  it('TPM counts a stream’s tokens when the stream settles', async () => {
    const payer = await seedLimitedPayer(env, { token: { tpm: TOKENS_PER_CALL } });
    const stream = await relayCall(env.gateway, payer.token.apiKey, {
      body: { model: LIMITED_MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true },
    });
    expect(stream.status).toBe(200);
    expect(stream.text).toContain('[DONE]');
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(429);
  });

  it('concurrency: of 100 parallel calls against a slow upstream exactly N run at once, the others get 429 at once; the slots come back', async () => {
    const limit = 5;
    const payer = await seedLimitedPayer(env, { token: { concurrency: limit } });
    const upstream = new HoldingUpstream();
    env.upstream.respond(upstream.handler);
    const pool = new Pool(env.gateway, { connections: 100 });
    try {
      let refusedCount = 0;
      const calls = Array.from({ length: 100 }, () =>
        relayCall(env.gateway, payer.token.apiKey, { dispatcher: pool }).then((answer) => {
          if (answer.status === 429) refusedCount += 1;
          return answer;
        }),
      );
      // Everything not let through has its answer while the N admitted are still held upstream.
      await upstream.holdingAtLeast(limit);
      await eventually(() => refusedCount === 100 - limit);
      expect(upstream.holdingNow).toBe(limit);
      expect(upstream.maxInFlight).toBe(limit);
      upstream.releaseAll();
      const answers = await Promise.all(calls);
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(limit);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused).toHaveLength(100 - limit);
      expect(refused[0]!.json().error.message).toMatch(/^该令牌同时进行的请求已达上限：最多 5 个.*Too many concurrent requests on this token: Limit 5/);
      expect(refused[0]!.headers['retry-after']).toBe('1');
      expect(upstream.maxInFlight).toBe(limit);
      expect(upstream.arrived).toBe(limit);
      // The slots came back with the answers: N more at once are all admitted.
      const again = await Promise.all(Array.from({ length: limit }, () => relayCall(env.gateway, payer.token.apiKey, { dispatcher: pool })));
      expect(again.map((answer) => answer.status)).toEqual(Array(limit).fill(200));
    } finally {
      await pool.close();
    }
  });

  it('gives a slot back on every ending: an upstream failure, a client gone, a stream’s end', async () => {
    const payer = await seedLimitedPayer(env, { token: { concurrency: 1 } });
    // A failure: 500 from the only channel.
    env.upstream.respond((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"boom","type":"server_error"}}');
    });
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(500);
    env.upstream.respond();
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(200);

    // A client gone while its call is held upstream.
    const upstream = new HoldingUpstream();
    env.upstream.respond(upstream.handler);
    const leaving = new AbortController();
    const gone = relayCall(env.gateway, payer.token.apiKey, { signal: leaving.signal }).catch(() => undefined);
    await upstream.holdingAtLeast(1);
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(429);
    leaving.abort();
    await gone;
    await eventually(() => upstream.inFlight === 0);
    await env.runtime.service.settled();
    upstream.releaseAll();
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(200);

    // A stream holds its slot until its end.
    let finish: (() => void) | undefined;
    env.upstream.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chatChunk({ role: 'assistant', content: 'first' }));
      finish = () => response.end(`${chatChunk({}, 'stop')}${usageChunk()}data: [DONE]\n\n`);
    });
    const streaming = relayCall(env.gateway, payer.token.apiKey, { body: { model: LIMITED_MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true } });
    await eventually(() => finish !== undefined);
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(429);
    finish!();
    expect((await streaming).text).toContain('[DONE]');
    env.upstream.respond();
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(200);
  });

  it('a piped answer (speech) holds its slot until its last byte is out', async () => {
    const payer = await seedLimitedPayer(env, { token: { concurrency: 1 } });
    await env.context.db.kysely.updateTable('abilities').set({ model: 'tts-1' }).where('group', '=', payer.group).execute();
    env.context.changes.emit('channels');
    let finish: (() => void) | undefined;
    env.upstream.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'audio/mpeg' });
      response.write(Buffer.from('ID3-first-part'));
      finish = () => response.end(Buffer.from('-last-part'));
    });
    const speech = relayCall(env.gateway, payer.token.apiKey, { path: '/v1/audio/speech', body: { model: 'tts-1', input: 'hello', voice: 'alloy' } });
    await eventually(() => finish !== undefined);
    expect((await relayCall(env.gateway, payer.token.apiKey, { path: '/v1/audio/speech', body: { model: 'tts-1', input: 'hi', voice: 'alloy' } })).status).toBe(
      429,
    );
    finish!();
    const answer = await speech;
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('ID3-first-part-last-part');
    env.upstream.respond();
    // The slot comes back when the response closes, just after its last byte.
    await eventually(
      async () =>
        (await relayCall(env.gateway, payer.token.apiKey, { path: '/v1/audio/speech', body: { model: 'tts-1', input: 'again', voice: 'alloy' } })).status ===
        200,
    );
  });

  it('checks every limit that applies, token, user, group and model: the tightest refuses and is named', async () => {
    // The user's figure is tighter than the token's.
    const tighterUser = await seedLimitedPayer(env, { token: { rpm: 5 }, user: { rpm: 2 } });
    expect((await relayCall(env.gateway, tighterUser.token.apiKey)).status).toBe(200);
    expect((await relayCall(env.gateway, tighterUser.token.apiKey)).status).toBe(200);
    const byUser = await relayCall(env.gateway, tighterUser.token.apiKey);
    expect(byUser.status).toBe(429);
    expect(byUser.json().error.message).toMatch(/^该用户的请求过于频繁：每分钟最多 2 次.*on this user: Limit 2/);
    // A user's limit spans all their tokens.
    const secondToken = await seedToken(env.context, tighterUser.userId);
    expect((await relayCall(env.gateway, secondToken.apiKey)).status).toBe(429);

    // The token's figure is tighter than the user's.
    const tighterToken = await seedLimitedPayer(env, { token: { rpm: 1 }, user: { rpm: 3 } });
    expect((await relayCall(env.gateway, tighterToken.token.apiKey)).status).toBe(200);
    const byToken = await relayCall(env.gateway, tighterToken.token.apiKey);
    expect(byToken.json().error.message).toMatch(/^该令牌的请求过于频繁：每分钟最多 1 次/);
    // The user's other token still has the user's two left.
    const other = await seedToken(env.context, tighterToken.userId);
    expect((await relayCall(env.gateway, other.apiKey)).status).toBe(200);
    expect((await relayCall(env.gateway, other.apiKey)).status).toBe(200);
    expect((await relayCall(env.gateway, other.apiKey)).status).toBe(429);

    // A group's figures bound each of its users; a tighter user figure still wins.
    const inGroup = await seedLimitedPayer(env, {});
    const neighbour = await seedLimitedPayer(env, {});
    await env.context.db.kysely.updateTable('users').set({ group: inGroup.group }).where('id', '=', neighbour.userId).execute();
    env.context.changes.emit('user', neighbour.userId);
    await setOption(env.context, 'GroupRateLimits', JSON.stringify({ [inGroup.group]: { rpm: 2 } }));
    expect((await relayCall(env.gateway, inGroup.token.apiKey)).status).toBe(200);
    expect((await relayCall(env.gateway, inGroup.token.apiKey)).status).toBe(200);
    const byGroup = await relayCall(env.gateway, inGroup.token.apiKey);
    expect(byGroup.status).toBe(429);
    expect(byGroup.json().error.message).toContain(`该用户在分组 ${inGroup.group} 中的请求过于频繁`);
    // Each user of the group has an allowance of their own; a tighter user figure still wins.
    await setUserLimits(env.context, neighbour.userId, { rpm: 1 });
    expect((await relayCall(env.gateway, neighbour.token.apiKey)).status).toBe(200);
    expect((await relayCall(env.gateway, neighbour.token.apiKey)).json().error.message).toMatch(/^该用户的请求过于频繁：每分钟最多 1 次/);

    // A model's figures bound each user's calls of that model.
    const modelUser = await seedLimitedPayer(env, {});
    await setOption(env.context, 'ModelRateLimits', JSON.stringify({ [LIMITED_MODEL]: { rpm: 1 } }));
    expect((await relayCall(env.gateway, modelUser.token.apiKey)).status).toBe(200);
    const byModel = await relayCall(env.gateway, modelUser.token.apiKey);
    expect(byModel.status).toBe(429);
    expect(byModel.json().error.message).toContain(`该用户对模型 ${LIMITED_MODEL} 的请求过于频繁`);
  });

  it('answers the 429 in the caller’s protocol: OpenAI chat, Responses, Anthropic, Gemini', async () => {
    const payer = await seedLimitedPayer(env, { token: { rpd: 1 } });
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(200);
    const expectHeaders = (answer: { status: number; headers: Record<string, unknown> }) => {
      expect(answer.status).toBe(429);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(answer.headers['x-ratelimit-limit-requests']).toBe('1');
      expect(answer.headers['x-ratelimit-remaining-requests']).toBe('0');
    };

    const chat = await relayCall(env.gateway, payer.token.apiKey);
    expectHeaders(chat);
    expect(chat.json()).toEqual({ error: { message: expect.stringContaining('RPD'), type: 'requests', param: null, code: 'rate_limit_exceeded' } });

    const responses = await relayCall(env.gateway, payer.token.apiKey, { path: '/v1/responses', body: { model: LIMITED_MODEL, input: 'hi' } });
    expectHeaders(responses);
    expect(responses.json().error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });

    const anthropic = await relayCall(env.gateway, '', {
      path: '/v1/messages',
      headers: { authorization: '', 'x-api-key': payer.token.apiKey, 'anthropic-version': '2023-06-01' },
      body: { model: LIMITED_MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
    });
    expectHeaders(anthropic);
    expect(anthropic.json()).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: expect.stringContaining('RPD') } });

    const gemini = await relayCall(env.gateway, '', {
      path: `/v1beta/models/${LIMITED_MODEL}:generateContent`,
      headers: { authorization: '', 'x-goog-api-key': payer.token.apiKey },
      body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    });
    expectHeaders(gemini);
    expect(gemini.json()).toEqual({ error: { code: 429, message: expect.stringContaining('RPD'), status: 'RESOURCE_EXHAUSTED' } });
  });

  it('leaves a call no limit applies to alone: no headers, nothing counted', async () => {
    const payer = await seedLimitedPayer(env, {});
    const answer = await relayCall(env.gateway, payer.token.apiKey);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-ratelimit-limit-requests']).toBeUndefined();
    expect(answer.headers['x-ratelimit-limit-tokens']).toBeUndefined();
    // A limit set later applies from then on, to calls counted from then on.
    await setTokenLimits(env.context, payer.token, { rpm: 1 });
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(200);
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(429);
    await setTokenLimits(env.context, payer.token, { rpm: 0 });
    expect((await relayCall(env.gateway, payer.token.apiKey)).status).toBe(200);
  });
});
