import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelIndex } from '../domain/relay-cache/channel-index.js';
import { toRelayChannel, type ChannelRow } from '../domain/relay-cache/relay-channel.js';
import { startTestApp, type TestApp } from '../test-support/test-app.js';
import type { UpstreamBody } from '../providers/provider-types.js';
import { MemoryAffinityStore, RedisAffinityStore } from './affinity-store.js';
import { ChannelBreakers } from './channel-breaker.js';
import { affinityChannel, ChannelAffinity, claudeSessionOf, MAX_SESSION_KEY, sessionKeyOf } from './channel-affinity.js';
import type { ChannelGate } from './channel-selector.js';
import type { RelayCaller } from './relay-caller.js';
import type { RelayInput } from './relay-input.js';

/** The affinity store (TTL, size, LRU), the session keys, and the rule for attempt 0's channel. */

const pin = (channelId: number, keyIndex = 0) => ({ channelId, keyIndex });

function memoryStore(ttlMs: number, maxEntries: number) {
  const clock = { now: 1_000_000 };
  const limits = { ttlMs, maxEntries };
  const store = new MemoryAffinityStore(
    () => limits,
    () => clock.now,
  );
  return { store, clock, limits };
}

describe('MemoryAffinityStore', () => {
  it('forgets a pin TTL after its last use, and a use starts the TTL again', () => {
    const { store, clock } = memoryStore(1_000, 10);
    store.set('a', pin(1));
    clock.now += 999;
    expect(store.get('a')).toEqual(pin(1));
    // Used at +999: alive until +1999.
    clock.now += 999;
    expect(store.get('a')).toEqual(pin(1));
    clock.now += 1_000;
    expect(store.get('a')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the least recently used', () => {
    const { store } = memoryStore(60_000, 3);
    store.set('a', pin(1));
    store.set('b', pin(2));
    store.set('c', pin(3));
    // A read is a use: 'a' is now the most recent, 'b' the least.
    expect(store.get('a')).toEqual(pin(1));
    store.set('d', pin(4));
    expect(store.size).toBe(3);
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toEqual(pin(1));
    expect(store.get('c')).toEqual(pin(3));
    expect(store.get('d')).toEqual(pin(4));
    // A rewrite is a use too, and replaces the pin.
    store.set('c', pin(7, 2));
    store.set('e', pin(5));
    expect(store.get('a')).toBeUndefined();
    expect(store.get('c')).toEqual(pin(7, 2));
  });

  it('drops expired entries as it writes, so idle sessions do not hold memory until the size limit', () => {
    const { store, clock } = memoryStore(1_000, 100);
    for (let index = 0; index < 50; index += 1) store.set(`old-${index}`, pin(index));
    clock.now += 1_001;
    store.set('new', pin(99));
    expect(store.size).toBe(1);
  });

  it('follows a lower limit at the next write', () => {
    const { store, limits } = memoryStore(60_000, 10);
    for (let index = 0; index < 10; index += 1) store.set(`k${index}`, pin(index));
    limits.maxEntries = 4;
    store.set('k10', pin(10));
    expect(store.size).toBe(4);
    expect(['k7', 'k8', 'k9', 'k10'].map((key) => store.get(key)?.channelId)).toEqual([7, 8, 9, 10]);
  });
});

const json = (body: Record<string, unknown>): UpstreamBody => ({ kind: 'json', json: body, raw: JSON.stringify(body) });

describe('sessionKeyOf', () => {
  it('reads the configured headers first, then Claude Code’s and Codex’s, then prompt_cache_key, then metadata.user_id', () => {
    const body = json({ prompt_cache_key: 'cache-key', metadata: { user_id: 'user_ab_account__session_s-1' } });
    const all = { 'x-agent-session': 'mine', 'x-claude-code-session-id': 'claude', session_id: 'codex', conversation_id: 'codex-old' };
    expect(sessionKeyOf(all, body, ['x-agent-session'])).toBe('mine');
    expect(sessionKeyOf(all, body, [])).toBe('claude');
    expect(sessionKeyOf({ session_id: 'codex', conversation_id: 'codex-old' }, body, [])).toBe('codex');
    // Codex 0.171 sends its thread id as session-id and thread-id.
    expect(sessionKeyOf({ 'session-id': 'thread-1', 'thread-id': 'thread-1', session_id: 'older' }, body, [])).toBe('thread-1');
    expect(sessionKeyOf({ 'thread-id': 'thread-2' }, body, [])).toBe('thread-2');
    expect(sessionKeyOf({ conversation_id: 'codex-old' }, body, [])).toBe('codex-old');
    expect(sessionKeyOf({}, body, ['x-agent-session'])).toBe('cache-key');
    expect(sessionKeyOf({}, json({ metadata: { user_id: 'user_ab_account__session_s-1' } }), [])).toBe('s-1');
  });

  it('has no key for a call without one, for blank or overlong values and for multipart bodies', () => {
    expect(sessionKeyOf({}, json({ model: 'm', messages: [] }), [])).toBeUndefined();
    expect(sessionKeyOf({ session_id: '  ' }, json({ prompt_cache_key: '' }), [])).toBeUndefined();
    expect(sessionKeyOf({}, json({ prompt_cache_key: 'x'.repeat(MAX_SESSION_KEY + 1) }), [])).toBeUndefined();
    expect(sessionKeyOf({}, json({ prompt_cache_key: 7, metadata: { user_id: 42 } }), [])).toBeUndefined();
    const multipart: UpstreamBody = { kind: 'multipart', form: new FormData() as never, raw: Buffer.alloc(0), contentType: 'multipart/form-data' };
    expect(sessionKeyOf({}, multipart, [])).toBeUndefined();
  });

  it('takes the session part of Claude Code’s metadata.user_id, old and new forms, else the whole value', () => {
    expect(claudeSessionOf('user_5dd07c33_account__session_d2e70091-3007-41a3-a916-cb8b0d3098de')).toBe('d2e70091-3007-41a3-a916-cb8b0d3098de');
    expect(claudeSessionOf('user_5dd0_account_0f8e-11_session_7d0e2f61')).toBe('7d0e2f61');
    expect(claudeSessionOf(JSON.stringify({ device_id: 'dev', account_uuid: '', session_id: '2c4e1cf0' }))).toBe('2c4e1cf0');
    expect(claudeSessionOf('end-user-17')).toBe('end-user-17');
    expect(claudeSessionOf('{not json')).toBe('{not json');
    expect(claudeSessionOf('user_x_session_')).toBe('user_x_session_');
  });
});

function channels(specs: { id: number; priority?: number; weight?: number; keys?: string }[]) {
  const byId = new Map(
    specs.map(({ id, priority = 0, weight = 0, keys = `key-${id}` }) => [
      id,
      toRelayChannel({
        id,
        type: 1,
        key: keys,
        status: 1,
        priority,
        weight,
        base_url: 'http://upstream',
        models: 'm',
        group: 'g',
        model_mapping: '',
        status_code_mapping: '',
        auto_ban: 1,
        other: '',
        openai_organization: '',
        test_model: '',
        name: `c${id}`,
      } as unknown as ChannelRow),
    ]),
  );
  const index = new ChannelIndex(
    byId,
    specs.map(({ id }) => ({ group: 'g', model: 'm', channel_id: id })),
  );
  return { tiers: index.tiers('g', 'm')!, byId };
}

const blocking = (...ids: number[]): ChannelGate => ({ blockedUntil: (channel) => (ids.includes(channel.id) ? 5_000 : 0) });
const OPEN: ChannelGate = blocking();

describe('affinityChannel (attempt 0 of a pinned session)', () => {
  it('is the pinned channel while it is among the tiers and its breaker lets calls through', () => {
    const { tiers } = channels([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
    expect(affinityChannel(tiers, 3, OPEN)?.id).toBe(3);
    expect(affinityChannel(tiers, 3, blocking(3))).toBeUndefined();
    // Another route (a channel not serving this group and model, or gone): the normal pick.
    expect(affinityChannel(tiers, 99, OPEN)).toBeUndefined();
  });

  it('gives way to a higher priority that has a channel open, and holds while the higher ones are all blocked', () => {
    const { tiers } = channels([
      { id: 1, priority: 10 },
      { id: 2, priority: 10 },
      { id: 3, priority: 0 },
    ]);
    expect(affinityChannel(tiers, 3, OPEN)).toBeUndefined();
    expect(affinityChannel(tiers, 3, blocking(1))).toBeUndefined();
    expect(affinityChannel(tiers, 3, blocking(1, 2))?.id).toBe(3);
    expect(affinityChannel(tiers, 1, blocking(2))?.id).toBe(1);
  });

  it('passes over a channel whose weight gives it no share of a weighted tier', () => {
    const { tiers } = channels([
      { id: 1, weight: 0 },
      { id: 2, weight: 5 },
    ]);
    expect(affinityChannel(tiers, 1, OPEN)).toBeUndefined();
    expect(affinityChannel(tiers, 2, OPEN)?.id).toBe(2);
    // A tier of zero weights draws uniformly: every channel has its share.
    const even = channels([{ id: 5 }, { id: 6 }]);
    expect(affinityChannel(even.tiers, 6, OPEN)?.id).toBe(6);
  });

  it('uses the real breakers as its gate: an open channel is left, a key of it can still be preferred', () => {
    const { tiers, byId } = channels([{ id: 1, keys: 'k-a\nk-b\nk-c' }, { id: 2 }]);
    const breakers = new ChannelBreakers(() => ({ failureThreshold: 1, windowMs: 1_000, cooldownMs: 60_000, probeLeaseMs: 60_000 }));
    const multi = byId.get(1)!;
    expect(breakers.drawKey(multi, () => 0, 2)).toBe(2);
    // The preferred key's breaker open: the next closed key, as in any draw.
    breakers.failed(multi, 2, 'HTTP 500');
    expect(breakers.drawKey(multi, () => 0, 2)).toBe(0);
    expect(affinityChannel(tiers, 1, breakers)?.id).toBe(1);
    // Every key open: the channel is blocked, and the session's call goes elsewhere.
    breakers.failed(multi, undefined, 'unreachable');
    expect(affinityChannel(tiers, 1, breakers)).toBeUndefined();
  });
});

const caller = (userId: number, group = 'default') => ({ user: { id: userId }, group }) as unknown as RelayCaller;
const input = (body: Record<string, unknown>, model = 'gpt-4o-mini') => ({ model, body: json(body) }) as unknown as RelayInput;

let test: TestApp;
beforeAll(async () => {
  test = await startTestApp();
});
afterAll(async () => {
  await test.close();
});

describe('ChannelAffinity', () => {
  it('scopes pins by user, group and model, and does nothing while switched off', async () => {
    const { options, logger } = test.context;
    const affinity = new ChannelAffinity(options, undefined, logger);
    const session = { prompt_cache_key: 'shared-session' };
    const first = affinity.session(caller(1), input(session), {});
    if (first === undefined || first instanceof Promise) throw new Error('expected a session in memory');
    expect(first.pin).toBeUndefined();
    first.served({ id: 5 } as never, 1);
    const again = affinity.session(caller(1), input(session), {}) as { pin: unknown };
    expect(again.pin).toEqual(pin(5, 1));
    expect((affinity.session(caller(2), input(session), {}) as { pin: unknown }).pin).toBeUndefined();
    expect((affinity.session(caller(1, 'vip'), input(session), {}) as { pin: unknown }).pin).toBeUndefined();
    expect((affinity.session(caller(1), input(session, 'other-model'), {}) as { pin: unknown }).pin).toBeUndefined();
    expect(affinity.session(caller(1), input({}), {})).toBeUndefined();
    await options.set('ChannelAffinityEnabled', false);
    expect(affinity.session(caller(1), input(session), {})).toBeUndefined();
    expect(affinity.size).toBe(0);
    await options.set('ChannelAffinityEnabled', true);
  });

  it('reads the header the operator names, ahead of the others', async () => {
    const { options, logger } = test.context;
    const affinity = new ChannelAffinity(options, undefined, logger);
    await options.set('ChannelAffinityHeader', ' X-Agent-Run , bad header ');
    try {
      const session = affinity.session(caller(3), input({ prompt_cache_key: 'cache' }), { 'x-agent-run': 'run-7' });
      expect((session as { key: string }).key).toMatch(/:run-7$/);
    } finally {
      await options.set('ChannelAffinityHeader', '');
    }
  });
});

/** Answers ioredis's ready check, then never answers again: a Redis that hangs. */
async function hangingRedis(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (data) => {
      // Each command's name: the first bulk string of its array.
      for (const [, name] of data.toString('utf8').matchAll(/\*\d+\r\n\$\d+\r\n([^\r]+)\r\n/g)) {
        const command = name!.toLowerCase();
        if (command === 'info') {
          const info = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
          socket.write(`$${Buffer.byteLength(info)}\r\n${info}\r\n`);
        } else if (command !== 'eval' && command !== 'evalsha') socket.write('+OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a failing Redis never fails a call', () => {
  it('reads no pin from a Redis that is down, and reports it', async () => {
    const errors: unknown[] = [];
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    try {
      const store = new RedisAffinityStore(
        dead,
        () => 60_000,
        (error) => errors.push(error),
      );
      expect(await store.get('k')).toBeUndefined();
      store.set('k', pin(1));
      store.delete('k');
      await store.settled();
      expect(errors).toHaveLength(3);
    } finally {
      dead.disconnect();
    }
  });

  it('stops waiting for a Redis that does not answer', async () => {
    const fake = await hangingRedis();
    const redis = new Redis(fake.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      const errors: unknown[] = [];
      const store = new RedisAffinityStore(
        redis,
        () => 60_000,
        (error) => errors.push(error),
      );
      expect(await store.get('k')).toBeUndefined();
      expect(String(errors[0])).toContain('did not answer');
    } finally {
      redis.disconnect();
      await fake.close();
    }
  });

  it('logs a Redis outage once, not once per call', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    try {
      const affinity = new ChannelAffinity(test.context.options, dead, logger);
      for (let index = 0; index < 5; index += 1) affinity.remember(`k${index}`, pin(1));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('channel affinity: Redis failed');
    } finally {
      dead.disconnect();
    }
  });
});
