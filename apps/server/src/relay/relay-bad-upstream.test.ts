import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/env.js';
import { chatCompletionBody, chatStream, sendJson } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * Upstreams that answer badly: silent after their headers, 200 with a body that is not JSON,
 * answers far larger than the relay holds in memory.
 */
let env: RelayTestEnv;
const CAP = 1024 * 1024;

beforeAll(async () => {
  // One second of silence is the relay timeout; streams may otherwise stay silent for three.
  env = await startRelayTestEnv({ RELAY_TIMEOUT: '1', STREAMING_TIMEOUT: '3', RELAY_MAX_BUFFERED_BYTES: String(CAP) });
});
afterEach(async () => {
  env.upstream.respond();
  await setOption(env.context, 'RetryTimes', 0);
});
afterAll(async () => {
  await env.close();
});

const chatBody = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra });
const promptTokens = 3 + countTokens('hi') + 3;
/** gpt-4o-mini's price: 0.075 quota per prompt token, completions 4 times that. */
const quotaOf = (prompt: number, completion: number) => Math.round(0.075 * (prompt + completion * 4));

async function chat(apiKey: string, extra: Record<string, unknown> = {}) {
  const started = performance.now();
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: chatBody(extra),
  });
  const text = await response.body.text();
  return { status: response.statusCode, text, ms: performance.now() - started };
}

/** A payer and channels for it: `bad` (tried first when there are two) and, unless told, `good`. */
async function setup(options: { healthy?: boolean } = {}) {
  const user = await seedUser(env.context);
  const token = await seedToken(env.context, user.id);
  const bad = { key: unique('bad'), id: 0 };
  const good = { key: unique('good'), id: 0 };
  bad.id = await seedChannel(env.context, { key: bad.key, baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group], priority: 10 });
  if (options.healthy !== false) {
    good.id = await seedChannel(env.context, { key: good.key, baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group], priority: 0 });
    await setOption(env.context, 'RetryTimes', 1);
  }
  const ids = { userId: user.id, tokenId: token.id, channelIds: [bad.id, good.id] };
  return { user, token, bad, good, ids };
}

/** The bad channel's key gets `misbehave`; every other key the mock's usual answer. */
function misbehaveFor(key: string, misbehave: (response: ServerResponse) => void) {
  env.upstream.respond((recorded, response) => {
    if (recorded.key === key) return misbehave(response);
    if (recorded.json?.stream === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(chatStream(['Hello', ` from ${recorded.key}`], true));
      return;
    }
    sendJson(response, 200, chatCompletionBody(`Hello from ${recorded.key}`));
  });
}

/** After a failover: one log, at the channel that served, naming both channels tried, billed once. */
async function expectServedOnceBy(setupResult: Awaited<ReturnType<typeof setup>>, prompt: number, completion: number) {
  const { bad, good, ids } = setupResult;
  await env.runtime.drain();
  const after = await totals(env.context, ids);
  expect(after.logs).toHaveLength(1);
  expect(after.logs[0]!.channel_id).toBe(good.id);
  expect(JSON.parse(after.logs[0]!.other).admin_info.use_channel).toEqual([String(bad.id), String(good.id)]);
  expect(after.userUsed).toBe(quotaOf(prompt, completion));
  expect(after.logQuotaSum).toBe(after.userUsed);
  expect(after.channelUsed.get(bad.id)).toBe(0);
}

describe('RELAY_TIMEOUT', () => {
  it('defaults to 120 seconds of silence, and caps whole answers at 32 MB', () => {
    const config = loadConfig({});
    expect(config.relayTimeoutSeconds).toBe(120);
    expect(config.relayMaxBufferedBytes).toBe(32 * 1024 * 1024);
  });

  it('gives up on a non-stream upstream silent after its headers and serves the answer from the next channel', async () => {
    const served = await setup();
    misbehaveFor(served.bad.key, (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
    });
    const answer = await chat(served.token.apiKey);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).choices[0].message.content).toBe(`Hello from ${served.good.key}`);
    expect(answer.ms).toBeGreaterThanOrEqual(900);
    expect(answer.ms).toBeLessThan(3000);
    await expectServedOnceBy(served, 11, 7);
  });

  it('measures the silence from the last byte: an answer cut off half way is retried too', async () => {
    const served = await setup();
    misbehaveFor(served.bad.key, (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(chatCompletionBody('never finished').slice(0, 40));
    });
    const answer = await chat(served.token.apiKey);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).choices[0].message.content).toBe(`Hello from ${served.good.key}`);
    await expectServedOnceBy(served, 11, 7);
  });

  it('cancels the upstream request of a client that hangs up while its whole answer is awaited, and bills nothing', async () => {
    const served = await setup({ healthy: false });
    const before = await totals(env.context, served.ids);
    let upstreamClosed: (() => void) | undefined;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    let started: (() => void) | undefined;
    const reached = new Promise<void>((resolve) => (started = resolve));
    misbehaveFor(served.bad.key, (response) => {
      // Bytes keep coming (no silence for the relay timeout to end): only the client's hang-up can end it.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id":"chatcmpl-slow","choices":[');
      const drip = setInterval(() => response.write(' '), 100);
      response.on('close', () => {
        clearInterval(drip);
        upstreamClosed!();
      });
      started!();
    });
    const leaving = new AbortController();
    const call = request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${served.token.apiKey}`, 'content-type': 'application/json' },
      body: chatBody(),
      signal: leaving.signal,
    }).catch((error: unknown) => error);
    await reached;
    await new Promise((resolve) => setTimeout(resolve, 150));
    const leftAt = performance.now();
    leaving.abort();
    expect(await call).toBeInstanceOf(Error);
    await closed;
    expect(performance.now() - leftAt).toBeLessThan(1000);
    await env.runtime.drain();
    const after = await totals(env.context, served.ids);
    expect(after.logs).toHaveLength(0);
    expect(after.userQuota).toBe(before.userQuota);
    expect(after.tokenRemain).toBe(before.tokenRemain);
  });

  it('retries a stream that stayed silent before its first byte, on the next channel, within the relay timeout', async () => {
    const served = await setup();
    misbehaveFor(served.bad.key, (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
    });
    const answer = await chat(served.token.apiKey, { stream: true });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(`from ${served.good.key}`);
    expect(answer.text).toContain('data: [DONE]');
    expect(answer.text).not.toContain('stream_timeout');
    // The relay timeout (1 s) and not STREAMING_TIMEOUT (3 s) applies before the first byte.
    expect(answer.ms).toBeLessThan(2800);
    await expectServedOnceBy(served, 11, 7);
  });

  it('retries a stream whose upstream hung up before its first byte', async () => {
    const served = await setup();
    misbehaveFor(served.bad.key, (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      setTimeout(() => response.socket?.destroy(), 50);
    });
    const answer = await chat(served.token.apiKey, { stream: true });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(`from ${served.good.key}`);
    expect(answer.text).not.toContain('upstream_stream_broken');
    await expectServedOnceBy(served, 11, 7);
  });

  it('retries a stream request whose upstream answered a whole JSON answer and then went silent', async () => {
    const served = await setup();
    misbehaveFor(served.bad.key, (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(chatCompletionBody('never finished').slice(0, 40));
    });
    const answer = await chat(served.token.apiKey, { stream: true });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(`from ${served.good.key}`);
    expect(answer.ms).toBeLessThan(2800);
    await expectServedOnceBy(served, 11, 7);
  });

  it('answers 504 in the OpenAI shape and bills nothing when no channel answers in time', async () => {
    const { token, bad, ids } = await setup({ healthy: false });
    misbehaveFor(bad.key, (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
    });
    const answer = await chat(token.apiKey);
    expect(answer.status).toBe(504);
    expect(JSON.parse(answer.text).error).toMatchObject({ code: 'timeout', type: 'upstream_error' });
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect([after.logs.length, after.userUsed, after.requestCount]).toEqual([0, 0, 0]);
  });
});

describe('a 200 answer that is not JSON', () => {
  const notJson = [
    ['an HTML page sent as JSON', 'application/json', '<html><body>502 Bad Gateway</body></html>'],
    ['an HTML page', 'text/html', '<html><body>Please wait while we check your browser</body></html>'],
    ['JSON cut short', 'application/json', chatCompletionBody('cut').slice(0, 50)],
    ['an empty body', 'application/json', ''],
    ['bytes of no declared type', 'application/octet-stream', 'garbage'],
  ] as const;

  it.each(notJson)('is retried on the next channel: %s', async (_name, contentType, body) => {
    const served = await setup();
    misbehaveFor(served.bad.key, (response) => {
      response.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
      response.end(body);
    });
    const answer = await chat(served.token.apiKey);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).choices[0].message.content).toBe(`Hello from ${served.good.key}`);
    await expectServedOnceBy(served, 11, 7);
  });

  it('ends in a 502 bad_response_body, no charge and no log, when no channel answers JSON', async () => {
    const { token, bad, ids } = await setup({ healthy: false });
    const before = await totals(env.context, ids);
    misbehaveFor(bad.key, (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('<html>oops</html>');
    });
    const answer = await chat(token.apiKey);
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text).error).toMatchObject({ code: 'bad_response_body', type: 'upstream_error' });
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect([after.logs.length, after.userUsed, after.requestCount, after.userQuota]).toEqual([0, 0, 0, before.userQuota]);
  });
});

/** A chat answer of about `size` bytes: one long content, then `usage` (unless null), written in 64 KiB pieces. */
function hugeAnswer(size: number, usage: object | null) {
  const head =
    '{"id":"chatcmpl-huge","object":"chat.completion","created":1700000000,"model":"mock-model","choices":[{"index":0,"message":{"role":"assistant","content":"';
  const tail = `"},"finish_reason":"stop"}]${usage ? `,"usage":${JSON.stringify(usage)}` : ''},"system_fingerprint":"fp_mock"}`;
  const piece = Buffer.from('lorem ipsum '.repeat(Math.ceil(65536 / 12)).slice(0, 65536));
  const pieces = Math.ceil((size - head.length - tail.length) / piece.length);
  const length = head.length + pieces * piece.length + tail.length;
  const hash = createHash('sha256').update(head);
  for (let index = 0; index < pieces; index += 1) hash.update(piece);
  hash.update(tail);
  return {
    length,
    sha256: hash.digest('hex'),
    async send(response: ServerResponse, declareLength: boolean) {
      response.writeHead(200, { 'content-type': 'application/json', ...(declareLength ? { 'content-length': length } : {}) });
      response.write(head);
      for (let index = 0; index < pieces; index += 1) {
        if (response.destroyed) return;
        if (!response.write(piece)) await new Promise((resolve) => response.once('drain', resolve));
      }
      response.end(tail);
    },
  };
}

/** Reads an answer as it arrives, keeping only its size and hash. */
async function chatCounting(apiKey: string) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: chatBody(),
  });
  const hash = createHash('sha256');
  let length = 0;
  for await (const part of response.body) {
    hash.update(part as Buffer);
    length += (part as Buffer).length;
  }
  return { status: response.statusCode, length, sha256: hash.digest('hex') };
}

describe('answers larger than RELAY_MAX_BUFFERED_BYTES', () => {
  it('reach the client while the upstream is still sending: the relay does not wait for the end', async () => {
    const { token } = await setup({ healthy: false });
    const sentBeforeHold = 20 * CAP;
    let clientReceived = 0;
    let upstreamEnded = false;
    env.upstream.respond(async (_recorded, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"choices":[{"message":{"content":"');
      const piece = 'a'.repeat(64 * 1024);
      for (let sent = 0; sent < sentBeforeHold; sent += piece.length) {
        if (!response.write(piece)) await new Promise((resolve) => response.once('drain', resolve));
      }
      // The upstream holds its last bytes back until the client has half of what was sent: a
      // relay that kept the answer until its end would never let that happen.
      const deadline = Date.now() + 10_000;
      while (clientReceived < sentBeforeHold / 2 && Date.now() < deadline && !response.destroyed) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      upstreamEnded = true;
      response.end('"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}');
    });
    const response = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
      body: chatBody(),
    });
    let receivedWhileHeld = -1;
    for await (const part of response.body) {
      clientReceived += (part as Buffer).length;
      if (receivedWhileHeld < 0 && !upstreamEnded && clientReceived >= sentBeforeHold / 2) receivedWhileHeld = clientReceived;
    }
    expect(response.statusCode).toBe(200);
    expect(receivedWhileHeld).toBeGreaterThanOrEqual(sentBeforeHold / 2);
  }, 30_000);

  it('are passed through unchanged and billed from the usage at their end', async () => {
    const { token, ids } = await setup({ healthy: false });
    for (const declareLength of [true, false]) {
      const answer = hugeAnswer(3 * CAP, { prompt_tokens: 21, completion_tokens: 700_000, total_tokens: 700_021 });
      env.upstream.respond((_recorded, response) => answer.send(response, declareLength));
      const received = await chatCounting(token.apiKey);
      expect(received).toEqual({ status: 200, length: answer.length, sha256: answer.sha256 });
    }
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs).toHaveLength(2);
    for (const log of after.logs) expect(log).toMatchObject({ prompt_tokens: 21, completion_tokens: 700_000, quota: quotaOf(21, 700_000) });
  });

  it('without usage are billed the counted prompt and a token per four bytes', async () => {
    const { token, ids } = await setup({ healthy: false });
    const answer = hugeAnswer(2 * CAP, null);
    env.upstream.respond((_recorded, response) => answer.send(response, false));
    const received = await chatCounting(token.apiKey);
    expect(received.sha256).toBe(answer.sha256);
    await env.runtime.drain();
    const { logs } = await totals(env.context, ids);
    expect(logs[0]).toMatchObject({ prompt_tokens: promptTokens, completion_tokens: Math.ceil(answer.length / 4) });
  });

  it('cut off by the upstream half way reach the client as a broken answer and are not billed', async () => {
    const { token, ids } = await setup({ healthy: false });
    env.upstream.respond((_recorded, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(`{"choices":[{"message":{"content":"${'a'.repeat(2 * CAP)}`);
      setTimeout(() => response.socket?.destroy(), 50);
    });
    await expect(chatCounting(token.apiKey)).rejects.toThrow();
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect([after.logs.length, after.userUsed]).toEqual([0, 0]);
  });

  it('are not held in memory: a 200 MB answer moves the RSS by far less than its size', async () => {
    const { token, ids } = await setup({ healthy: false });
    // Large enough that a held copy would show far beyond the GC's own lag (8 to 22 MB seen while
    // passing 50 MB, 31 to 56 MB while passing 200 MB, on a busy machine).
    const answer = hugeAnswer(200 * 1024 * 1024, { prompt_tokens: 21, completion_tokens: 9, total_tokens: 30 });
    env.upstream.respond((_recorded, response) => answer.send(response, false));
    // A first small pass-through warms up what a pass-through allocates once.
    const warmup = hugeAnswer(2 * CAP, { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
    env.upstream.respond((_recorded, response) => warmup.send(response, false));
    await chatCounting(token.apiKey);
    env.upstream.respond((_recorded, response) => answer.send(response, false));

    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
    const received = await chatCounting(token.apiKey).finally(() => clearInterval(sampler));
    peak = Math.max(peak, process.memoryUsage.rss());
    expect(received).toEqual({ status: 200, length: answer.length, sha256: answer.sha256 });
    const growthMb = (peak - baseline) / 1024 / 1024;
    console.info(`RSS growth while passing a ${(answer.length / 1024 / 1024).toFixed(0)} MB answer through: ${growthMb.toFixed(1)} MB`);
    expect(growthMb).toBeLessThan(100);
    await env.runtime.drain();
    expect((await totals(env.context, ids)).logs.at(-1)).toMatchObject({ prompt_tokens: 21, completion_tokens: 9 });
  }, 30_000);
});
