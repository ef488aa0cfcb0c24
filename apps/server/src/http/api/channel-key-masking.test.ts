import { ChannelStatus } from '@modelgate/contract';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskKey } from '../../lib/mask-secrets.js';
import { sendJson } from '../../relay/testing/mock-upstream.js';
import { seedToken, seedUser, setOption, startRelayTestEnv, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

/**
 * An upstream that refuses every key and quotes it in full, as OpenAI-style upstreams do
 * ("Incorrect API key provided: sk-..."): no answer of ours may carry any line of the channel's key.
 */
let env: RelayTestEnv;
let admin: Record<string, string>;

// One key of OpenAI's shape and two that no pattern would recognise (Azure-style hex, a vendor's own).
const KEYS = ['sk-proj-EchoedKey0123456789abcdefXYZ', '0123456789abcdef0123456789abcdef', 'vendor.Key_With-Mixed.Chars42'];
const KEY_FIELD = KEYS.join('\n');

const leaks = (text: string) => KEYS.filter((key) => text.includes(key) || text.includes(key.slice(0, 20)));

beforeAll(async () => {
  env = await startRelayTestEnv();
  admin = await env.test.login();
  await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
  env.upstream.respond((recorded, response) => {
    sendJson(response, 401, {
      error: {
        message: `Incorrect API key provided: ${recorded.key}. You can find your API key at https://platform.openai.com.`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    });
  });
});
afterAll(async () => env.close());

const callConsole = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const response = await env.test.app.inject({ method, url, headers: admin, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, raw: response.body, body: response.json() as { success: boolean; message: string } };
};

async function createChannel(name: string, model = 'gpt-4o-mini'): Promise<number> {
  const { body } = await callConsole('POST', '/api/channel/', {
    type: 1,
    name,
    key: KEY_FIELD,
    base_url: env.upstream.url,
    group: 'default',
    models: model,
  });
  expect(body.success, body.message).toBe(true);
  return (body as unknown as { data: { id: number } }).data.id;
}

describe('an upstream that echoes the channel key', () => {
  it('the channel test, balance and model-list answers do not carry it', async () => {
    const id = await createChannel('echo-console');
    const answers = [
      await callConsole('GET', `/api/channel/test/${id}`),
      await callConsole('GET', `/api/channel/update_balance/${id}`),
      await callConsole('GET', `/api/channel/fetch_models/${id}`),
      await callConsole('POST', '/api/channel/fetch_models', { type: 1, base_url: env.upstream.url, key: KEYS[2] }),
    ];
    for (const answer of answers) {
      expect(answer.body.success).toBe(false);
      expect(answer.status).toBe(200);
      expect(answer.body.message).toContain('Incorrect API key provided: ');
      expect(leaks(answer.raw), answer.raw).toEqual([]);
    }
    // The admin can still tell which key the upstream refused.
    expect(answers[3]!.body.message).toContain(maskKey(KEYS[2]!));
  });

  it('the relay’s error body and the stored status reason do not carry it', async () => {
    const id = await createChannel('echo-relay', 'gpt-4o');
    const user = await seedUser(env.context, { group: 'default' });
    const token = await seedToken(env.context, user.id);
    const response = await request(`${env.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.body.text();
    expect(response.statusCode, text).toBe(401);
    expect(JSON.parse(text)).toMatchObject({ error: { message: expect.stringContaining('Incorrect API key provided: '), code: 'invalid_api_key' } });
    expect(leaks(text), text).toEqual([]);

    // The key was refused, so the channel was disabled with the upstream's words as its reason.
    const stored = await waitFor(async () => {
      const row = await env.context.db.kysely.selectFrom('channels').select(['status', 'other_info']).where('id', '=', id).executeTakeFirstOrThrow();
      return Number(row.status) === ChannelStatus.AutoDisabled ? row : undefined;
    });
    expect(stored.other_info).toContain('Incorrect API key provided: ');
    expect(leaks(stored.other_info)).toEqual([]);
    const listed = await callConsole('GET', '/api/channel/?p=1&page_size=100');
    expect(leaks(listed.raw)).toEqual([]);
  });

  it('a status reason stored before reasons were masked is masked when read', async () => {
    const id = await createChannel('echo-old-reason');
    const oldReason = JSON.stringify({ status_reason: `Incorrect API key provided: ${KEYS[1]} (HTTP 401)`, status_time: 1 });
    await env.context.db.kysely.updateTable('channels').set({ other_info: oldReason }).where('id', '=', id).execute();
    const read = await callConsole('GET', `/api/channel/${id}`);
    expect(read.raw).toContain('Incorrect API key provided: ');
    expect(leaks(read.raw)).toEqual([]);
  });
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
