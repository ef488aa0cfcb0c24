import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nextState, signMjImage, verifyMjImage } from '../../domain/tasks/midjourney-task-state.js';
import type { MidjourneyRow } from '../../domain/tasks/midjourney-repository.js';
import {
  actionOfCustomId,
  clearModeFlags,
  isFreeAction,
  MJ_ACTIONS,
  MjRequestRefusal,
  parseSimpleChange,
  planSubmit,
  priceKeyOf,
} from './midjourney-actions.js';
import { MJ_ACCEPTED_CODES, MjSubmitAnswer, MjTaskDto } from './midjourney-wire.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

describe('midjourney-proxy wire', () => {
  it('reads the documented submit answers and tells accepted from refused', () => {
    const answers = fixture('submit-answers.json');
    const read = (name: string) => MjSubmitAnswer.parse(answers[name]);
    expect(read('submitted')).toMatchObject({ code: 1, result: '1320098173412546' });
    expect(read('upload').result).toEqual(['https://cdn.discordapp.com/attachments/1/2/upload.png']);
    const accepted = ['submitted', 'exists', 'queued', 'queueFull', 'banned'].filter((name) => MJ_ACCEPTED_CODES.has(read(name).code));
    expect(accepted).toEqual(['submitted', 'exists', 'queued']);
  });

  it('reads the documented task', () => {
    const task = MjTaskDto.parse(fixture('task.json'));
    expect(task).toMatchObject({ id: '1320098173412546', status: 'SUCCESS', progress: '100%', finishTime: 1689231544312 });
    expect(task.buttons).toHaveLength(3);
  });
});

describe('actions and price keys', () => {
  it('prices every action by new-api names', () => {
    expect(MJ_ACTIONS.map(priceKeyOf)).toEqual([
      'mj_imagine',
      'mj_upscale',
      'mj_variation',
      'mj_high_variation',
      'mj_low_variation',
      'mj_pan',
      'mj_describe',
      'mj_blend',
      'mj_upload',
      'mj_shorten',
      'mj_reroll',
      'mj_inpaint',
      'mj_zoom',
      'mj_custom_zoom',
      'mj_modal',
      'swap_face',
    ]);
    expect(MJ_ACTIONS.filter(isFreeAction)).toEqual(['INPAINT', 'CUSTOM_ZOOM']);
  });

  it('reads the Plus buttons', () => {
    const buttons = (fixture('task.json').buttons as Array<{ customId: string }>).map((button) => actionOfCustomId(button.customId));
    expect(buttons).toEqual([
      { action: 'UPSCALE', index: 1 },
      { action: 'VARIATION', index: 1 },
      { action: 'REROLL', index: 1 },
    ]);
    expect(actionOfCustomId('MJ::JOB::high_variation::1::x::SOLO').action).toBe('HIGH_VARIATION');
    expect(actionOfCustomId('MJ::JOB::pan_up::1::x::SOLO').action).toBe('PAN');
    expect(actionOfCustomId('MJ::CustomZoom::x').action).toBe('CUSTOM_ZOOM');
    expect(() => actionOfCustomId('MJ::JOB::upsample::two::x')).toThrow('index_parse_failed');
    expect(() => actionOfCustomId('MJ::JOB::dance::1::x')).toThrow(MjRequestRefusal);
    expect(() => actionOfCustomId('')).toThrow('custom_id_is_required');
  });

  it('parses simple changes as new-api does', () => {
    expect(parseSimpleChange('1320098173412546 U2')).toEqual({ taskId: '1320098173412546', action: 'UPSCALE', index: 2 });
    expect(parseSimpleChange('1320098173412546 v4')).toEqual({ taskId: '1320098173412546', action: 'VARIATION', index: 4 });
    expect(parseSimpleChange('1320098173412546 R')?.action).toBe('REROLL');
    for (const bad of ['1320098173412546 U5', '1320098173412546 X1', 'only', '1 U1 extra', '1320098173412546 U12'])
      expect(parseSimpleChange(bad), bad).toBeUndefined();
  });

  it('plans each submit kind and refuses with new-api descriptions', () => {
    expect(planSubmit('imagine', { prompt: 'cat' })).toEqual({ action: 'IMAGINE', originTaskId: undefined });
    expect(() => planSubmit('imagine', {})).toThrow('prompt_is_required');
    expect(planSubmit('change', { taskId: 't', action: 'variation', index: 2 })).toEqual({ action: 'VARIATION', originTaskId: 't' });
    expect(() => planSubmit('change', { taskId: 't', action: 'UPSCALE' })).toThrow('index_is_required');
    expect(() => planSubmit('change', { action: 'UPSCALE', index: 1 })).toThrow('task_id_is_required');
    expect(planSubmit('action', { taskId: 't', customId: 'MJ::JOB::upsample::3::h' })).toEqual({ action: 'UPSCALE', originTaskId: 't', index: 3 });
    expect(planSubmit('modal', { taskId: 't' })).toEqual({ action: 'MODAL', originTaskId: 't' });
    expect(planSubmit('simple-change', { content: 't U1' })).toEqual({ action: 'UPSCALE', originTaskId: 't' });
    expect(() => planSubmit('swap-face', { sourceBase64: 'a' })).toThrow('sour_base64_and_target_base64_is_required');
    expect(planSubmit('upload-discord-images', {}).action).toBe('UPLOAD');
  });

  it('clears the speed flags as new-api does', () => {
    expect(clearModeFlags('a cat --fast --ar 1:1 --relax --turbo')).toBe('a cat  --ar 1:1  ');
  });
});

describe('task state from the proxy', () => {
  const row = (change: Partial<MidjourneyRow> = {}): MidjourneyRow =>
    ({
      id: 1,
      code: 1,
      user_id: 1,
      action: 'IMAGINE',
      mj_id: '1320098173412546',
      prompt: 'Cat',
      prompt_en: '',
      description: '',
      state: '',
      submit_time: 1689231405854,
      start_time: 0,
      finish_time: 0,
      image_url: '',
      video_url: '',
      video_urls: '',
      status: 'SUBMITTED',
      progress: '0%',
      fail_reason: '',
      channel_id: 1,
      quota: 50_000,
      buttons: '',
      properties: '{"notifyHook":"https://hook.example/x"}',
      token_id: 1,
      refunded: 0,
      ...change,
    }) as MidjourneyRow;
  const task = MjTaskDto.parse(fixture('task.json'));

  it('takes the finished task, keeping the caller hook', () => {
    const next = nextState(row(), task, task.finishTime + 1000)!;
    expect(next).toMatchObject({ status: 'SUCCESS', progress: '100%', image_url: task.imageUrl, finish_time: task.finishTime });
    expect(JSON.parse(next.properties)).toMatchObject({ finalPrompt: 'Cat --v 6', notifyHook: 'https://hook.example/x' });
    expect(nextState({ ...row(), ...next } as MidjourneyRow, task, task.finishTime + 2000)).toBeUndefined();
  });

  it('ends a failure at 100% as FAILURE, and a task older than an hour too', () => {
    const failing = { ...task, status: 'IN_PROGRESS', progress: '40%', failReason: 'Banned prompt', imageUrl: '' };
    expect(nextState(row(), failing, task.submitTime + 1000)).toMatchObject({ status: 'FAILURE', progress: '100%', fail_reason: 'Banned prompt' });
    const stuck = { ...task, status: 'IN_PROGRESS', progress: '40%', imageUrl: '' };
    expect(nextState(row(), stuck, task.submitTime + 3_600_001)).toMatchObject({
      status: 'FAILURE',
      progress: '100%',
      fail_reason: '上游任务超时（超过1小时）',
    });
  });

  it('signs image addresses per task id', () => {
    const sig = signMjImage('secret', '1320098173412546');
    expect(verifyMjImage('secret', '1320098173412546', sig)).toBe(true);
    expect(verifyMjImage('secret', '1320098173412547', sig)).toBe(false);
    expect(verifyMjImage('other', '1320098173412546', sig)).toBe(false);
    expect(verifyMjImage('secret', '1320098173412546', undefined)).toBe(false);
  });
});
