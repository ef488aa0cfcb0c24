import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { failureLevel } from '../errors/failure-log.js';
import { toAppError } from '../errors/render.js';
import { seedToken, seedUser, startRelayTestEnv, type RelayTestEnv } from '../relay/testing/relay-fixtures.js';
import { routesOf } from '../test-support/route-walk.js';
import { isMjModePath, isRelayPath, protocolOfPath } from './caller-protocol.js';

let env: RelayTestEnv;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  env = await startRelayTestEnv({ LOG_LEVEL: 'info' }, { logDestination: { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) } });
});
afterAll(async () => {
  await env.close();
});

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const response = await request(`${env.gateway}${path}`, { method: method as 'GET', headers, body });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: JSON.parse(text) as Record<string, unknown> };
}

/** The log lines written while `run` ran. */
async function logged(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const from = logs.length;
  await run();
  return logs.slice(from);
}

const NO_STACK = (line: Record<string, unknown>) => line.err === undefined && !JSON.stringify(line).includes('    at ');

/**
 * The relay's routes in the OpenAI, Anthropic and Gemini formats, by path with their methods. The
 * task relays (/mj, /suno) answer every unknown path in their own clients' shapes.
 */
function relayPaths(): Map<string, Set<string>> {
  const paths = new Map<string, Set<string>>();
  for (const route of routesOf(env.test.app)) {
    if (!isRelayPath(route.path) || isMjModePath(route.path) || /^\/(mj|suno)\//.test(route.path)) continue;
    if (!paths.has(route.path)) paths.set(route.path, new Set());
    paths.get(route.path)!.add(route.method);
  }
  // A route that takes every method (the /v1/* catch-all) has none to refuse.
  for (const [path, methods] of paths) if (methods.has('GET') && methods.has('POST') && methods.has('DELETE')) paths.delete(path);
  return paths;
}

describe('a method a relay route does not take', () => {
  it('walks every relay route: another method answers 405 with Allow, in the path’s protocol shape', async () => {
    const paths = relayPaths();
    expect([...paths.keys()]).toEqual(
      expect.arrayContaining(['/v1/chat/completions', '/v1/messages', '/v1/embeddings', '/v1/images/generations', '/v1beta/models/*', '/pg/chat/completions']),
    );
    const failures: string[] = [];
    for (const [path, methods] of paths) {
      // Parameters and wildcards filled so that no route of another method serves the path.
      const concrete = path.replace(/:[A-Za-z_]\w*/g, 'x').replace(/\*/g, 'a/b');
      const method = methods.has('GET') ? 'DELETE' : 'GET';
      const answer = await call(method, concrete);
      const allow = String(answer.headers.allow ?? '').split(', ');
      const protocol = protocolOfPath(concrete);
      const shaped =
        protocol === 'anthropic'
          ? answer.body.type === 'error' && (answer.body.error as { type?: string }).type === 'invalid_request_error'
          : protocol === 'gemini'
            ? (answer.body.error as { code?: number; status?: string }).code === 405 && (answer.body.error as { status?: string }).status === 'UNIMPLEMENTED'
            : (answer.body.error as { code?: string } | undefined)?.code === 'method_not_allowed';
      if (answer.status !== 405 || ![...methods].every((allowed) => allow.includes(allowed)) || allow.includes(method) || !shaped) {
        failures.push(`${method} ${concrete}: ${answer.status} allow=${String(answer.headers.allow)} ${JSON.stringify(answer.body)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers GET /v1/chat/completions 405 with Allow: POST, logged at info without a stack', async () => {
    let answer: Awaited<ReturnType<typeof call>> | undefined;
    const lines = await logged(async () => (answer = await call('GET', '/v1/chat/completions?key=secret')));
    expect(answer!.status).toBe(405);
    expect(answer!.headers.allow).toBe('POST');
    expect(answer!.body).toEqual({
      error: { message: expect.stringContaining('POST'), type: 'invalid_request_error', param: null, code: 'method_not_allowed' },
    });
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, msg: 'request refused', status: 405, code: 'request:method_not_allowed', url: '/v1/chat/completions' }),
    ]);
    expect(lines.every(NO_STACK)).toBe(true);
    // The query (Gemini clients put their key there) stays out of the log.
    expect(JSON.stringify(lines)).not.toContain('secret');
  });

  it('still answers 501 for a /v1 path no route serves, logged as a warning without a stack', async () => {
    let answer: Awaited<ReturnType<typeof call>> | undefined;
    const lines = await logged(async () => (answer = await call('GET', '/v1/fine_tuning/jobs')));
    expect(answer!.status).toBe(501);
    expect(answer!.body).toMatchObject({ error: { code: 'api_not_implemented' } });
    expect(lines).toEqual([expect.objectContaining({ level: 40, status: 501, code: 'request:api_not_implemented' })]);
    expect(lines.every(NO_STACK)).toBe(true);
  });
});

describe('the level a failure is logged at', () => {
  it('logs a 503 without a channel as a warning and a refused key as info, neither with a stack', async () => {
    const user = await seedUser(env.context);
    const token = await seedToken(env.context, user.id);
    let noChannel: Awaited<ReturnType<typeof call>> | undefined;
    const lines = await logged(async () => {
      noChannel = await call(
        'POST',
        '/v1/chat/completions',
        { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
        JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      );
      await call('POST', '/v1/messages', { 'x-api-key': 'sk-nosuchkey', 'content-type': 'application/json' }, '{}');
    });
    expect(noChannel!.status).toBe(503);
    expect(noChannel!.body).toMatchObject({ error: { code: 'no_available_channel' } });
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, status: 503, code: 'channel:no_available_channel' }),
      expect.objectContaining({ level: 30, status: 401, code: 'auth:invalid_api_key' }),
    ]);
    expect(lines.every(NO_STACK)).toBe(true);
  });

  it('keeps a fault of our own at error, with its stack', async () => {
    const broken = vi.spyOn(env.context.options, 'string').mockImplementation(() => {
      throw new TypeError('options are broken');
    });
    let answer: Awaited<ReturnType<typeof call>> | undefined;
    const lines = await logged(async () => (answer = await call('GET', '/api/status')));
    broken.mockRestore();
    expect(answer!.status).toBe(500);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        msg: 'request failed',
        err: expect.objectContaining({ message: 'options are broken', stack: expect.stringContaining('TypeError') }),
      }),
    ]);
  });

  it('sorts errors by cause: our 500s are errors, other 5xx and upstream failures warnings, 4xx info', () => {
    expect(failureLevel(toAppError(new TypeError('x is undefined')))).toBe('error');
    expect(failureLevel(new AppError('rate_limit:check_failed', 'Redis failed', { status: 500 }))).toBe('error');
    expect(failureLevel(new AppError('upstream:server_error', 'the upstream failed', { status: 500 }))).toBe('warn');
    expect(failureLevel(new AppError('upstream:timeout', 'timed out', { status: 504 }))).toBe('warn');
    expect(failureLevel(new AppError('channel:no_available_channel', 'none', { status: 503 }))).toBe('warn');
    expect(failureLevel(new AppError('request:method_not_allowed', 'no', { status: 405 }))).toBe('info');
  });
});
