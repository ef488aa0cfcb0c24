import { MAX_PAGE_SIZE } from '@modelgate/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PAGE, readPaging } from '../../lib/paging.js';
import { createFreshDb, type FreshDb } from '../../test-support/dialects.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

/** Every console list and search route, with the page-size names it reads. */
const LIST_ROUTES = [
  '/api/user/',
  '/api/user/search?keyword=r',
  '/api/token/',
  '/api/token/search?keyword=t',
  '/api/redemption/',
  '/api/redemption/search?keyword=c',
  '/api/channel/',
  '/api/channel/search?keyword=c',
  '/api/channel/?tag_mode=true',
];
const BAD_NUMBERS = ['1e308', '99999999999999999999', '9007199254740993', '-1', '-99999999999999999999', '0', 'NaN', 'Infinity', '1.5', 'abc', ''];

const withQuery = (route: string, query: string) => `${route}${route.includes('?') ? '&' : '?'}${query}`;

describe('readPaging', () => {
  it('keeps page and size inside what every database accepts as an offset', () => {
    for (const raw of BAD_NUMBERS) {
      const paging = readPaging({ p: raw, page_size: raw });
      expect(paging.page).toBeGreaterThanOrEqual(1);
      expect(paging.page).toBeLessThanOrEqual(MAX_PAGE);
      expect(paging.pageSize).toBeGreaterThanOrEqual(1);
      expect(paging.pageSize).toBeLessThanOrEqual(MAX_PAGE_SIZE);
      expect(Number.isSafeInteger(paging.offset)).toBe(true);
    }
    expect(readPaging({ p: '1e308', page_size: '1e308' })).toEqual({ page: MAX_PAGE, pageSize: MAX_PAGE_SIZE, offset: (MAX_PAGE - 1) * MAX_PAGE_SIZE });
    expect(readPaging({ p: '3', page_size: '20' })).toEqual({ page: 3, pageSize: 20, offset: 40 });
  });
});

let test: TestApp | undefined;
let fresh: FreshDb | undefined;
afterEach(async () => {
  await test?.close();
  await fresh?.drop();
  test = undefined;
  fresh = undefined;
});

async function seedOneOfEach(app: TestApp, headers: Record<string, string>) {
  const created = [
    await app.app.inject({
      method: 'POST',
      url: '/api/token/',
      headers,
      payload: { name: 'token', remain_quota: 10, unlimited_quota: true, expired_time: -1 },
    }),
    await app.app.inject({ method: 'POST', url: '/api/redemption/', headers, payload: { name: 'code', count: 1, quota: 10 } }),
    await app.app.inject({
      method: 'POST',
      url: '/api/channel/',
      headers,
      payload: { type: 1, name: 'channel', key: 'sk-x', group: 'default', models: 'gpt-4o', tag: 'tag' },
    }),
  ];
  for (const response of created) expect(response.json().success, response.body).toBe(true);
}

async function expectEveryListAnswers(app: TestApp, headers: Record<string, string>) {
  for (const route of LIST_ROUTES) {
    for (const raw of BAD_NUMBERS) {
      for (const query of [`p=${raw}`, `p=${raw}&page_size=${raw}`, `p=${raw}&size=${raw}`, `page_size=${raw}`]) {
        const url = withQuery(route, query);
        const response = await app.app.inject({ method: 'GET', url, headers });
        expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
        const body = response.json();
        expect(body.success, `${url}: ${body.message}`).toBe(true);
        expect(Array.isArray(body.data.items), url).toBe(true);
        expect(body.data.page_size).toBeLessThanOrEqual(MAX_PAGE_SIZE);
      }
    }
    // A page far past the end is an empty page, not an error.
    const far = (await app.app.inject({ method: 'GET', url: withQuery(route, 'p=1e308'), headers })).json();
    expect(far.data).toMatchObject({ items: [], page: MAX_PAGE });
  }
}

describe('list routes with absurd page numbers and sizes', () => {
  it('answer every value with a page on SQLite', async () => {
    test = await startTestApp();
    const root = await test.login();
    await seedOneOfEach(test, root);
    await expectEveryListAnswers(test, root);
  });

  it('answer on PostgreSQL too', async () => {
    fresh = await createFreshDb('postgres', { migrate: false });
    test = await startTestApp({ SQL_DSN: fresh.sqlDsn });
    const root = await test.login();
    await seedOneOfEach(test, root);
    const url = '/api/user/?p=99999999999999999999&page_size=1e308';
    const response = await test.app.inject({ method: 'GET', url, headers: root });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ success: true, data: { items: [], page: MAX_PAGE, page_size: MAX_PAGE_SIZE } });
    const channels = await test.app.inject({ method: 'GET', url: '/api/channel/?p=1e308&page_size=-5', headers: root });
    expect(channels.json()).toMatchObject({ success: true, data: { items: [] } });
  });
});
