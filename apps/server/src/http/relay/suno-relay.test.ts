import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockSuno, type MockSuno } from '../../providers/suno/testing/mock-suno.js';
import { LYRICS_QUOTA, MUSIC_QUOTA, SUNO_PRICES, pollTasks, refundLogs, seedSunoPayer, sunoCall, taskRow } from '../../providers/suno/testing/suno-test-kit.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, totals, type RelayTestEnv } from '../../relay/testing/relay-fixtures.js';

/**
 * The Suno relay through the whole app: a real gateway on SQLite, a mock Suno-API server over
 * HTTP, the master's poll run round by round on the mock's clock.
 */
let env: RelayTestEnv;
let mock: MockSuno;

beforeAll(async () => {
  env = await startRelayTestEnv({ QUOTA_WAIT_SECONDS: '1' });
  mock = await startMockSuno();
  await setOption(env.context, 'ModelPrice', JSON.stringify({ ...env.context.options.json('ModelPrice'), ...SUNO_PRICES }));
});
afterAll(async () => {
  await env?.close();
  await mock?.close();
});

describe('submit and fetch', () => {
  it('relays a song: submit charged at suno_music, the poll following it to success with its clips', async () => {
    const payer = await seedSunoPayer(env, mock);
    const submitted = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', {
      prompt: '[Verse]\nhello',
      title: 'Morning',
      tags: 'lofi',
      extra: 'dropped',
    });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
    expect(submitted.json).toMatchObject({ code: 'success' });
    const taskId = submitted.json.data as string;
    expect(mock.tasks.has(taskId)).toBe(true);

    // What went upstream: the channel key as Bearer, new-api's re-encoded SunoSubmitReq.
    const sent = mock.received.at(-1)!;
    expect(sent.url).toBe('/suno/submit/music');
    expect(sent.headers.authorization).toBe(`Bearer ${mock.key}`);
    expect(JSON.parse(sent.body)).toEqual({
      prompt: '[Verse]\nhello',
      mv: 'chirp-v3-0',
      title: 'Morning',
      tags: 'lofi',
      make_instrumental: false,
      instrumental: false,
      callBackUrl: '/suno/callback',
      customMode: false,
    });

    const fresh = await sunoCall(env.gateway, payer.token.apiKey, 'GET', `/suno/fetch/${taskId}`);
    expect(fresh.json).toMatchObject({ code: 'success', data: { task_id: taskId, action: 'MUSIC', status: 'NOT_START', progress: '0%', data: null } });

    mock.advance(1.5);
    await pollTasks(env);
    expect((await taskRow(env, taskId)).status).toBe('QUEUED');
    mock.advance(1.5);
    await pollTasks(env);
    const running = await taskRow(env, taskId);
    expect([running.status, running.progress]).toEqual(['IN_PROGRESS', '33%']);
    expect(Number(running.start_time)).toBeGreaterThan(0);
    mock.advance(1);
    await pollTasks(env);
    expect((await taskRow(env, taskId)).progress).toBe('66%');

    mock.finishAll();
    await pollTasks(env);
    const done = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/fetch', { ids: [taskId, 'not-mine'] });
    expect(done.status).toBe(200);
    const [task] = done.json.data as Record<string, unknown>[];
    expect(done.json.data).toHaveLength(1);
    expect(task).toMatchObject({ task_id: taskId, status: 'SUCCESS', progress: '100%', fail_reason: '' });
    expect(Number(task!.finish_time)).toBeGreaterThan(0);
    const clips = task!.data as { audio_url: string; image_url: string; title: string; metadata: { prompt: string; tags: string; duration: number } }[];
    expect(clips).toHaveLength(2);
    expect(clips[0]).toMatchObject({ title: 'Morning', metadata: { prompt: '[Verse]\nhello', tags: 'lofi', duration: 124.5 } });
    expect(clips[0]!.audio_url).toMatch(new RegExp(`^${mock.url}/files/.+\\.wav$`));
    expect(clips[0]!.image_url).toMatch(/\.png$/);

    await env.runtime.drain();
    const books = await totals(env.context, payer.ids);
    expect(books.logs.map((log) => [log.model_name, Number(log.quota), Number(log.channel_id)])).toEqual([['suno_music', MUSIC_QUOTA, payer.channelId]]);
    expect(String(books.logs[0]!.content)).toContain('操作 MUSIC');
    expect(1_000_000_000 - books.userQuota).toBe(MUSIC_QUOTA);
    expect([books.userUsed, books.tokenUsed, books.channelUsed.get(payer.channelId)]).toEqual([MUSIC_QUOTA, MUSIC_QUOTA, MUSIC_QUOTA]);
    const row = await taskRow(env, taskId);
    expect([row.platform, row.action, Number(row.quota), Number(row.token_id), Number(row.user_id), Number(row.channel_id)]).toEqual([
      'suno',
      'MUSIC',
      MUSIC_QUOTA,
      payer.token.id,
      payer.user.id,
      payer.channelId,
    ]);
  });

  it('relays lyrics at suno_lyrics, and refuses an empty prompt without charging', async () => {
    const payer = await seedSunoPayer(env, mock);
    const refused = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/lyrics', { prompt: '' });
    expect(refused).toEqual({ status: 400, json: { code: 'invalid_request', message: 'prompt_empty', data: null } });
    const submitted = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/lyrics', { prompt: 'a quiet morning' });
    expect(submitted.status).toBe(200);
    const taskId = submitted.json.data as string;
    mock.finishAll();
    await pollTasks(env);
    const fetched = await sunoCall(env.gateway, payer.token.apiKey, 'GET', `/suno/fetch/${taskId}`);
    expect(fetched.json.data).toMatchObject({
      action: 'LYRICS',
      status: 'SUCCESS',
      progress: '100%',
      data: { id: taskId, status: 'complete', title: 'Quiet Morning' },
    });
    expect((fetched.json.data as { data: { text: string } }).data.text).toContain('[Verse]');
    await env.runtime.drain();
    const books = await totals(env.context, payer.ids);
    expect(books.logs.map((log) => [log.model_name, Number(log.quota)])).toEqual([['suno_lyrics', LYRICS_QUOTA]]);
  });

  it('answers only the caller’s own tasks, and task_not_exist for others', async () => {
    const owner = await seedSunoPayer(env, mock);
    const stranger = await seedSunoPayer(env, mock);
    const taskId = (await sunoCall(env.gateway, owner.token.apiKey, 'POST', '/suno/submit/lyrics', { prompt: 'mine' })).json.data as string;
    expect(await sunoCall(env.gateway, stranger.token.apiKey, 'GET', `/suno/fetch/${taskId}`)).toEqual({
      status: 400,
      json: { code: 'task_not_exist', message: 'task_not_exist', data: null },
    });
    expect((await sunoCall(env.gateway, stranger.token.apiKey, 'POST', '/suno/fetch', { ids: [taskId] })).json).toEqual({
      code: 'success',
      message: '',
      data: [],
    });
    expect((await sunoCall(env.gateway, owner.token.apiKey, 'POST', '/suno/fetch', { ids: 'x' })).json).toMatchObject({ code: 'invalid_request' });
  });
});

describe('a multi-key channel', () => {
  it('polls each task with the key it was submitted with, which alone sees it (new-api #6870)', async () => {
    const accounts = await startMockSuno({ key: 'suno-key-a', moreKeys: ['suno-key-b'] });
    try {
      const user = await seedUser(env.context, { quota: 1_000_000_000, group: 'suno-multi' });
      const token = await seedToken(env.context, user.id);
      await seedChannel(env.context, {
        type: 36,
        key: 'suno-key-a\nsuno-key-b',
        baseUrl: accounts.url,
        models: ['suno_music', 'suno_lyrics'],
        groups: ['suno-multi'],
        name: 'suno-multi',
        // In turn: the tasks go to the two accounts alternately.
        channelInfo: JSON.stringify({ multi_key_mode: 'polling' }),
      });
      const taskIds: string[] = [];
      for (let call = 0; call < 4; call += 1) {
        const submitted = await sunoCall(env.gateway, token.apiKey, 'POST', '/suno/submit/lyrics', { prompt: `song ${call}` });
        expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
        taskIds.push(submitted.json.data as string);
      }
      const keysUsed = taskIds.map((id) => accounts.tasks.get(id)!.key);
      expect(keysUsed).toEqual(['suno-key-a', 'suno-key-b', 'suno-key-a', 'suno-key-b']);
      accounts.advance(10);
      await pollTasks(env);
      for (const id of taskIds) expect((await taskRow(env, id)).status).toBe('SUCCESS');
      // Each fetch carried only the tasks of its own key.
      const fetches = accounts.received.filter((request) => request.url === '/suno/fetch');
      for (const fetch of fetches) {
        const key = String(fetch.headers.authorization).replace('Bearer ', '');
        const ids = (JSON.parse(fetch.body) as { ids: string[] }).ids;
        expect(ids.every((id) => accounts.tasks.get(id)!.key === key)).toBe(true);
      }
    } finally {
      await accounts.close();
    }
  });
});

describe('routing', () => {
  it('sends a new task to the highest priority, and a continuation to the channel of the song it continues', async () => {
    const payer = await seedSunoPayer(env, mock);
    const origin = (await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'first part' })).json.data as string;
    const preferred = await startMockSuno({ key: 'suno-second-key' });
    try {
      await seedChannel(env.context, {
        type: 36,
        key: preferred.key,
        baseUrl: preferred.url,
        models: ['suno_music'],
        groups: [payer.user.group],
        priority: 10,
      });
      const fresh = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'new song' });
      expect(preferred.tasks.has(fresh.json.data as string)).toBe(true);
      const continued = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', {
        prompt: 'second part',
        continue_clip_id: `${origin}-clip-0`,
        continue_at: 120,
        task_id: origin,
      });
      expect(continued.status, JSON.stringify(continued.json)).toBe(200);
      expect(mock.tasks.get(continued.json.data as string)?.request).toMatchObject({ continue_clip_id: `${origin}-clip-0`, continue_at: 120, task_id: origin });
      expect(await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { continue_clip_id: 'c' })).toEqual({
        status: 400,
        json: { code: 'invalid_request', message: 'task id is empty', data: null },
      });
      expect(await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { continue_clip_id: 'c', task_id: 'nobody' })).toEqual({
        status: 400,
        json: { code: 'task_not_exist', message: 'task_origin_not_exist', data: null },
      });
    } finally {
      await preferred.close();
    }
  });
});

describe('refusals', () => {
  it('checks the key like every relay call: none, unknown, model limits, another action', async () => {
    const payer = await seedSunoPayer(env, mock, { modelLimits: ['suno_lyrics'] });
    const none = await sunoCall(env.gateway, undefined, 'POST', '/suno/submit/music', { prompt: 'x' });
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ code: 'missing_api_key', data: null });
    expect((await sunoCall(env.gateway, 'sk-nosuchkey', 'GET', '/suno/fetch/abc')).status).toBe(401);
    const limited = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'x' });
    expect(limited.status).toBe(403);
    expect(limited.json).toMatchObject({ code: 'model_not_allowed', data: null });
    expect(await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/video', { prompt: 'x' })).toEqual({
      status: 400,
      json: { code: 'invalid_request', message: 'invalid_action', data: null },
    });
    const wrongType = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/lyrics', { prompt: 3 });
    expect([wrongType.status, wrongType.json.code]).toEqual([400, 'invalid_request']);
  });

  it('gives the hold back when the upstream refuses, with its words but never the key', async () => {
    const payer = await seedSunoPayer(env, mock);
    mock.refuseSubmits({ status: 400, body: { code: 'invalid_request', message: `bad key ${mock.key} or prompt`, data: null } });
    try {
      const refused = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'x' });
      expect(refused.status).toBe(400);
      expect(refused.json.code).toBe('fail_to_fetch_task');
      expect(String(refused.json.message)).toContain('or prompt');
      expect(String(refused.json.message)).not.toContain(mock.key);
    } finally {
      mock.refuseSubmits(undefined);
    }
    await env.runtime.drain();
    const books = await totals(env.context, payer.ids);
    expect([books.logs.length, books.userQuota]).toEqual([0, 1_000_000_000]);
    expect(await env.context.db.kysely.selectFrom('tasks').select('id').where('user_id', '=', payer.user.id).execute()).toEqual([]);
  });

  it('answers 503 when no Suno channel serves the group', async () => {
    const payer = await seedSunoPayer(env, mock);
    await env.context.db.kysely.updateTable('abilities').set({ enabled: 0 }).where('channel_id', '=', payer.channelId).execute();
    env.context.changes.emit('channels');
    const refused = await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'x' });
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ code: 'no_available_channel', data: null });
  });
});

describe('money', () => {
  it('refunds a failed task exactly once, however many rounds see it', async () => {
    const payer = await seedSunoPayer(env, mock, { tokenQuota: 1_000_000 });
    mock.plan({ kind: 'failure', reason: 'content policy violation' });
    const taskId = (await sunoCall(env.gateway, payer.token.apiKey, 'POST', '/suno/submit/music', { prompt: 'x' })).json.data as string;
    mock.finishAll();
    await Promise.all([pollTasks(env), pollTasks(env)]);
    await pollTasks(env);
    await env.tasks.billing.refund('tasks', Number((await taskRow(env, taskId)).id));
    const fetched = await sunoCall(env.gateway, payer.token.apiKey, 'GET', `/suno/fetch/${taskId}`);
    expect(fetched.json.data).toMatchObject({ status: 'FAILURE', progress: '100%', fail_reason: 'content policy violation' });
    await env.runtime.drain();
    const refunds = await refundLogs(env, payer.user.id);
    expect(refunds.map((log) => Number(log.quota))).toEqual([MUSIC_QUOTA]);
    expect(String(refunds[0]!.content)).toContain(`异步任务执行失败 ${taskId}`);
    const books = await totals(env.context, payer.ids);
    expect(books.logQuotaSum - refunds.reduce((sum, log) => sum + Number(log.quota), 0)).toBe(0);
    expect([books.userQuota, books.userUsed, books.tokenRemain, books.tokenUsed, books.channelUsed.get(payer.channelId)]).toEqual([
      1_000_000_000, 0, 1_000_000, 0, 0,
    ]);
    expect(Number((await taskRow(env, taskId)).refunded)).toBe(1);
  });

  it('accepts exactly 20 of 50 concurrent submits on a balance that covers 20, never below zero', async () => {
    const payer = await seedSunoPayer(env, mock, { quota: MUSIC_QUOTA * 20 + MUSIC_QUOTA / 2 });
    const before = mock.tasks.size;
    const pool = new Pool(env.gateway, { connections: 50 });
    let answers: { status: number; code: unknown }[];
    try {
      answers = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const response = await pool.request({
            method: 'POST',
            path: '/suno/submit/music',
            headers: { authorization: `Bearer ${payer.token.apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ prompt: 'many' }),
          });
          const json = (await response.body.json()) as { code: unknown };
          return { status: response.statusCode, code: json.code };
        }),
      );
    } finally {
      await pool.close();
    }
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(20);
    expect(answers.filter((answer) => answer.status === 403 && answer.code === 'quota_not_enough')).toHaveLength(30);
    expect(mock.tasks.size - before).toBe(20);
    await env.runtime.drain();
    const books = await totals(env.context, payer.ids);
    expect([books.userQuota, books.logs.length, books.logQuotaSum]).toEqual([MUSIC_QUOTA / 2, 20, MUSIC_QUOTA * 20]);
    const rows = await env.context.db.kysely.selectFrom('tasks').select('quota').where('user_id', '=', payer.user.id).execute();
    expect(rows.map((row) => Number(row.quota))).toEqual(Array(20).fill(MUSIC_QUOTA));
  });
});
