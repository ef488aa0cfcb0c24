import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MidjourneyHooks } from '../../relay/tasks/midjourney-hooks.js';
import { LocalServer } from '../../lib/testing/local-server.js';
import { MockMidjourney } from '../../providers/midjourney/testing/mock-midjourney.js';
import { setOption, startRelayTestEnv, totals, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';
import { mjCall, QUIET, seedMjPayer } from './midjourney-testing.js';

/**
 * MjNotifyEnabled: the proxy calls the gateway's /mj/notify, the task is read back from its
 * channel and written at once (no poll round), and the callback goes on to the caller's hook.
 */
let env: RelayTestEnv;
let mock: MockMidjourney;
let hook: LocalServer;

beforeAll(async () => {
  env = await startRelayTestEnv(QUIET);
  mock = await new MockMidjourney().start();
  hook = await new LocalServer((_request, response) => response.writeHead(200).end('ok')).start();
  const mj = env.tasks.midjourney;
  // The hook listens on 127.0.0.1, which the default sender refuses (tested below).
  await mj.hooks.close();
  mj.hooks = new MidjourneyHooks({ allowPrivateNetwork: true });
  await setOption(env.context, 'MjNotifyEnabled', true);
  await setOption(env.context, 'ServerAddress', env.gateway);
});
afterAll(async () => {
  await hook.close();
  await mock.close();
  await env.close();
});

const until = async (check: () => boolean | Promise<boolean>) => {
  for (let tries = 0; tries < 100 && !(await check()); tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await check()).toBe(true);
};

describe('midjourney notify', () => {
  it('updates the task from the callback and forwards it to the caller hook', async () => {
    const payer = await seedMjPayer(env.context, mock);
    const submitted = await mjCall(env.gateway, payer.token.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'a heron', notifyHook: `${hook.url}/my-hook` });
    const id = String(submitted.json.result);
    expect(mock.tasks.get(id)!.notifyHook).toBe(`${env.gateway}/mj/notify`);

    await mock.advance(id);
    await until(() => hook.received.length === 1);
    const first = JSON.parse(hook.received[0]!.body) as Record<string, unknown>;
    expect(hook.received[0]!.url).toBe('/my-hook');
    expect(first).toMatchObject({ id, status: 'IN_PROGRESS', progress: '33%' });
    // The row moved without a poll round, and the hook is not shown to the caller.
    const fetched = await mjCall(env.gateway, payer.token.apiKey, 'GET', `/mj/task/${id}/fetch`);
    expect(fetched.json).toMatchObject({ status: 'IN_PROGRESS', progress: '33%' });
    expect(JSON.stringify(fetched.json)).not.toContain('my-hook');

    await mock.finishAll();
    await until(() => hook.received.length === 3);
    expect(JSON.parse(hook.received[2]!.body)).toMatchObject({ id, status: 'SUCCESS', imageUrl: `${mock.url}/attachments/${id}.png` });
    expect(mock.hookErrors).toEqual([]);
  });

  it('refunds a failure the callback reports, once, and ignores what a forged callback claims', async () => {
    const payer = await seedMjPayer(env.context, mock, { quota: 1_000_000 });
    const submitted = await mjCall(env.gateway, payer.token.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'forged', notifyHook: `${hook.url}/other` });
    const id = String(submitted.json.result);
    // Anyone may post to /mj/notify: the claim is checked with the proxy, which says SUBMITTED.
    const forged = await mjCall(env.gateway, '', 'POST', '/mj/notify', { id, status: 'FAILURE', progress: '100%', failReason: 'forged' });
    expect(forged.status).toBe(200);
    expect((await mjCall(env.gateway, payer.token.apiKey, 'GET', `/mj/task/${id}/fetch`)).json).toMatchObject({ status: 'SUBMITTED' });
    expect((await mjCall(env.gateway, '', 'POST', '/mj/notify', { id: 'unknown-task' })).json).toMatchObject({
      code: 4,
      description: 'midjourney_task_not_found',
    });

    await mock.fail(id, 'Invalid parameter');
    // The mock's call to /mj/notify wrote the failure and the refund followed.
    await until(
      async () => (await env.context.db.kysely.selectFrom('midjourneys').select('refunded').where('mj_id', '=', id).executeTakeFirstOrThrow()).refunded === 1,
    );
    await mjCall(env.gateway, '', 'POST', '/mj/notify', { id });
    expect((await env.tasks.midjourney.poller.pollOnce()).refunded).toBe(0);
    await env.runtime.flush();
    const books = await totals(env.context, payer.ids);
    expect(books.userQuota).toBe(1_000_000);
    const refunds = await env.context.db.kysely.selectFrom('logs').select('quota').where('user_id', '=', payer.user.id).where('type', '=', 4).execute();
    expect(refunds.map((log) => Number(log.quota))).toEqual([50_000]);
  });

  it('never posts to loopback or private addresses with the default sender', async () => {
    const hooks = new MidjourneyHooks();
    try {
      await expect(hooks.forward(`${hook.url}/x`, {})).rejects.toThrow('not on the public internet');
      await expect(hooks.forward('http://10.1.2.3/x', {})).rejects.toThrow('not on the public internet');
      await expect(hooks.forward('ftp://example.com/x', {})).rejects.toThrow('not http(s)');
    } finally {
      await hooks.close();
    }
  });
});
