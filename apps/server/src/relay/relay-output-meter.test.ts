import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import type { ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockAnthropic, type MockAnthropic } from '../providers/anthropic/testing/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../providers/gemini/testing/mock-gemini.js';
import type { MockTurn } from '../providers/testing/mock-turn.js';
import { chatChunk, usageChunk, type UpstreamHandler } from './testing/mock-upstream.js';
import { priceModel, seedChannel, seedToken, seedUser, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';
import { countTextTokens } from './token-counter.js';

/**
 * Upstreams that IGNORE the output limit a capped call is sent with (completion-cap.ts) and stream
 * on: the relay meters the stream (output-meter.ts) and ends it at the cap in the caller's own
 * protocol (official clients), aborts the upstream request and bills what was delivered, within
 * the reservation, with no overrun. An uncapped stream is not touched.
 */

const CLAUDE_KEY = 'sk-ant-mock-key-meter-0123456789';
const GEMINI_KEY = 'AIza-mock-key-meter-0123456789';
/** What each upstream streams, whatever limit it is sent: 5,000 tokens of " word" (one o200k token each). */
const LONG_ANSWER = 5_000;
const WORD = ' word';
/** A payer's balance: at ratio 1 and completion ratio 2 it pays for about 500 output tokens. */
const BALANCE = 1_000;
/**
 * How far below the cap the billed completion may fall: the meter fills the budget to the token
 * with o200k-counted text, and a count the upstream reports (Gemini) moves in steps of its chunks.
 */
const TOLERANCE = 4;

let env: RelayTestEnv;
let claude: MockAnthropic;
let gemini: MockGemini;
/** Each settlement's reservation and the quota charged against it. */
const settles: { held: number; charged: number }[] = [];

beforeAll(async () => {
  env = await startRelayTestEnv();
  claude = await startMockAnthropic({ key: CLAUDE_KEY });
  gemini = await startMockGemini({ key: GEMINI_KEY });
  const { charges } = env.runtime;
  const settle = charges.settle.bind(charges);
  charges.settle = (reservation, actual, channelId) => {
    settles.push({ held: reservation.held, charged: actual });
    return settle(reservation, actual, channelId);
  };
});
afterAll(async () => {
  await claude?.close();
  await gemini?.close();
  await env?.close();
});
beforeEach(() => {
  settles.length = 0;
});

/** A model no answer has taught a prompt margin, a channel of `type` serving it, and a payer of `balance`. */
async function meterCase(type: number, baseUrl: string, key: string, balance = BALANCE) {
  const model = unique(type === 14 ? 'claude-meter' : type === 24 ? 'gemini-meter' : 'gpt-meter');
  await priceModel(env.context, model, 1, 2);
  const user = await seedUser(env.context, { quota: balance });
  const token = await seedToken(env.context, user.id);
  const channelId = await seedChannel(env.context, { type, key, baseUrl, models: [model], groups: [user.group] });
  const ids = { userId: user.id, tokenId: token.id, channelIds: [channelId] };
  /**
   * The call's log once settled: the completion billed is what was metered, at most the cap and
   * within TOLERANCE of it, agreeing with the text the client got (`upstreamTokensPerToken`: how
   * many tokens the upstream's own count gives an o200k token); the charge is within what the call
   * was held for, and nothing is an overrun or unpaid.
   */
  const billed = async (cap: number, delivered: string, reportedCompletion?: number, upstreamTokensPerToken = 1) => {
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs).toHaveLength(1);
    const log = after.logs[0]!;
    const completion = Number(log.completion_tokens);
    expect(completion).toBeLessThanOrEqual(cap);
    expect(completion).toBeGreaterThanOrEqual(cap - TOLERANCE);
    // The text delivered, counted as billing counts text: the metered figure, give or take the
    // token an upstream's own count (Anthropic's message_start) adds, or the piece cut by our
    // count where the upstream's count passed the cap.
    const deliveredTokens = await countTextTokens([delivered]);
    expect(Math.abs(deliveredTokens * upstreamTokensPerToken - completion)).toBeLessThanOrEqual(upstreamTokensPerToken === 1 ? 1 : TOLERANCE);
    if (reportedCompletion !== undefined) expect(reportedCompletion).toBe(completion);
    expect(Number(log.quota)).toBe(Number(log.prompt_tokens) + 2 * completion);
    expect([after.userUsed, balance - after.userQuota]).toEqual([Number(log.quota), Number(log.quota)]);
    expect(settles).toHaveLength(1);
    const { held, charged } = settles[0]!;
    expect(charged).toBe(Number(log.quota));
    expect(charged).toBeLessThanOrEqual(held);
    const other = JSON.parse(log.other);
    expect(other.output_cap).toBe(cap);
    expect(other.admin_info.output_cut).toBe(true);
    expect(other.admin_info.unpaid_quota ?? 0).toBe(0);
    expect(other.admin_info.overrun_quota ?? 0).toBe(0);
    expect(env.runtime.metrics.overrunQuota.get(channelId) ?? 0).toBe(0);
    // The channel that ignored its limit is flagged for admins, with nothing uncharged.
    expect(env.runtime.metrics.cutCalls.get(channelId)).toBe(1);
    await expect
      .poll(async () => {
        const channel = await env.context.db.kysely.selectFrom('channels').select('other_info').where('id', '=', channelId).executeTakeFirstOrThrow();
        const info = JSON.parse(channel.other_info || '{}');
        return [info.limit_ignored, info.overrun_quota];
      })
      .toEqual([1, 0]);
    console.info(
      `[output-meter] ${expect.getState().currentTestName}: cap ${cap}, completion ${completion} (text delivered: ${deliveredTokens} o200k tokens), prompt ${log.prompt_tokens}, charged ${charged} of ${held} held`,
    );
    return { log, completion, held };
  };
  return { model, apiKey: token.apiKey, billed, channelId };
}

/** The header a capped answer carries. */
const capOf = (headers: Headers): number => {
  const value = headers.get('x-modelgate-output-capped');
  expect(value).not.toBeNull();
  const cap = Number(value);
  expect(cap).toBeGreaterThanOrEqual(128);
  expect(cap).toBeLessThan(BALANCE / 2);
  return cap;
};

/** Writes `events` ten a millisecond, as a generating upstream does, until done or the client goes. */
async function paced(response: ServerResponse, events: readonly string[]): Promise<void> {
  for (let at = 0; at < events.length; at += 10) {
    if (response.destroyed) return;
    response.write(events.slice(at, at + 10).join(''));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  if (!response.destroyed) response.end();
}

const words = (count: number): string[] => Array.from({ length: count }, () => WORD);

/** OpenAI's chat stream of LONG_ANSWER tokens, with the usage chunk when asked for. */
function chatEvents(includeUsage: boolean): string[] {
  const events = [chatChunk({ role: 'assistant', content: '' }), ...words(LONG_ANSWER).map((word) => chatChunk({ content: word })), chatChunk({}, 'stop')];
  if (includeUsage) events.push(usageChunk({ prompt_tokens: 8, completion_tokens: LONG_ANSWER, total_tokens: 8 + LONG_ANSWER }));
  events.push('data: [DONE]\n\n');
  return events;
}

function completionsEvents(): string[] {
  const chunk = (text: string, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'cmpl-ignore', object: 'text_completion', created: 1_700_000_000, model: 'mock-model', choices: [{ text, index: 0, logprobs: null, finish_reason: finish }] })}\n\n`;
  return [...words(LONG_ANSWER).map((word) => chunk(word, null)), chunk('', 'stop'), 'data: [DONE]\n\n'];
}

/** The Responses API's events for one message of LONG_ANSWER tokens, numbered as OpenAI numbers them. */
function responsesEvents(): string[] {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  const response = { id: 'resp_ignore', object: 'response', created_at: 1_700_000_000, status: 'in_progress', model: 'mock-model', output: [], usage: null };
  const item = { id: 'msg_ignore', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
  const place = { item_id: item.id, output_index: 0, content_index: 0 };
  const text = WORD.repeat(LONG_ANSWER);
  const part = { type: 'output_text', text, annotations: [] };
  const done = { ...item, status: 'completed', content: [part] };
  return [
    event('response.created', { response }),
    event('response.in_progress', { response }),
    event('response.output_item.added', { output_index: 0, item }),
    event('response.content_part.added', { ...place, part: { ...part, text: '' } }),
    ...words(LONG_ANSWER).map((word) => event('response.output_text.delta', { ...place, delta: word, logprobs: [] })),
    event('response.output_text.done', { ...place, text, logprobs: [] }),
    event('response.content_part.done', { ...place, part }),
    event('response.output_item.done', { output_index: 0, item: done }),
    event('response.completed', {
      response: { ...response, status: 'completed', output: [done], usage: { input_tokens: 8, output_tokens: LONG_ANSWER, total_tokens: 8 + LONG_ANSWER } },
    }),
  ];
}

/** An OpenAI upstream that ignores max_tokens, max_completion_tokens and max_output_tokens alike. */
const limitIgnoringOpenAI = (): UpstreamHandler => async (upstreamRequest, response) => {
  const json = upstreamRequest.json ?? {};
  const path = upstreamRequest.url.split('?')[0]!;
  const askedUsage = (json.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const events = path.endsWith('/chat/completions') ? chatEvents(askedUsage) : path.endsWith('/responses') ? responsesEvents() : completionsEvents();
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  await paced(response, events);
};

/** A Claude or Gemini turn of LONG_ANSWER tokens streamed slowly, whatever limit the request names. */
const IGNORING_TURN: MockTurn = {
  text: WORD.repeat(LONG_ANSWER),
  usage: { input: 8, output: LONG_ANSWER },
  stopReason: 'stop',
  // Four words an event, an event a millisecond.
  pieceLength: 4 * WORD.length,
  eventIntervalMs: 1,
};

const openaiClient = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });

/** The upstream request was aborted once the stream was cut. */
const aborted = (count: () => number, before: number) => expect.poll(count, { timeout: 5000 }).toBe(before + 1);

describe('a capped stream whose upstream ignores the limit is ended at the cap', () => {
  it.each([true, false])('OpenAI chat on an OpenAI channel: finish_reason length, [DONE] (include_usage %s)', async (includeUsage) => {
    env.upstream.respond(limitIgnoringOpenAI());
    const { model, apiKey, billed } = await meterCase(1, env.upstream.url, unique('openai-key'));
    const before = env.upstream.abortedResponses;
    const { data, response } = await openaiClient(apiKey)
      .chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Tell me everything.' }],
        stream: true,
        stream_options: { include_usage: includeUsage },
      })
      .withResponse();
    const cap = capOf(response.headers);
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of data) {
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? '';
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(finishes).toEqual(['length']);
    await aborted(() => env.upstream.abortedResponses, before);
    await billed(cap, text, usage?.completion_tokens);
    if (!includeUsage) expect(usage).toBeUndefined();
  });

  it('OpenAI legacy completions: finish_reason length, [DONE]', async () => {
    env.upstream.respond(limitIgnoringOpenAI());
    const { model, apiKey, billed } = await meterCase(1, env.upstream.url, unique('openai-key'));
    const before = env.upstream.abortedResponses;
    const { data, response } = await openaiClient(apiKey).completions.create({ model, prompt: 'Once upon a time', stream: true }).withResponse();
    const cap = capOf(response.headers);
    let text = '';
    const finishes: string[] = [];
    for await (const chunk of data) {
      for (const choice of chunk.choices) {
        text += choice.text;
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
    }
    expect(finishes).toEqual(['length']);
    expect(env.upstream.requests.at(-1)!.json!.max_tokens).toBe(cap);
    await aborted(() => env.upstream.abortedResponses, before);
    await billed(cap, text);
  });

  it('the Responses API: the open message closed, then response.incomplete (max_output_tokens) with the output delivered', async () => {
    env.upstream.respond(limitIgnoringOpenAI());
    const { model, apiKey, billed } = await meterCase(1, env.upstream.url, unique('openai-key'));
    const before = env.upstream.abortedResponses;
    const stream = openaiClient(apiKey).responses.stream({ model, input: 'Write a long story.' });
    const types: string[] = [];
    let deltas = '';
    const numbers: number[] = [];
    for await (const event of stream) {
      types.push(event.type);
      numbers.push(event.sequence_number);
      if (event.type === 'response.output_text.delta') deltas += event.delta;
    }
    const final = await stream.finalResponse();
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.incomplete']);
    // Numbered on from the upstream's, without a gap.
    expect(numbers).toEqual(numbers.map((_number, index) => index));
    expect([final.status, final.incomplete_details?.reason, final.output_text]).toEqual(['incomplete', 'max_output_tokens', deltas]);
    expect(final.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    const cap = env.upstream.requests.at(-1)!.json!.max_output_tokens as number;
    await aborted(() => env.upstream.abortedResponses, before);
    await billed(cap, deltas, final.usage?.output_tokens);
  });

  it('Anthropic messages on a Claude channel: message_delta stop_reason max_tokens, then message_stop', async () => {
    claude.setScript(() => IGNORING_TURN);
    const { model, apiKey, billed } = await meterCase(14, claude.url, CLAUDE_KEY);
    const before = claude.abortedResponses;
    const client = new Anthropic({ apiKey, baseURL: env.gateway, maxRetries: 0 });
    const { data, response } = await client.messages
      .create({ model, max_tokens: 20_000, messages: [{ role: 'user', content: 'Go on and on.' }], stream: true })
      .withResponse();
    const cap = capOf(response.headers);
    const types: string[] = [];
    const stops: (string | null)[] = [];
    let outputTokens: number | undefined;
    let text = '';
    for await (const event of data) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      if (event.type === 'message_delta') {
        stops.push(event.delta.stop_reason);
        outputTokens = event.usage.output_tokens;
      }
    }
    expect(stops).toEqual(['max_tokens']);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect((claude.requests.at(-1)!.body as { max_tokens: number }).max_tokens).toBe(cap);
    await aborted(() => claude.abortedResponses, before);
    await billed(cap, text, outputTokens);
  });

  it('Gemini streamGenerateContent on a Gemini channel: finishReason MAX_TOKENS, metered by its own usageMetadata', async () => {
    // Gemini's tokenizer here counts two tokens a word: its running count, not ours, ends the answer.
    gemini.setScript(() => ({ ...IGNORING_TURN, usage: { input: 8, output: 2 * LONG_ANSWER } }));
    const { model, apiKey, billed } = await meterCase(24, gemini.url, GEMINI_KEY);
    const before = gemini.abortedResponses;
    const client = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: env.gateway } });
    const finishes: string[] = [];
    let text = '';
    let candidatesTokens: number | undefined;
    for await (const chunk of await client.models.generateContentStream({ model, contents: 'Write at length.' })) {
      for (const candidate of chunk.candidates ?? []) {
        for (const part of candidate.content?.parts ?? []) text += part.text ?? '';
        if (candidate.finishReason) finishes.push(candidate.finishReason);
      }
      if (chunk.usageMetadata?.candidatesTokenCount !== undefined) candidatesTokens = chunk.usageMetadata.candidatesTokenCount;
    }
    expect(finishes).toEqual(['MAX_TOKENS']);
    const cap = (gemini.requests.at(-1)!.body as { generationConfig: { maxOutputTokens: number } }).generationConfig.maxOutputTokens;
    await aborted(() => gemini.abortedResponses, before);
    const { log } = await billed(cap, text, candidatesTokens, 2);
    // The prompt is Gemini's own count (promptTokenCount), not ours.
    expect(Number(log.prompt_tokens)).toBe(8);
  });

  it('Gemini without alt=sse: the JSON array is closed after the MAX_TOKENS element', async () => {
    gemini.setScript(() => IGNORING_TURN);
    const { model, apiKey, billed } = await meterCase(24, gemini.url, GEMINI_KEY);
    const before = gemini.abortedResponses;
    const response = await fetch(`${env.gateway}/v1beta/models/${model}:streamGenerateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Write at length.' }] }] }),
    });
    expect(response.status).toBe(200);
    const cap = capOf(response.headers);
    const elements = (await response.json()) as {
      candidates?: { content: { parts: { text?: string }[] }; finishReason?: string }[];
      usageMetadata?: { candidatesTokenCount?: number };
    }[];
    const candidates = elements.flatMap((element) => element.candidates ?? []);
    const text = candidates.flatMap((candidate) => candidate.content.parts.map((part) => part.text ?? '')).join('');
    expect(candidates.flatMap((candidate) => candidate.finishReason ?? [])).toEqual(['MAX_TOKENS']);
    await aborted(() => gemini.abortedResponses, before);
    await billed(cap, text, elements.at(-1)!.usageMetadata?.candidatesTokenCount);
  });

  it('an OpenAI client on a Claude channel: the converted stream ends with finish_reason length', async () => {
    claude.setScript(() => IGNORING_TURN);
    const { model, apiKey, billed } = await meterCase(14, claude.url, CLAUDE_KEY);
    const before = claude.abortedResponses;
    const { data, response } = await openaiClient(apiKey)
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'Tell me everything.' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const cap = capOf(response.headers);
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of data) {
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? '';
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(finishes).toEqual(['length']);
    await aborted(() => claude.abortedResponses, before);
    const { log } = await billed(cap, text, usage?.completion_tokens);
    // Claude's own count of the prompt, from message_start.
    expect(Number(log.prompt_tokens)).toBe(8);
  });
});

describe('a capped stream whose upstream honours the limit', () => {
  it('is not cut when the text it sends comes exactly to the cap: its own finish and usage go through', async () => {
    env.upstream.respond(async (upstreamRequest, response) => {
      const json = upstreamRequest.json ?? {};
      const limit = json.max_completion_tokens as number;
      const events = [chatChunk({ role: 'assistant', content: '' }), ...words(limit).map((word) => chatChunk({ content: word })), chatChunk({}, 'length')];
      events.push(usageChunk({ prompt_tokens: 8, completion_tokens: limit, total_tokens: 8 + limit }), 'data: [DONE]\n\n');
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      await paced(response, events);
    });
    const { model, apiKey } = await meterCase(1, env.upstream.url, unique('openai-key'));
    const before = env.upstream.abortedResponses;
    const { data, response } = await openaiClient(apiKey)
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'Tell me everything.' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const cap = capOf(response.headers);
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of data) {
      for (const choice of chunk.choices) if (choice.finish_reason) finishes.push(choice.finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(finishes).toEqual(['length']);
    expect([usage?.prompt_tokens, usage?.completion_tokens]).toEqual([8, cap]);
    await env.runtime.drain();
    expect(env.upstream.abortedResponses).toBe(before);
    const log = (await env.context.db.kysely.selectFrom('logs').selectAll().where('model_name', '=', model).execute())[0]!;
    // Billed from the upstream's own usage: its prompt count, not ours.
    expect([Number(log.prompt_tokens), Number(log.completion_tokens)]).toEqual([8, cap]);
    expect(JSON.parse(log.other).admin_info.output_cut).toBeUndefined();
  });
});

describe('an uncapped stream is not metered', () => {
  it.each(['/v1/chat/completions', '/v1/responses'])('%s: the upstream bytes, all of them, unchanged, billed from the upstream usage', async (path) => {
    env.upstream.respond(limitIgnoringOpenAI());
    const { model, apiKey, channelId } = await meterCase(1, env.upstream.url, unique('openai-key'), 1_000_000_000);
    const before = env.upstream.abortedResponses;
    const chat = path === '/v1/chat/completions';
    const body = chat
      ? { model, messages: [{ role: 'user', content: 'Tell me everything.' }], stream: true, stream_options: { include_usage: true } }
      : { model, input: 'Write a long story.', stream: true };
    const response = await request(`${env.gateway}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-modelgate-output-capped']).toBeUndefined();
    expect(text).toBe((chat ? chatEvents(true) : responsesEvents()).join(''));
    expect(env.upstream.abortedResponses).toBe(before);
    await env.runtime.drain();
    const log = (await env.context.db.kysely.selectFrom('logs').selectAll().where('channel_id', '=', channelId).execute())[0]!;
    expect([Number(log.prompt_tokens), Number(log.completion_tokens)]).toEqual([8, LONG_ANSWER]);
    expect(JSON.parse(log.other).admin_info.output_cut).toBeUndefined();
  });
});
