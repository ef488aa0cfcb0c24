import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { brotliCompressSync, createGunzip, deflateSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { seedChannel, seedToken, seedUser, startRelayTestEnv, unique, type RelayTestEnv } from '../relay/testing/relay-fixtures.js';
import { BodyRateGuard, RequestBody } from './request-body.js';

let env: RelayTestEnv;
let apiKey: string;

beforeAll(async () => {
  env = await startRelayTestEnv();
  const user = await seedUser(env.context);
  await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
  apiKey = (await seedToken(env.context, user.id)).apiKey;
});
afterAll(async () => {
  await env.close();
});

const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

async function post(path: string, body: Buffer, headers: Record<string, string>) {
  const response = await request(`${env.gateway}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...headers },
    body,
  });
  return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as Record<string, unknown> };
}

/**
 * gzip members decode one after another: 64 copies of 16 MiB of zeros, about 1 MB on the wire,
 * inflate to 1 GiB.
 */
function gzipBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: 64 }, () => member));
}

describe('Content-Encoding on request bodies', () => {
  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('relays a %s body decoded, and the upstream gets plain JSON', async (coding, compress) => {
    const before = env.upstream.requests.length;
    const answer = await post('/v1/chat/completions', compress(Buffer.from(CHAT)), { 'content-encoding': coding });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ object: 'chat.completion' });
    const forwarded = env.upstream.requests.slice(before);
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]!.json).toMatchObject({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(forwarded[0]!.headers['content-encoding']).toBeUndefined();
  });

  it('decodes /api bodies too', async () => {
    const answer = await post('/api/user/login', gzipSync(JSON.stringify({ username: 'root', password: '123456' })), { 'content-encoding': 'gzip' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true });
  });

  it('refuses a 1 MB body that inflates to 1 GiB with 413, past the 32 MiB relay limit, in the caller’s shape', async () => {
    const bomb = gzipBomb();
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const relay = await post('/v1/chat/completions', bomb, { 'content-encoding': 'gzip' });
    expect(relay.status).toBe(413);
    expect(relay.body).toEqual({
      error: { message: expect.stringContaining('请求体过大'), type: 'invalid_request_error', param: null, code: 'body_too_large' },
    });
    // The rest of the body is not read: the connection is not kept for another request.
    expect(relay.headers.connection).toBe('close');

    const anthropic = await post('/v1/messages', bomb, { 'content-encoding': 'gzip' });
    expect(anthropic.status).toBe(413);
    expect(anthropic.body).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });

    // /api's limit is 1 MiB: 1 MiB of JSON text gzipped is a few KB.
    const consoleCall = await post('/api/user/login', gzipSync(JSON.stringify({ username: 'root', password: 'x'.repeat(2 * 1024 * 1024) })), {
      'content-encoding': 'gzip',
    });
    expect(consoleCall.status).toBe(413);
    expect(consoleCall.body).toEqual({ success: false, message: expect.stringContaining('请求体过大') });
  });

  it('stops inflating a bomb one piece past the limit: the decoder takes in a few dozen KB of the 1 MB', async () => {
    const bomb = gzipBomb();
    const limit = 32 * 1024 * 1024;
    const decoder = createGunzip();
    const body = new RequestBody(decoder, 'gzip', limit);
    let delivered = 0;
    body.on('data', (chunk: Buffer) => (delivered += chunk.length));
    const refused = new Promise<unknown>((resolve) => body.on('error', resolve));
    // As a socket hands a body on: in pieces of at most 64 KiB.
    const source = new PassThrough();
    source.pipe(body);
    for (let offset = 0; offset < bomb.length; offset += 64 * 1024) source.write(bomb.subarray(offset, offset + 64 * 1024));
    source.end();
    const error = await refused;
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(413);
    expect(delivered).toBeLessThanOrEqual(limit);
    // 32 MiB of zeros is about 32 KB of this body: the decoder stopped there, not at 1 GiB.
    expect(decoder.bytesWritten).toBeLessThan(bomb.length / 10);
    expect(body.receivedEncodedLength).toBeLessThan(bomb.length / 10);
  });

  it.each([
    ['/v1/chat/completions', { error: { message: expect.stringContaining('zstd'), type: 'invalid_request_error', param: null, code: 'unsupported_encoding' } }],
    ['/v1/messages', { type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('zstd') } }],
    ['/v1beta/models/gemini-2.5-flash:generateContent', { error: { code: 415, message: expect.stringContaining('zstd'), status: 'INVALID_ARGUMENT' } }],
    ['/api/user/login', { success: false, message: expect.stringContaining('zstd') }],
  ])('answers an encoding it cannot decode (zstd) on %s with 415 in the caller’s shape', async (path, shape) => {
    const answer = await post(path, Buffer.from('(zstd bytes)'), { 'content-encoding': 'zstd' });
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual(shape);
  });

  it('refuses unknown and stacked codings with 415, and a body that is not what its coding says with 400', async () => {
    expect((await post('/v1/chat/completions', Buffer.from(CHAT), { 'content-encoding': 'x-custom' })).status).toBe(415);
    expect((await post('/v1/chat/completions', gzipSync(gzipSync(CHAT)), { 'content-encoding': 'gzip, gzip' })).status).toBe(415);
    const corrupt = await post('/v1/chat/completions', Buffer.from(CHAT), { 'content-encoding': 'gzip' });
    expect(corrupt.status).toBe(400);
    expect(corrupt.body).toMatchObject({ error: { code: 'invalid_encoding' } });
    // identity is no coding at all.
    expect((await post('/v1/chat/completions', Buffer.from(CHAT), { 'content-encoding': 'identity' })).status).toBe(200);
  });
});

describe('the body rate guard', () => {
  it('keeps no body that arrived whole past its event-loop turn, and watches the ones still arriving', async () => {
    const guard = new BodyRateGuard({ minBytesPerSecond: 100, windowSeconds: 10 });
    const arrived = { complete: true, destroyed: false, socket: { bytesRead: 500 } } as unknown as IncomingMessage;
    const arriving = { complete: false, destroyed: false, socket: { bytesRead: 20 } } as unknown as IncomingMessage;
    for (let index = 0; index < 1000; index += 1) guard.watch(arrived);
    guard.watch(arriving);
    await new Promise((done) => setImmediate(done));
    expect(guard.watching).toBe(1);
    guard.close();
  });
});
