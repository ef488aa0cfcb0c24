import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletionBody, sendJson } from '../../relay/testing/mock-upstream.js';
import { seedChannel, seedToken, startRelayTestEnv, totals, unique, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

let env: RelayTestEnv;
beforeAll(async () => {
  env = await startRelayTestEnv();
});
afterAll(async () => env.close());

async function chat(apiKey: string, model: string) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

describe('accept_unset_model_ratio_model (PUT /api/user/setting)', () => {
  it('lets that user, and only that user, call a model nobody priced, billed at the self-use ratio 37.5', async () => {
    const model = unique('unpriced');
    const group = unique('g');
    const users: { id: number; headers: Record<string, string>; apiKey: string; tokenId: number }[] = [];
    for (const name of ['accepts', 'refuses']) {
      const username = unique(name).slice(0, 12);
      await env.test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
      const db = env.context.db.kysely;
      await db.updateTable('users').set({ group }).where('username', '=', username).execute();
      const headers = await env.test.login(username, 'password123');
      const id = Number(headers['new-api-user']);
      const token = await seedToken(env.context, id);
      users.push({ id, headers, apiKey: token.apiKey, tokenId: token.id });
    }
    const [accepting, other] = users as [(typeof users)[0], (typeof users)[0]];
    await env.context.db.kysely.updateTable('users').set({ quota: 1_000_000 }).where('id', 'in', [accepting.id, other.id]).execute();
    const channelId = await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: [model], groups: [group] });
    env.upstream.respond((_request, response) =>
      sendJson(response, 200, chatCompletionBody('ok', { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 })),
    );

    const refused = await chat(accepting.apiKey, model);
    expect(refused.status).not.toBe(200);
    expect(JSON.parse(refused.text).error.message).toContain(`模型 ${model} 的倍率或价格未设置`);

    const saved = await env.test.app.inject({
      method: 'PUT',
      url: '/api/user/setting',
      headers: accepting.headers,
      payload: { notify_type: 'email', quota_warning_threshold: 0, accept_unset_model_ratio_model: true },
    });
    expect(saved.json()).toEqual({ success: true, message: '设置已更新' });

    expect((await chat(accepting.apiKey, model)).status).toBe(200);
    expect((await chat(other.apiKey, model)).status).not.toBe(200);
    await env.runtime.flush();
    const after = await totals(env.context, { userId: accepting.id, tokenId: accepting.tokenId, channelIds: [channelId] });
    // round(groupRatio 1 × 37.5 × (10 + 4 × completionRatio 1))
    expect(after.logs.map((log) => Number(log.quota))).toEqual([525]);

    // Switched off again: refused again.
    await env.test.app.inject({
      method: 'PUT',
      url: '/api/user/setting',
      headers: accepting.headers,
      payload: { notify_type: 'email', quota_warning_threshold: 0, accept_unset_model_ratio_model: false },
    });
    expect((await chat(accepting.apiKey, model)).status).not.toBe(200);
  });
});

describe('record_ip_log (PUT /api/user/setting)', () => {
  it('writes the caller’s IP into that user’s consume logs only once they ask for it', async () => {
    const username = unique('ip').slice(0, 12);
    await env.test.app.inject({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
    const group = unique('g');
    await env.context.db.kysely.updateTable('users').set({ group, quota: 1_000_000 }).where('username', '=', username).execute();
    const headers = await env.test.login(username, 'password123');
    const userId = Number(headers['new-api-user']);
    const token = await seedToken(env.context, userId);
    await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups: [group] });
    env.upstream.respond((_request, response) => sendJson(response, 200, chatCompletionBody('ok')));
    const logIps = async () => {
      await env.runtime.flush();
      const rows = await env.context.db.kysely.selectFrom('logs').select('ip').where('user_id', '=', userId).where('type', '=', 2).orderBy('id').execute();
      return rows.map((row) => row.ip);
    };

    expect((await chat(token.apiKey, 'gpt-4o-mini')).status).toBe(200);
    expect(await logIps()).toEqual(['']);

    const saved = await env.test.app.inject({ method: 'PUT', url: '/api/user/setting', headers, payload: { notify_type: 'email', record_ip_log: true } });
    expect(saved.json().success).toBe(true);
    expect((await chat(token.apiKey, 'gpt-4o-mini')).status).toBe(200);
    expect(await logIps()).toEqual(['', '127.0.0.1']);
    // The user reads it in their own log list too.
    const listed = (await env.test.app.inject({ method: 'GET', url: '/api/log/self?type=2', headers })).json();
    expect(listed.data.items.map((log: { ip: string }) => log.ip)).toContain('127.0.0.1');
  });
});
