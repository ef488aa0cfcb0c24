import { describe, expect, it } from 'vitest';
import { limitCheck, MINUTE_MS, type LimitCheck } from './limit-checks.js';
import { MemoryCounters } from './memory-counters.js';
import { openAIDuration } from './rate-answer.js';
import { resetMs, usedOf, waitMs, weightOf } from './sliding-window.js';

/** The window arithmetic, the memory counters and OpenAI's duration format, with a clock of our own. */

const START = 1_000 * MINUTE_MS; // the start of a fixed window
const TOKEN = { zh: '该令牌', en: 'this token' };
const rpm = (limit: number): LimitCheck => limitCheck('rpm', limit, MINUTE_MS, 't1', TOKEN);

describe('the sliding window', () => {
  it('weighs the previous window by how much of it the sliding one still covers, rounded up', () => {
    expect(weightOf(START, MINUTE_MS)).toBe(1);
    expect(weightOf(START + 15_000, MINUTE_MS)).toBe(0.75);
    expect(usedOf(1, 4, 0.75)).toBe(4);
    expect(usedOf(0, 4, 0.74)).toBe(3);
  });

  it('says how long until a refused count falls under its limit, and until the window is empty', () => {
    // Four in the current window, limit 4: the current window must become the previous one, then lose a quarter.
    expect(waitMs(4, 4, 0, START + 59_000, MINUTE_MS)).toBe(1_000 + 15_000);
    // Limit 1: the one call must age out entirely.
    expect(waitMs(1, 1, 0, START + 10_000, MINUTE_MS)).toBe(50_000 + 60_000);
    // Three in the previous window, one in this: a slot frees when ceil(3w) ≤ 2, w ≤ 2/3.
    expect(waitMs(4, 1, 3, START + 5_000, MINUTE_MS)).toBe(20_000 - 5_000);
    expect(waitMs(4, 0, 3, START, MINUTE_MS)).toBe(0);
    expect(resetMs(2, 1, START + 10_000, MINUTE_MS)).toBe(50_000 + 60_000);
    expect(resetMs(0, 1, START + 10_000, MINUTE_MS)).toBe(50_000);
    expect(resetMs(0, 0, START + 10_000, MINUTE_MS)).toBe(0);
  });

  it('admits exactly up to the figure, frees a slot once a whole earlier call has aged out, and counts nothing it refuses', () => {
    const counters = new MemoryCounters();
    const checks = [rpm(4)];
    let now = START + 59_000;
    for (let index = 0; index < 4; index += 1) expect(counters.admit(7, checks, now).admitted).toBe(true);
    expect(counters.admit(7, checks, now)).toEqual({ admitted: false, counts: [4, 0] });
    // Just past the window's end the sliding window still holds all four (rounded up).
    now = START + 60_500;
    expect(counters.admit(7, checks, now).admitted).toBe(false);
    // A quarter into the next window three quarters of the old one are covered: 3 of 4, one slot.
    now = START + 60_000 + 15_001;
    expect(counters.admit(7, checks, now)).toEqual({ admitted: true, counts: [] });
    expect(counters.admit(7, checks, now).admitted).toBe(false);
  });

  it('forgets idle counters after two windows, and a gate when its last slot comes back', () => {
    const counters = new MemoryCounters();
    const gate = limitCheck('concurrency', 2, 0, 'u', { zh: '该用户', en: 'this user' });
    counters.admit(7, [rpm(5), gate], START);
    expect(counters.size).toBe(2);
    counters.finish(7, [rpm(5), gate], '', 0, false, START);
    expect(counters.size).toBe(1);
    counters.admit(8, [rpm(5)], START + 3 * MINUTE_MS);
    expect(counters.size).toBe(1);
  });

  it('adds a call’s tokens and its success to the windows current when it ends', () => {
    const counters = new MemoryCounters();
    const tpm = limitCheck('tpm', 100, MINUTE_MS, 't1', TOKEN);
    expect(counters.admit(7, [tpm], START).admitted).toBe(true);
    counters.finish(7, [tpm], '', 150, true, START + 1_000);
    expect(counters.admit(7, [tpm], START + 2_000)).toEqual({ admitted: false, counts: [150, 0] });
    const success = limitCheck('success', 1, MINUTE_MS, 'n', TOKEN, 1);
    expect(counters.admit(7, [success], START).admitted).toBe(true);
    counters.finish(7, [success], '', 0, false, START);
    expect(counters.admit(7, [success], START).admitted).toBe(true);
    counters.finish(7, [success], '', 0, true, START);
    expect(counters.admit(7, [success], START).admitted).toBe(false);
  });
});

describe('OpenAI’s duration format', () => {
  it('writes milliseconds, seconds, minutes and hours as OpenAI’s headers do', () => {
    expect(openAIDuration(20)).toBe('20ms');
    expect(openAIDuration(1000)).toBe('1s');
    expect(openAIDuration(1500)).toBe('1.5s');
    expect(openAIDuration(360_000)).toBe('6m0s');
    expect(openAIDuration(61_300)).toBe('1m1.3s');
    expect(openAIDuration(3_723_000)).toBe('1h2m3s');
  });
});
