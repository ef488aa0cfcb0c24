import { describe, expect, it } from 'vitest';
import {
  channelColour,
  defaultRange,
  durationColour,
  durationSeconds,
  filterParamChanges,
  filtersFromParams,
  requestFilters,
  progressPercent,
  statusTag,
  TASK_STATUSES,
} from './task-rules';

describe('task statuses (spec 02 §4, new-api colours)', () => {
  it('tags every status with its own words and colour', () => {
    expect(statusTag('SUCCESS')).toEqual({ key: 'success', colour: 'green' });
    expect(statusTag('FAILURE')).toEqual({ key: 'failure', colour: 'red' });
    expect(statusTag('IN_PROGRESS')).toEqual({ key: 'inProgress', colour: 'blue' });
    expect(statusTag('SUBMITTED')).toEqual({ key: 'submitted', colour: 'yellow' });
    expect(statusTag('NOT_START')).toEqual({ key: 'notStart', colour: 'grey' });
    expect(statusTag('MODAL')).toEqual({ key: 'modal', colour: 'yellow' });
    expect(statusTag('QUEUED')).toEqual({ key: 'queued', colour: 'orange' });
    expect(statusTag('')).toEqual({ key: 'submitting', colour: 'grey' });
    expect(new Set(TASK_STATUSES.map((status) => statusTag(status).key)).size).toBe(TASK_STATUSES.length);
  });

  it('reads a status it does not know, or none at all, as unknown rather than failing', () => {
    expect(statusTag('CANCELLED')).toEqual({ key: 'unknown', colour: 'white' });
    expect(statusTag(undefined)).toEqual({ key: 'submitting', colour: 'grey' });
  });
});

describe('progress and duration (spec 02 §9)', () => {
  it('reads "45%" as 45, empty as 0, clamps, and keeps words as words', () => {
    expect(progressPercent('45%')).toBe(45);
    expect(progressPercent('100%')).toBe(100);
    expect(progressPercent('')).toBe(0);
    expect(progressPercent(undefined)).toBe(0);
    expect(progressPercent('120%')).toBe(100);
    expect(progressPercent('queued')).toBeNull();
  });

  it('measures a drawing in milliseconds and a task in seconds; a running task has none', () => {
    expect(durationSeconds(1_700_000_000_000, 1_700_000_012_345, 'ms')).toBe(12.3);
    expect(durationSeconds(1_700_000_000, 1_700_000_075, 's')).toBe(75);
    expect(durationSeconds(1_700_000_000, 0, 's')).toBeNull();
    expect(durationSeconds(0, 1_700_000_000, 's')).toBeNull();
  });

  it('colours a duration over 60 s red, 60 s and under green', () => {
    expect(durationColour(60)).toBe('green');
    expect(durationColour(60.1)).toBe('red');
    expect(durationColour(3)).toBe('green');
  });

  it('gives a channel the same colour on every row', () => {
    expect(channelColour(3)).toBe(channelColour(3));
    expect(channelColour(3)).not.toBe(channelColour(4));
  });
});

describe('default ranges (spec 02 §9)', () => {
  const now = new Date(2026, 10, 25, 14, 30, 0);
  const seconds = Math.floor(now.getTime() / 1000);

  it('covers the last 30 days for drawings', () => {
    expect(defaultRange('drawing', now)).toEqual({ start: seconds - 30 * 86_400, end: seconds });
  });

  it('starts at today 00:00 for async tasks', () => {
    expect(defaultRange('task', now)).toEqual({ start: Math.floor(new Date(2026, 10, 25).getTime() / 1000), end: seconds });
  });
});

describe('filters in the URL', () => {
  const defaults = { start: 100, end: 200 };

  it('asks the server for an open end while the range ends at the default "now"', () => {
    const shown = filtersFromParams(new URLSearchParams(''), defaults);
    expect(shown.end).toBe(200);
    expect(requestFilters(shown, defaults)).toEqual({ start: 100, end: 0, taskId: '', channel: '' });
    // A chosen end is kept as chosen.
    expect(requestFilters({ ...shown, end: 150 }, defaults).end).toBe(150);
  });

  it('leaves an end at the default out of the URL, so a refresh still reaches "now"', () => {
    expect(filterParamChanges({ start: 100, end: 200, taskId: '', channel: '' }, defaults)).toMatchObject({ start: '100', end: null });
    expect(filterParamChanges({ start: 100, end: 150, taskId: '', channel: '' }, defaults)).toMatchObject({ end: '150' });
  });

  it('takes the default range when the URL names none', () => {
    expect(filtersFromParams(new URLSearchParams(''), defaults)).toEqual({ start: 100, end: 200, taskId: '', channel: '' });
  });

  it('reads range, task id and channel, dropping what is not a number', () => {
    const filters = filtersFromParams(new URLSearchParams('start=1000&end=2000&task_id=%20abc%20&channel_id=7x'), defaults);
    expect(filters).toEqual({ start: 1000, end: 2000, taskId: 'abc', channel: '7' });
    expect(filtersFromParams(new URLSearchParams('start=-5&end=soon'), defaults)).toMatchObject({ start: 100, end: 200 });
  });

  it('writes filters back and returns to page 1', () => {
    expect(filterParamChanges({ start: 1000, end: 2000, taskId: 'abc', channel: '' })).toEqual({
      p: null,
      start: '1000',
      end: '2000',
      task_id: 'abc',
      channel_id: null,
    });
  });

  it('reads back what it wrote', () => {
    const filters = { start: 1000, end: 2000, taskId: 'mj-1', channel: '12' };
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(filterParamChanges(filters))) if (value !== null) params.set(name, value);
    expect(filtersFromParams(params, defaults)).toEqual(filters);
  });
});
