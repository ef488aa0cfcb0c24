import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test-support/test-app.js';
import { routesOf, type WalkedRoute } from '../test-support/route-walk.js';
import { apiTrailingSlash } from './trailing-slash.js';

/*
 * new-api (gin's RedirectTrailingSlash) serves every /api route with or without its trailing
 * slash; modelgate answers both forms directly. Walked on the routes Fastify holds, so a route
 * added tomorrow is held to it too. Routing does not touch the database: SQLite only.
 */

let test: TestApp;
let routes: WalkedRoute[];
let root: Record<string, string>;

const key = (route: WalkedRoute) => `${route.method} ${route.path}`;
const withParams = (path: string) => path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, '1');
const otherForm = (path: string) => (path.endsWith('/') ? path.slice(0, -1) : `${path}/`);

interface Answer {
  status: number;
  success: unknown;
  message: unknown;
  keys: string;
}

async function answer(options: InjectOptions): Promise<Answer> {
  const response = await test.app.inject(options);
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = response.json();
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (the payment provider's plain success / fail): compared by status alone.
  }
  return { status: response.statusCode, success: body.success, message: body.message, keys: Object.keys(body).sort().join(',') };
}

/** A route under test that ended the session (DELETE /api/user/self/sessions/1): a new one. */
async function renewSession(): Promise<void> {
  const alive = await test.app.inject({ method: 'GET', url: '/api/user/self', headers: root });
  if (alive.statusCode === 401) root = await test.login();
}

beforeAll(async () => {
  test = await startTestApp();
  routes = routesOf(test.app).filter((route) => route.path.startsWith('/api/'));
  root = await test.login();
});
afterAll(async () => test?.close());

describe('the trailing slash on /api', () => {
  it('each route is registered in one form only (the other is mapped to it)', () => {
    expect(routes.length).toBeGreaterThan(80);
    const keys = new Set(routes.map(key));
    const doubled = routes.filter((route) => keys.has(`${route.method} ${otherForm(route.path)}`)).map(key);
    expect(doubled).toEqual([]);
  });

  it('every route answers the same in both forms without a session: never a 404', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      const path = withParams(route.path);
      const payload = route.method === 'GET' ? {} : { payload: '{}', headers: { 'content-type': 'application/json' } };
      const registered = await answer({ method: route.method as InjectOptions['method'], url: path, ...payload });
      const other = await answer({ method: route.method as InjectOptions['method'], url: otherForm(path), ...payload });
      if (registered.status === 404 || other.status === 404) failures.push(`${key(route)}: 404 (${registered.status} / ${other.status})`);
      else if (registered.status !== other.status || registered.success !== other.success || registered.keys !== other.keys)
        failures.push(`${key(route)}: ${JSON.stringify(registered)} vs ${otherForm(path)} ${JSON.stringify(other)}`);
    }
    expect(failures).toEqual([]);
  });

  it('every route answers the same in both forms to the super administrator (reads as they are, writes with a body of the wrong shape)', async () => {
    const failures: string[] = [];
    const ending = new Set(['GET /api/user/logout']);
    for (const route of routes.filter((candidate) => !ending.has(key(candidate)))) {
      const path = withParams(route.path);
      const options = (url: string): InjectOptions =>
        route.method === 'GET'
          ? { method: 'GET', url, headers: root }
          : { method: route.method as InjectOptions['method'], url, headers: { ...root, 'content-type': 'application/json' }, payload: '["x"]' };
      const registered = await answer(options(path));
      await renewSession();
      const other = await answer(options(otherForm(path)));
      await renewSession();
      // A deletion done by the first call leaves nothing for the second (both forms delete: below).
      const sameOutcome = route.method === 'DELETE' || registered.success === other.success;
      if (registered.status === 404 || other.status === 404) failures.push(`${key(route)}: 404 (${registered.status} / ${other.status})`);
      else if (registered.status !== other.status || !sameOutcome || registered.keys !== other.keys)
        failures.push(`${key(route)}: ${JSON.stringify(registered)} vs ${otherForm(path)} ${JSON.stringify(other)}`);
    }
    expect(failures).toEqual([]);
  });

  it('GET /api/data/self/ answers the user’s own usage, like /api/data/self', async () => {
    const range = '?start_timestamp=1700000000&end_timestamp=1700086400';
    const withSlash = await test.app.inject({ method: 'GET', url: `/api/data/self/${range}`, headers: root });
    const without = await test.app.inject({ method: 'GET', url: `/api/data/self${range}`, headers: root });
    expect(withSlash.statusCode).toBe(200);
    expect(withSlash.json()).toMatchObject({ success: true, data: expect.any(Array) });
    expect(withSlash.json()).toEqual(without.json());
  });

  it('a route registered with its slash (/api/token/) answers without it, the query string kept', async () => {
    for (const name of ['slash-a', 'slash-b', 'slash-c']) {
      const created = await test.app.inject({ method: 'POST', url: '/api/token', headers: root, payload: { name, remain_quota: 1, expired_time: -1 } });
      expect(created.json(), name).toMatchObject({ success: true });
    }
    const page = await test.app.inject({ method: 'GET', url: '/api/token?p=1&page_size=2', headers: root });
    expect(page.statusCode).toBe(200);
    const data = page.json().data as { items: { id: number; name: string }[]; total: number; page_size: number };
    expect(data.page_size).toBe(2);
    expect(data.items).toHaveLength(2);
    expect(data.total).toBeGreaterThanOrEqual(3);
  });

  it('a route registered without its slash (DELETE /api/token/:id) deletes in both forms', async () => {
    const listed = await test.app.inject({ method: 'GET', url: '/api/token/?p=1&page_size=100', headers: root });
    const ids = (listed.json().data.items as { id: number; name: string }[]).filter((token) => token.name.startsWith('slash-')).map((token) => token.id);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const [first, second] = ids as [number, number];
    expect((await test.app.inject({ method: 'DELETE', url: `/api/token/${first}/`, headers: root })).json()).toMatchObject({ success: true });
    expect((await test.app.inject({ method: 'DELETE', url: `/api/token/${second}`, headers: root })).json()).toMatchObject({ success: true });
    for (const id of [first, second]) {
      expect((await test.app.inject({ method: 'GET', url: `/api/token/${id}`, headers: root })).json(), String(id)).toMatchObject({ success: false });
    }
  });

  it('an unknown /api path is still 404 in either form, naming the path asked for', async () => {
    for (const url of ['/api/no_such_route', '/api/no_such_route/', '/api/', '/api/token/1/nothing/']) {
      const response = await test.app.inject({ method: 'GET', url, headers: root });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toMatchObject({ success: false, message: `接口不存在：GET ${url}` });
    }
  });

  it('another method on a path is not mapped to a route of that path: still 404', async () => {
    // GET /api/data/self exists; PATCH does not, with or without the slash.
    for (const url of ['/api/data/self', '/api/data/self/']) {
      const response = await test.app.inject({ method: 'PATCH', url, headers: root });
      expect(response.statusCode, url).toBe(404);
    }
  });

  it('leaves paths outside /api as they are, so the relay pays one prefix test', () => {
    const rewrite = (method: string, url: string) => apiTrailingSlash.call(test.app, { method, url } as never);
    expect(rewrite('POST', '/v1/chat/completions/')).toBe('/v1/chat/completions/');
    expect(rewrite('GET', '/token/')).toBe('/token/');
    expect(rewrite('GET', '/api/log/self/?p=2')).toBe('/api/log/self?p=2');
    expect(rewrite('GET', '/api/channel?p=2')).toBe('/api/channel/?p=2');
    expect(rewrite('GET', '/api/log/self?p=2')).toBe('/api/log/self?p=2');
    // An empty parameter is no match: /api/channel/test/ is /api/channel/test (test every channel).
    expect(rewrite('GET', '/api/channel/test/')).toBe('/api/channel/test');
    expect(rewrite('GET', '/api/channel/test/5/')).toBe('/api/channel/test/5');
  });
});
