import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatChunk, chatCompletionBody, chatStream, sendJson, usageChunk } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

let env: RelayTestEnv;

beforeAll(async () => {
  env = await startRelayTestEnv();
});
afterAll(async () => {
  await env.close();
});

/** A user in a group of its own with one channel serving `models`, and a token. */
async function setup(models: string[] = ['gpt-4o-mini'], channel: { key?: string } = {}) {
  const user = await seedUser(env.context);
  const token = await seedToken(env.context, user.id);
  const key = channel.key ?? unique('key');
  const channelId = await seedChannel(env.context, { key, baseUrl: env.upstream.url, models, groups: [user.group] });
  const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });
  return { user, token, key, channelId, client };
}

async function raw(path: string, apiKey: string, body: unknown) {
  const response = await request(`${env.gateway}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

describe('chat completions', () => {
  it('passes a non-stream answer through byte for byte (openai client)', async () => {
    const { client, key, user, token, channelId } = await setup();
    const exact = `${chatCompletionBody('Bonjour, "monde" ✓', { prompt_tokens: 21, completion_tokens: 9, total_tokens: 30 })}  `;
    env.upstream.respond((_request, response) => sendJson(response, 200, exact));
    try {
      const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
      expect(completion.choices[0]!.message.content).toBe('Bonjour, "monde" ✓');
      expect(completion.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 9 });

      const answer = await raw('/v1/chat/completions', token.apiKey, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(exact);
      expect(answer.headers['content-type']).toContain('application/json');
    } finally {
      env.upstream.respond();
    }
    const upstreamCall = env.upstream.requestsWithKey(key)[0]!;
    expect(upstreamCall.url).toBe('/v1/chat/completions');
    expect(upstreamCall.headers.authorization).toBe(`Bearer ${key}`);
    expect(upstreamCall.json).toMatchObject({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

    await env.runtime.drain();
    const after = await totals(env.context, { userId: user.id, tokenId: token.id, channelIds: [channelId] });
    expect(after.logs).toHaveLength(2);
    expect(after.logs[0]).toMatchObject({
      model_name: 'gpt-4o-mini',
      prompt_tokens: 21,
      completion_tokens: 9,
      is_stream: 0,
      channel_id: channelId,
      token_id: token.id,
    });
  });

  it('streams chunk by chunk with SSE headers, forwarding the usage chunk only to clients that asked', async () => {
    const { client, key, token } = await setup();
    const streamed = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of streamed) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(`Hello from ${key}`);
    // The relay asked the upstream for usage on the client's behalf...
    expect(env.upstream.requestsWithKey(key)[0]!.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });

    // ...and held the usage chunk back from a client that did not ask for it.
    const plain = await raw('/v1/chat/completions', token.apiKey, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/event-stream');
    expect(plain.headers['cache-control']).toBe('no-cache');
    expect(plain.headers['x-accel-buffering']).toBe('no');
    const upstreamText = chatStream(['Hello', ' from', ` ${key}`], true);
    expect(plain.text).toBe(upstreamText.replace(usageChunk(), ''));

    // A client that asked for usage receives the upstream's stream unchanged.
    const asked = await raw('/v1/chat/completions', token.apiKey, {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(asked.text).toBe(upstreamText);
  });

  it('passes a stream on unchanged however the upstream cuts it, in one burst or over time', async () => {
    const { user, token, key } = await setup();
    // Multi-byte text, so cuts also fall inside characters; the usage chunk is cut as well.
    const upstreamText = chatStream(['狐狸', ' relays', ` ${key}`, ' 消息'], true);
    const bytes = Buffer.from(upstreamText);
    for (const pacing of ['one burst', 'over time'] as const) {
      env.upstream.respond(async (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let at = 0; at < bytes.length; at += 7) {
          response.write(bytes.subarray(at, at + 7));
          if (pacing === 'over time') await new Promise((resolve) => setTimeout(resolve, 1));
        }
        response.end();
      });
      try {
        const plain = await raw('/v1/chat/completions', token.apiKey, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
        expect(plain.status, pacing).toBe(200);
        expect(plain.text, pacing).toBe(upstreamText.replace(usageChunk(), ''));
        const asked = await raw('/v1/chat/completions', token.apiKey, {
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
          stream_options: { include_usage: true },
        });
        expect(asked.text, pacing).toBe(upstreamText);
      } finally {
        env.upstream.respond();
      }
    }
    // All four were billed from the upstream's usage chunk, not from a count of the text.
    await env.runtime.drain();
    const after = await totals(env.context, { userId: user.id, tokenId: token.id });
    expect(after.logs.map((log) => [log.prompt_tokens, log.completion_tokens])).toEqual(Array(4).fill([11, 7]));
  });

  it('relays each chunk as it arrives instead of buffering the answer', async () => {
    const { token } = await setup();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    env.upstream.respond(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chatChunk({ content: 'first' }));
      await gate;
      response.end(chatChunk({ content: 'second' }) + 'data: [DONE]\n\n');
    });
    try {
      const response = await request(`${env.gateway}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      });
      const iterator = response.body[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(String(first.value)).toContain('first');
      release();
      let rest = '';
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest += String(next.value);
      expect(rest).toContain('second');
      expect(rest.trimEnd().endsWith('data: [DONE]')).toBe(true);
    } finally {
      env.upstream.respond();
    }
  });
});
