import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange } from '../test-support/raw-http.js';
import { startTestApp, type TestApp } from '../test-support/test-app.js';
import { pathOfRawPacket } from './client-errors.js';

let test: TestApp;
let port: number;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  test = await startTestApp({ LOG_LEVEL: 'info' }, { logDestination: { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) } });
  port = Number(new URL(await test.app.listen({ port: 0, host: '127.0.0.1' })).port);
});
afterAll(async () => {
  await test.close();
});

/** Past Node's 16 KiB header limit. */
const HUGE = 'a'.repeat(20_000);

const send = (text: string) => rawExchange(port, (socket) => socket.write(text));

describe('a URL or header over Node’s limit', () => {
  it('answers 431 in the envelope on /api, for a long URL and a long header', async () => {
    for (const text of [`GET /api/status?q=${HUGE} HTTP/1.1\r\nHost: x\r\n\r\n`, `POST /api/user/login HTTP/1.1\r\nHost: x\r\nX-Big: ${HUGE}\r\n\r\n`]) {
      const answer = await send(text);
      expect(answer.status).toBe(431);
      expect(answer.body).toEqual({ success: false, message: expect.stringContaining('请求头或 URL 过长') });
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers.connection).toBe('close');
      expect(await answer.closedAfter).toBeLessThan(5_000);
    }
  });

  it.each([
    ['/v1/chat/completions', { error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'header_too_large' } }],
    ['/v1/messages', { type: 'error', error: { type: 'invalid_request_error', message: expect.any(String) } }],
    ['/v1beta/models/gemini-2.5-flash:generateContent', { error: { code: 431, message: expect.any(String), status: 'INVALID_ARGUMENT' } }],
  ])('answers 431 on %s in the caller’s protocol shape, readable by browsers', async (path, shape) => {
    const answer = await send(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${HUGE}\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(answer.body).toEqual(shape);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers in OpenAI’s shape when the packet that overflowed does not show the path', async () => {
    const answer = await rawExchange(port, (socket) => {
      socket.write('POST /api/user/login HTTP/1.1\r\nHost: x\r\n');
      // A later packet: Node hands the handler only the bytes of the one it was parsing.
      setTimeout(() => socket.write(`X-Big: ${HUGE}\r\n\r\n`), 100);
    });
    expect(answer.status).toBe(431);
    expect(answer.body).toMatchObject({ error: { code: 'header_too_large' } });
  });

  it('answers a request Node cannot parse with 400, never a 500', async () => {
    const answer = await send('BREW /v1/chat/completions HTCPCP/1.0\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'malformed' } });
  });

  it('logs the refusal at info, without a stack', () => {
    const refusals = logs.filter((line) => line.msg === 'connection refused before its request was read');
    expect(refusals.length).toBeGreaterThan(0);
    for (const line of refusals) {
      expect(line.level).toBe(30);
      expect(line.err).toBeUndefined();
    }
    expect(refusals).toContainEqual(expect.objectContaining({ status: 431, code: 'request:header_too_large', url: '/api/status' }));
    expect(logs.filter((line) => Number(line.level) >= 50)).toEqual([]);
  });
});

describe('pathOfRawPacket', () => {
  it('reads the path of a request line, up to its query, even cut short', () => {
    expect(pathOfRawPacket(Buffer.from('GET /v1/messages?x=1 HTTP/1.1\r\n'))).toBe('/v1/messages');
    expect(pathOfRawPacket(Buffer.from('POST /api/aaaaaaaa'))).toBe('/api/aaaaaaaa');
    expect(pathOfRawPacket(Buffer.from('aaaa\r\nX-Big: aaaa'))).toBeUndefined();
    expect(pathOfRawPacket(undefined)).toBeUndefined();
  });
});
