import { ChannelType } from '@modelgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTION_DEFINITIONS, type OptionDefinition, type OptionKey } from '../../config/option-registry.js';
import { routesOf } from '../../test-support/route-walk.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

/**
 * Issue 28: no route answers a channel's key or another administrator secret without a fresh
 * verification. Every GET route of the console is called as the super administrator (the most
 * any caller can see) with a channel and every secret option holding a known value, and no answer
 * may carry one of them; the one route that reads a key does so only after POST /api/verify.
 */
const CHANNEL_KEY = 'sk-exposure-channel-key-0123456789abcdef';
const secretOptions = (Object.keys(OPTION_DEFINITIONS) as OptionKey[]).filter((key) => (OPTION_DEFINITIONS[key] as OptionDefinition).secret);
const secretValue = (key: string) => `secret-${key.replace(/\W/g, '-')}-value-7f3a9c`;

let test: TestApp;
let root: Record<string, string>;
let channelId: number;

beforeAll(async () => {
  test = await startTestApp();
  root = await test.login();
  const created = await test.app.inject({
    method: 'POST',
    url: '/api/channel/',
    headers: root,
    payload: {
      mode: 'single',
      channel: { name: 'exposed', type: ChannelType.OpenAI, key: CHANNEL_KEY, models: 'gpt-4o', group: 'default', base_url: 'http://127.0.0.1:9' },
    },
  });
  expect(created.json()).toMatchObject({ success: true });
  channelId = Number((await test.context.db.kysely.selectFrom('channels').select('id').where('name', '=', 'exposed').executeTakeFirstOrThrow()).id);
  for (const key of secretOptions) {
    const put = await test.app.inject({ method: 'PUT', url: '/api/option/', headers: root, payload: { key, value: secretValue(key) } });
    expect(put.json(), key).toMatchObject({ success: true });
  }
});
afterAll(() => test.close());

const leaks = (body: string) => [CHANNEL_KEY, ...secretOptions.map(secretValue)].filter((secret) => body.includes(secret));

describe('secrets stay on the server', () => {
  it('there are secret options to hide', () => {
    expect(secretOptions).toEqual(expect.arrayContaining(['SMTPToken', 'GitHubClientSecret', 'oidc.client_secret', 'EpayKey']));
  });

  it('no GET route of the console answers a channel key or a secret option, even to root', async () => {
    const found: string[] = [];
    let called = 0;
    for (const route of routesOf(test.app)) {
      if (route.method !== 'GET' || !route.path.startsWith('/api/') || route.path === '/api/user/logout') continue;
      const url = route.path.replace(/:[a-z_]+/g, String(channelId)).replace(/\*$/, '');
      const answer = await test.app.inject({ method: 'GET', url, headers: root });
      called += 1;
      const leaked = leaks(answer.body);
      if (leaked.length > 0) found.push(`GET ${route.path}: ${leaked.join(', ')}`);
    }
    expect(called).toBeGreaterThan(40);
    expect(found).toEqual([]);
  });

  it("answers the channel's key only after a fresh verification", async () => {
    const before = await test.app.inject({ method: 'POST', url: `/api/channel/${channelId}/key`, headers: root });
    expect(leaks(before.body)).toEqual([]);
    expect(before.json()).toMatchObject({ success: false, code: 'VERIFICATION_REQUIRED' });
    const verify = await test.app.inject({ method: 'POST', url: '/api/verify', headers: root, payload: { method: 'password', password: '123456' } });
    expect(verify.json()).toMatchObject({ success: true });
    const after = await test.app.inject({ method: 'POST', url: `/api/channel/${channelId}/key`, headers: root });
    expect(after.json()).toMatchObject({ success: true, data: { key: CHANNEL_KEY } });
  });
});
