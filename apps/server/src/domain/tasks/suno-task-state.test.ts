import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sunoFetchAnswerSchema, sunoTaskItemSchema, upstreamSubmitBody, type SunoTaskItem } from '../../providers/suno/suno-wire.js';
import { sunoTaskChange } from './suno-task-state.js';
import type { TaskRow } from './task-repository.js';

/** What a poll makes of a Suno-API fetch answer (providers/suno/__fixtures__/suno-fetch-answer.json). */
const fixture: unknown = JSON.parse(readFileSync(new URL('../../providers/suno/__fixtures__/suno-fetch-answer.json', import.meta.url), 'utf8'));

const items = (): SunoTaskItem[] => (sunoFetchAnswerSchema.parse(fixture).data ?? []).map((raw) => sunoTaskItemSchema.parse(raw));

const row = (overrides: Partial<TaskRow> = {}): TaskRow => ({
  id: 1,
  created_at: 1718000000,
  updated_at: 1718000000,
  task_id: 'x',
  platform: 'suno',
  user_id: 1,
  group: 'default',
  channel_id: 1,
  quota: 100,
  action: 'MUSIC',
  status: 'NOT_START',
  fail_reason: '',
  submit_time: 1717999999,
  start_time: 0,
  finish_time: 0,
  progress: '0%',
  properties: '',
  data: '',
  token_id: 1,
  refunded: 0,
  key_hash: '',
  ...overrides,
});

describe('sunoTaskChange', () => {
  it('takes a finished song: status, the upstream times, 100% and the clips as JSON', () => {
    const [song] = items();
    const change = sunoTaskChange(row({ task_id: song!.task_id }), song!);
    expect(change).toMatchObject({
      status: 'SUCCESS',
      progress: '100%',
      submitTime: 1718000000,
      startTime: 1718000010,
      finishTime: 1718000120,
      failReason: '',
    });
    const clips = JSON.parse(change!.data) as { audio_url: string; title: string; metadata: { duration: number } }[];
    expect(clips[0]).toMatchObject({
      title: 'Kitchen Floor',
      audio_url: 'https://cdn1.suno.ai/124b735f-7fb0-42b9-8b35-761aed65a7f6.mp3',
      metadata: { duration: 124.5 },
    });
  });

  it('takes finished lyrics as their {id, status, title, text}', () => {
    const [, lyrics] = items();
    const change = sunoTaskChange(row({ action: 'LYRICS' }), lyrics!);
    expect(JSON.parse(change!.data)).toEqual({
      id: 'e5ab9a1c-7a52-4c4b-9c89-4e4b1e52d6a1',
      status: 'complete',
      title: 'Quiet Morning',
      text: '[Verse]\nThe kettle hums a patient tune',
    });
  });

  it('keeps what the report leaves out, finishes a failure at 100% with a reason, and reads unknown words as UNKNOWN', () => {
    expect(sunoTaskChange(row({ status: 'IN_PROGRESS', progress: '40%', start_time: 5 }), { task_id: 'x', status: 'IN_PROGRESS' })).toBeUndefined();
    expect(
      sunoTaskChange(row({ status: 'IN_PROGRESS', progress: '40%', start_time: 5 }), { task_id: 'x', status: 'IN_PROGRESS', progress: '70%' }),
    ).toMatchObject({ progress: '70%', startTime: 5 });
    expect(sunoTaskChange(row(), { task_id: 'x', status: 'IN_PROGRESS', progress: 'lots' }, 42)).toMatchObject({ progress: '0%', startTime: 42 });
    expect(sunoTaskChange(row(), { task_id: 'x', status: 'FAILURE' }, 42)).toMatchObject({
      status: 'FAILURE',
      progress: '100%',
      finishTime: 42,
      failReason: '任务执行失败 (the task failed upstream)',
    });
    expect(sunoTaskChange(row(), { task_id: 'x', status: 'streaming' })?.status).toBe('UNKNOWN');
    expect(sunoTaskChange(row(), { task_id: 'x', status: 'queued' })?.status).toBe('QUEUED');
  });
});

describe('upstreamSubmitBody', () => {
  it('writes new-api’s SunoSubmitReq: set fields only, the four plain ones always', () => {
    expect(JSON.parse(upstreamSubmitBody({ prompt: 'p', mv: 'chirp-v3-5', continue_at: 0, title: '' }))).toEqual({
      prompt: 'p',
      mv: 'chirp-v3-5',
      make_instrumental: false,
      instrumental: false,
      callBackUrl: '',
      customMode: false,
    });
    expect(JSON.parse(upstreamSubmitBody({ continue_clip_id: 'c', task_id: 't', continue_at: 30.5, make_instrumental: true }))).toMatchObject({
      continue_clip_id: 'c',
      task_id: 't',
      continue_at: 30.5,
      make_instrumental: true,
    });
  });
});
