import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { startTestApp, type TestApp } from '../test-support/test-app.js';
import { imageSizeOf } from './image-size.js';
import { LocalServer, serveBytes } from './testing/local-server.js';
import { pngOf } from './testing/image-bytes.js';
import { UserUrlFetcher } from './user-url-fetch.js';

const WORKER_KEY = 'worker-secret-key-0123456789';
const IMAGE = pngOf(1024, 768, 200_000);

let app: TestApp;
let images: LocalServer;
let worker: LocalServer;
/** Allowed to reach 127.0.0.1, where the test servers are. */
let local: UserUrlFetcher;

beforeAll(async () => {
  app = await startTestApp();
  images = await new LocalServer(serveBytes(IMAGE)).start();
  worker = await new LocalServer(serveBytes(IMAGE)).start();
  local = new UserUrlFetcher(app.context.options, { allowPrivateNetwork: true });
});
afterEach(async () => {
  images.handler = serveBytes(IMAGE);
  worker.handler = serveBytes(IMAGE);
  images.received.length = 0;
  worker.received.length = 0;
  await app.context.options.set('WorkerUrl', '');
  await app.context.options.set('WorkerValidKey', '');
});
afterAll(async () => {
  await local.close();
  await images.close();
  await worker.close();
  await app.close();
});

const enough = (head: Buffer) => imageSizeOf(head) !== 'more';
const read = { timeoutMs: 2000, maxBytes: 1024 * 1024 };

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('user URL fetch, direct (WorkerUrl empty)', () => {
  it('GETs the address itself and reads only as far as the caller needs', async () => {
    const fetched = await local.fetch(`${images.url}/cat.png?size=large`, { ...read, enough });
    expect(fetched.via).toBe('direct');
    expect(fetched.complete).toBe(false);
    expect(fetched.bytes.length).toBeLessThan(IMAGE.length);
    expect(imageSizeOf(fetched.bytes)).toEqual({ width: 1024, height: 768, format: 'png' });
    expect(images.received.map((request) => [request.method, request.url])).toEqual([['GET', '/cat.png?size=large']]);
    expect(worker.received).toHaveLength(0);
  });

  it('reads a whole answer, follows redirects, and refuses one past the size cap', async () => {
    images.handler = (request, response) => {
      if (request.url === '/old') response.writeHead(302, { location: '/new' }).end();
      else serveBytes(IMAGE)(request, response);
    };
    const whole = await local.fetch(`${images.url}/old`, { timeoutMs: 2000, maxBytes: IMAGE.length });
    expect(whole.complete).toBe(true);
    expect(whole.bytes.equals(IMAGE)).toBe(true);
    expect(whole.contentType).toBe('image/png');
    expect(images.received.map((request) => request.url)).toEqual(['/old', '/new']);

    const tooLarge = await failure(local.fetch(`${images.url}/big.png`, { timeoutMs: 2000, maxBytes: 1000 }));
    expect(tooLarge.code).toBe('user_url:fetch_failed');
    expect(tooLarge.message).toContain('larger than 1000 bytes');
  });

  it('gives up after its time limit with an error saying so', async () => {
    images.handler = serveBytes(IMAGE, 'image/png', 3000);
    const started = performance.now();
    const slow = await failure(local.fetch(`${images.url}/slow.png`, { timeoutMs: 300, maxBytes: 1024 * 1024 }));
    expect(performance.now() - started).toBeLessThan(1500);
    expect(slow.message).toContain('timed out after 300 ms');
    expect(slow.message).toContain(`${images.url}/slow.png`);
  });

  it('fetches only http and https addresses', async () => {
    for (const address of ['ftp://example.com/a.png', 'file:///etc/passwd', 'javascript:alert(1)']) {
      expect((await failure(local.fetch(address, read))).code).toBe('user_url:unsupported_scheme');
    }
    expect((await failure(local.fetch('not a url', read))).code).toBe('user_url:invalid');
  });

  it('answers an upstream error status with the status, not the body', async () => {
    images.handler = (_request, response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('no such picture');
    const missing = await failure(local.fetch(`${images.url}/missing.png?token=abc`, read));
    expect(missing.message).toContain('HTTP 404');
    expect(missing.message).not.toContain('no such picture');
    expect(missing.message).not.toContain('token=abc');
  });

  it('by default reaches no loopback, private or link-local address, by IP or by name', async () => {
    const guarded = new UserUrlFetcher(app.context.options);
    try {
      const port = new URL(images.url).port;
      for (const address of [
        `http://127.0.0.1:${port}/a.png`,
        `http://localhost:${port}/a.png`,
        `http://[::1]:${port}/a.png`,
        'http://10.1.2.3/a.png',
        'http://169.254.169.254/latest/meta-data/',
      ]) {
        const refused = await failure(guarded.fetch(address, { timeoutMs: 2000, maxBytes: 1024 }));
        expect(refused.message, address).toContain('not on the public internet');
      }
      expect(images.received).toHaveLength(0);
    } finally {
      await guarded.close();
    }
  });
});

describe('user URL fetch through the worker (WorkerUrl set)', () => {
  it('POSTs {url, key} to the worker and reads its answer; the address itself is never called', async () => {
    await app.context.options.set('WorkerUrl', `${worker.url}/`);
    await app.context.options.set('WorkerValidKey', WORKER_KEY);
    // The option keeps the address without its trailing slash; the worker is called with one, as new-api does.
    expect(app.context.options.string('WorkerUrl')).toBe(worker.url);
    const address = 'https://images.example.com/cat.png?x=1';
    const fetched = await local.fetch(address, { ...read, enough });
    expect(fetched.via).toBe('worker');
    expect(imageSizeOf(fetched.bytes)).toEqual({ width: 1024, height: 768, format: 'png' });
    expect(worker.received).toHaveLength(1);
    const [call] = worker.received;
    expect([call!.method, call!.url, call!.headers['content-type']]).toEqual(['POST', '/', 'application/json']);
    expect(JSON.parse(call!.body)).toEqual({ url: address, key: WORKER_KEY });
    expect(images.received).toHaveLength(0);
  });

  it('goes through the worker even for addresses a direct fetch would refuse: the worker fetches from its own network', async () => {
    const guarded = new UserUrlFetcher(app.context.options);
    try {
      await app.context.options.set('WorkerUrl', worker.url);
      await app.context.options.set('WorkerValidKey', WORKER_KEY);
      const fetched = await guarded.fetch('http://10.0.0.8/internal.png', { ...read, enough });
      expect(fetched.via).toBe('worker');
      expect(JSON.parse(worker.received[0]!.body)).toEqual({ url: 'http://10.0.0.8/internal.png', key: WORKER_KEY });
    } finally {
      await guarded.close();
    }
  });

  it('never puts the key in an error, even when the worker repeats it', async () => {
    await app.context.options.set('WorkerUrl', worker.url);
    await app.context.options.set('WorkerValidKey', WORKER_KEY);
    worker.handler = (request, response) => {
      response.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `bad key ${JSON.parse(request.body).key}` }));
    };
    const refused = await failure(local.fetch('https://images.example.com/cat.png', read));
    expect(refused.message).toContain('the worker answered HTTP 403');
    expect(refused.message).not.toContain(WORKER_KEY);
    expect(JSON.stringify({ message: refused.message, cause: String(refused.cause) })).not.toContain(WORKER_KEY);

    await app.context.options.set('WorkerUrl', 'http://127.0.0.1:1');
    const unreachable = await failure(local.fetch('https://images.example.com/cat.png', read));
    expect(unreachable.message).toContain('connection refused');
    expect(unreachable.message).not.toContain(WORKER_KEY);
  });

  it('bounds the worker by the same time limit', async () => {
    await app.context.options.set('WorkerUrl', worker.url);
    worker.handler = serveBytes(IMAGE, 'image/png', 3000);
    const started = performance.now();
    const slow = await failure(local.fetch('https://images.example.com/cat.png', { timeoutMs: 300, maxBytes: 1024 * 1024 }));
    expect(performance.now() - started).toBeLessThan(1500);
    expect(slow.message).toContain('timed out after 300 ms');
  });
});
