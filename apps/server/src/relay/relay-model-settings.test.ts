import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_RATIO } from '../config/default-prices.js';
import { startMockAnthropic, type MockAnthropic } from '../providers/anthropic/testing/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../providers/gemini/testing/mock-gemini.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * new-api's model settings doing what they do there, seen from the upstream: Claude's default
 * max_tokens, model headers and `-thinking` adapter; Gemini's safety settings, API versions and
 * `-thinking-<n>` / `-nothinking` adapter.
 */

const CLAUDE_KEY = 'sk-ant-settings-0123456789';
const GEMINI_KEY = 'AIza-settings-0123456789';
const claudeModel = unique('claude-opus');
const geminiModel = unique('gemini-pro');

describe('model settings through the relay', () => {
  let env: RelayTestEnv;
  let claude: MockAnthropic;
  let gemini: MockGemini;
  let client: OpenAI;
  let apiKey: string;
  let geminiChannel: number;

  beforeAll(async () => {
    env = await startRelayTestEnv();
    claude = await startMockAnthropic({ key: CLAUDE_KEY });
    gemini = await startMockGemini({ key: GEMINI_KEY });
    const group = unique('settings');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: 1 }));
    const claudeModels = [claudeModel, `${claudeModel}-thinking`];
    const geminiModels = [geminiModel, `${geminiModel}-thinking-2048`, `${geminiModel}-nothinking`, `${geminiModel}-thinking`];
    await setOption(
      env.context,
      'ModelRatio',
      JSON.stringify({ ...DEFAULT_MODEL_RATIO, ...Object.fromEntries([...claudeModels, ...geminiModels].map((model) => [model, 1])) }),
    );
    const user = await seedUser(env.context, { quota: 10_000_000, group });
    const token = await seedToken(env.context, user.id, { remainQuota: 5_000_000, unlimited: false });
    await seedChannel(env.context, { type: 14, key: CLAUDE_KEY, baseUrl: claude.url, models: claudeModels, groups: [group] });
    geminiChannel = await seedChannel(env.context, { type: 24, key: GEMINI_KEY, baseUrl: gemini.url, models: geminiModels, groups: [group] });
    apiKey = token.apiKey;
    client = new OpenAI({ apiKey: token.apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await claude?.close();
    await gemini?.close();
    await env?.close();
  });

  const ask = (model: string, extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) =>
    client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }], ...extra });

  it('fills in Claude’s max_tokens from claude.default_max_tokens, per model then default', async () => {
    await setOption(env.context, 'claude.default_max_tokens', JSON.stringify({ default: 2000, [claudeModel]: 1234 }));
    await ask(claudeModel);
    expect(claude.requests.at(-1)!.body).toMatchObject({ model: claudeModel, max_tokens: 1234 });
    await ask(claudeModel, { max_tokens: 77 });
    expect(claude.requests.at(-1)!.body).toMatchObject({ max_tokens: 77 });
    await setOption(env.context, 'claude.default_max_tokens', JSON.stringify({ default: 2000 }));
    await ask(claudeModel);
    expect(claude.requests.at(-1)!.body).toMatchObject({ max_tokens: 2000 });
    await setOption(env.context, 'claude.default_max_tokens', JSON.stringify({ default: 8192 }));
  });

  it('turns <model>-thinking into thinking with claude.thinking_adapter_budget_tokens_percentage of the cap', async () => {
    await setOption(env.context, 'claude.thinking_adapter_budget_tokens_percentage', 0.5);
    await ask(`${claudeModel}-thinking`, { max_tokens: 8000 });
    expect(claude.requests.at(-1)!.body).toMatchObject({ model: claudeModel, max_tokens: 8000, thinking: { type: 'enabled', budget_tokens: 4000 } });
    await setOption(env.context, 'claude.thinking_adapter_enabled', false);
    await ask(`${claudeModel}-thinking`, { max_tokens: 8000 });
    const sent = claude.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent.model).toBe(`${claudeModel}-thinking`);
    expect(sent.thinking).toBeUndefined();
    await setOption(env.context, 'claude.thinking_adapter_enabled', true);
    await setOption(env.context, 'claude.thinking_adapter_budget_tokens_percentage', 0.8);
  });

  it('adds claude.model_headers_settings after the client’s own values', async () => {
    await setOption(env.context, 'claude.model_headers_settings', JSON.stringify({ [claudeModel]: { 'anthropic-beta': ['context-1m-2025-08-07'] } }));
    await ask(claudeModel);
    expect(claude.requests.at(-1)!.headers['anthropic-beta']).toBe('context-1m-2025-08-07');
    const response = await fetch(`${env.gateway}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'prompt-caching-2024-07-31', 'content-type': 'application/json' },
      body: JSON.stringify({ model: claudeModel, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(claude.requests.at(-1)!.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31,context-1m-2025-08-07');
    await setOption(env.context, 'claude.model_headers_settings', '{}');
    await ask(claudeModel);
    expect(claude.requests.at(-1)!.headers['anthropic-beta']).toBeUndefined();
  });

  it('sends gemini.safety_settings per category, OFF by default', async () => {
    await ask(geminiModel);
    const categories = (gemini.requests.at(-1)!.body as { safetySettings: { category: string; threshold: string }[] }).safetySettings;
    expect(categories.length).toBeGreaterThanOrEqual(4);
    expect(categories.every((setting) => setting.threshold === 'OFF')).toBe(true);
    await setOption(env.context, 'gemini.safety_settings', JSON.stringify({ default: 'BLOCK_NONE', HARM_CATEGORY_HARASSMENT: 'BLOCK_ONLY_HIGH' }));
    await ask(geminiModel);
    const configured = (gemini.requests.at(-1)!.body as { safetySettings: { category: string; threshold: string }[] }).safetySettings;
    expect(configured).toContainEqual({ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_ONLY_HIGH' });
    expect(configured).toContainEqual({ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' });
    await setOption(env.context, 'gemini.safety_settings', JSON.stringify({ default: 'OFF' }));
  });

  it('calls the API version gemini.version_settings names for the model', async () => {
    await ask(geminiModel);
    expect(gemini.requests.at(-1)!.path).toBe(`/v1beta/models/${geminiModel}:generateContent`);
    const before = JSON.stringify(env.context.options.json('gemini.version_settings'));
    await setOption(env.context, 'gemini.version_settings', JSON.stringify({ default: 'v1beta', [geminiModel]: 'v1' }));
    await ask(geminiModel);
    expect(gemini.requests.at(-1)!.path).toBe(`/v1/models/${geminiModel}:generateContent`);
    await setOption(env.context, 'gemini.version_settings', before);
    // A channel's own default API version (its other field) comes first.
    await env.context.db.kysely.updateTable('channels').set({ other: 'v1' }).where('id', '=', geminiChannel).execute();
    env.context.changes.emit('channels');
    await expect
      .poll(async () => {
        await ask(geminiModel);
        return gemini.requests.at(-1)!.path;
      })
      .toBe(`/v1/models/${geminiModel}:generateContent`);
    await env.context.db.kysely.updateTable('channels').set({ other: '' }).where('id', '=', geminiChannel).execute();
    env.context.changes.emit('channels');
  });

  it('turns Gemini’s -thinking-<n>, -thinking and -nothinking into thinking budgets when the adapter is on', async () => {
    await setOption(env.context, 'gemini.thinking_adapter_enabled', true);
    await setOption(env.context, 'gemini.thinking_adapter_budget_tokens_percentage', 0.5);
    await ask(`${geminiModel}-thinking-2048`);
    expect(gemini.requests.at(-1)!.path).toBe(`/v1beta/models/${geminiModel}:generateContent`);
    expect(gemini.requests.at(-1)!.body).toMatchObject({ generationConfig: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } } });
    await ask(`${geminiModel}-thinking`, { max_tokens: 1000 });
    expect(gemini.requests.at(-1)!.body).toMatchObject({ generationConfig: { thinkingConfig: { thinkingBudget: 500 } } });
    await ask(`${geminiModel}-nothinking`);
    expect(gemini.requests.at(-1)!.body).toMatchObject({ generationConfig: { thinkingConfig: { thinkingBudget: 0, includeThoughts: false } } });
    await setOption(env.context, 'gemini.thinking_adapter_enabled', false);
    await ask(`${geminiModel}-thinking-2048`);
    expect(gemini.requests.at(-1)!.path).toBe(`/v1beta/models/${geminiModel}-thinking-2048:generateContent`);
  });
});
