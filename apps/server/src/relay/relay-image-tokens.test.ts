import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UNLEARNED_OVERHEAD, UNLEARNED_RATIO } from '../domain/billing/prompt-margins.js';
import { pngOf } from '../lib/testing/image-bytes.js';
import { LocalServer, serveBytes } from '../lib/testing/local-server.js';
import { chatCompletionBody, sendJson } from './testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

const WORKER_KEY = 'relay-worker-key-0123456789abcdef';
let env: RelayTestEnv;
let imageHost: LocalServer;
let worker: LocalServer;

beforeAll(async () => {
  env = await startRelayTestEnv();
  imageHost = await new LocalServer(serveBytes(pngOf(2048, 4096, 100_000))).start();
  worker = await new LocalServer(serveBytes(pngOf(2048, 4096, 100_000))).start();
});
afterEach(async () => {
  env.upstream.respond();
  worker.handler = serveBytes(pngOf(2048, 4096, 100_000));
  imageHost.received.length = 0;
  worker.received.length = 0;
  await setOption(env.context, 'WorkerUrl', '');
  await setOption(env.context, 'WorkerValidKey', '');
});
afterAll(async () => {
  await env.close();
  await imageHost.close();
  await worker.close();
});

/**
 * A payer whose balance is too small for the relay to take the request's byte size as its prompt
 * estimate: the prompt is counted, images included, and exactly that estimate is held.
 */
async function smallPayer() {
  const user = await seedUser(env.context, { quota: 50_000 });
  const token = await seedToken(env.context, user.id);
  await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
  return { user, token, ids: { userId: user.id, tokenId: token.id } };
}

/** Sends a chat with one high-detail image; returns what was held while the upstream had the call. */
async function heldFor(apiKey: string, imageUrl: string, userId: number, tokenId: number): Promise<number> {
  let held = 0;
  env.upstream.respond(async (_request, response) => {
    held = 50_000 - (await totals(env.context, { userId, tokenId })).userQuota;
    sendJson(response, 200, chatCompletionBody('a tall picture', { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 }));
  });
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe it.' },
            { type: 'image_url', image_url: { url: imageUrl, detail: 'high' } },
          ],
        },
      ],
    }),
  });
  expect(response.statusCode).toBe(200);
  await response.body.text();
  return held;
}

const TEXT_TOKENS = 3 + countTokens('Describe it.') + 3;
/** gpt-4o-mini (new-api's constants): 2833 base + 5667 per 512-px tile; 2048 × 4096 is 6 tiles. */
const TALL_IMAGE_TOKENS = 2833 + 6 * 5667;
const heldForPrompt = (promptTokens: number) => Math.round(0.075 * (promptTokens + 100 * 4));

describe('image tokens in the reservation estimate', () => {
  it('reads the image through the worker when WorkerUrl is set: {url, key} posted, the host never called', async () => {
    await setOption(env.context, 'WorkerUrl', `${worker.url}/`);
    await setOption(env.context, 'WorkerValidKey', WORKER_KEY);
    const { token, user, ids } = await smallPayer();
    const address = 'https://pictures.example.com/tall.png';
    // The model's first counted call here: the prompt bound is the count × 1.5 + 16 until the
    // upstream has reported a count of its own (100 here, less than ours: the later calls hold the count).
    const firstBound = Math.ceil((TEXT_TOKENS + TALL_IMAGE_TOKENS) * UNLEARNED_RATIO) + UNLEARNED_OVERHEAD;
    expect(await heldFor(token.apiKey, address, user.id, token.id)).toBe(heldForPrompt(firstBound));
    expect(worker.received.map((call) => [call.method, call.url, JSON.parse(call.body)])).toEqual([['POST', '/', { url: address, key: WORKER_KEY }]]);
    // The charge itself follows the upstream's usage.
    await env.runtime.drain();
    expect((await totals(env.context, ids)).logs.map((log) => Number(log.quota))).toEqual([Math.round(0.075 * (100 + 5 * 4))]);
  });

  it('fetches directly when WorkerUrl is empty, and then never from this server’s own network: the image costs the fallback', async () => {
    const { token, user } = await smallPayer();
    // The image host listens on 127.0.0.1: a direct fetch for a caller must not reach it.
    expect(await heldFor(token.apiKey, `${imageHost.url}/tall.png`, user.id, token.id)).toBe(heldForPrompt(TEXT_TOKENS + 3 * 2833));
    expect(imageHost.received).toHaveLength(0);
    expect(worker.received).toHaveLength(0);
  });

  it('never fails or stalls the call when the worker fails: the image costs 3 × base', async () => {
    await setOption(env.context, 'WorkerUrl', worker.url);
    await setOption(env.context, 'WorkerValidKey', WORKER_KEY);
    worker.handler = (_request, response) => response.writeHead(500).end('worker down');
    const { token, user } = await smallPayer();
    const started = performance.now();
    expect(await heldFor(token.apiKey, 'https://pictures.example.com/broken.png', user.id, token.id)).toBe(heldForPrompt(TEXT_TOKENS + 3 * 2833));
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
