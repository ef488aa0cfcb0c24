import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MockRealtimeUpstream } from '../../providers/realtime/testing/mock-realtime-upstream.js';
import { priceModel, seedChannel, seedToken, seedUser, startRelayTestEnv, totals, type RelayTestEnv } from '../testing/relay-fixtures.js';

let env: RelayTestEnv;
let upstream: MockRealtimeUpstream;
const MODEL = 'gpt-4o-realtime-shutdown';

beforeAll(async () => {
  env = await startRelayTestEnv();
  upstream = await new MockRealtimeUpstream().start();
  await priceModel(env.context, MODEL, 2.5, 4);
});
afterAll(async () => {
  // The app was closed by the test; what is left is the context (flushed by the relay's closer) and the mocks.
  await env.context.close();
  rmSync(env.test.dir, { recursive: true, force: true });
  await env.upstream.close();
  await upstream.close();
});

it('lets a session finish its response at shutdown, bills it, then closes it with 1001', async () => {
  const user = await seedUser(env.context, { quota: 10_000_000 });
  const token = await seedToken(env.context, user.id);
  const channelId = await seedChannel(env.context, { key: 'sk-upstream', baseUrl: upstream.baseUrl, models: [MODEL], groups: [user.group] });
  upstream.script.push({ usage: { inputText: 100, inputAudio: 0, outputText: 20, outputAudio: 0 }, hold: true });
  const client = new WebSocket(`${env.gateway.replace(/^http/, 'ws')}/v1/realtime?model=${MODEL}`, { headers: { authorization: `Bearer ${token.apiKey}` } });
  const types: string[] = [];
  const seen = new Map<string, () => void>();
  const saw = (type: string) => new Promise<void>((resolve) => (types.includes(type) ? resolve() : seen.set(type, resolve)));
  client.on('message', (data: Buffer) => {
    const type = (JSON.parse(data.toString('utf8')) as { type: string }).type;
    types.push(type);
    seen.get(type)?.();
  });
  const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
  await saw('session.created');
  client.send(JSON.stringify({ type: 'response.create' }));
  await saw('response.output_text.delta');

  // Shutdown begins while the response is under way: the session stays until it is done.
  const closing = env.test.app.close();
  const connection = await upstream.connected(1);
  connection.finish();
  expect(await closed).toBe(1001);
  await closing;
  expect(types.at(-1)).toBe('response.done');

  await env.runtime.drain();
  const after = await totals(env.context, { userId: user.id, tokenId: token.id, channelIds: [channelId] });
  const cost = Math.round(2.5 * (100 + 20 * 4));
  expect(after.logs.map((log) => Number(log.quota))).toEqual([cost]);
  expect(after.userQuota).toBe(10_000_000 - cost);
  expect(after.channelUsed.get(channelId)).toBe(cost);
});
