import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockAnthropic, type MockAnthropic } from '../providers/anthropic/testing/mock-anthropic.js';
import { priceModel, seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * What reaches the upstream besides the body: an agent's session headers when the upstream speaks
 * the agent's own format (Claude Code's x-claude-code-session-id to Claude, Codex's session_id and
 * originator to OpenAI's Responses API), none of them once the call is converted, and a channel's
 * header_override (a fixed value, the channel key through {api_key}, the client's value through
 * {client}) over the adaptor's own. The channel API refuses an override it could not apply.
 */

const CLAUDE_KEY = 'sk-ant-mock-key-headers';

describe('headers to the upstream', () => {
  let env: RelayTestEnv;
  let claude: MockAnthropic;
  let apiKey: string;
  const claudeModel = unique('claude-headers');
  const openaiModel = unique('gpt-headers');
  const overriddenModel = unique('gpt-override');
  const overriddenClaude = unique('claude-override');
  const overrideKey = unique('override-key');

  beforeAll(async () => {
    env = await startRelayTestEnv();
    claude = await startMockAnthropic({ key: CLAUDE_KEY });
    const group = unique('headers');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: 1 }));
    for (const model of [claudeModel, openaiModel, overriddenModel, overriddenClaude]) await priceModel(env.context, model, 1, 1);
    const user = await seedUser(env.context, { quota: 10_000_000, group });
    apiKey = (await seedToken(env.context, user.id)).apiKey;
    await seedChannel(env.context, { type: 14, key: CLAUDE_KEY, baseUrl: claude.url, models: [claudeModel], groups: [group] });
    await seedChannel(env.context, { type: 1, key: unique('openai-key'), baseUrl: env.upstream.url, models: [openaiModel], groups: [group] });
    const override = JSON.stringify({ 'X-Proxy-Key': 'proxy-{api_key}', 'User-Agent': 'modelgate-test/1.0', 'X-Trace-Id': '{client}' });
    const overridden = await seedChannel(env.context, { type: 1, key: overrideKey, baseUrl: env.upstream.url, models: [overriddenModel], groups: [group] });
    await env.context.db.kysely.updateTable('channels').set({ header_override: override }).where('id', '=', overridden).execute();
    const claudeOverride = JSON.stringify({ 'anthropic-version': '2099-01-01' });
    await seedChannel(env.context, { type: 14, key: CLAUDE_KEY, baseUrl: claude.url, models: [overriddenClaude], groups: [group], name: 'claude-override' });
    await env.context.db.kysely.updateTable('channels').set({ header_override: claudeOverride }).where('name', '=', 'claude-override').execute();
    env.context.changes.emit('channels');
  });
  afterAll(async () => {
    await claude?.close();
    await env?.close();
  });

  const post = (path: string, body: object, headers: Record<string, string>) =>
    fetch(`${env.gateway}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...headers },
      body: JSON.stringify(body),
    });

  const claudeCodeHeaders = { 'anthropic-version': '2023-06-01', 'x-claude-code-session-id': 'session-claude-1', 'x-app': 'cli' };
  const codexHeaders = { session_id: 'session-codex-1', originator: 'codex_cli_rs', 'x-client-request-id': 'request-7' };

  it("passes Claude Code's session headers to a Claude channel, and not to an OpenAI one it is converted for", async () => {
    const body = { max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
    expect((await post('/v1/messages', { ...body, model: claudeModel }, claudeCodeHeaders)).status).toBe(200);
    const sent = claude.requests.at(-1)!.headers;
    expect([sent['x-claude-code-session-id'], sent['x-app'], sent['anthropic-version']]).toEqual(['session-claude-1', 'cli', '2023-06-01']);

    expect((await post('/v1/messages', { ...body, model: openaiModel }, claudeCodeHeaders)).status).toBe(200);
    const converted = env.upstream.requests.at(-1)!;
    expect(converted.url).toBe('/v1/chat/completions');
    expect(converted.headers['x-claude-code-session-id']).toBeUndefined();
    expect(converted.headers['anthropic-version']).toBeUndefined();
  });

  it("passes Codex's session headers to OpenAI's Responses API, and not to a Claude channel it is converted for", async () => {
    expect((await post('/v1/responses', { model: openaiModel, input: 'hi' }, codexHeaders)).status).toBe(200);
    const sent = env.upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/responses');
    expect([sent.headers.session_id, sent.headers.originator, sent.headers['x-client-request-id']]).toEqual(['session-codex-1', 'codex_cli_rs', 'request-7']);

    expect((await post('/v1/responses', { model: claudeModel, input: 'hi' }, codexHeaders)).status).toBe(200);
    const converted = claude.requests.at(-1)!.headers;
    expect(converted.session_id).toBeUndefined();
    expect(converted.originator).toBeUndefined();
  });

  it("sets a channel's header_override over the adaptor's headers: a value, the key, the client's own value", async () => {
    const response = await post('/v1/chat/completions', { model: overriddenModel, messages: [{ role: 'user', content: 'hi' }] }, { 'x-trace-id': 'trace-42' });
    expect(response.status).toBe(200);
    const sent = env.upstream.requests.at(-1)!.headers;
    expect(sent['x-proxy-key']).toBe(`proxy-${overrideKey}`);
    expect(sent['user-agent']).toBe('modelgate-test/1.0');
    expect(sent['x-trace-id']).toBe('trace-42');
    expect(sent.authorization).toBe(`Bearer ${overrideKey}`);

    // Without the client's header, a {client} entry sends nothing.
    await post('/v1/chat/completions', { model: overriddenModel, messages: [{ role: 'user', content: 'hi' }] }, {});
    expect(env.upstream.requests.at(-1)!.headers['x-trace-id']).toBeUndefined();

    await post('/v1/messages', { model: overriddenClaude, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }, claudeCodeHeaders);
    expect(claude.requests.at(-1)!.headers['anthropic-version']).toBe('2099-01-01');
  });

  it('refuses a header_override it could not apply, saying why', async () => {
    const root = await env.test.login();
    const create = async (header_override: string) => {
      const response = await env.test.app.inject({
        method: 'POST',
        url: '/api/channel/',
        headers: root,
        payload: { type: 1, name: unique('bad-override'), key: 'sk-x', groups: ['default'], models: 'gpt-4o', header_override },
      });
      return response.json() as { success: boolean; message: string };
    };
    expect(await create('{"Host": "evil.example"}')).toMatchObject({ success: false, message: expect.stringContaining('Host') });
    expect(await create('{"Bad Name": "x"}')).toMatchObject({ success: false, message: expect.stringContaining('Bad Name') });
    expect(await create('{"X-Count": 3}')).toMatchObject({ success: false, message: expect.stringContaining('X-Count') });
    expect(await create('["X-A"]')).toMatchObject({ success: false, message: expect.stringContaining('JSON') });
    expect(await create('{"X-Proxy-Key": "{api_key}"}')).toMatchObject({ success: true });
  });
});
