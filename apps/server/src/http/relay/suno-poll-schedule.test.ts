import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startMockSuno, type MockSuno } from '../../providers/suno/testing/mock-suno.js';
import { SUNO_PRICES, seedSunoPayer, sunoCall, taskRow } from '../../providers/suno/testing/suno-test-kit.js';
import { setOption, startRelayTestEnv, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

/**
 * The poll runs by itself every TASK_POLL_INTERVAL seconds on the master, and never on a slave.
 * The apps' intervals are on vitest's fake clock, moved by the test: no real wait, and no round
 * that the test did not cause (the master's own 15 s never comes).
 */
let mock: MockSuno;
beforeAll(async () => {
  mock = await startMockSuno();
});
afterAll(async () => {
  await mock?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Only the intervals (the scheduled jobs): timeouts, sockets and the clock stay real. */
const fakeIntervals = () => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });

async function submitSong(env: RelayTestEnv): Promise<string> {
  await setOption(env.context, 'ModelPrice', JSON.stringify({ ...env.context.options.json('ModelPrice'), ...SUNO_PRICES }));
  const payer = await seedSunoPayer(env, mock);
  const submitted = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'on its own' });
  expect(submitted.status).toBe(200);
  return submitted.json.data as string;
}

describe('the scheduled poll', () => {
  it('follows a task to success on the master with TASK_POLL_INTERVAL=1', async () => {
    fakeIntervals();
    const env = await startRelayTestEnv({ TASK_POLL_INTERVAL: '1' });
    try {
      const taskId = await submitSong(env);
      mock.finishAll();
      await vi.advanceTimersByTimeAsync(999);
      expect(env.tasks.poller.isIdle()).toBe(true);
      // The second the interval names: its tick starts a round, which the test waits for.
      await vi.advanceTimersByTimeAsync(1);
      expect(env.tasks.poller.isIdle()).toBe(false);
      await env.tasks.poller.settled();
      const row = await taskRow(env, taskId);
      expect([row.status, row.progress]).toEqual(['SUCCESS', '100%']);
    } finally {
      await env.close();
    }
  });

  it('does not poll on a slave node', async () => {
    // The master keeps new-api's 15 s, so within the seconds moved only the slave (every second) could poll.
    fakeIntervals();
    const master = await startRelayTestEnv();
    const slave = await startRelayTestEnv({ SQLITE_PATH: join(master.test.dir, 'modelgate.db'), NODE_TYPE: 'slave', TASK_POLL_INTERVAL: '1' });
    try {
      const taskId = await submitSong(slave);
      mock.finishAll();
      await vi.advanceTimersByTimeAsync(2500);
      expect(slave.tasks.poller.isIdle()).toBe(true);
      expect((await taskRow(slave, taskId)).status).toBe('NOT_START');
    } finally {
      await slave.close();
      await master.close();
    }
  });
});
