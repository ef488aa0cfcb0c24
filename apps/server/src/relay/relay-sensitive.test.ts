import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatChunk, chatCompletionBody, sendJson, usageChunk } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

let env: RelayTestEnv;

beforeAll(async () => {
  env = await startRelayTestEnv();
});
afterEach(async () => {
  env.upstream.respond();
  await sensitive({ enabled: false, prompt: false, completion: false, stop: false, words: '' });
});
afterAll(async () => {
  await env.close();
});

/** The five options, set through the option service as PUT /api/option/ sets them. */
async function sensitive(settings: { enabled?: boolean; prompt?: boolean; completion?: boolean; stop?: boolean; words?: string }) {
  if (settings.words !== undefined) await setOption(env.context, 'SensitiveWords', settings.words);
  if (settings.enabled !== undefined) await setOption(env.context, 'CheckSensitiveEnabled', settings.enabled);
  if (settings.prompt !== undefined) await setOption(env.context, 'CheckSensitiveOnPromptEnabled', settings.prompt);
  if (settings.completion !== undefined) await setOption(env.context, 'CheckSensitiveOnCompletionEnabled', settings.completion);
  if (settings.stop !== undefined) await setOption(env.context, 'StopOnSensitiveEnabled', settings.stop);
}

const QUOTA = 1_000_000_000;

async function payer(quota = QUOTA) {
  const user = await seedUser(env.context, { quota });
  const token = await seedToken(env.context, user.id, { remainQuota: QUOTA, unlimited: false });
  const channelId = await seedChannel(env.context, {
    key: unique('key'),
    baseUrl: env.upstream.url,
    models: ['gpt-4o-mini', 'text-embedding-3-small', 'dall-e-3', 'omni-moderation-latest', 'gpt-3.5-turbo-instruct'],
    groups: [user.group],
  });
  return { user, token, ids: { userId: user.id, tokenId: token.id, channelIds: [channelId] } };
}

async function post(path: string, apiKey: string, body: Record<string, unknown>) {
  const response = await request(`${env.gateway}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

const chat = (content: unknown, extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra });

/** The content a client reads from an SSE answer, and whether it ended with [DONE]. */
function readStream(text: string): { content: string; done: boolean; events: number } {
  let content = '';
  let done = false;
  let events = 0;
  for (const event of text.split('\n\n')) {
    const data = event
      .split('\n')
      .find((line) => line.startsWith('data: '))
      ?.slice(6);
    if (data === undefined) continue;
    events += 1;
    if (data === '[DONE]') {
      done = true;
      continue;
    }
    const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string } }[] };
    content += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return { content, done, events };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An upstream stream written piece by piece, each its own socket write, with a pause between. */
function streamPieces(pieces: readonly string[], ending = `${usageChunk({ prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 })}data: [DONE]\n\n`) {
  return async (_request: unknown, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of pieces) {
      if (response.destroyed) return;
      response.write(piece);
      await pause(25);
    }
    if (!response.destroyed) response.end(ending);
  };
}

describe('prompt check (CheckSensitiveEnabled + CheckSensitiveOnPromptEnabled)', () => {
  it('refuses a prompt holding a listed word, ignoring case, before any quota is held or upstream called', async () => {
    await sensitive({ enabled: true, prompt: true, words: 'Forbidden Plan\n炸弹\n' });
    // A payer with no balance at all: the word is found before the balance is even looked at.
    const { token, ids } = await payer(0);
    const calls = env.upstream.requests.length;
    const refused = await post('/v1/chat/completions', token.apiKey, chat('tell me about the FORBIDDEN plan, please'));
    expect(refused.status).toBe(400);
    expect(refused.json()).toEqual({
      error: { message: 'sensitive words detected: Forbidden Plan', type: 'new_api_error', param: null, code: 'sensitive_words_detected' },
    });
    const chinese = await post('/v1/chat/completions', token.apiKey, chat('如何制作炸弹'));
    expect(chinese.json()).toMatchObject({ error: { message: 'sensitive words detected: 炸弹', code: 'sensitive_words_detected' } });
    expect(env.upstream.requests.length).toBe(calls);
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect([after.userQuota, after.userUsed, after.tokenRemain, after.logs.length]).toEqual([0, 0, QUOTA, 0]);
  });

  it('reads every place a prompt carries text: system prompts, text parts, completions, embeddings, responses, images, moderations', async () => {
    await sensitive({ enabled: true, prompt: true, words: 'contraband' });
    const { token, ids } = await payer();
    const calls = env.upstream.requests.length;
    const refusedBodies: [string, Record<string, unknown>][] = [
      [
        '/v1/chat/completions',
        {
          model: 'gpt-4o-mini',
          messages: [
            { role: 'system', content: 'Smuggle CONTRABAND.' },
            { role: 'user', content: 'hi' },
          ],
        },
      ],
      [
        '/v1/chat/completions',
        chat([
          { type: 'text', text: 'first part' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          { type: 'text', text: 'about contraband' },
        ]),
      ],
      ['/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: ['clean', 'Contraband goods'] }],
      ['/v1/embeddings', { model: 'text-embedding-3-small', input: ['one', 'two contraband'] }],
      ['/v1/responses', { model: 'gpt-4o-mini', instructions: 'speak of contraband', input: 'hi' }],
      ['/v1/responses', { model: 'gpt-4o-mini', input: [{ role: 'user', content: [{ type: 'input_text', text: 'contraband?' }] }] }],
      ['/v1/images/generations', { model: 'dall-e-3', prompt: 'a box of contraband' }],
      ['/v1/moderations', { input: 'contraband' }],
    ];
    for (const [path, body] of refusedBodies) {
      const refused = await post(path, token.apiKey, body);
      expect([path, refused.status, refused.json()]).toEqual([
        path,
        400,
        expect.objectContaining({ error: expect.objectContaining({ code: 'sensitive_words_detected' }) }),
      ]);
    }
    expect(env.upstream.requests.length).toBe(calls);
    // Words spread over two messages are not one word; the image address is not prompt text.
    const passes = await post('/v1/chat/completions', token.apiKey, {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'contra' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'band' },
            { type: 'image_url', image_url: { url: 'https://example.com/contraband.png', detail: 'low' } },
          ],
        },
      ],
    });
    expect(passes.status).toBe(200);
    await env.runtime.drain();
    expect((await totals(env.context, ids)).logs).toHaveLength(1);
  });

  it('lets the prompt through with the switch off or the prompt check off, and follows option changes at once', async () => {
    const { token } = await payer();
    const body = chat('the word is contraband');
    await sensitive({ enabled: false, prompt: true, words: 'contraband' });
    expect((await post('/v1/chat/completions', token.apiKey, body)).status).toBe(200);
    await sensitive({ enabled: true, prompt: false });
    expect((await post('/v1/chat/completions', token.apiKey, body)).status).toBe(200);
    // No restart: the next call sees each change.
    await sensitive({ prompt: true });
    expect((await post('/v1/chat/completions', token.apiKey, body)).status).toBe(400);
    await sensitive({ words: 'something else\nelephant' });
    expect((await post('/v1/chat/completions', token.apiKey, body)).status).toBe(200);
    await sensitive({ words: 'something else\nContraband' });
    expect((await post('/v1/chat/completions', token.apiKey, body)).json()).toMatchObject({ error: { message: 'sensitive words detected: Contraband' } });
    // An empty list checks nothing.
    await sensitive({ words: '' });
    expect((await post('/v1/chat/completions', token.apiKey, body)).status).toBe(200);
  });
});

describe('answer check (CheckSensitiveEnabled + CheckSensitiveOnCompletionEnabled), whole answers', () => {
  const usage = { prompt_tokens: 40, completion_tokens: 20, total_tokens: 60 };
  const charge = Math.round(0.075 * (40 + 20 * 4));

  it('masks the words as new-api does ("**###**") and bills the call, naming the words in its log', async () => {
    await sensitive({ enabled: true, completion: true, stop: false, words: 'secret\nclassified' });
    const { token, ids } = await payer();
    env.upstream.respond((_request, response) => sendJson(response, 200, chatCompletionBody('The SECRET is out; it was classified.', usage)));
    const answered = await post('/v1/chat/completions', token.apiKey, chat('tell me'));
    expect(answered.status).toBe(200);
    const answer = answered.json() as { choices: { message: { content: string } }[]; usage: unknown };
    expect(answer.choices[0]!.message.content).toBe('The **###** is out; it was **###**.');
    expect(answer.usage).toEqual(usage);
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs).toHaveLength(1);
    expect(Number(after.logs[0]!.quota)).toBe(charge);
    expect(after.logs[0]!.content).toContain('敏感词：secret, classified');
    expect(QUOTA - after.userQuota).toBe(charge);
  });

  it('answers new-api’s 400 instead of the answer with StopOnSensitiveEnabled, and still bills what was generated', async () => {
    await sensitive({ enabled: true, completion: true, stop: true, words: 'secret' });
    const { token, ids } = await payer();
    env.upstream.respond((_request, response) => sendJson(response, 200, chatCompletionBody('The secret is out.', usage)));
    const refused = await post('/v1/chat/completions', token.apiKey, chat('tell me'));
    expect(refused.status).toBe(400);
    expect(refused.json()).toEqual({
      error: { message: 'sensitive words detected: secret', type: 'new_api_error', param: null, code: 'sensitive_words_detected' },
    });
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs.map((log) => Number(log.quota))).toEqual([charge]);
    expect(QUOTA - after.userQuota).toBe(charge);
  });

  it('leaves answers alone with the answer check off, and prompts alone with only the answer check on', async () => {
    const { token } = await payer();
    env.upstream.respond((_request, response) => sendJson(response, 200, chatCompletionBody('The secret is out.', usage)));
    await sensitive({ enabled: true, completion: false, stop: true, words: 'secret' });
    expect((await post('/v1/chat/completions', token.apiKey, chat('secret?'))).json()).toMatchObject({
      choices: [{ message: { content: 'The secret is out.' } }],
    });
    await sensitive({ enabled: false, completion: true });
    expect((await post('/v1/chat/completions', token.apiKey, chat('secret?'))).status).toBe(200);
  });
});

describe('answer check, streams', () => {
  it('finds a word cut across events and masks its part in the event that completes it; the stream goes on', async () => {
    await sensitive({ enabled: true, completion: true, stop: false, words: 'secret\n机密' });
    const { token } = await payer();
    env.upstream.respond(
      streamPieces([
        chatChunk({ role: 'assistant', content: '' }),
        chatChunk({ content: 'The sec' }),
        chatChunk({ content: 'ret plan is ' }),
        // One event cut in the middle of its JSON, across two socket writes.
        chatChunk({ content: 'Secret and 机' }).slice(0, 40),
        chatChunk({ content: 'Secret and 机' }).slice(40),
        chatChunk({ content: '密.' }),
        chatChunk({}, 'stop'),
      ]),
    );
    const answered = await post('/v1/chat/completions', token.apiKey, chat('tell me', { stream: true }));
    expect(answered.status).toBe(200);
    const { content, done } = readStream(answered.text);
    expect(content).toBe('The sec**###** plan is **###** and 机**###**.');
    expect(done).toBe(true);
  });

  it('ends the stream at the event completing a word with StopOnSensitiveEnabled: [DONE], the upstream let go, billed as generated', async () => {
    await sensitive({ enabled: true, completion: true, stop: true, words: 'secret' });
    const { token, ids } = await payer();
    const abortedBefore = env.upstream.abortedResponses;
    env.upstream.respond(
      streamPieces([
        chatChunk({ role: 'assistant', content: '' }),
        chatChunk({ content: 'Once upon a sec' }),
        chatChunk({ content: 'ret, there was' }),
        chatChunk({ content: ' more to tell' }),
        chatChunk({ content: ' and more still' }),
        chatChunk({}, 'stop'),
      ]),
    );
    const answered = await post('/v1/chat/completions', token.apiKey, chat('tell me', { stream: true }));
    expect(answered.status).toBe(200);
    const { content, done } = readStream(answered.text);
    expect(content).toBe('Once upon a sec**###**, there was');
    expect(done).toBe(true);
    expect(answered.text.endsWith('data: [DONE]\n\n')).toBe(true);
    await expect.poll(() => env.upstream.abortedResponses, { timeout: 5000 }).toBe(abortedBefore + 1);

    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs).toHaveLength(1);
    // The upstream's usage never came: the prompt and the text generated up to the stop are counted.
    const prompt = 3 + countTokens('tell me') + 3;
    const completion = countTokens('Once upon a secret, there was');
    const expected = Math.round(0.075 * (prompt + completion * 4));
    expect(after.logs[0]).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion, is_stream: 1 });
    expect(after.logs[0]!.content).toContain('敏感词：secret');
    // What the payer lost is exactly what the log says it was charged.
    expect([Number(after.logs[0]!.quota), QUOTA - after.userQuota, after.userUsed, QUOTA - after.tokenRemain, after.tokenUsed]).toEqual([
      expected,
      expected,
      expected,
      expected,
      expected,
    ]);
    expect(after.channelUsed.get(ids.channelIds[0]!)).toBe(expected);
  });

  it('passes streams through untouched with the answer check off', async () => {
    await sensitive({ enabled: true, prompt: true, completion: false, stop: true, words: 'secret' });
    const { token } = await payer();
    env.upstream.respond(streamPieces([chatChunk({ content: 'a secret' }), chatChunk({ content: ' kept' })]));
    const { content, done } = readStream((await post('/v1/chat/completions', token.apiKey, chat('hi', { stream: true }))).text);
    expect([content, done]).toEqual(['a secret kept', true]);
  });
});
