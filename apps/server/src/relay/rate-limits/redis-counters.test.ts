import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitCheck, MINUTE_MS } from './limit-checks.js';
import { LEASE_MS, RedisCounters } from './redis-counters.js';

/**
 * The shared counters against a real Redis, with clocks of our own: a window rolls as the memory
 * counters roll, a call's tokens land in the window current when it ends, a gate's slots are
 * leases that a dead node's lapse from, and that a live node renews.
 */

const REDIS_URL = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15';
const OWNER = { zh: '该令牌', en: 'this token' };
const START = 1_000 * MINUTE_MS;

let redis: Redis;
let counters: RedisCounters;
const errors: unknown[] = [];
/** A user id no other run had: the keys outlive the test. */
const freshUser = () => 100_000_000 + Math.floor(Math.random() * 2_000_000_000);

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { lazyConnect: true });
  await redis.connect();
  counters = new RedisCounters(redis, (error) => errors.push(error));
});
afterAll(async () => {
  counters.close();
  await redis.quit();
  expect(errors).toEqual([]);
});

describe('the shared counters', () => {
  it('count requests in the window current, roll it into the previous one, and refuse exactly at the figure', async () => {
    const user = freshUser();
    const rpm = [limitCheck('rpm', 3, MINUTE_MS, 't1', OWNER)];
    for (let index = 0; index < 3; index += 1) expect((await counters.admit(user, rpm, START + 59_000, counters.nextLease()))?.admitted).toBe(true);
    expect(await counters.admit(user, rpm, START + 59_000, counters.nextLease())).toEqual({ admitted: false, counts: [3, 0] });
    expect(await redis.hget(`modelgate:rl:{${user}}`, 't1:r60000')).toBe(`${START / MINUTE_MS}:3:0`);
    // A quarter into the next window three quarters of the old one still count: ceil(2.25) = 3.
    expect(await counters.admit(user, rpm, START + MINUTE_MS + 15_000, counters.nextLease())).toEqual({ admitted: false, counts: [0, 3] });
    expect(await counters.admit(user, rpm, START + MINUTE_MS + 20_001, counters.nextLease())).toEqual({ admitted: true, counts: [] });
    expect(await redis.hget(`modelgate:rl:{${user}}`, 't1:r60000')).toBe(`${START / MINUTE_MS + 1}:1:3`);
  });

  it('add a call’s tokens to the window current when it ends', async () => {
    const user = freshUser();
    const tpm = [limitCheck('tpm', 100, MINUTE_MS, 't1', OWNER)];
    expect((await counters.admit(user, tpm, START, ''))?.admitted).toBe(true);
    counters.finish(user, tpm, '', 150, true, START + 1_000);
    await counters.settled();
    expect(await counters.admit(user, tpm, START + 2_000, '')).toEqual({ admitted: false, counts: [150, 0] });
  });

  it('hold a gate’s slot as a lease: given back when the call ends, lapsed when its node died, renewed while held', async () => {
    const user = freshUser();
    const gate = [limitCheck('concurrency', 1, 0, 'u', OWNER)];
    const key = `modelgate:rl:{${user}}:u:c`;
    const now = Date.now();
    const first = counters.nextLease();
    expect((await counters.admit(user, gate, now, first))?.admitted).toBe(true);
    expect(await counters.admit(user, gate, now, counters.nextLease())).toEqual({ admitted: false, counts: [1, 0] });
    // Renewed: its end moves on.
    const before = Number(await redis.zscore(key, first));
    (counters as unknown as { renew(): void }).renew();
    await counters.settled();
    expect(Number(await redis.zscore(key, first))).toBeGreaterThanOrEqual(before);
    counters.finish(user, gate, first, 0, false, now);
    await counters.settled();
    expect(await redis.zcard(key)).toBe(0);

    // A node that died holding a slot: its lease lapses LEASE_MS after its last renewal.
    await redis.zadd(key, now + LEASE_MS, 'dead-node:1');
    expect((await counters.admit(user, gate, now, counters.nextLease()))?.admitted).toBe(false);
    const later = counters.nextLease();
    expect((await counters.admit(user, gate, now + LEASE_MS + 1, later))?.admitted).toBe(true);
    counters.finish(user, gate, later, 0, false, now);
    await counters.settled();
  });

  it('let a call through unchecked when Redis is not connected', async () => {
    const offline = new Redis(REDIS_URL, { lazyConnect: true });
    const seen: unknown[] = [];
    const store = new RedisCounters(offline, (error) => seen.push(error));
    expect(await store.admit(freshUser(), [limitCheck('rpm', 1, MINUTE_MS, 'u', OWNER)], START, '')).toBeUndefined();
    expect(seen).toHaveLength(1);
    offline.disconnect();
  });
});
