import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockMidjourney } from '../../providers/midjourney/testing/mock-midjourney.js';
import { seedChannel, seedToken, setOption, startRelayTestEnv, totals, unique, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';
import { ALL_MJ_MODELS, mjCall, QUIET, seedMjPayer } from './midjourney-testing.js';

/**
 * Whole-app tests of the Midjourney relay against a mock midjourney-proxy over real HTTP: every
 * submit endpoint, fetch and list from our rows, the poller, the price per action and group.
 */
let env: RelayTestEnv;
let mock: MockMidjourney;
const UNIT = 500_000;

beforeAll(async () => {
  env = await startRelayTestEnv(QUIET);
  mock = await new MockMidjourney().start();
});
afterAll(async () => {
  await mock.close();
  await env.close();
});

const call = (apiKey: string, method: 'GET' | 'POST', path: string, body?: unknown, header: 'mj' | 'bearer' = 'mj') =>
  mjCall(env.gateway, apiKey, method, path, body, header);
const poll = () => env.tasks.midjourney.poller.pollOnce();

async function finishedImagine(apiKey: string, prompt = 'a cat') {
  const submitted = await call(apiKey, 'POST', '/mj/submit/imagine', { prompt });
  expect(submitted.status).toBe(200);
  expect(submitted.json.code).toBe(1);
  const id = String(submitted.json.result);
  await mock.finishAll();
  await poll();
  return id;
}

describe('midjourney relay', () => {
  it('submits an imagine, follows it through the poller and answers fetch from its row', async () => {
    const payer = await seedMjPayer(env.context, mock);
    const submitted = await call(payer.token.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'a red fox --v 6' });
    expect(submitted.json).toMatchObject({ code: 1, description: '提交成功' });
    const id = String(submitted.json.result);
    // The channel's key went upstream as mj-api-secret, never the caller's.
    const upstream = mock.received.at(-1)!;
    expect(upstream.headers['mj-api-secret']).toBe(mock.secret);
    expect(upstream.url).toBe('/mj/submit/imagine');

    let fetched = await call(payer.token.apiKey, 'GET', `/mj/task/${id}/fetch`);
    expect(fetched.json).toMatchObject({ id, action: 'IMAGINE', status: 'SUBMITTED', progress: '0%', prompt: 'a red fox --v 6' });

    await mock.advance(id);
    expect((await poll()).updated).toBe(1);
    fetched = await call(payer.token.apiKey, 'GET', `/mj/task/${id}/fetch`);
    expect(fetched.json).toMatchObject({ status: 'IN_PROGRESS', progress: '33%' });

    await mock.advance(id);
    await poll();
    fetched = await call(payer.token.apiKey, 'GET', `/mj/task/${id}/fetch`, undefined, 'bearer');
    expect(fetched.json).toMatchObject({ status: 'IN_PROGRESS', progress: '67%' });

    await mock.advance(id);
    // The master's shared task poll (TASK_POLL_INTERVAL) runs the Midjourney round.
    await env.tasks.poller.runOnce();
    fetched = await call(payer.token.apiKey, 'GET', `/mj/task/${id}/fetch`);
    expect(fetched.json).toMatchObject({ status: 'SUCCESS', progress: '100%', imageUrl: `${mock.url}/attachments/${id}.png`, failReason: '' });
    expect((fetched.json.buttons as Array<{ customId: string }>).map((button) => button.customId)).toContain(`MJ::JOB::upsample::1::${id}`);
    expect(Number(fetched.json.finishTime)).toBeGreaterThan(0);

    const listed = await call(payer.token.apiKey, 'POST', '/mj/task/list-by-condition', { ids: [id, 'nope'] });
    expect(Array.isArray(listed.json)).toBe(true);
    expect((listed.json as unknown as Array<{ id: string }>).map((task) => task.id)).toEqual([id]);

    // Another user's key does not see it.
    const stranger = await seedMjPayer(env.context, mock);
    const hidden = await call(stranger.token.apiKey, 'GET', `/mj/task/${id}/fetch`);
    expect(hidden.status).toBe(400);
    expect(hidden.json).toMatchObject({ code: 4, description: 'task_no_found' });

    await env.runtime.flush();
    const books = await totals(env.context, payer.ids);
    expect(books.logs.map((log) => [log.model_name, Number(log.quota)])).toEqual([['mj_imagine', 0.1 * UNIT]]);
    expect(books.userUsed).toBe(0.1 * UNIT);
  });

  it('charges every action its price key, and sends follow-ups to the channel of the original task', async () => {
    const payer = await seedMjPayer(env.context, mock);
    // A second channel in the same group on another proxy: follow-ups must not go there.
    const other = await new MockMidjourney({ secret: 'other-secret' }).start();
    try {
      await seedChannel(env.context, {
        type: 5,
        key: other.secret,
        baseUrl: other.url,
        models: ALL_MJ_MODELS.filter((model) => model !== 'mj_imagine'),
        groups: [payer.user.group],
      });
      const key = payer.token.apiKey;
      const id = await finishedImagine(key);
      const steps: Array<[string, Record<string, unknown>, string]> = [
        ['/mj/submit/action', { taskId: id, customId: `MJ::JOB::upsample::2::${id}` }, 'mj_upscale'],
        ['/mj/submit/action', { taskId: id, customId: `MJ::JOB::variation::3::${id}` }, 'mj_variation'],
        ['/mj/submit/action', { taskId: id, customId: `MJ::JOB::low_variation::1::${id}::SOLO` }, 'mj_low_variation'],
        ['/mj/submit/action', { taskId: id, customId: `MJ::JOB::pan_left::1::${id}::SOLO` }, 'mj_pan'],
        ['/mj/submit/action', { taskId: id, customId: `MJ::JOB::reroll::0::${id}::SOLO` }, 'mj_reroll'],
        ['/mj/submit/action', { taskId: id, customId: `MJ::Outpaint::50::1::${id}::SOLO` }, 'mj_zoom'],
        ['/mj/submit/change', { taskId: id, action: 'UPSCALE', index: 1 }, 'mj_upscale'],
        ['/mj/submit/simple-change', { content: `${id} V2` }, 'mj_variation'],
        ['/mj/submit/modal', { taskId: id, prompt: 'more foxes' }, 'mj_modal'],
      ];
      const actionOf = (priceKey: string) => (priceKey === 'swap_face' ? 'SWAP_FACE' : priceKey.slice(3).toUpperCase());
      for (const [path, body, priceKey] of steps) {
        const answer = await call(key, 'POST', path, body);
        expect(answer.json.code, `${path} ${priceKey}`).toBe(1);
        expect(mock.received.at(-1)!.url).toBe(path);
        const fetched = await call(key, 'GET', `/mj/task/${String(answer.json.result)}/fetch`);
        expect(fetched.json, path).toMatchObject({ action: actionOf(priceKey), status: 'SUBMITTED', prompt: 'a cat' });
      }
      // Inpaint is submitted through the modal, which is what is charged; the action itself is free.
      const inpaint = await call(key, 'POST', '/mj/submit/action', { taskId: id, customId: `MJ::Inpaint::1::${id}::SOLO` });
      expect(inpaint.json.code).toBe(1);
      expect(other.received).toHaveLength(0);

      const fresh: Array<[string, Record<string, unknown>, string]> = [
        ['/mj/submit/describe', { base64: 'data:image/png;base64,AAAA' }, 'mj_describe'],
        ['/mj/submit/blend', { base64Array: ['data:image/png;base64,AAAA', 'data:image/png;base64,BBBB'] }, 'mj_blend'],
        ['/mj/submit/shorten', { prompt: 'a very long prompt' }, 'mj_shorten'],
        ['/mj/submit/upload-discord-images', { base64Array: ['data:image/png;base64,AAAA'] }, 'mj_upload'],
        ['/mj/insight-face/swap', { sourceBase64: 'data:image/png;base64,AAAA', targetBase64: 'data:image/png;base64,BBBB' }, 'swap_face'],
      ];
      for (const [path, body, priceKey] of fresh) {
        const answer = await call(key, 'POST', path, body);
        expect(answer.json.code, path).toBe(1);
        // An upload answers its addresses, not a task.
        if (priceKey === 'mj_upload') continue;
        const fetched = await call(key, 'GET', `/mj/task/${String(answer.json.result)}/fetch`);
        expect(fetched.json.action, path).toBe(actionOf(priceKey));
      }
      const upload = await env.tasks.midjourney.repository.page({ userId: payer.user.id }, { page: 1, pageSize: 1, offset: 0 });
      expect(upload.items[0]).toMatchObject({ action: 'SWAP_FACE', prompt: 'InsightFace' });

      await env.runtime.flush();
      const books = await totals(env.context, payer.ids);
      const expected = ['mj_imagine', ...steps.map((step) => step[2]), ...fresh.map((step) => step[2])];
      expect(books.logs.map((log) => log.model_name)).toEqual(expected);
      const prices: Record<string, number> = {
        mj_imagine: 0.1,
        mj_upscale: 0.05,
        mj_variation: 0.1,
        mj_low_variation: 0.1,
        mj_pan: 0.1,
        mj_reroll: 0.1,
        mj_zoom: 0.1,
        mj_modal: 0.1,
        mj_describe: 0.05,
        mj_blend: 0.1,
        mj_shorten: 0.1,
        mj_upload: 0.05,
        swap_face: 0.05,
      };
      for (const log of books.logs) expect(Number(log.quota), log.model_name).toBe(Math.round(prices[log.model_name]! * UNIT));
      expect(books.userUsed).toBe(books.logQuotaSum);
      expect(books.logs[1]!.content).toContain('操作 UPSCALE');
    } finally {
      await other.close();
    }
  });

  it('prices by ModelPrice times the group ratio, and serves the /fast, /relax, /turbo and /mj-turbo paths', async () => {
    const group = unique('mjvip');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: 2 }));
    await setOption(env.context, 'ModelPrice', JSON.stringify({ mj_imagine: 0.2 }));
    try {
      const payer = await seedMjPayer(env.context, mock, { group });
      for (const mode of ['fast', 'relax', 'turbo']) {
        const answer = await call(payer.token.apiKey, 'POST', `/${mode}/mj/submit/imagine`, { prompt: `a ${mode} dog` });
        expect(answer.json.code).toBe(1);
        expect(mock.received.at(-1)!.url).toBe(`/${mode}/mj/submit/imagine`);
        const fetched = await call(payer.token.apiKey, 'GET', `/${mode}/mj/task/${String(answer.json.result)}/fetch`);
        expect(fetched.json.prompt).toBe(`a ${mode} dog`);
      }
      // The /mj-<mode>/ spelling goes upstream without its prefix, as new-api sends it.
      const plus = await call(payer.token.apiKey, 'POST', '/mj-turbo/mj/submit/imagine', { prompt: 'a turbo cat' });
      expect(plus.json.code).toBe(1);
      expect(mock.received.at(-1)!.url).toBe('/mj/submit/imagine');
      await env.runtime.flush();
      const books = await totals(env.context, payer.ids);
      expect(books.logs.map((log) => Number(log.quota))).toEqual([200_000, 200_000, 200_000, 200_000]);
      expect(books.userUsed).toBe(800_000);
    } finally {
      await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1 }));
      await setOption(env.context, 'ModelPrice', JSON.stringify({}));
    }
  });

  it('refuses in midjourney-proxy shape and charges nothing for refused submits', async () => {
    const payer = await seedMjPayer(env.context, mock);
    const key = payer.token.apiKey;
    const noKey = await mjCall(env.gateway, 'sk-nonexistent', 'POST', '/mj/submit/imagine', { prompt: 'x' });
    expect(noKey.status).toBe(401);
    expect(noKey.json).toMatchObject({ code: 4 });
    expect(String(noKey.json.description)).toContain('无效的令牌');

    const notJson = await fetch(`${env.gateway}/mj/submit/imagine`, {
      method: 'POST',
      headers: { 'mj-api-secret': key, 'content-type': 'application/json' },
      body: '{"prompt":',
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ code: 4 });

    const noPrompt = await call(key, 'POST', '/mj/submit/imagine', {});
    expect(noPrompt.status).toBe(400);
    expect(noPrompt.json).toMatchObject({ code: 4, description: 'prompt_is_required' });
    expect((await call(key, 'POST', '/mj/submit/action', { taskId: 'x', customId: '' })).json.description).toBe('custom_id_is_required');
    expect((await call(key, 'POST', '/mj/submit/simple-change', { content: 'abc X9' })).json.description).toBe('content_parse_failed');
    expect((await call(key, 'POST', '/mj/submit/change', { taskId: 'missing', action: 'UPSCALE', index: 1 })).json.description).toBe('task_not_found');

    // A follow-up of a task that has not finished is refused while MjActionCheckSuccessEnabled.
    const running = await call(key, 'POST', '/mj/submit/imagine', { prompt: 'slow' });
    const early = await call(key, 'POST', '/mj/submit/change', { taskId: String(running.json.result), action: 'UPSCALE', index: 1 });
    expect(early.json).toMatchObject({ code: 4, description: 'task_status_not_success' });

    // The proxy refuses (code 24, sensitive words): the caller sees its answer, nothing is charged.
    mock.scripted.push({ body: { code: 24, description: '可能包含敏感词', properties: { promptEn: 'nude body', bannedWord: 'nude' } } });
    const banned = await call(key, 'POST', '/mj/submit/imagine', { prompt: 'nude body' });
    expect(banned.json).toMatchObject({ code: 24, description: '可能包含敏感词' });
    // 22 (queued) is accepted and answered as 1.
    mock.scripted.push({ body: { code: 22, description: '排队中，前面还有1个任务', result: '9990001', properties: { numberOfQueues: 1 } } });
    const queued = await call(key, 'POST', '/mj/submit/imagine', { prompt: 'queued' });
    expect(queued.json).toMatchObject({ code: 1, result: '9990001' });

    await env.runtime.flush();
    const books = await totals(env.context, payer.ids);
    expect(books.logs.map((log) => log.model_name)).toEqual(['mj_imagine', 'mj_imagine']);
    const rows = await env.tasks.midjourney.repository.page({ userId: payer.user.id }, { page: 1, pageSize: 10, offset: 0 });
    const refused = rows.items.find((row) => row.code === 24)!;
    expect(refused).toMatchObject({ status: 'FAILURE', fail_reason: '可能包含敏感词', quota: 0 });
  });

  it('answers image-seed from the task channel and the image through the gateway with MjForwardUrlEnabled', async () => {
    const payer = await seedMjPayer(env.context, mock);
    const id = await finishedImagine(payer.token.apiKey);
    const seed = await call(payer.token.apiKey, 'GET', `/mj/task/${id}/image-seed`);
    expect(seed.json).toMatchObject({ code: 1, result: `seed-${id}` });

    await setOption(env.context, 'MjForwardUrlEnabled', true);
    await setOption(env.context, 'ServerAddress', env.gateway);
    try {
      const fetched = await call(payer.token.apiKey, 'GET', `/mj/task/${id}/fetch`);
      const address = String(fetched.json.imageUrl);
      expect(address).toMatch(new RegExp(`^${env.gateway}/mj/image/${id}\\?sig=[\\w-]{32}$`));
      const image = await fetch(address);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(
        Buffer.from(await image.arrayBuffer())
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
      // Task ids are nearly sequential: without the signature of that very id, no picture.
      expect((await fetch(`${env.gateway}/mj/image/${id}`)).status).toBe(403);
      const sig = new URL(address).searchParams.get('sig')!;
      expect((await fetch(`${env.gateway}/mj/image/${String(Number(id) + 1)}?sig=${sig}`)).status).toBe(403);
    } finally {
      await setOption(env.context, 'MjForwardUrlEnabled', false);
    }
  });

  it('clears --fast/--relax/--turbo with MjModeClearEnabled and drops accountFilter and notifyHook while their options are off', async () => {
    const payer = await seedMjPayer(env.context, mock);
    await setOption(env.context, 'MjModeClearEnabled', true);
    try {
      await call(payer.token.apiKey, 'POST', '/mj/submit/imagine', {
        prompt: 'a boat --fast --ar 16:9',
        accountFilter: { channelId: '1' },
        notifyHook: 'https://example.com/hook',
      });
      const sent = JSON.parse(mock.received.at(-1)!.body) as Record<string, unknown>;
      expect(sent.prompt).toBe('a boat  --ar 16:9');
      expect(sent).not.toHaveProperty('accountFilter');
      expect(sent).not.toHaveProperty('notifyHook');
    } finally {
      await setOption(env.context, 'MjModeClearEnabled', false);
    }
  });

  it('keeps the key checks: model limits, no channel for the group, and a proxy without accounts disabling its channel', async () => {
    const payer = await seedMjPayer(env.context, mock);
    const limited = await seedToken(env.context, payer.user.id, { modelLimits: ['mj_imagine'] });
    expect((await call(limited.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'ok' })).json.code).toBe(1);
    const refused = await call(limited.apiKey, 'POST', '/mj/submit/describe', { base64: 'data:image/png;base64,AAAA' });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe(4);
    expect(String(refused.json.description)).toContain('mj_describe');

    const lonely = await seedMjPayer(env.context, mock, { models: ['mj_imagine'] });
    const none = await call(lonely.token.apiKey, 'POST', '/mj/submit/blend', { base64Array: [] });
    expect(none.status).toBe(503);
    expect(String(none.json.description)).toContain('mj_blend');

    await setOption(env.context, 'AutomaticDisableChannelEnabled', true);
    try {
      mock.scripted.push({ body: { code: 3, description: '无可用的账号实例' } });
      const noAccount = await call(lonely.token.apiKey, 'POST', '/mj/submit/imagine', { prompt: 'x' });
      expect(noAccount.json).toMatchObject({ code: 3, description: '无可用的账号实例' });
      let status = 1;
      for (let tries = 0; tries < 50 && status === 1; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        status = Number(
          (await env.context.db.kysely.selectFrom('channels').select('status').where('id', '=', lonely.channelId).executeTakeFirstOrThrow()).status,
        );
      }
      expect(status).toBe(3);
    } finally {
      await setOption(env.context, 'AutomaticDisableChannelEnabled', false);
    }
  });
});
