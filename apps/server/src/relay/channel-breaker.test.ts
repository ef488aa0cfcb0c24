import { describe, expect, it } from 'vitest';
import { toRelayChannel, type ChannelRow, type RelayChannel } from '../domain/relay-cache/relay-channel.js';
import { ChannelBreakers, type BreakerSettings } from './channel-breaker.js';

const channelRow = (id: number, key: string) =>
  ({
    id,
    type: 1,
    key,
    status: 1,
    priority: 0,
    weight: 0,
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
  }) as unknown as ChannelRow;

const channel = (id: number, key = `sk-key-${id}`) => toRelayChannel(channelRow(id, key));

function breakers(settings: Partial<BreakerSettings> = {}) {
  const clock = { now: 1_000_000 };
  const board = new ChannelBreakers(
    () => ({ failureThreshold: 3, windowMs: 1_000, cooldownMs: 5_000, probeLeaseMs: 20_000, ...settings }),
    () => clock.now,
  );
  /** `keyIndex` 'all' is a failure without a key (the upstream could not be reached). */
  const failTimes = (target: RelayChannel, times: number, keyIndex: number | 'all' = 0, reason = 'upstream answered HTTP 500') => {
    for (let count = 0; count < times; count += 1) board.failed(target, keyIndex === 'all' ? undefined : keyIndex, reason);
  };
  return { board, clock, failTimes };
}

const isOpen = (board: ChannelBreakers, target: RelayChannel) => board.blockedUntil(target) !== 0;

describe('ChannelBreakers', () => {
  it('opens after N failures in a row within the window, for the cool-down, with the last reason', () => {
    const { board, clock, failTimes } = breakers();
    const target = channel(1);
    failTimes(target, 2);
    expect(isOpen(board, target)).toBe(false);
    expect(board.failed(target, 0, 'rate limited (HTTP 429)')).toBe(true);
    expect(board.blockedUntil(target)).toBe(clock.now + 5_000);
    expect(board.view(1, target.keys)).toEqual({
      breaker_state: 'open',
      breaker_reason: 'rate limited (HTTP 429)',
      breaker_until: Math.ceil((clock.now + 5_000) / 1000),
      breaker_open_keys: 1,
    });
    // Other channels are not touched.
    expect(isOpen(board, channel(2))).toBe(false);
    expect(board.view(2, ['sk-key-2']).breaker_state).toBe('closed');
  });

  it('does not open for failures spread beyond the window, nor when successes come between them', () => {
    const { board, clock, failTimes } = breakers();
    const target = channel(1);
    for (let round = 0; round < 10; round += 1) {
      failTimes(target, 1);
      clock.now += 600;
    }
    expect(isOpen(board, target)).toBe(false);
    for (let round = 0; round < 10; round += 1) {
      failTimes(target, 2);
      board.succeeded(target, 0);
    }
    expect(isOpen(board, target)).toBe(false);
    expect(board.view(1, target.keys).breaker_state).toBe('closed');
  });

  it('lets exactly one probe through after the cool-down; its success closes the breaker', () => {
    const { board, clock, failTimes } = breakers();
    const target = channel(1);
    failTimes(target, 3);
    clock.now += 4_999;
    expect(isOpen(board, target)).toBe(true);
    clock.now += 1;
    // The cool-down is over: shown as half open, and the next request may go as the probe.
    expect(board.view(1, target.keys).breaker_state).toBe('half_open');
    expect(board.blockedUntil(target)).toBe(0);
    expect(board.drawKey(target)).toBe(0);
    // The probe is under way: nothing else gets through.
    expect(board.blockedUntil(target)).toBe(clock.now + 20_000);
    expect(board.view(1, target.keys).breaker_state).toBe('half_open');
    clock.now += 1_000;
    expect(isOpen(board, target)).toBe(true);
    expect(board.succeeded(target, 0)).toBe(true);
    expect(isOpen(board, target)).toBe(false);
    expect(board.view(1, target.keys)).toMatchObject({ breaker_state: 'closed', breaker_reason: '', breaker_until: 0 });
    // Closed means counting from zero again.
    failTimes(target, 2);
    expect(isOpen(board, target)).toBe(false);
  });

  it('opens again for another cool-down when the probe fails', () => {
    const { board, clock, failTimes } = breakers();
    const target = channel(1);
    failTimes(target, 3);
    clock.now += 5_000;
    board.drawKey(target);
    board.failed(target, 0, 'still broken (HTTP 502)');
    expect(board.blockedUntil(target)).toBe(clock.now + 5_000);
    expect(board.view(1, target.keys)).toMatchObject({ breaker_state: 'open', breaker_reason: 'still broken (HTTP 502)' });
    clock.now += 5_000;
    expect(isOpen(board, target)).toBe(false);
  });

  it('lets another probe go when the first one is abandoned or never reports', () => {
    const { board, clock, failTimes } = breakers();
    const target = channel(1);
    failTimes(target, 3);
    clock.now += 5_000;
    board.drawKey(target);
    expect(isOpen(board, target)).toBe(true);
    board.abandoned(target, 0);
    expect(isOpen(board, target)).toBe(false);
    board.drawKey(target);
    clock.now += 20_000;
    expect(isOpen(board, target)).toBe(false);
  });

  it('keeps a breaker per key: an open key is skipped, the channel opens when every key is open', () => {
    const { board, clock, failTimes } = breakers();
    const target = channel(1, 'sk-first-key\nsk-second-key\nsk-third-key');
    const openedAt = clock.now;
    failTimes(target, 3, 1);
    expect(isOpen(board, target)).toBe(false);
    expect(board.view(1, target.keys)).toMatchObject({ breaker_state: 'closed', breaker_open_keys: 1 });
    for (const random of [0, 0.34, 0.5, 0.66, 0.99]) expect(board.drawKey(target, () => random)).not.toBe(1);
    clock.now += 1_000;
    failTimes(target, 3, 0);
    expect(board.drawKey(target, () => 0.4)).toBe(2);
    clock.now += 1_000;
    failTimes(target, 3, 2);
    // Every key is open: the channel is, until the first key's cool-down ends.
    expect(board.blockedUntil(target)).toBe(openedAt + 5_000);
    expect(board.view(1, target.keys)).toMatchObject({ breaker_state: 'open', breaker_open_keys: 3 });
    clock.now = openedAt + 5_000;
    expect(board.drawKey(target, () => 0.9)).toBe(1);
    // That key's probe is under way and the others cool down: nothing else gets through.
    expect(isOpen(board, target)).toBe(true);
    board.succeeded(target, 1);
    expect(board.view(1, target.keys)).toMatchObject({ breaker_state: 'closed', breaker_open_keys: 2 });
    expect(board.drawKey(target, () => 0)).toBe(1);
  });

  it('probes an open key of a multi-key channel while its other keys serve', () => {
    const { board, clock, failTimes } = breakers();
    const target = channel(1, 'sk-first-key\nsk-second-key');
    failTimes(target, 3, 1);
    expect(board.drawKey(target, () => 0.9)).toBe(0);
    clock.now += 5_000;
    // The draw that lands on the cooled-down key makes the request its probe; no other goes meanwhile.
    expect(board.drawKey(target, () => 0.9)).toBe(1);
    expect(board.drawKey(target, () => 0.9)).toBe(0);
    board.failed(target, 1, 'still limited (HTTP 429)');
    expect(board.drawKey(target, () => 0.9)).toBe(0);
    clock.now += 5_000;
    expect(board.drawKey(target, () => 0.9)).toBe(1);
    board.succeeded(target, 1);
    expect(board.view(1, target.keys)).toMatchObject({ breaker_state: 'closed', breaker_open_keys: 0 });
  });

  it('counts a failure without a key (the upstream could not be reached) against every key', () => {
    const { board, failTimes } = breakers();
    const target = channel(1, 'sk-first-key\nsk-second-key');
    failTimes(target, 3, 'all', 'could not reach the upstream');
    expect(board.view(1, target.keys)).toMatchObject({ breaker_state: 'open', breaker_open_keys: 2, breaker_reason: 'could not reach the upstream' });
  });

  it('when routing had nothing better, uses the key whose cool-down ends first without taking a probe', () => {
    const { board, clock, failTimes } = breakers();
    const target = channel(1, 'sk-first-key\nsk-second-key');
    failTimes(target, 3, 1);
    clock.now += 100;
    failTimes(target, 3, 0);
    expect(board.drawKey(target, () => 0)).toBe(1);
    // A forced try that fails leaves the cool-down as it was.
    board.failed(target, 1, 'still down');
    expect(board.blockedUntil(target)).toBe(clock.now - 100 + 5_000);
  });

  it('keeps the breakers of unchanged keys when the key list is edited', () => {
    const { board, failTimes } = breakers();
    failTimes(channel(1, 'sk-first-key\nsk-second-key'), 3, 0);
    const edited = channel(1, 'sk-new-key\nsk-first-key');
    expect(board.view(1, edited.keys)).toMatchObject({ breaker_state: 'closed', breaker_open_keys: 1 });
    expect(board.drawKey(edited, () => 0.9)).toBe(0);
  });

  it('does nothing with a threshold of 0', () => {
    const { board, failTimes } = breakers({ failureThreshold: 0 });
    const target = channel(1);
    failTimes(target, 50);
    expect(isOpen(board, target)).toBe(false);
    expect(board.view(1, target.keys).breaker_state).toBe('closed');
  });
});
