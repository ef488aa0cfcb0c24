import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeQuotaData } from '../../domain/usage/quota-data-export.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

let test: TestApp;
let root: Record<string, string>;
let alice: Record<string, string>;
let aliceId = 0;
let bobId = 0;
const HOUR = 1_700_002_800; // a whole hour
const DAY = 86_400;

async function registerAndLogin(username: string) {
  await test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
  const headers = await test.login(username, 'password123');
  return { headers, id: Number(headers['new-api-user']) };
}

beforeAll(async () => {
  test = await startTestApp();
  root = await test.login();
  const a = await registerAndLogin('alice');
  const b = await registerAndLogin('bob');
  alice = a.headers;
  aliceId = a.id;
  bobId = b.id;
  // Written as the usage export writes them (quota_data and its per-model sums).
  const row = (userId: number, username: string, modelName: string, createdAt: number, count: number) => ({
    userId,
    username,
    modelName,
    createdAt,
    tokenUsed: count * 100,
    count,
    quota: count * 1000,
  });
  await writeQuotaData(test.context.db, [
    row(aliceId, 'alice', 'gpt-4o', HOUR, 2),
    row(aliceId, 'alice', 'gpt-4o-mini', HOUR, 1),
    row(aliceId, 'alice', 'gpt-4o', HOUR - 40 * DAY, 9),
    row(bobId, 'bob', 'gpt-4o', HOUR, 5),
  ]);
});
afterAll(async () => test.close());

const get = async (url: string, headers: Record<string, string>) => {
  const response = await test.app.inject({ method: 'GET', url, headers });
  return { status: response.statusCode, body: response.json() };
};

describe('GET /api/data/self', () => {
  it('gives a user its own hourly rows in the range, never another user’s', async () => {
    const { status, body } = await get(`/api/data/self?start_timestamp=${HOUR - DAY}&end_timestamp=${HOUR + DAY}`, alice);
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.data.map((item: { model_name: string; count: number; user_id: number }) => [item.user_id, item.model_name, item.count])).toEqual([
      [aliceId, 'gpt-4o', 2],
      [aliceId, 'gpt-4o-mini', 1],
    ]);
    expect(body.data[0]).toEqual({
      id: expect.any(Number),
      user_id: aliceId,
      username: 'alice',
      model_name: 'gpt-4o',
      created_at: HOUR,
      token_used: 200,
      count: 2,
      quota: 2000,
    });
  });

  it('refuses a span longer than 30 days with a clear message, and accepts exactly 30', async () => {
    const tooLong = await get(`/api/data/self?start_timestamp=${HOUR - 30 * DAY - 1}&end_timestamp=${HOUR}`, alice);
    expect(tooLong).toEqual({ status: 200, body: { success: false, message: '时间跨度不能超过 1 个月' } });
    expect((await get(`/api/data/self?start_timestamp=${HOUR - 30 * DAY}&end_timestamp=${HOUR}`, alice)).body.success).toBe(true);
  });

  it('answers a missing or malformed timestamp with success:false', async () => {
    expect((await get(`/api/data/self?end_timestamp=${HOUR}`, alice)).body).toEqual({ success: false, message: 'start_timestamp 格式错误' });
    expect((await get(`/api/data/self?start_timestamp=1&end_timestamp=abc`, alice)).body).toEqual({ success: false, message: 'end_timestamp 格式错误' });
  });

  it('needs a session', async () => {
    expect((await get(`/api/data/self?start_timestamp=0&end_timestamp=1`, {})).status).toBe(401);
  });
});

describe('GET /api/data/', () => {
  it('sums every user per model and hour for an administrator, or lists one user’s rows', async () => {
    const all = await get(`/api/data/?start_timestamp=${HOUR - DAY}&end_timestamp=${HOUR + DAY}`, root);
    expect(all.body.data).toEqual([
      { id: 0, user_id: 0, username: '', model_name: 'gpt-4o', created_at: HOUR, token_used: 700, count: 7, quota: 7000 },
      { id: 0, user_id: 0, username: '', model_name: 'gpt-4o-mini', created_at: HOUR, token_used: 100, count: 1, quota: 1000 },
    ]);
    const bob = await get(`/api/data/?username=bob&start_timestamp=${HOUR - DAY}&end_timestamp=${HOUR + DAY}`, root);
    expect(bob.body.data).toEqual([expect.objectContaining({ user_id: bobId, username: 'bob', model_name: 'gpt-4o', count: 5 })]);
    // Admins are not held to the 30-day span.
    expect((await get(`/api/data/?start_timestamp=0&end_timestamp=${HOUR + DAY}`, root)).body.data).toHaveLength(3);
  });

  it('is refused to a normal user', async () => {
    const refused = await get(`/api/data/?start_timestamp=0&end_timestamp=${HOUR + DAY}`, alice);
    expect(refused.body.success).toBe(false);
    expect(refused.body.data).toBeUndefined();
  });
});
