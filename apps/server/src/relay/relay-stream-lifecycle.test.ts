import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatChunk, usageChunk } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

let env: RelayTestEnv;

beforeAll(async () => {
  // One second of upstream silence ends a stream, so the timeout test is quick.
  env = await startRelayTestEnv({ STREAMING_TIMEOUT: '1' });
});
afterEach(() => env.upstream.respond());
afterAll(async () => {
  await env.close();
});

async function payer() {
  const user = await seedUser(env.context);
  const token = await seedToken(env.context, user.id);
  await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
  return { user, token, ids: { userId: user.id, tokenId: token.id } };
}

const streamBody = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
const promptTokens = 3 + countTokens('hi') + 3;

describe('stream lifecycle', () => {
  it('aborts the upstream when the client disconnects and bills what was generated until then', async () => {
    const { token, ids } = await payer();
    const abortedBefore = env.upstream.abortedResponses;
    env.upstream.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chatChunk({ content: 'Once upon' }));
      response.write(chatChunk({ content: ' a time' }));
      // ...and the upstream keeps generating, slowly, until someone hangs up.
      const more = setInterval(() => response.write(': still thinking\n\n'), 50);
      response.on('close', () => clearInterval(more));
    });
    const response = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
      body: streamBody,
    });
    let received = '';
    for await (const part of response.body) {
      received += String(part);
      if (received.includes(' a time')) break;
    }
    // Leaving the loop early destroys the body: the client hangs up mid-stream.
    await expect.poll(() => env.upstream.abortedResponses, { timeout: 5000 }).toBe(abortedBefore + 1);
    await env.runtime.drain();
    const { logs, userUsed } = await totals(env.context, ids);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ prompt_tokens: promptTokens, completion_tokens: countTokens('Once upon a time'), is_stream: 1 });
    expect(userUsed).toBe(Math.round(0.075 * (promptTokens + countTokens('Once upon a time') * 4)));
  });

  it('lets a stalled client hold the upstream back instead of buffering the stream, then delivers all of it', async () => {
    const { token, ids } = await payer();
    const event = chatChunk({ content: 'lorem ipsum '.repeat(80) });
    const events = 32_000; // about 35 MB: far more than the sockets between here and there hold
    // The upstream reports usage (held back from this client, which did not ask for it).
    const ending = `${usageChunk({ prompt_tokens: 5, completion_tokens: 64_000 })}data: [DONE]\n\n`;
    let upstreamDone = false;
    env.upstream.respond(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let index = 0; index < events; index += 1) {
        if (response.destroyed) return;
        if (!response.write(event)) await new Promise((resolve) => response.once('drain', resolve));
      }
      response.end(ending);
      upstreamDone = true;
    });
    const response = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
      body: streamBody,
    });
    // The client reads nothing for a while: the upstream must be made to wait, not drained into
    // memory. Longer than STREAMING_TIMEOUT (1 s here): the time the relay holds the upstream back
    // for its client is not the upstream's silence, and must not end the stream.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(upstreamDone).toBe(false);
    let received = 0;
    for await (const part of response.body) received += (part as Buffer).length;
    expect(upstreamDone).toBe(true);
    expect(received).toBe(events * event.length + 'data: [DONE]\n\n'.length);
    await env.runtime.drain();
    expect((await totals(env.context, ids)).logs[0]).toMatchObject({ prompt_tokens: 5, completion_tokens: 64_000 });
  });

  it('ends a silent upstream stream with an error event, never a fake [DONE], and bills what was generated', async () => {
    const { token, ids } = await payer();
    env.upstream.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chatChunk({ content: 'Half an' }));
      response.write(chatChunk({ content: ' answer' }));
      // Then nothing, ever.
    });
    const started = Date.now();
    const response = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
      body: streamBody,
    });
    const text = await response.body.text();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(text).toContain('Half an');
    expect(text).not.toContain('[DONE]');
    const lastEvent = JSON.parse(
      text
        .trim()
        .split('\n\n')
        .at(-1)!
        .replace(/^data: /, ''),
    ) as { error: { code: string; message: string } };
    expect(lastEvent.error.code).toBe('stream_timeout');
    await env.runtime.drain();
    const { logs } = await totals(env.context, ids);
    expect(logs[0]).toMatchObject({ prompt_tokens: promptTokens, completion_tokens: countTokens('Half an answer') });
  });

  it('surfaces the timeout to the openai client as an error after the text it got', async () => {
    const { token } = await payer();
    env.upstream.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chatChunk({ content: 'partial' }));
    });
    const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    await expect(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
    ).rejects.toThrow(/silent|stream/i);
    expect(text).toBe('partial');
  });

  it('bills nothing when the client leaves before the upstream answered', async () => {
    const { token, ids } = await payer();
    let upstreamClosed = false;
    env.upstream.respond((_request, response) => {
      response.on('close', () => (upstreamClosed = true));
      // Never answers on its own.
    });
    const controller = new AbortController();
    const requestsBefore = env.upstream.requests.length;
    const pending = request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      signal: controller.signal,
    });
    await expect.poll(() => env.upstream.requests.length).toBe(requestsBefore + 1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await expect.poll(() => upstreamClosed, { timeout: 5000 }).toBe(true);
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect([after.logs.length, after.userUsed, after.requestCount]).toEqual([0, 0, 0]);
  });
});
