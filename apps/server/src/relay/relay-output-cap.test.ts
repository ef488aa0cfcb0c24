import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockAnthropic, type MockAnthropic } from '../providers/anthropic/testing/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../providers/gemini/testing/mock-gemini.js';
import type { MockTurn } from '../providers/testing/mock-turn.js';
import { limitHonouringChat, sendJson, type UpstreamHandler } from './testing/mock-upstream.js';
import { priceModel, seedChannel, seedToken, seedUser, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * A call its payer's balance cannot pay for at its full output bound is sent upstream with the
 * output the balance does pay for, in the field each protocol uses, and the caller gets a whole,
 * well-formed answer in its own protocol (official clients), the cap in a response header and in
 * the log. The mock upstreams honour the limit they are sent, as the real APIs do.
 */

const CLAUDE_KEY = 'sk-ant-mock-key-cap-0123456789';
const GEMINI_KEY = 'AIza-mock-key-cap-0123456789';
/** What each upstream would answer unlimited. */
const LONG_ANSWER = 5_000;
/** A payer's balance: at ratio 1 and completion ratio 2 it pays for about 500 output tokens. */
const BALANCE = 1_000;

let env: RelayTestEnv;
let claude: MockAnthropic;
let gemini: MockGemini;

beforeAll(async () => {
  env = await startRelayTestEnv();
  claude = await startMockAnthropic({ key: CLAUDE_KEY });
  gemini = await startMockGemini({ key: GEMINI_KEY });
});
afterAll(async () => {
  await claude?.close();
  await gemini?.close();
  await env?.close();
});

/** A model no answer has taught a prompt margin, a channel of `type` serving it, and a payer of BALANCE. */
async function capCase(type: number, baseUrl: string, key: string) {
  const model = unique(type === 14 ? 'claude-cap' : type === 24 ? 'gemini-cap' : 'gpt-cap');
  await priceModel(env.context, model, 1, 2);
  const user = await seedUser(env.context, { quota: BALANCE });
  const token = await seedToken(env.context, user.id);
  const channelId = await seedChannel(env.context, { type, key, baseUrl, models: [model], groups: [user.group] });
  const ids = { userId: user.id, tokenId: token.id, channelIds: [channelId] };
  /** The call's log: charged its usage in full, within the balance, with the cap it was sent. */
  const billed = async (cap: number) => {
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs).toHaveLength(1);
    const log = after.logs[0]!;
    expect(Number(log.quota)).toBe(Number(log.prompt_tokens) + 2 * Number(log.completion_tokens));
    expect(Number(log.completion_tokens)).toBe(cap);
    expect([after.userUsed, BALANCE - after.userQuota]).toEqual([Number(log.quota), Number(log.quota)]);
    expect(after.userQuota).toBeGreaterThanOrEqual(0);
    const other = JSON.parse(log.other);
    expect(other.output_cap).toBe(cap);
    expect(other.admin_info.unpaid_quota ?? 0).toBe(0);
    expect(other.admin_info.overrun_quota ?? 0).toBe(0);
    expect(log.content).toContain(`输出上限降为 ${cap} tokens`);
    return log;
  };
  return { model, apiKey: token.apiKey, billed };
}

/** The header a capped answer carries, read from the raw response the official clients expose. */
const capOf = (headers: Headers): number => {
  const value = headers.get('x-modelgate-output-capped');
  expect(value).not.toBeNull();
  const cap = Number(value);
  // What BALANCE pays for beside the prompt, and at least MinCappedOutputTokens.
  expect(cap).toBeGreaterThanOrEqual(128);
  expect(cap).toBeLessThan(BALANCE / 2);
  return cap;
};

const openaiClient = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });

/** OpenAI's legacy completions and the Responses API, honouring max_tokens / max_output_tokens. */
const limitHonouringOpenAI = (): UpstreamHandler => {
  const chat = limitHonouringChat(() => ({ promptTokens: 8, completionTokens: LONG_ANSWER }));
  return (request, response) => {
    const json = request.json ?? {};
    if (request.url.endsWith('/chat/completions')) return chat(request, response);
    if (request.url.endsWith('/responses')) {
      const limit = typeof json.max_output_tokens === 'number' ? json.max_output_tokens : LONG_ANSWER;
      const generated = Math.min(limit, LONG_ANSWER);
      return sendJson(response, 200, {
        id: 'resp_cap',
        object: 'response',
        created_at: 1_700_000_000,
        model: json.model,
        status: generated < LONG_ANSWER ? 'incomplete' : 'completed',
        incomplete_details: generated < LONG_ANSWER ? { reason: 'max_output_tokens' } : null,
        output: [
          { type: 'message', id: 'msg_cap', status: 'incomplete', role: 'assistant', content: [{ type: 'output_text', text: 'words', annotations: [] }] },
        ],
        usage: { input_tokens: 8, output_tokens: generated, total_tokens: 8 + generated },
      });
    }
    const limit = typeof json.max_tokens === 'number' ? json.max_tokens : 16;
    const generated = Math.min(limit, LONG_ANSWER);
    return sendJson(response, 200, {
      id: 'cmpl-cap',
      object: 'text_completion',
      created: 1_700_000_000,
      model: json.model,
      choices: [{ text: 'words', index: 0, logprobs: null, finish_reason: generated < LONG_ANSWER ? 'length' : 'stop' }],
      usage: { prompt_tokens: 8, completion_tokens: generated, total_tokens: 8 + generated },
    });
  };
};

/** A Claude or Gemini turn cut at the limit the request names. */
const cutAt = (limit: unknown): MockTurn => {
  const generated = typeof limit === 'number' ? Math.min(limit, LONG_ANSWER) : LONG_ANSWER;
  return { text: 'words words', usage: { input: 8, output: generated }, stopReason: generated < LONG_ANSWER ? 'length' : 'stop' };
};

describe('a capped call on each protocol', () => {
  it.each([false, true])('OpenAI chat on an OpenAI channel: max_completion_tokens, finish_reason length (stream %s)', async (stream) => {
    env.upstream.respond(limitHonouringOpenAI());
    const { model, apiKey, billed } = await capCase(1, env.upstream.url, unique('openai-key'));
    const client = openaiClient(apiKey);
    let cap: number;
    if (stream) {
      const { data, response } = await client.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'Tell me everything.' }], stream: true, stream_options: { include_usage: true } })
        .withResponse();
      cap = capOf(response.headers);
      const finishes: string[] = [];
      for await (const chunk of data) for (const choice of chunk.choices) if (choice.finish_reason) finishes.push(choice.finish_reason);
      expect(finishes).toEqual(['length']);
    } else {
      const { data, response } = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Tell me everything.' }] }).withResponse();
      cap = capOf(response.headers);
      expect(data.choices[0]!.finish_reason).toBe('length');
      expect(data.usage?.completion_tokens).toBe(cap);
    }
    const sent = env.upstream.requests.at(-1)!.json!;
    expect(sent.max_completion_tokens).toBe(cap);
    expect(sent.max_tokens).toBeUndefined();
    await billed(cap);
  });

  it('OpenAI chat on a vendor that knows only max_tokens (DeepSeek), lowering the max_tokens the caller sent', async () => {
    env.upstream.respond(limitHonouringOpenAI());
    const { model, apiKey, billed } = await capCase(43, env.upstream.url, unique('deepseek-key'));
    const { data, response } = await openaiClient(apiKey)
      .chat.completions.create({ model, max_tokens: 4_000, messages: [{ role: 'user', content: 'Go on.' }] })
      .withResponse();
    const cap = capOf(response.headers);
    expect(data.choices[0]!.finish_reason).toBe('length');
    const sent = env.upstream.requests.at(-1)!.json!;
    expect([sent.max_tokens, sent.max_completion_tokens]).toEqual([cap, undefined]);
    await billed(cap);
  });

  it('OpenAI completions: max_tokens', async () => {
    env.upstream.respond(limitHonouringOpenAI());
    const { model, apiKey, billed } = await capCase(1, env.upstream.url, unique('openai-key'));
    const { data, response } = await openaiClient(apiKey).completions.create({ model, prompt: 'Once upon a time' }).withResponse();
    const cap = capOf(response.headers);
    expect(data.choices[0]!.finish_reason).toBe('length');
    expect(env.upstream.requests.at(-1)!.json!.max_tokens).toBe(cap);
    await billed(cap);
  });

  it('the Responses API: max_output_tokens, status incomplete', async () => {
    env.upstream.respond(limitHonouringOpenAI());
    const { model, apiKey, billed } = await capCase(1, env.upstream.url, unique('openai-key'));
    const { data, response } = await openaiClient(apiKey).responses.create({ model, input: 'Write a long story.' }).withResponse();
    const cap = capOf(response.headers);
    expect([data.status, data.incomplete_details?.reason, data.output_text]).toEqual(['incomplete', 'max_output_tokens', 'words']);
    expect(env.upstream.requests.at(-1)!.json!.max_output_tokens).toBe(cap);
    await billed(cap);
  });

  it.each([false, true])(
    'Anthropic messages on a Claude channel: max_tokens, stop_reason max_tokens, thinking kept inside the cap (stream %s)',
    async (stream) => {
      claude.setScript((body) => cutAt((body as { max_tokens?: unknown }).max_tokens));
      const { model, apiKey, billed } = await capCase(14, claude.url, CLAUDE_KEY);
      const client = new Anthropic({ apiKey, baseURL: env.gateway, maxRetries: 0 });
      const request = {
        model,
        max_tokens: 20_000,
        thinking: { type: 'enabled' as const, budget_tokens: 10_000 },
        messages: [{ role: 'user' as const, content: 'Think hard.' }],
      };
      let cap: number;
      if (stream) {
        const { data, response } = await client.messages.create({ ...request, stream: true }).withResponse();
        cap = capOf(response.headers);
        const stops: (string | null)[] = [];
        for await (const event of data) if (event.type === 'message_delta') stops.push(event.delta.stop_reason);
        expect(stops).toEqual(['max_tokens']);
      } else {
        const { data, response } = await client.messages.create(request).withResponse();
        cap = capOf(response.headers);
        expect([data.stop_reason, data.usage.output_tokens]).toEqual(['max_tokens', cap]);
      }
      const sent = claude.requests.at(-1)!.body as { max_tokens: number; thinking?: { budget_tokens: number } };
      expect(sent.max_tokens).toBe(cap);
      // Below twice Claude's smallest budget (1024) thinking cannot fit beside an answer: it is dropped.
      expect(sent.thinking).toBeUndefined();
      await billed(cap);
    },
  );

  it('Anthropic messages on an OpenAI channel: the converted request carries the cap', async () => {
    env.upstream.respond(limitHonouringOpenAI());
    const { model, apiKey, billed } = await capCase(1, env.upstream.url, unique('openai-key'));
    const client = new Anthropic({ apiKey, baseURL: env.gateway, maxRetries: 0 });
    const { data, response } = await client.messages.create({ model, max_tokens: 8_000, messages: [{ role: 'user', content: 'Go.' }] }).withResponse();
    const cap = capOf(response.headers);
    expect(data.stop_reason).toBe('max_tokens');
    expect(env.upstream.requests.at(-1)!.json!.max_completion_tokens).toBe(cap);
    await billed(cap);
  });

  it.each([false, true])(
    'Gemini generateContent on a Gemini channel: generationConfig.maxOutputTokens, finishReason MAX_TOKENS (stream %s)',
    async (stream) => {
      gemini.setScript((body) => cutAt((body as { generationConfig?: { maxOutputTokens?: unknown } }).generationConfig?.maxOutputTokens));
      const { model, apiKey, billed } = await capCase(24, gemini.url, GEMINI_KEY);
      const client = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: env.gateway } });
      const finishes: string[] = [];
      if (stream) {
        for await (const chunk of await client.models.generateContentStream({ model, contents: 'Write at length.' })) {
          for (const candidate of chunk.candidates ?? []) if (candidate.finishReason) finishes.push(candidate.finishReason);
        }
      } else {
        const answer = await client.models.generateContent({ model, contents: 'Write at length.' });
        finishes.push(String(answer.candidates?.[0]?.finishReason));
      }
      expect(finishes).toEqual(['MAX_TOKENS']);
      const sent = gemini.requests.at(-1)!.body as { generationConfig: { maxOutputTokens: number } };
      const cap = sent.generationConfig.maxOutputTokens;
      expect(cap).toBeGreaterThanOrEqual(128);
      expect(cap).toBeLessThan(BALANCE / 2);
      await billed(cap);
    },
  );

  it('a rich payer is never capped: the request goes upstream as the client sent it', async () => {
    env.upstream.respond(limitHonouringOpenAI());
    const { model } = await capCase(1, env.upstream.url, unique('openai-key'));
    const rich = await seedUser(env.context, { quota: 1_000_000_000 });
    const token = await seedToken(env.context, rich.id);
    await seedChannel(env.context, { key: unique('openai-key'), baseUrl: env.upstream.url, models: [model], groups: [rich.group] });
    const { data, response } = await openaiClient(token.apiKey)
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(response.headers.get('x-modelgate-output-capped')).toBeNull();
    expect(data.choices[0]!.finish_reason).toBe('stop');
    const sent = env.upstream.requests.at(-1)!.json!;
    expect([sent.max_tokens, sent.max_completion_tokens]).toEqual([undefined, undefined]);
  });

  it('refuses a call whose balance pays for less than MinCappedOutputTokens, and keeps /metrics’ unpaid alarm at 0', async () => {
    env.upstream.respond(limitHonouringOpenAI());
    const { model } = await capCase(1, env.upstream.url, unique('openai-key'));
    const poor = await seedUser(env.context, { quota: 200 });
    const token = await seedToken(env.context, poor.id);
    await seedChannel(env.context, { key: unique('openai-key'), baseUrl: env.upstream.url, models: [model], groups: [poor.group] });
    const error = await openaiClient(token.apiKey)
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(403);
    const metrics = await (await fetch(`${env.gateway}/metrics`)).text();
    expect(metrics).toMatch(/^modelgate_relay_unpaid_quota_total 0$/m);
    expect(metrics).toMatch(/^modelgate_relay_capped_calls_total [1-9]\d*$/m);
  });
});
