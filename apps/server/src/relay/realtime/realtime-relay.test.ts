import { ChannelType } from '@modelgate/contract';
import { connect, type NetConnectOpts, type Socket } from 'node:net';
import OpenAI from 'openai';
import { OpenAIRealtimeWS as BetaRealtimeWS } from 'openai/beta/realtime/ws';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MockRealtimeUpstream, type MockUsage } from '../../providers/realtime/testing/mock-realtime-upstream.js';
import { eventually, setTokenLimits } from '../testing/rate-limit-kit.js';
import { priceModel, seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from '../testing/relay-fixtures.js';

let env: RelayTestEnv;
let upstream: MockRealtimeUpstream;
/** The Realtime model of these tests: ratio 2.5, completion 4, audio 8, audio completion 2 (gpt-4o-realtime-preview's). */
const MODEL = 'gpt-4o-realtime-test';
const RATIOS = { model: 2.5, completion: 4, audio: 8, audioCompletion: 2 };

beforeAll(async () => {
  env = await startRelayTestEnv();
  upstream = await new MockRealtimeUpstream(['sk-upstream', 'sk-azure']).start();
  await priceModel(env.context, MODEL, RATIOS.model, RATIOS.completion);
  await setOption(env.context, 'AudioRatio', JSON.stringify({ ...env.context.options.json<Record<string, number>>('AudioRatio'), [MODEL]: RATIOS.audio }));
  await setOption(
    env.context,
    'AudioCompletionRatio',
    JSON.stringify({ ...env.context.options.json<Record<string, number>>('AudioCompletionRatio'), [MODEL]: RATIOS.audioCompletion }),
  );
});
afterAll(async () => {
  await env.close();
  await upstream.close();
});

/** new-api's realtime formula, written out for the test's ratios (group ratio 1). */
const costOf = (usage: MockUsage): number =>
  Math.round(
    RATIOS.model *
      (usage.inputText + usage.outputText * RATIOS.completion + usage.inputAudio * RATIOS.audio + usage.outputAudio * RATIOS.audio * RATIOS.audioCompletion),
  );

async function payer(
  options: { quota?: number; tokenQuota?: number; type?: number; key?: string; other?: string; modelMapping?: Record<string, string> } = {},
) {
  const user = await seedUser(env.context, { quota: options.quota ?? 100_000_000 });
  const token = await seedToken(env.context, user.id, options.tokenQuota === undefined ? {} : { remainQuota: options.tokenQuota, unlimited: false });
  const channelId = await seedChannel(env.context, {
    key: options.key ?? 'sk-upstream',
    name: unique('realtime'),
    baseUrl: upstream.baseUrl,
    models: [MODEL],
    groups: [user.group],
    type: options.type,
    other: options.other,
    modelMapping: options.modelMapping,
  });
  return { user, token, channelId, ids: { userId: user.id, tokenId: token.id, channelIds: [channelId] } };
}

const realtimeUrl = (model = MODEL) => `${env.gateway.replace(/^http/, 'ws')}/v1/realtime?model=${encodeURIComponent(model)}`;

/**
 * The openai client builds `wss://` from any base URL: the gateway under test speaks plain HTTP, so
 * the socket it opens is a plain TCP one (the handshake and frames are the same).
 */
const plainSocket = ((options: NetConnectOpts & { host?: string; port?: number | string }): Socket =>
  connect({ host: options.host, port: Number(options.port) })) as unknown as typeof connect;

function openAIClient(apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${env.gateway}/v1` });
}

type RealtimeEvent = { type: string; [key: string]: unknown };

/** Every event the client gets, and a way to wait for the next of a type. */
function recorder(on: (listener: (event: RealtimeEvent) => void) => void) {
  const events: RealtimeEvent[] = [];
  const waiters: { type: string; count: number; resolve: (event: RealtimeEvent) => void }[] = [];
  on((event) => {
    events.push(event);
    for (const waiter of [...waiters]) {
      const matching = events.filter((each) => each.type === waiter.type);
      if (matching.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(matching[waiter.count - 1]!);
      }
    }
  });
  return {
    events,
    /** The `count`-th event of `type` (1 = the first). */
    nth(type: string, count = 1): Promise<RealtimeEvent> {
      const matching = events.filter((each) => each.type === type);
      if (matching.length >= count) return Promise.resolve(matching[count - 1]!);
      return new Promise((resolve) => waiters.push({ type, count, resolve }));
    },
  };
}

/** A plain `ws` client (the browser's way in: subprotocols) with its received frames. */
function wsClient(url: string, options: { headers?: Record<string, string>; protocols?: string[] } = {}) {
  const socket = new WebSocket(url, options.protocols ?? [], { headers: options.headers });
  const frames: { data: Buffer; isBinary: boolean }[] = [];
  const events = recorder((listener) =>
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      frames.push({ data: Buffer.from(data), isBinary });
      if (!isBinary) listener(JSON.parse(data.toString('utf8')) as RealtimeEvent);
    }),
  );
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return { socket, frames, events, opened, closed };
}

/** The handshake's HTTP answer when the gateway refuses the upgrade. */
function refusal(url: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_request, response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown> });
        socket.terminate();
      });
    });
    socket.on('open', () => reject(new Error('the upgrade was accepted')));
    socket.on('error', () => undefined);
  });
}

const userText = (text: string) => ({
  type: 'conversation.item.create' as const,
  item: { type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text }] },
});

describe('a Realtime session through the openai client', () => {
  it('bills a two-response session as the sum of its usage events (text and audio at their ratios), and the books agree', async () => {
    const { token, channelId, ids } = await payer({ quota: 50_000_000, tokenQuota: 10_000_000 });
    const first: MockUsage = { inputText: 120, inputAudio: 300, cached: 64, outputText: 40, outputAudio: 500 };
    const second: MockUsage = { inputText: 700, inputAudio: 300, outputText: 60, outputAudio: 0 };
    upstream.script.push({ usage: first, text: 'Hello from the mock.' }, { usage: second, text: 'Second answer.' });
    const connections = upstream.connections.length;

    const rt = new OpenAIRealtimeWS({ model: MODEL, options: { createConnection: plainSocket } }, openAIClient(token.apiKey));
    const client = recorder((listener) => rt.on('event', listener as never));
    rt.on('error', () => undefined);
    await client.nth('session.created');
    rt.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Be brief.' } });
    await client.nth('session.updated');
    rt.send(userText('Say hello.'));
    rt.send({ type: 'response.create' });
    const done1 = await client.nth('response.done');
    rt.send(userText('Again.'));
    rt.send({ type: 'response.create' });
    const done2 = await client.nth('response.done', 2);
    const closing = (await upstream.connected(connections + 1)).closed;
    rt.close();
    expect(await closing).toBe(1000);

    // The deltas came through as the upstream sent them, in order.
    const deltas = client.events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta);
    expect(deltas.join('')).toBe('Hello from the mock.Second answer.');
    expect((done1.response as { usage: { input_tokens: number } }).usage.input_tokens).toBe(420);
    expect((done2.response as { status: string }).status).toBe('completed');

    await env.runtime.drain();
    const expected = [costOf(first), costOf(second)];
    // 2.5 × (120 + 40×4 + 300×8 + 500×8×2) and 2.5 × (700 + 60×4 + 300×8).
    expect(expected).toEqual([26700, 8350]);
    const sum = expected[0]! + expected[1]!;
    const after = await totals(env.context, ids);
    expect(after.logs.map((log) => Number(log.quota))).toEqual(expected);
    expect(after.logQuotaSum).toBe(sum);
    expect(50_000_000 - after.userQuota).toBe(sum);
    expect(after.userUsed).toBe(sum);
    expect(after.requestCount).toBe(2);
    expect(10_000_000 - after.tokenRemain).toBe(sum);
    expect(after.tokenUsed).toBe(sum);
    expect(after.channelUsed.get(channelId)).toBe(sum);
    expect(after.logs.map((log) => [log.model_name, log.prompt_tokens, log.completion_tokens, log.channel_id, log.token_id])).toEqual([
      [MODEL, 420, 540, channelId, token.id],
      [MODEL, 1000, 60, channelId, token.id],
    ]);
    const other = JSON.parse(after.logs[0]!.other) as Record<string, unknown>;
    expect(other).toMatchObject({
      ws: true,
      realtime: true,
      text_input: 120,
      text_output: 40,
      audio_input: 300,
      audio_output: 500,
      cached_input: 64,
      audio_ratio: 8,
      audio_completion_ratio: 2,
      model_ratio: 2.5,
      completion_ratio: 4,
    });
    expect(after.logs[0]!.content).toBe('模型倍率 2.5，补全倍率 4，音频倍率 8，音频补全倍率 2，分组倍率 1');
    // The upstream was asked with the channel's key, the model in the query.
    const connection = upstream.connections[connections]!;
    expect(connection.url).toBe(`/v1/realtime?model=${MODEL}`);
    expect(connection.headers.authorization).toBe('Bearer sk-upstream');
  });

  it('bills a response the upstream starts by itself (server VAD) from the hold kept for it', async () => {
    const { token, ids } = await payer({ quota: 20_000_000 });
    const turn: MockUsage = { inputText: 30, inputAudio: 900, outputText: 10, outputAudio: 200 };
    upstream.script.push({ usage: turn });
    const connections = upstream.connections.length;
    const client = wsClient(realtimeUrl(), { headers: { authorization: `Bearer ${token.apiKey}` } });
    await client.opened;
    await client.events.nth('session.created');
    const connection = await upstream.connected(connections + 1);
    // A second of 24 kHz PCM, then the user stops speaking: the upstream answers on its own.
    client.socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(48000).toString('base64') }));
    await new Promise<void>((resolve) => client.socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }), () => resolve()));
    await client.events.nth('input_audio_buffer.committed');
    connection.serverTurn();
    await client.events.nth('response.done');
    client.socket.close();
    await connection.closed;
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs.map((log) => Number(log.quota))).toEqual([costOf(turn)]);
    expect(20_000_000 - after.userQuota).toBe(costOf(turn));
  });
});

describe('the balance', () => {
  it('closes the session with an insufficient_quota error event when the balance cannot pay for another response, never below zero', async () => {
    // Enough for the first response's hold (its bound: 4096 output tokens at the audio price), not for a second.
    const { token, ids } = await payer({ quota: 200_000 });
    const usage: MockUsage = { inputText: 100, inputAudio: 0, outputText: 20, outputAudio: 0 };
    upstream.script.push({ usage });
    const connections = upstream.connections.length;
    const client = wsClient(realtimeUrl(), { headers: { authorization: `Bearer ${token.apiKey}` } });
    await client.opened;
    await client.events.nth('session.created');
    client.socket.send(JSON.stringify(userText('hello')));
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    const done = await client.events.nth('response.done');
    const error = await client.events.nth('error');
    const closed = await client.closed;
    expect((done.response as { status: string }).status).toBe('completed');
    expect(error.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_user_quota' });
    expect(String((error.error as { message: string }).message)).toContain('insufficient user quota');
    expect(closed.code).toBe(1008);
    // The error is the last thing the client got, after the response it paid for.
    expect(client.events.events.at(-1)!.type).toBe('error');
    expect(await upstream.connections[connections]!.closed).toBe(1000);

    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs.map((log) => Number(log.quota))).toEqual([costOf(usage)]);
    expect(after.userQuota).toBe(200_000 - costOf(usage));
    expect(after.userQuota).toBeGreaterThanOrEqual(0);
  });

  it('does not serve a response the upstream starts with no hold left, and bills the one under way for what it reports', async () => {
    // The first response takes the only hold this balance pays for; while it runs, the upstream starts another (server VAD).
    const { token, ids } = await payer({ quota: 200_000 });
    const partial: MockUsage = { inputText: 90, inputAudio: 0, outputText: 3, outputAudio: 0 };
    upstream.script.push(
      { usage: { inputText: 90, inputAudio: 0, outputText: 40, outputAudio: 0 }, hold: true, cancelledUsage: partial },
      { usage: { inputText: 90, inputAudio: 0, outputText: 40, outputAudio: 0 }, hold: true, cancelledUsage: { ...partial, outputText: 1 } },
    );
    const connections = upstream.connections.length;
    const client = wsClient(realtimeUrl(), { headers: { authorization: `Bearer ${token.apiKey}` } });
    await client.opened;
    await client.events.nth('session.created');
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    const created = await client.events.nth('response.created');
    const connection = await upstream.connected(connections + 1);
    connection.serverTurn();
    const error = await client.events.nth('error');
    expect(error.error).toMatchObject({ type: 'insufficient_quota' });
    expect((await client.closed).code).toBe(1008);
    expect(await connection.closed).toBe(1000);
    // The client saw one response only: the unpaid one never reached it.
    expect(client.events.events.filter((event) => event.type === 'response.created')).toEqual([created]);
    const cancels = connection.received
      .map((frame) => JSON.parse(frame.data.toString('utf8')) as RealtimeEvent)
      .filter((event) => event.type === 'response.cancel');
    expect(cancels).toHaveLength(2);

    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs.map((log) => Number(log.quota))).toEqual([costOf(partial)]);
    expect(after.userQuota).toBe(200_000 - costOf(partial));
  });

  it('refuses the upgrade with 403 when the balance cannot pay for one response', async () => {
    const { token } = await payer({ quota: 1000 });
    const connections = upstream.connections.length;
    const refused = await refusal(realtimeUrl(), { authorization: `Bearer ${token.apiKey}` });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'insufficient_user_quota' } });
    expect(upstream.connections.length).toBe(connections);
  });

  it("refuses a token's balance as the token's", async () => {
    const { token } = await payer({ tokenQuota: 500 });
    const refused = await refusal(realtimeUrl(), { authorization: `Bearer ${token.apiKey}` });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'insufficient_token_quota' } });
  });
});

describe('the upgrade', () => {
  it('refuses a bad key with 401 and OpenAI’s error body before upgrading', async () => {
    await payer();
    const connections = upstream.connections.length;
    const refused = await refusal(realtimeUrl(), { authorization: 'Bearer sk-not-a-key-of-ours' });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
    expect(upstream.connections.length).toBe(connections);

    // The openai client sees the refusal as an error.
    const rt = new OpenAIRealtimeWS({ model: MODEL, options: { createConnection: plainSocket } }, openAIClient('sk-not-a-key-of-ours'));
    const failed = await new Promise<Error>((resolve) => rt.on('error', resolve));
    expect(failed.message).toContain('401');
  });

  it('accepts the browser’s key subprotocol, answers `realtime`, and passes the beta subprotocol on as OpenAI-Beta', async () => {
    const { token } = await payer();
    const connections = upstream.connections.length;
    const client = wsClient(realtimeUrl(), { protocols: ['realtime', `openai-insecure-api-key.${token.apiKey}`, 'openai-beta.realtime-v1'] });
    await client.opened;
    expect(client.socket.protocol).toBe('realtime');
    const connection = await upstream.connected(connections + 1);
    expect(connection.headers['openai-beta']).toBe('realtime=v1');
    expect(connection.headers.authorization).toBe('Bearer sk-upstream');
    client.socket.close();
    await connection.closed;
  });

  it('passes the beta client’s OpenAI-Beta header on', async () => {
    const { token } = await payer();
    const connections = upstream.connections.length;
    const rt = new BetaRealtimeWS({ model: MODEL, options: { createConnection: plainSocket } }, openAIClient(token.apiKey));
    const client = recorder((listener) => rt.on('event', listener as never));
    await client.nth('session.created');
    const connection = await upstream.connected(connections + 1);
    expect(connection.headers['openai-beta']).toBe('realtime=v1');
    rt.close();
    await connection.closed;
  });

  it('answers a model the token may not use, a model without a channel and a missing model as the relay does', async () => {
    const { user } = await payer();
    const limited = await seedToken(env.context, user.id, { modelLimits: ['gpt-4o-mini'] });
    expect(await refusal(realtimeUrl(), { authorization: `Bearer ${limited.apiKey}` })).toMatchObject({
      status: 403,
      body: { error: { code: 'model_not_allowed' } },
    });
    const token = await seedToken(env.context, user.id);
    const unpriced = unique('rt-unrouted');
    await priceModel(env.context, unpriced, 1, 1);
    expect(await refusal(realtimeUrl(unpriced), { authorization: `Bearer ${token.apiKey}` })).toMatchObject({
      status: 503,
      body: { error: { code: 'no_available_channel' } },
    });
    expect(await refusal(`${env.gateway.replace(/^http/, 'ws')}/v1/realtime`, { authorization: `Bearer ${token.apiKey}` })).toMatchObject({
      status: 400,
      body: { error: { code: 'missing_model' } },
    });
    // A plain GET is told to upgrade.
    const plain = await request(realtimeUrl().replace(/^ws/, 'http'), { headers: { authorization: `Bearer ${token.apiKey}` } });
    expect(plain.statusCode).toBe(426);
    await plain.body.text();
  });

  it('answers the upstream’s refusal (its key masked) when no other channel can serve, and gives the hold back', async () => {
    const { token, ids } = await payer({ key: 'sk-wrong-upstream-key', quota: 5_000_000 });
    const refused = await refusal(realtimeUrl(), { authorization: `Bearer ${token.apiKey}` });
    expect(refused.status).toBe(401);
    const message = String((refused.body.error as { message: string }).message);
    expect(message).toContain('Incorrect API key');
    expect(message).not.toContain('sk-wrong-upstream-key');
    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect([after.userQuota, after.logs.length]).toEqual([5_000_000, 0]);
  });
});

describe('rate limits', () => {
  it('count a session as one request and hold its concurrency slot while it lasts', async () => {
    const { token } = await payer();
    await setTokenLimits(env.context, token, { concurrency: 1 });
    const connections = upstream.connections.length;
    const first = wsClient(realtimeUrl(), { headers: { authorization: `Bearer ${token.apiKey}` } });
    await first.opened;
    const refused = await refusal(realtimeUrl(), { authorization: `Bearer ${token.apiKey}` });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    expect(upstream.connections.length).toBe(connections + 1);
    first.socket.close();
    await (await upstream.connected(connections + 1)).closed;
    // The slot comes back when the first session's connection is gone.
    let next: ReturnType<typeof wsClient> | undefined;
    await eventually(async () => {
      const attempt = wsClient(realtimeUrl(), { headers: { authorization: `Bearer ${token.apiKey}` } });
      const opened = await attempt.opened.then(
        () => true,
        () => false,
      );
      if (opened) next = attempt;
      return opened;
    });
    next!.socket.close();
    await (await upstream.connected(connections + 2)).closed;
  });
});

describe('Azure channels', () => {
  it("open the resource's realtime URL with the deployment, api-version and api-key (the model mapping applied)", async () => {
    const { token } = await payer({
      type: ChannelType.Azure,
      key: 'sk-azure',
      other: '2025-04-01-preview',
      modelMapping: { [MODEL]: 'gpt-4o.realtime-deploy' },
    });
    const connections = upstream.connections.length;
    const client = wsClient(realtimeUrl(), { headers: { authorization: `Bearer ${token.apiKey}` } });
    await client.opened;
    const connection = await upstream.connected(connections + 1);
    expect(connection.url).toBe('/openai/realtime?api-version=2025-04-01-preview&deployment=gpt-4orealtime-deploy');
    expect(connection.headers['api-key']).toBe('sk-azure');
    expect(connection.headers.authorization).toBeUndefined();
    client.socket.close();
    await connection.closed;
  });
});

describe('events', () => {
  it('pass both ways as the bytes sent, text and binary', async () => {
    const { token } = await payer();
    const connections = upstream.connections.length;
    const client = wsClient(realtimeUrl(), { headers: { authorization: `Bearer ${token.apiKey}` } });
    await client.opened;
    await client.events.nth('session.created');
    const connection = await upstream.connected(connections + 1);

    const oddText = Buffer.from(
      '{ "type" :"conversation.item.create",  "item":{"type":"message","role":"user","content":[{"type":"input_text","text":"h\\u00e9llo é 😀"}]} , "x": 1.50 }',
    );
    const binary = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    client.socket.send(oddText, { binary: false });
    client.socket.send(binary, { binary: true });
    await client.events.nth('conversation.item.created');
    expect(connection.received.slice(0, 2)).toEqual([
      { data: oddText, isBinary: false },
      { data: binary, isBinary: true },
    ]);

    const fromUpstream = Buffer.from('{"event_id":"e1",  "type":"rate_limits.updated","rate_limits":[{"name":"tokens","limit":1.0e3}] ,"ü":"\\ud83d\\ude00"}');
    const before = client.frames.length;
    connection.send(fromUpstream);
    connection.send(binary, true);
    await client.events.nth('rate_limits.updated');
    while (client.frames.length < before + 2) await new Promise((resolve) => setImmediate(resolve));
    expect(client.frames.slice(before)).toEqual([
      { data: fromUpstream, isBinary: false },
      { data: binary, isBinary: true },
    ]);
    client.socket.close();
    await connection.closed;
  });
});

describe('a client that leaves mid-response', () => {
  it('gets its response cancelled upstream and billed for the usage the cancellation reports', async () => {
    const { token, ids } = await payer({ quota: 20_000_000 });
    const partial: MockUsage = { inputText: 80, inputAudio: 0, outputText: 7, outputAudio: 120 };
    upstream.script.push({ usage: { inputText: 80, inputAudio: 0, outputText: 50, outputAudio: 900 }, hold: true, cancelledUsage: partial });
    const connections = upstream.connections.length;
    const client = wsClient(realtimeUrl(), { headers: { authorization: `Bearer ${token.apiKey}` } });
    await client.opened;
    await client.events.nth('session.created');
    client.socket.send(JSON.stringify(userText('Tell me a long story.')));
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await client.events.nth('response.output_text.delta');
    client.socket.close();
    const connection = await upstream.connected(connections + 1);
    expect(await connection.closed).toBe(1000);
    const cancel = connection.received
      .map((frame) => JSON.parse(frame.data.toString('utf8')) as RealtimeEvent)
      .find((event) => event.type === 'response.cancel');
    expect(cancel).toMatchObject({ type: 'response.cancel', response_id: expect.stringMatching(/^resp_/) });

    await env.runtime.drain();
    const after = await totals(env.context, ids);
    expect(after.logs.map((log) => Number(log.quota))).toEqual([costOf(partial)]);
    expect(20_000_000 - after.userQuota).toBe(costOf(partial));
  });
});

describe('/metrics', () => {
  it('counts sessions under the route /v1/realtime', async () => {
    const answer = await request(`${env.gateway}/metrics`);
    const text = await answer.body.text();
    expect(text).toMatch(/modelgate_relay_requests_total\{route="\/v1\/realtime",model="gpt-4o-realtime-test",channel="\d+",status="101"\} \d+/);
    expect(text).toMatch(/modelgate_relay_requests_total\{route="\/v1\/realtime",model="gpt-4o-realtime-test",channel="",status="401"\} \d+/);
  });
});
