import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../domain/users/password.js';
import { chatChunk, chatStream } from './testing/mock-upstream.js';
import { seedChannel, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

let env: RelayTestEnv;
const PASSWORD = 'playground-pass';
const VIP_RATIO = 2;
let vipGroup = '';
let closedGroup = '';

beforeAll(async () => {
  env = await startRelayTestEnv();
  vipGroup = unique('vip');
  closedGroup = unique('closed');
  await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [vipGroup]: VIP_RATIO, [closedGroup]: 1 }));
  await setOption(env.context, 'UserUsableGroups', JSON.stringify({ default: '默认分组', [vipGroup]: 'VIP' }));
});
afterEach(() => env.upstream.respond());
afterAll(async () => {
  await env.close();
});

/** A signed-in user with a channel in its own group (and, if asked, in another); its console headers. */
async function signedInUser(options: { quota?: number; alsoIn?: string } = {}) {
  const user = await seedUser(env.context, { quota: options.quota ?? 100_000_000 });
  await env.context.db.kysely
    .updateTable('users')
    .set({ password: await hashPassword(PASSWORD) })
    .where('id', '=', user.id)
    .execute();
  const groups = options.alsoIn ? [user.group, options.alsoIn] : [user.group];
  const channelId = await seedChannel(env.context, { key: unique('key'), baseUrl: env.upstream.url, models: ['gpt-4o-mini'], groups });
  const headers = await env.test.login(user.username, PASSWORD);
  return { user, channelId, headers };
}

async function playground(headers: Record<string, string>, body: Record<string, unknown>) {
  const response = await request(`${env.gateway}/pg/chat/completions`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, contentType: String(response.headers['content-type']), text: await response.body.text() };
}

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 0.7, ...extra });

async function userRow(id: number) {
  const db = env.context.db.kysely;
  const user = await db.selectFrom('users').select(['quota', 'used_quota', 'request_count']).where('id', '=', id).executeTakeFirstOrThrow();
  const logs = await db.selectFrom('logs').selectAll().where('user_id', '=', id).where('type', '=', 2).orderBy('id').execute();
  return { quota: Number(user.quota), used: Number(user.used_quota), requests: Number(user.request_count), logs };
}

describe('POST /pg/chat/completions', () => {
  it('streams a reply to the signed-in user and bills the user alone, logged as playground-<group>', async () => {
    const { user, channelId, headers } = await signedInUser();
    const usage = { prompt_tokens: 20, completion_tokens: 30, total_tokens: 50 };
    env.upstream.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(chatStream(['Hello', ' there'], true, usage));
    });
    const reply = await playground(headers, chat({ stream: true, group: user.group, max_tokens: 0 }));
    expect(reply.status).toBe(200);
    expect(reply.contentType).toContain('text/event-stream');
    const contents = reply.text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => (JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '')
      .join('');
    expect(contents).toBe('Hello there');
    expect(reply.text.trimEnd().endsWith('data: [DONE]')).toBe(true);

    // The console's fields stay here: no group, and max_tokens 0 means "unset".
    const forwarded = env.upstream.requests.at(-1)!.json!;
    expect(forwarded).not.toHaveProperty('group');
    expect(forwarded).not.toHaveProperty('max_tokens');
    expect(forwarded).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.7, stream: true });

    await env.runtime.drain();
    const expected = Math.round(0.075 * (20 + 30 * 4));
    const after = await userRow(user.id);
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0]).toMatchObject({
      token_name: `playground-${user.group}`,
      group: user.group,
      model_name: 'gpt-4o-mini',
      channel_id: channelId,
      is_stream: 1,
    });
    expect(Number(after.logs[0]!.token_id)).toBe(0);
    expect(Number(after.logs[0]!.quota)).toBe(expected);
    expect([100_000_000 - after.quota, after.used, after.requests]).toEqual([expected, expected, 1]);
  });

  it('serves a group the user may use at that group’s ratio, and refuses one it may not', async () => {
    const { user, headers } = await signedInUser({ alsoIn: vipGroup });
    env.upstream.respond();
    const reply = await playground(headers, chat({ group: vipGroup }));
    expect(reply.status).toBe(200);
    await env.runtime.drain();
    const after = await userRow(user.id);
    expect(after.logs[0]).toMatchObject({ token_name: `playground-${vipGroup}`, group: vipGroup });
    // The mock's default usage: 11 prompt, 7 completion tokens.
    expect(Number(after.logs[0]!.quota)).toBe(Math.round(VIP_RATIO * 0.075 * (11 + 7 * 4)));

    const refused = await playground(headers, chat({ group: closedGroup }));
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ error: { message: expect.stringContaining(closedGroup) } });
    const wrongType = await playground(headers, chat({ group: 7 }));
    expect(wrongType.status).toBe(400);
    expect(JSON.parse(wrongType.text).error.message).toContain('group');
  });

  it('needs the console session: no cookie, a wrong New-Api-User and an access token are refused', async () => {
    const { user, headers } = await signedInUser();
    const requestsBefore = env.upstream.requests.length;
    const anonymous = await playground({}, chat());
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text)).toHaveProperty('error.message');
    expect((await playground({ ...headers, 'new-api-user': String(user.id + 1) }, chat())).status).toBe(401);

    await env.context.db.kysely
      .updateTable('users')
      .set({ access_token: `pgtoken${user.id}x` })
      .where('id', '=', user.id)
      .execute();
    const withAccessToken = await playground({ authorization: `pgtoken${user.id}x`, 'new-api-user': String(user.id) }, chat());
    expect(withAccessToken.status).toBe(401);
    expect(JSON.parse(withAccessToken.text).error.message).toContain('access token');
    expect(env.upstream.requests.length).toBe(requestsBefore);
  });

  it('refuses a user who cannot pay, charging nothing', async () => {
    const { user, headers } = await signedInUser({ quota: 10 });
    const reply = await playground(headers, chat({ max_tokens: 1000 }));
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text).error.message).toContain('额度不足');
    await env.runtime.drain();
    const after = await userRow(user.id);
    expect([after.quota, after.used, after.logs.length]).toEqual([10, 0, 0]);
  });

  it('stops the upstream when the console stops the reply, and bills what was generated', async () => {
    const { user, headers } = await signedInUser();
    const abortedBefore = env.upstream.abortedResponses;
    env.upstream.respond((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chatChunk({ content: 'Once upon' }));
      response.write(chatChunk({ content: ' a time' }));
      const more = setInterval(() => response.write(': still thinking\n\n'), 50);
      response.on('close', () => clearInterval(more));
    });
    const response = await request(`${env.gateway}/pg/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(chat({ stream: true })),
    });
    let received = '';
    for await (const part of response.body) {
      received += String(part);
      if (received.includes(' a time')) break;
    }
    await expect.poll(() => env.upstream.abortedResponses, { timeout: 5000 }).toBe(abortedBefore + 1);
    await env.runtime.drain();
    const after = await userRow(user.id);
    const promptTokens = 3 + countTokens('hi') + 3;
    const completion = countTokens('Once upon a time');
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0]).toMatchObject({ completion_tokens: completion, token_name: `playground-${user.group}` });
    expect(after.used).toBe(Math.round(0.075 * (promptTokens + completion * 4)));
  });
});
