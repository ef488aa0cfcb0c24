import { ChannelStatus } from '@modelgate/contract';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMockAnthropic } from '../../providers/anthropic/testing/mock-anthropic.js';
import { startMockBedrock } from '../../providers/aws-bedrock/testing/mock-bedrock.js';
import { startMockCohere } from '../../providers/cohere/testing/mock-cohere.js';
import { startMockGemini } from '../../providers/gemini/testing/mock-gemini.js';
import type { MockFailure, MockRequestRecord, MockScript } from '../../providers/testing/mock-turn.js';
import { VERTEX_KNOWN_MODELS } from '../../providers/vertex/vertex-models.js';
import { startMockVertex } from '../../providers/vertex/testing/mock-vertex.js';
import { seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

/**
 * The native channel types (Claude 14, Gemini 24, AWS Claude 33, Cohere 34, Vertex AI 41) as an
 * administrator works with them: channels created through the console API pointing at mock
 * upstreams over real HTTP, tested (获取耗时, a refused key reported without the key and, with
 * AutomaticDisableChannelEnabled, the channel disabled with its reason), their model lists
 * fetched, and relayed calls that meet an overloaded upstream or a refused key served by the
 * other channel of the model and billed once.
 */

/** One mock upstream of a type, with a key it takes and one it refuses. */
interface Site {
  url: string;
  requests: MockRequestRecord[];
  setScript(script: MockScript): void;
  close(): Promise<void>;
  key: string;
  wrongKey: string;
  /** What of the wrong key must never appear in an answer or a reason. */
  secret: string;
  /** The upstream's own words for the wrong key. */
  refusal: string;
  other?: string;
}

interface Kind {
  label: string;
  type: number;
  model: string;
  /** What fetch_models answers for a channel of this type. */
  listed: readonly string[];
  /** The passing trouble the first channel answers with. */
  overload: MockFailure;
  start(): Promise<Site>;
}

const KINDS: Kind[] = [
  {
    label: 'Claude',
    type: 14,
    model: 'claude-sonnet-4-20250514',
    listed: ['claude-opus-4-20250514', 'claude-3-5-haiku-20241022'],
    // https://docs.anthropic.com/en/api/errors: 529 overloaded_error.
    overload: { status: 529, message: 'Overloaded' },
    async start() {
      const key = 'sk-ant-api03-goodKeyForNativeOps';
      const mock = await startMockAnthropic({ key, models: ['claude-opus-4-20250514', 'claude-3-5-haiku-20241022'] });
      const wrongKey = 'sk-ant-api03-wrongKeyMustNotLeak7';
      return { ...mock, key, wrongKey, secret: 'wrongKeyMustNotLeak7', refusal: 'invalid x-api-key' };
    },
  },
  {
    label: 'Gemini',
    type: 24,
    model: 'gemini-2.5-flash',
    listed: ['gemini-2.5-flash', 'gemini-2.0-flash-lite'],
    // https://ai.google.dev/gemini-api/docs/troubleshooting: 429 RESOURCE_EXHAUSTED.
    overload: { status: 429, message: 'Resource has been exhausted (e.g. check quota).' },
    async start() {
      const key = 'AIzaSyGoodKeyForNativeOps000000';
      const mock = await startMockGemini({ key, models: ['gemini-2.5-flash', 'gemini-2.0-flash-lite'] });
      return { ...mock, key, wrongKey: 'AIzaSyWrongKeyMustNotLeak777777', secret: 'WrongKeyMustNotLeak', refusal: 'API key not valid' };
    },
  },
  {
    label: 'Cohere',
    type: 34,
    model: 'command-a-03-2025',
    listed: ['command-a-03-2025', 'command-r7b-12-2024'],
    // https://docs.cohere.com/reference/errors: 429 too many requests.
    overload: { status: 429, message: 'You are using a Trial key, which is limited to 20 API calls / minute.' },
    async start() {
      const key = 'co-goodKeyForNativeOps0000';
      const mock = await startMockCohere({ key });
      return { ...mock, key, wrongKey: 'co-wrongKeyMustNotLeak777', secret: 'wrongKeyMustNotLeak', refusal: 'invalid api token' };
    },
  },
  {
    label: 'AWS Claude',
    type: 33,
    model: 'claude-sonnet-4-20250514',
    listed: ['anthropic.claude-3-5-sonnet-20241022-v2:0', 'anthropic.claude-3-7-sonnet-20250219-v1:0', 'anthropic.claude-sonnet-4-20250514-v1:0'],
    overload: { status: 529, message: 'Overloaded' },
    async start() {
      const [accessKeyId, secretAccessKey, region] = ['AKIAMOCKNATIVEOPS001', 'goodSecretForNativeOps0000000000000000000', 'us-east-1'];
      const mock = await startMockBedrock({ accessKeyId, secretAccessKey, region });
      return {
        ...mock,
        key: `${accessKeyId}|${secretAccessKey}|${region}`,
        wrongKey: `${accessKeyId}|wrongSecretMustNotLeak00000000000000000000|${region}`,
        secret: 'wrongSecretMustNotLeak',
        refusal: 'The request signature we calculated does not match',
      };
    },
  },
  {
    label: 'Vertex AI',
    type: 41,
    model: 'gemini-2.5-flash',
    listed: VERTEX_KNOWN_MODELS,
    overload: { status: 429, message: 'Resource exhausted. Please try again later.' },
    async start() {
      const mock = await startMockVertex({ projectId: unique('vertex-project') });
      const account = JSON.parse(mock.serviceAccountKey) as Record<string, string>;
      // The account is not allowed in another project: Vertex answers 403 PERMISSION_DENIED.
      const wrongKey = JSON.stringify({ ...account, project_id: 'someone-elses-project' });
      const secret = account.private_key!.split('\n')[5]!;
      return {
        ...mock,
        key: mock.serviceAccountKey,
        wrongKey,
        secret,
        refusal: 'Permission denied on resource project someone-elses-project',
        other: 'us-central1',
      };
    },
  },
];

let env: RelayTestEnv;
let admin: Record<string, string>;
const sites: Site[] = [];
const restore: [string, string][] = [];

beforeAll(async () => {
  env = await startRelayTestEnv();
  admin = await env.test.login();
  for (const key of ['ModelRatio', 'RetryTimes', 'AutomaticDisableChannelEnabled'] as const) restore.push([key, env.context.options.raw(key)]);
  const ratios = JSON.parse(env.context.options.raw('ModelRatio') || '{}') as Record<string, number>;
  for (const kind of KINDS) ratios[kind.model] = 1;
  await setOption(env.context, 'ModelRatio', JSON.stringify(ratios));
  await setOption(env.context, 'RetryTimes', 1);
});
afterEach(async () => setOption(env.context, 'AutomaticDisableChannelEnabled', false));
afterAll(async () => {
  for (const [key, value] of restore) await setOption(env.context, key, value);
  await Promise.all(sites.map((site) => site.close()));
  await env.close();
});

async function site(kind: Kind): Promise<Site> {
  const started = await kind.start();
  sites.push(started);
  return started;
}

const console_ = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const response = await env.test.app.inject({ method, url, headers: admin, ...(payload ? { payload } : {}) });
  return { body: response.json(), raw: response.body };
};

/** A channel saved as the console saves one: {mode, channel}. */
async function createChannel(kind: Kind, at: Site, fields: { key?: string; group?: string; priority?: number } = {}): Promise<number> {
  const channel = {
    type: kind.type,
    name: unique(kind.label.replace(/\s/g, '-')),
    key: fields.key ?? at.key,
    base_url: at.url,
    other: at.other ?? '',
    models: kind.model,
    group: fields.group ?? 'default',
    priority: fields.priority ?? 0,
    auto_ban: 1,
  };
  const { body } = await console_('POST', '/api/channel/', { mode: 'single', channel });
  expect(body.success, body.message).toBe(true);
  return body.data.id;
}

const channel = async (id: number) =>
  (await console_('GET', `/api/channel/${id}`)).body.data as { status: number; other_info: string; test_time: number; response_time: number };

async function chat(apiKey: string, model: string, stream = false) {
  const response = await request(`${env.gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 64, stream }),
  });
  const text = await response.body.text();
  if (!stream || response.statusCode !== 200) return { status: response.statusCode, text, content: JSON.parse(text).choices?.[0]?.message?.content as unknown };
  // An OpenAI stream: the text is the deltas' content, and it ends with [DONE].
  const events = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6));
  expect(events.at(-1)).toBe('[DONE]');
  const content = events
    .slice(0, -1)
    .map((event) => JSON.parse(event).choices?.[0]?.delta?.content ?? '')
    .join('');
  return { status: response.statusCode, text, content };
}

/** Two channels of a type serving one model in a group of their own; the first gets priority. */
async function pair(kind: Kind, firstKey?: 'wrong') {
  const [first, second] = [await site(kind), await site(kind)];
  const user = await seedUser(env.context, { group: unique('native-ops') });
  const token = await seedToken(env.context, user.id, { remainQuota: 1_000_000, unlimited: false });
  const firstId = await createChannel(kind, first, { group: user.group, priority: 10, key: firstKey === 'wrong' ? first.wrongKey : first.key });
  const secondId = await createChannel(kind, second, { group: user.group, priority: 0 });
  second.setScript(() => ({ text: `served by the second ${kind.label} channel`, usage: { input: 20, output: 7 } }));
  return { first, second, firstId, secondId, user, token };
}

/** One log, and the user, the token and the serving channel moved by its amount. */
async function expectBilledOnce(ids: { userId: number; tokenId: number }, failedChannel: number, servingChannel: number) {
  await env.runtime.drain();
  const after = await totals(env.context, { ...ids, channelIds: [failedChannel, servingChannel] });
  expect(after.logs).toHaveLength(1);
  const charged = after.logQuotaSum;
  expect(charged).toBeGreaterThan(0);
  expect(Number(after.logs[0]!.channel_id)).toBe(servingChannel);
  expect([after.userUsed, after.tokenUsed, 1_000_000 - after.tokenRemain, after.channelUsed.get(servingChannel)]).toEqual([charged, charged, charged, charged]);
  expect(after.channelUsed.get(failedChannel)).toBe(0);
}

describe.each(KINDS)('$label channels (type $type)', (kind) => {
  it('tests a channel: a time when the key works; the upstream’s refusal without the key, and status 3 with AutomaticDisableChannelEnabled', async () => {
    const at = await site(kind);
    const good = await createChannel(kind, at);
    const passed = await console_('GET', `/api/channel/test/${good}`);
    expect(passed.body, passed.raw).toMatchObject({ success: true, message: '' });
    expect(passed.body.time).toBeGreaterThanOrEqual(0);
    expect((await channel(good)).test_time).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(at.requests.length).toBeGreaterThan(0);

    const wrong = await createChannel(kind, at, { key: at.wrongKey });
    const refused = await console_('GET', `/api/channel/test/${wrong}`);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toContain(at.refusal);
    expect(refused.raw).not.toContain(at.secret);
    expect((await channel(wrong)).status).toBe(ChannelStatus.Enabled);

    await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
    expect((await console_('GET', `/api/channel/test/${wrong}`)).body.success).toBe(false);
    const disabled = await channel(wrong);
    expect(disabled.status).toBe(ChannelStatus.AutoDisabled);
    expect(JSON.parse(disabled.other_info).status_reason).toContain(at.refusal);
    expect(disabled.other_info).not.toContain(at.secret);
    expect((await channel(good)).status).toBe(ChannelStatus.Enabled);
  });

  it('fetches the upstream’s model list for a saved channel and for one being filled in', async () => {
    const at = await site(kind);
    const id = await createChannel(kind, at);
    expect((await console_('GET', `/api/channel/fetch_models/${id}`)).body).toEqual({ success: true, message: '', data: [...kind.listed] });
    const unsaved = await console_('POST', '/api/channel/fetch_models', { type: kind.type, base_url: at.url, key: at.key });
    expect(unsaved.body).toEqual({ success: true, message: '', data: [...kind.listed] });
    if (kind.type === 41) return; // Vertex lists the models this version knows, without a call.
    const refused = await console_('POST', '/api/channel/fetch_models', { type: kind.type, base_url: at.url, key: at.wrongKey });
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toMatch(/^获取模型列表失败：上游返回状态码 40[013]/);
    expect(refused.body.message).toContain(at.refusal);
    expect(refused.raw).not.toContain(at.secret);
  });

  it.each([false, true])(`serves a call (stream: %s) on the second channel when the first answers ${kind.overload.status}, billed once`, async (stream) => {
    const { first, second, firstId, secondId, user, token } = await pair(kind);
    first.setScript(() => kind.overload);
    const answer = await chat(token.apiKey, kind.model, stream);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.content).toBe(`served by the second ${kind.label} channel`);
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);
    await expectBilledOnce({ userId: user.id, tokenId: token.id }, firstId, secondId);
    // A passing overload leaves the channel enabled.
    expect((await channel(firstId)).status).toBe(ChannelStatus.Enabled);
  });

  it('disables a channel whose key the upstream refuses and serves the call on the other, billed once', async () => {
    await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
    const { first, firstId, secondId, user, token } = await pair(kind, 'wrong');
    const answer = await chat(token.apiKey, kind.model);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.content).toBe(`served by the second ${kind.label} channel`);
    expect(answer.text).not.toContain(first.secret);
    await expect.poll(async () => (await channel(firstId)).status).toBe(ChannelStatus.AutoDisabled);
    const reason = JSON.parse((await channel(firstId)).other_info).status_reason as string;
    expect(reason).toContain(first.refusal);
    expect(reason).not.toContain(first.secret);
    await expectBilledOnce({ userId: user.id, tokenId: token.id }, firstId, secondId);
  });
});

describe('refusals particular to a provider', () => {
  it('Gemini: a 403 PERMISSION_DENIED (a suspended project) disables the channel; the call is served by the other', async () => {
    await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
    const gemini = KINDS.find((kind) => kind.type === 24)!;
    const { first, firstId, secondId, user, token } = await pair(gemini);
    const denial = "Permission denied: Consumer 'api_key:AIzaSy' has been suspended.";
    first.setScript(() => ({ status: 403, message: denial }));
    expect((await chat(token.apiKey, gemini.model)).content).toBe('served by the second Gemini channel');
    await expect.poll(async () => (await channel(firstId)).status).toBe(ChannelStatus.AutoDisabled);
    expect(JSON.parse((await channel(firstId)).other_info).status_reason).toContain(denial);
    await expectBilledOnce({ userId: user.id, tokenId: token.id }, firstId, secondId);
  });

  it('Vertex AI: a service-account key Google’s token endpoint refuses is reported without the key, disables the channel, and a call passes to the other channel', async () => {
    const vertex = KINDS.find((kind) => kind.type === 41)!;
    const { first, second, firstId, secondId, user, token } = await pair(vertex);
    // The same account signed with a key Google does not know (deleted, or pasted from another account).
    const stranger = await startMockVertex({ projectId: 'stranger' });
    const strangerKey = (JSON.parse(stranger.serviceAccountKey) as Record<string, string>).private_key!;
    await stranger.close();
    const unknownKey = JSON.stringify({ ...(JSON.parse(first.key) as Record<string, string>), private_key: strangerKey });
    const updated = await env.test.app.inject({ method: 'PUT', url: '/api/channel/', headers: admin, payload: { id: firstId, key: unknownKey } });
    expect(updated.json().success, updated.body).toBe(true);

    const refused = await console_('GET', `/api/channel/test/${firstId}`);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toContain('invalid_grant: Invalid JWT Signature.');
    expect(refused.raw).not.toContain(strangerKey.split('\n')[5]);
    // Without AutomaticDisableChannelEnabled the test only reports; with it, a refused key disables as a rejected API key does.
    expect((await channel(firstId)).status).toBe(ChannelStatus.Enabled);
    await setOption(env.context, 'AutomaticDisableChannelEnabled', true);

    const answer = await chat(token.apiKey, vertex.model);
    expect(answer.content).toBe('served by the second Vertex AI channel');
    expect(answer.text).not.toContain(strangerKey.split('\n')[5]);
    expect(first.requests).toHaveLength(0);
    expect(second.requests).toHaveLength(1);
    await expect.poll(async () => (await channel(firstId)).status).toBe(ChannelStatus.AutoDisabled);
    expect(JSON.parse((await channel(firstId)).other_info).status_reason).toContain('invalid_grant');
    await expectBilledOnce({ userId: user.id, tokenId: token.id }, firstId, secondId);
  });

  it('AWS Claude: a key without its region never reaches AWS, disables the channel, and the call passes to the other', async () => {
    await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
    const bedrock = KINDS.find((kind) => kind.type === 33)!;
    const { first, firstId, secondId, user, token } = await pair(bedrock);
    const updated = await env.test.app.inject({
      method: 'PUT',
      url: '/api/channel/',
      headers: admin,
      payload: { id: firstId, key: 'AKIDONLYNOREGION|not-a-secret-at-all' },
    });
    expect(updated.json().success, updated.body).toBe(true);
    const answer = await chat(token.apiKey, bedrock.model);
    expect(answer.content).toBe('served by the second AWS Claude channel');
    expect(answer.text).not.toContain('not-a-secret-at-all');
    expect(first.requests).toHaveLength(0);
    await expect.poll(async () => (await channel(firstId)).status).toBe(ChannelStatus.AutoDisabled);
    const reason = JSON.parse((await channel(firstId)).other_info).status_reason as string;
    expect(reason).toContain('AccessKeyId|SecretAccessKey|Region');
    expect(reason).not.toContain('not-a-secret-at-all');
    await expectBilledOnce({ userId: user.id, tokenId: token.id }, firstId, secondId);
  });
});
