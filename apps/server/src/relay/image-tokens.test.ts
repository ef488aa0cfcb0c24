import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jpegOf, pngOf } from '../lib/testing/image-bytes.js';
import { LocalServer, serveBytes } from '../lib/testing/local-server.js';
import { UserUrlFetcher } from '../lib/user-url-fetch.js';
import { startTestApp, type TestApp } from '../test-support/test-app.js';
import { imageRuleFor, ImageTokens, tokensForSize } from './image-tokens.js';
import { countPromptTokens } from './token-counter.js';

describe('image tokens by size (new-api getImageToken)', () => {
  it('counts 512-px tiles of the image fitted to 2048 and scaled to a shortest side of 768', () => {
    const gpt4o = imageRuleFor('gpt-4o');
    // OpenAI's own examples: 1024 × 1024 is 4 tiles, 2048 × 4096 is 6.
    expect(tokensForSize(gpt4o, 1024, 1024)).toBe(85 + 4 * 170);
    expect(tokensForSize(gpt4o, 2048, 4096)).toBe(85 + 6 * 170);
    expect(tokensForSize(gpt4o, 4096, 8192)).toBe(85 + 6 * 170);
    // Small images are scaled up to 768 too (new-api does not special-case them).
    expect(tokensForSize(gpt4o, 100, 100)).toBe(85 + 4 * 170);
    expect(tokensForSize(gpt4o, 768, 512)).toBe(85 + 3 * 2 * 170);
  });

  it('uses each family’s constants, patches for the mini/nano families, and 520 outside OpenAI', () => {
    expect(tokensForSize(imageRuleFor('gpt-4o-mini'), 1024, 1024)).toBe(2833 + 4 * 5667);
    expect(tokensForSize(imageRuleFor('gpt-5'), 1024, 1024)).toBe(70 + 4 * 140);
    expect(tokensForSize(imageRuleFor('o3'), 1024, 1024)).toBe(75 + 4 * 150);
    expect(tokensForSize(imageRuleFor('computer-use-preview'), 1024, 1024)).toBe(520);
    expect(tokensForSize(imageRuleFor('gpt-4.1'), 1024, 1024)).toBe(85 + 4 * 170);
    // OpenAI's patch examples: 1024 × 1024 is 1024 patches, 1800 × 2400 is scaled to 1452.
    expect(tokensForSize(imageRuleFor('gpt-4.1-mini'), 1024, 1024)).toBe(Math.round(1024 * 1.62));
    expect(tokensForSize(imageRuleFor('gpt-4.1-nano'), 1800, 2400)).toBe(Math.round(1452 * 2.46));
    expect(tokensForSize(imageRuleFor('o4-mini'), 1800, 2400)).toBe(Math.round(1452 * 1.72));
    expect(tokensForSize(imageRuleFor('claude-3-5-sonnet'), 1024, 1024)).toBe(520);
  });
});

const KEY = 'image-worker-key-abcdefghijkl';
let app: TestApp;
let host: LocalServer;
let fetcher: UserUrlFetcher;
const failures: unknown[] = [];

beforeAll(async () => {
  app = await startTestApp();
  host = await new LocalServer(serveBytes(pngOf(2048, 4096, 50_000))).start();
  fetcher = new UserUrlFetcher(app.context.options, { allowPrivateNetwork: true });
});
afterEach(async () => {
  host.handler = serveBytes(pngOf(2048, 4096, 50_000));
  host.received.length = 0;
  failures.length = 0;
  await app.context.options.set('WorkerUrl', '');
  await app.context.options.set('WorkerValidKey', '');
});
afterAll(async () => {
  await fetcher.close();
  await host.close();
  await app.close();
});

const counter = (timeoutMs = 2000) => new ImageTokens(fetcher, (error) => failures.push(error), timeoutMs);
const image = (url: string, detail?: string) => ({ url, detail });

describe('image tokens of a prompt', () => {
  it('reads the size from the image host, once: the size is cached', async () => {
    const images = counter();
    const url = `${host.url}/photo.png`;
    expect(await images.tokens([image(url, 'high')], 'gpt-4o')).toBe(85 + 6 * 170);
    expect(await images.tokens([image(url), image(url, 'auto')], 'gpt-4o')).toBe(2 * (85 + 6 * 170));
    expect(host.received).toHaveLength(1);
  });

  it('counts low detail at the base without fetching, and decodes data: URLs and bare base64 here', async () => {
    const images = counter();
    expect(await images.tokens([image(`${host.url}/never.png`, 'low')], 'gpt-4o')).toBe(85);
    const jpeg = jpegOf(1024, 1024, 100_000).toString('base64');
    expect(await images.tokens([image(`data:image/jpeg;base64,${jpeg}`)], 'gpt-4o')).toBe(85 + 4 * 170);
    expect(await images.tokens([image(pngOf(1024, 1024).toString('base64'))], 'gpt-4o')).toBe(85 + 4 * 170);
    expect(host.received).toHaveLength(0);
  });

  it('falls back to 3 × base for an image it cannot read, within its time limit, and never throws', async () => {
    host.handler = (request, response) => {
      if (request.url === '/slow.png') setTimeout(() => serveBytes(pngOf(10, 10))(request, response), 3000);
      else if (request.url === '/page.html') serveBytes(Buffer.from('<html>no picture here</html>'), 'text/html')(request, response);
      else response.writeHead(404).end();
    };
    const images = counter(400);
    const started = performance.now();
    const tokens = await images.tokens(
      [
        image(`${host.url}/slow.png`),
        image(`${host.url}/gone.png`),
        image(`${host.url}/page.html`),
        image('data:image/png;base64,bm90IGFuIGltYWdl'),
        image(''),
      ],
      'gpt-4o',
    );
    expect(performance.now() - started).toBeLessThan(1500);
    expect(tokens).toBe(5 * 3 * 85);
    // The slow fetch ends at its own limit, just after the prompt stopped waiting for it.
    await expect
      .poll(() => failures.map((error) => (error as Error).message).sort(), { timeout: 2000 })
      .toEqual([expect.stringContaining('HTTP 404'), expect.stringContaining('timed out after 400 ms')]);
  });

  it('fetches through the worker when one is set, and its key stays out of what is logged', async () => {
    const worker = await new LocalServer((_request, response) =>
      response.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream failed for key ${KEY}`),
    ).start();
    try {
      await app.context.options.set('WorkerUrl', worker.url);
      await app.context.options.set('WorkerValidKey', KEY);
      const images = counter();
      expect(await images.tokens([image('https://images.example.com/a.png')], 'gpt-4o')).toBe(3 * 85);
      expect(JSON.parse(worker.received[0]!.body)).toEqual({ url: 'https://images.example.com/a.png', key: KEY });
      expect(failures).toHaveLength(1);
      // What the relay logs for a failed read: the error as pino serializes it, causes included.
      const logged = JSON.stringify(pino.stdSerializers.err(failures[0] as Error));
      expect(logged).toContain('the worker answered HTTP 502');
      expect(logged).not.toContain(KEY);

      worker.handler = serveBytes(pngOf(1024, 1024));
      expect(await images.tokens([image('https://images.example.com/b.png')], 'gpt-4o')).toBe(85 + 4 * 170);
      expect(host.received).toHaveLength(0);
    } finally {
      await worker.close();
    }
  });

  it('prices a prompt’s images in its counted tokens (the reservation estimate)', async () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these pictures?' },
            { type: 'image_url', image_url: { url: `${host.url}/tall.png`, detail: 'high' } },
            { type: 'image_url', image_url: { url: `${host.url}/tall.png`, detail: 'low' } },
          ],
        },
      ],
    };
    const text = 3 + countTokens('What is in these pictures?') + 3;
    expect(await countPromptTokens('chat', body, counter())).toBe(text + 85 + 6 * 170 + 85);
    // Without a counter each image costs the 85-token floor, as before.
    expect(await countPromptTokens('chat', body)).toBe(text + 2 * 85);
    // The responses API's input_image parts are counted the same way.
    const responses = { model: 'gpt-4o', input: [{ role: 'user', content: [{ type: 'input_image', image_url: `${host.url}/tall.png`, detail: 'auto' }] }] };
    expect(await countPromptTokens('responses', responses, counter())).toBe(3 + 85 + 6 * 170);
  });
});
