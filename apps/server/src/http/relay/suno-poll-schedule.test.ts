import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSuno, type MockSuno } from '../../providers/suno/testing/mock-suno.js';
import { SUNO_PRICES, seedSunoPayer, sunoCall, taskRow } from '../../providers/suno/testing/suno-test-kit.js';
import { setOption, startRelayTestEnv, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

/** The poll runs by itself every TASK_POLL_INTERVAL seconds on the master, and never on a slave. */
let mock: MockSuno;
beforeAll(async () => {
  mock = await startMockSuno();
});
afterAll(async () => {
  await mock?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function submitSong(env: RelayTestEnv): Promise<string> {
  await setOption(env.context, 'ModelPrice', JSON.stringify({ ...env.context.options.json('ModelPrice'), ...SUNO_PRICES }));
  const payer = await seedSunoPayer(env, mock);
  const submitted = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'on its own' });
  expect(submitted.status).toBe(200);
  return submitted.json.data as string;
}

describe('the scheduled poll', () => {
  it('follows a task to success on the master with TASK_POLL_INTERVAL=1', async () => {
    const env = await startRelayTestEnv({ TASK_POLL_INTERVAL: '1' });
    try {
      const taskId = await submitSong(env);
      mock.finishAll();
      const deadline = Date.now() + 5000;
      while ((await taskRow(env, taskId)).status !== 'SUCCESS' && Date.now() < deadline) await sleep(100);
      const row = await taskRow(env, taskId);
      expect([row.status, row.progress]).toEqual(['SUCCESS', '100%']);
    } finally {
      await env.close();
    }
  });

  it('does not poll on a slave node', async () => {
    // The master keeps new-api's 15 s, so within the wait only the slave (every second) could poll.
    const master = await startRelayTestEnv();
    const slave = await startRelayTestEnv({ SQLITE_PATH: join(master.test.dir, 'modelgate.db'), NODE_TYPE: 'slave', TASK_POLL_INTERVAL: '1' });
    try {
      const taskId = await submitSong(slave);
      mock.finishAll();
      await sleep(2500);
      expect((await taskRow(slave, taskId)).status).toBe('NOT_START');
    } finally {
      await slave.close();
      await master.close();
    }
  });
});
