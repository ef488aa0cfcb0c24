import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/users/password.js';
import { chatCompletionBody, sendJson } from '../../relay/testing/mock-upstream.js';
import { seedChannel, seedToken, seedUser, startRelayTestEnv, unique, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

let env: RelayTestEnv;

beforeAll(async () => {
  // Flushes only when the test asks: the balances below are read while charges are unwritten.
  env = await startRelayTestEnv({ BATCH_UPDATE_INTERVAL: '3600' });
});
afterAll(async () => {
  await env.close();
});

const get = async (headers: Record<string, string>, url: string) => (await env.test.app.inject({ method: 'GET', url, headers })).json();

describe('balances in the console while the relay holds leases', () => {
  it('shows what the user and the token can still spend, before and after the flush', async () => {
    const user = await seedUser(env.context, { quota: 10_000_000 });
    await env.context.db.kysely
      .updateTable('users')
      .set({ password: await hashPassword('balance-pass') })
      .where('id', '=', user.id)
      .execute();
    const token = await seedToken(env.context, user.id, { remainQuota: 2_000_000, unlimited: false });
    await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [user.group] });
    env.upstream.respond((_request, response) =>
      sendJson(response, 200, chatCompletionBody('ok', { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 })),
    );
    const perCall = Math.round(0.075 * (1000 + 1000 * 4));
    for (let call = 0; call < 3; call += 1) {
      const response = await request(`${env.gateway}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50_000 }),
      });
      expect(response.statusCode).toBe(200);
      await response.body.text();
    }
    // The relay took more than three calls' worth into its lease: the columns alone read low.
    const column = await env.context.db.kysely.selectFrom('users').select('quota').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(10_000_000 - Number(column.quota)).toBeGreaterThan(3 * perCall);

    const headers = await env.test.login(user.username, 'balance-pass');
    const root = await env.test.login();
    const expectShown = async () => {
      expect((await get(headers, '/api/user/self')).data).toMatchObject({ quota: 10_000_000 - 3 * perCall, used_quota: 3 * perCall });
      const listed = (await get(root, `/api/user/search?keyword=${user.username}`)).data.items[0];
      expect(listed).toMatchObject({ id: user.id, quota: 10_000_000 - 3 * perCall, used_quota: 3 * perCall });
      expect((await get(root, `/api/user/${user.id}`)).data).toMatchObject({ quota: 10_000_000 - 3 * perCall });
      const tokens = (await get(headers, '/api/token/?p=0&size=10')).data.items;
      expect(tokens.find((row: { id: number }) => row.id === token.id)).toMatchObject({ remain_quota: 2_000_000 - 3 * perCall, used_quota: 3 * perCall });
      expect((await get(headers, `/api/token/${token.id}`)).data).toMatchObject({ remain_quota: 2_000_000 - 3 * perCall });
    };
    await expectShown();
    await env.runtime.flush();
    await expectShown();
    await env.runtime.drain();
    await expectShown();
  });
});
