import { describe, expect, it } from 'vitest';
import zh from '../../i18n/locales/zh/midjourney.json';
import en from '../../i18n/locales/en/midjourney.json';
import { DRAWING_ACTIONS, drawingActionTag, drawingFileName, submitCodeTag } from './drawing-rules';

describe('drawing actions (spec 02 §4)', () => {
  it('tags each action in new-api colours', () => {
    expect(drawingActionTag('IMAGINE')).toEqual({ key: 'IMAGINE', colour: 'blue' });
    expect(drawingActionTag('UPSCALE')).toEqual({ key: 'UPSCALE', colour: 'orange' });
    expect(drawingActionTag('SWAP_FACE')).toEqual({ key: 'SWAP_FACE', colour: 'light-green' });
    expect(drawingActionTag('VIDEO')).toEqual({ key: 'UNKNOWN', colour: 'white' });
  });

  it('has words for every action in both languages', () => {
    for (const action of [...DRAWING_ACTIONS, 'UNKNOWN' as const]) {
      expect(zh.actions[action]).toBeTruthy();
      expect(en.actions[action]).toBeTruthy();
    }
    expect(zh.actions.IMAGINE).toBe('绘图');
  });
});

describe('submit codes (spec 02 §4)', () => {
  it('reads 1 submitted, 21 waiting, 22 duplicate, 0 not submitted', () => {
    expect(submitCodeTag(1)).toEqual({ key: 'submitted', colour: 'green' });
    expect(submitCodeTag(21)).toEqual({ key: 'waiting', colour: 'lime' });
    expect(submitCodeTag(22)).toEqual({ key: 'duplicate', colour: 'orange' });
    expect(submitCodeTag(0)).toEqual({ key: 'notSubmitted', colour: 'yellow' });
    expect(submitCodeTag(4)).toEqual({ key: 'unknown', colour: 'white' });
  });
});

describe('downloaded file name', () => {
  it('is the task id with the picture extension', () => {
    expect(drawingFileName('1712345678901', 'https://cdn.example.com/attachments/a/b/grid_0.webp?ex=1')).toBe('1712345678901.webp');
    expect(drawingFileName('abc', '/mj/image/abc')).toBe('abc.png');
    expect(drawingFileName('a/b', 'not a url')).toBe('a_b.png');
  });
});
