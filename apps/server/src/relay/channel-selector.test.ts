import { describe, expect, it } from 'vitest';
import { ChannelIndex } from '../domain/relay-cache/channel-index.js';
import { toRelayChannel, type ChannelRow } from '../domain/relay-cache/relay-channel.js';
import { pickChannel, type ChannelGate } from './channel-selector.js';

function index(channels: { id: number; priority: number; weight: number }[]) {
  const byId = new Map(
    channels.map(({ id, priority, weight }) => [
      id,
      toRelayChannel({
        id,
        type: 1,
        key: 'k',
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
  return new ChannelIndex(
    byId,
    channels.map(({ id }) => ({ group: 'g', model: 'm', channel_id: id })),
  );
}

const sequence = (...values: number[]) => {
  let next = 0;
  return () => values[next++ % values.length]!;
};

describe('pickChannel', () => {
  it('draws by weight inside the highest priority', () => {
    const tiers = index([
      { id: 1, priority: 5, weight: 1 },
      { id: 2, priority: 5, weight: 3 },
      { id: 3, priority: 0, weight: 100 },
    ]).tiers('g', 'm')!;
    expect(pickChannel(tiers, 0, [], () => 0.1)!.id).toBe(1);
    expect(pickChannel(tiers, 0, [], () => 0.3)!.id).toBe(2);
    expect(pickChannel(tiers, 0, [], () => 0.99)!.id).toBe(2);
  });

  it('steps down a priority per attempt and skips channels already tried', () => {
    const tiers = index([
      { id: 1, priority: 9, weight: 1 },
      { id: 2, priority: 9, weight: 1 },
      { id: 3, priority: 1, weight: 1 },
    ]).tiers('g', 'm')!;
    expect(pickChannel(tiers, 1, [1], () => 0)!.id).toBe(3);
    // The lowest tier is used up: go back up for what is left.
    expect(pickChannel(tiers, 2, [1, 3], () => 0)!.id).toBe(2);
    expect(pickChannel(tiers, 3, [1, 2, 3], () => 0)).toBeUndefined();
  });

  it('draws uniformly when every weight is 0', () => {
    const tiers = index([1, 2, 3].map((id) => ({ id, priority: 0, weight: 0 }))).tiers('g', 'm')!;
    const random = sequence(0, 0.5, 0.99);
    expect([1, 2, 3].map(() => pickChannel(tiers, 0, [], random)!.id)).toEqual([1, 2, 3]);
  });

  it('costs about the same with 10,000 channels in a tier (binary search)', () => {
    const many = index(Array.from({ length: 10_000 }, (_, offset) => ({ id: offset + 1, priority: 0, weight: 1 }))).tiers('g', 'm')!;
    expect(pickChannel(many, 0, [], () => 0.5)!.id).toBe(5001);
    const started = performance.now();
    for (let round = 0; round < 100_000; round += 1) pickChannel(many, 0, []);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('leaves disabled channels and unserved types out of the index', () => {
    const byId = new Map([
      [
        1,
        toRelayChannel({
          id: 1,
          type: 1,
          key: 'k',
          status: 2,
          priority: 0,
          weight: 1,
          base_url: '',
          models: 'm',
          group: 'g',
          model_mapping: '',
          status_code_mapping: '',
          auto_ban: 1,
          other: '',
          openai_organization: '',
          test_model: '',
          name: 'off',
        } as unknown as ChannelRow),
      ],
      [
        2,
        toRelayChannel({
          id: 2,
          type: 11,
          key: 'k',
          status: 1,
          priority: 0,
          weight: 1,
          base_url: '',
          models: 'm',
          group: 'g',
          model_mapping: '',
          status_code_mapping: '',
          auto_ban: 1,
          other: '',
          openai_organization: '',
          test_model: '',
          name: 'palm',
        } as unknown as ChannelRow),
      ],
    ]);
    expect(
      new ChannelIndex(byId, [
        { group: 'g', model: 'm', channel_id: 1 },
        { group: 'g', model: 'm', channel_id: 2 },
      ]).tiers('g', 'm'),
    ).toBeUndefined();
  });
});

/** A gate blocking the listed channel ids until the given times, counting its calls. */
function blocking(until: Record<number, number>) {
  const gate = {
    calls: 0,
    blockedUntil(channel: { id: number }) {
      gate.calls += 1;
      return until[channel.id] ?? 0;
    },
  } satisfies ChannelGate & { calls: number };
  return gate;
}

describe('pickChannel with circuit breakers', () => {
  it('never picks a blocked channel while another in the tier is free, whatever the draw', () => {
    const tiers = index([1, 2, 3].map((id) => ({ id, priority: 0, weight: 1 }))).tiers('g', 'm')!;
    const gate = blocking({ 1: 5_000 });
    for (let step = 0; step < 100; step += 1) {
      const random = sequence(step / 100, ((step * 7) % 100) / 100);
      expect(pickChannel(tiers, 0, [], random, gate)!.id).not.toBe(1);
    }
  });

  it('passes the turn to the next tier when a whole tier is blocked', () => {
    const tiers = index([
      { id: 1, priority: 9, weight: 1 },
      { id: 2, priority: 9, weight: 1 },
      { id: 3, priority: 1, weight: 1 },
    ]).tiers('g', 'm')!;
    expect(pickChannel(tiers, 0, [], () => 0, blocking({ 1: 5_000, 2: 6_000 }))!.id).toBe(3);
  });

  it('sends a first attempt to the channel that unblocks soonest when all are blocked, but no retry', () => {
    const tiers = index([
      { id: 1, priority: 9, weight: 1 },
      { id: 2, priority: 9, weight: 1 },
      { id: 3, priority: 1, weight: 1 },
    ]).tiers('g', 'm')!;
    const gate = blocking({ 1: 7_000, 2: 6_000, 3: 5_000 });
    expect(pickChannel(tiers, 0, [], () => 0, gate)!.id).toBe(3);
    expect(pickChannel(tiers, 1, [3], () => 0, gate)).toBeUndefined();
  });

  it('looks at a bounded number of channels in a large, mostly blocked tier', () => {
    const channels = Array.from({ length: 1_000 }, (_, offset) => ({ id: offset + 1, priority: 0, weight: 1 }));
    const tiers = index(channels).tiers('g', 'm')!;
    const blocked = Object.fromEntries(channels.filter((channel) => channel.id % 10 !== 0).map((channel) => [channel.id, 5_000]));
    const gate = blocking(blocked);
    let found = 0;
    for (let round = 0; round < 1_000; round += 1) {
      gate.calls = 0;
      const channel = pickChannel(tiers, 0, [], Math.random, gate)!;
      expect(gate.calls).toBeLessThanOrEqual(16);
      if (channel.id % 10 === 0) found += 1;
    }
    // 16 draws where one in ten is free find one about 82 % of the time; the rest go to the least blocked.
    expect(found).toBeGreaterThan(700);
  });

  it('keeps the weighted shares among the channels that are left', () => {
    const tiers = index([
      { id: 1, priority: 0, weight: 6 },
      { id: 2, priority: 0, weight: 1 },
      { id: 3, priority: 0, weight: 3 },
    ]).tiers('g', 'm')!;
    const gate = blocking({ 1: 5_000 });
    const counts = new Map<number, number>();
    for (let round = 0; round < 20_000; round += 1) {
      const id = pickChannel(tiers, 0, [], Math.random, gate)!.id;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect(counts.get(1)).toBeUndefined();
    expect((counts.get(3) ?? 0) / 20_000).toBeCloseTo(0.75, 1);
  });
});
