import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_FAILED_ATTEMPTS, MemoryVerificationStore, RedisVerificationStore, type VerificationStore } from './code-store.js';

const REDIS_URL = process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15';
const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });

afterAll(async () => {
  await redis.quit().catch(() => undefined);
});

const stores: [string, () => Promise<VerificationStore>][] = [
  ['memory', async () => new MemoryVerificationStore()],
  [
    'redis',
    async () => {
      if (redis.status === 'wait') await redis.connect();
      return new RedisVerificationStore(redis);
    },
  ],
];

describe.each(stores)('%s verification store', (_name, makeStore) => {
  // Fresh keys per test, so Redis leftovers of another run never interfere.
  const key = () => `user-${randomBytes(6).toString('hex')}@example.com`;

  it('accepts the issued code once', async () => {
    const store = await makeStore();
    const email = key();
    expect(await store.issue({ purpose: 'email_verification', key: email, code: '123456', ttlSeconds: 60, cooldownSeconds: 30 })).toBe(0);
    expect(await store.consume('email_verification', email, '123456')).toBe(true);
    expect(await store.consume('email_verification', email, '123456')).toBe(false);
  });

  it('keeps purposes and keys apart', async () => {
    const store = await makeStore();
    const email = key();
    await store.issue({ purpose: 'password_reset', key: email, code: 'token-1', ttlSeconds: 60, cooldownSeconds: 30 });
    expect(await store.consume('email_verification', email, 'token-1')).toBe(false);
    expect(await store.consume('password_reset', key(), 'token-1')).toBe(false);
    expect(await store.consume('password_reset', email, 'token-1')).toBe(true);
  });

  it('refuses a new code during the cooldown and says how long to wait', async () => {
    const store = await makeStore();
    const email = key();
    await store.issue({ purpose: 'email_verification', key: email, code: '111111', ttlSeconds: 60, cooldownSeconds: 30 });
    const wait = await store.issue({ purpose: 'email_verification', key: email, code: '222222', ttlSeconds: 60, cooldownSeconds: 30 });
    expect(wait).toBeGreaterThan(25);
    expect(wait).toBeLessThanOrEqual(30);
    // The first code still stands.
    expect(await store.consume('email_verification', email, '222222')).toBe(false);
    expect(await store.consume('email_verification', email, '111111')).toBe(true);
  });

  it('drops a code after too many wrong guesses', async () => {
    const store = await makeStore();
    const email = key();
    await store.issue({ purpose: 'email_verification', key: email, code: '654321', ttlSeconds: 60, cooldownSeconds: 30 });
    for (let guess = 0; guess < MAX_FAILED_ATTEMPTS; guess += 1) {
      expect(await store.consume('email_verification', email, `00000${guess}`)).toBe(false);
    }
    expect(await store.consume('email_verification', email, '654321')).toBe(false);
  });

  it('never accepts an empty code', async () => {
    const store = await makeStore();
    const email = key();
    await store.issue({ purpose: 'email_verification', key: email, code: '654321', ttlSeconds: 60, cooldownSeconds: 30 });
    expect(await store.consume('email_verification', email, '')).toBe(false);
  });
});

describe('code expiry', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('forgets a memory code after its time to live and lifts the cooldown', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new MemoryVerificationStore();
    await store.issue({ purpose: 'email_verification', key: 'a@example.com', code: '123456', ttlSeconds: 180, cooldownSeconds: 30 });
    vi.setSystemTime(Date.now() + 31_000);
    expect(await store.issue({ purpose: 'email_verification', key: 'b@example.com', code: '1', ttlSeconds: 180, cooldownSeconds: 30 })).toBe(0);
    vi.setSystemTime(Date.now() + 150_000);
    expect(await store.consume('email_verification', 'a@example.com', '123456')).toBe(false);
  });

  it('lets Redis expire a code after its time to live', async () => {
    if (redis.status === 'wait') await redis.connect();
    const store = new RedisVerificationStore(redis);
    const email = `expiry-${randomBytes(6).toString('hex')}@example.com`;
    await store.issue({ purpose: 'email_verification', key: email, code: '123456', ttlSeconds: 1, cooldownSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(await store.consume('email_verification', email, '123456')).toBe(false);
    expect(await store.issue({ purpose: 'email_verification', key: email, code: '2', ttlSeconds: 1, cooldownSeconds: 1 })).toBe(0);
  });
});
