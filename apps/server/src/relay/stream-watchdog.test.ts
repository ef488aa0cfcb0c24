import { describe, expect, it } from 'vitest';
import { StreamWatchdog } from './stream-watchdog.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the stream watchdog', () => {
  it('ends a silent stream within one check after the timeout, and spares one that keeps talking', async () => {
    const watchdog = new StreamWatchdog(200);
    try {
      const started = performance.now();
      let silentEndedAt = 0;
      let talkerEnded = false;
      watchdog.watch(() => (silentEndedAt = performance.now()));
      const talker = watchdog.watch(() => (talkerEnded = true));
      for (let step = 0; step < 8; step += 1) {
        await sleep(50);
        talker.lastActivity = performance.now();
      }
      expect(silentEndedAt - started).toBeGreaterThanOrEqual(200);
      expect(silentEndedAt - started).toBeLessThan(200 + watchdog.checkIntervalMs + 100);
      expect(talkerEnded).toBe(false);
      watchdog.unwatch(talker);
      await sleep(300);
      expect(talkerEnded).toBe(false);
    } finally {
      watchdog.close();
    }
  });

  it('checks at most every second, and at least four times per timeout', () => {
    expect(new StreamWatchdog(60_000).checkIntervalMs).toBe(1000);
    expect(new StreamWatchdog(1000).checkIntervalMs).toBe(250);
    expect(new StreamWatchdog(60_000, 1000).checkIntervalMs).toBe(250);
  });

  it('holds a stream to the first-byte limit until its first bytes, then to the idle limit', async () => {
    const watchdog = new StreamWatchdog(600, 150);
    try {
      const started = performance.now();
      let waitingEndedAt = 0;
      let talkerEnded = false;
      watchdog.watch(() => (waitingEndedAt = performance.now()));
      const talker = watchdog.watch(() => (talkerEnded = true));
      await sleep(60);
      talker.lastActivity = performance.now();
      watchdog.started(talker);
      await sleep(400);
      expect(waitingEndedAt - started).toBeGreaterThanOrEqual(150);
      expect(waitingEndedAt - started).toBeLessThan(150 + watchdog.checkIntervalMs + 100);
      // Silent for 400 ms after its first bytes: past the first-byte limit, within the idle one.
      expect(talkerEnded).toBe(false);
      watchdog.unwatch(talker);
    } finally {
      watchdog.close();
    }
  });

  it('does not count the time a stream is held back for its client', async () => {
    const watchdog = new StreamWatchdog(100);
    try {
      let ended = false;
      const held = watchdog.watch(() => (ended = true));
      watchdog.started(held);
      held.held = true;
      await sleep(350);
      expect(ended).toBe(false);
      held.held = false;
      held.lastActivity = performance.now();
      await sleep(350);
      expect(ended).toBe(true);
    } finally {
      watchdog.close();
    }
  });

  it('keeps watching the rest when streams leave in any order, and ends each silent one once', async () => {
    const watchdog = new StreamWatchdog(100);
    try {
      const ended: number[] = [];
      const streams = [0, 1, 2, 3, 4].map((id) => watchdog.watch(() => ended.push(id)));
      // The middle one, the first and the last leave; 1 and 3 stay and fall silent.
      for (const id of [2, 0, 4]) watchdog.unwatch(streams[id]!);
      watchdog.unwatch(streams[2]!);
      expect(watchdog.size).toBe(2);
      await sleep(100 + watchdog.checkIntervalMs + 100);
      expect(ended.sort()).toEqual([1, 3]);
      expect(watchdog.size).toBe(0);
      // Unwatching an ended stream changes nothing.
      watchdog.unwatch(streams[1]!);
      expect(watchdog.size).toBe(0);
    } finally {
      watchdog.close();
    }
  });
});
