/**
 * Rules shared by the drawing (/midjourney) and async task (/task) screens: status tags, progress,
 * durations, default time ranges and the URL form of the filters (spec 02 §4, §9; new-api's
 * mj-logs and task-logs tables).
 */

/** Semi tag colours the two screens use. */
export type TagColour =
  | 'amber'
  | 'blue'
  | 'cyan'
  | 'green'
  | 'grey'
  | 'indigo'
  | 'light-blue'
  | 'light-green'
  | 'lime'
  | 'orange'
  | 'pink'
  | 'purple'
  | 'red'
  | 'teal'
  | 'violet'
  | 'yellow'
  | 'white';

export interface TagSpec<Key extends string> {
  key: Key;
  colour: TagColour;
}

/** Spec 02 §4: drawing and task statuses; async tasks add QUEUED, UNKNOWN and '' (submitting). */
export const TASK_STATUSES = ['SUCCESS', 'NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'FAILURE', 'MODAL', 'QUEUED', 'UNKNOWN', ''] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type StatusKey = 'success' | 'notStart' | 'submitted' | 'inProgress' | 'failure' | 'modal' | 'queued' | 'unknown' | 'submitting';

function isTaskStatus(value: string): value is TaskStatus {
  return (TASK_STATUSES as readonly string[]).includes(value);
}

/** The tag of a status, coloured as new-api colours it; anything else reads as unknown. */
export function statusTag(status: string | null | undefined): TagSpec<StatusKey> {
  const value = status ?? '';
  if (!isTaskStatus(value)) return { key: 'unknown', colour: 'white' };
  switch (value) {
    case 'SUCCESS':
      return { key: 'success', colour: 'green' };
    case 'NOT_START':
      return { key: 'notStart', colour: 'grey' };
    case 'SUBMITTED':
      return { key: 'submitted', colour: 'yellow' };
    case 'IN_PROGRESS':
      return { key: 'inProgress', colour: 'blue' };
    case 'FAILURE':
      return { key: 'failure', colour: 'red' };
    case 'MODAL':
      return { key: 'modal', colour: 'yellow' };
    case 'QUEUED':
      return { key: 'queued', colour: 'orange' };
    case 'UNKNOWN':
      return { key: 'unknown', colour: 'white' };
    case '':
      return { key: 'submitting', colour: 'grey' };
    default: {
      const unreachable: never = value;
      return unreachable;
    }
  }
}

/**
 * "45%" → 45, "" → 0 (not started), clamped to 0..100; null when the upstream wrote words instead
 * of a number (shown as they are).
 */
export function progressPercent(progress: string | null | undefined): number | null {
  const text = (progress ?? '').trim().replace(/%$/, '');
  if (text === '') return 0;
  const value = Number(text);
  if (!Number.isFinite(value)) return null;
  return Math.min(100, Math.max(0, Math.round(value)));
}

/**
 * Seconds from submit to finish; null while the task runs. Drawing tasks store milliseconds
 * (new-api's midjourneys table), async tasks seconds.
 */
export function durationSeconds(submit: number, finish: number, unit: 'ms' | 's'): number | null {
  if (!submit || !finish || finish < submit) return null;
  const seconds = unit === 'ms' ? (finish - submit) / 1000 : finish - submit;
  return Number(seconds.toFixed(1));
}

/** Spec 02 §9: a task that took over 60 s is red. */
export function durationColour(seconds: number): 'red' | 'green' {
  return seconds > 60 ? 'red' : 'green';
}

const CHANNEL_COLOURS: TagColour[] = [
  'amber',
  'blue',
  'cyan',
  'green',
  'grey',
  'indigo',
  'light-blue',
  'lime',
  'orange',
  'pink',
  'purple',
  'red',
  'teal',
  'violet',
  'yellow',
];

/** A channel keeps its colour from row to row, as in new-api. */
export function channelColour(channelId: number): TagColour {
  return CHANNEL_COLOURS[Math.abs(Math.trunc(channelId)) % CHANNEL_COLOURS.length];
}

/** The filters of both screens; times in Unix seconds. */
export interface TaskFilters {
  start: number;
  end: number;
  /** mj_id on the drawing screen, task_id on the task screen. */
  taskId: string;
  /** Admin only. */
  channel: string;
}

export type RangeKind = 'drawing' | 'task';

const DAY = 24 * 60 * 60;

/**
 * Spec 02 §9: the drawing range covers the last 30 days, the task range starts today; both end now
 * (not an hour in the future as new-api's do). The default end is shown as "now" but asked of the
 * server as open (see `requestFilters`), so tasks submitted while the page is open still show.
 */
export function defaultRange(kind: RangeKind, now: Date): { start: number; end: number } {
  const seconds = Math.floor(now.getTime() / 1000);
  const end = seconds;
  switch (kind) {
    case 'drawing':
      return { start: seconds - 30 * DAY, end };
    case 'task': {
      const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate());
      return { start: Math.floor(midnight.getTime() / 1000), end };
    }
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

/** URL names of the filters; the page is `p` beside them. */
export const FILTER_PARAMS: Record<keyof TaskFilters, string> = { start: 'start', end: 'end', taskId: 'task_id', channel: 'channel_id' };

/** Filters read from the URL; a range missing there takes the screen's default. */
export function filtersFromParams(params: URLSearchParams, defaults: { start: number; end: number }): TaskFilters {
  const seconds = (name: string) => {
    const value = Number(params.get(name));
    return Number.isInteger(value) && value > 0 ? value : 0;
  };
  return {
    start: seconds(FILTER_PARAMS.start) || defaults.start,
    end: seconds(FILTER_PARAMS.end) || defaults.end,
    taskId: (params.get(FILTER_PARAMS.taskId) ?? '').trim(),
    channel: (params.get(FILTER_PARAMS.channel) ?? '').replace(/\D/g, ''),
  };
}

/**
 * What is asked of the server: the default end ("now" when the screen opened) is sent as no end at
 * all, so a refresh also lists what was submitted after the screen opened.
 */
export function requestFilters(filters: TaskFilters, defaults: { end: number }): TaskFilters {
  return filters.end === defaults.end ? { ...filters, end: 0 } : filters;
}

/**
 * The URL changes that show `filters` from page 1. An end left at the default is not written, so
 * it stays open ("now") on every refresh rather than frozen at the moment the screen opened.
 */
export function filterParamChanges(filters: TaskFilters, defaults?: { end: number }): Record<string, string | null> {
  const openEnd = !filters.end || (defaults !== undefined && filters.end === defaults.end);
  return {
    p: null,
    [FILTER_PARAMS.start]: filters.start ? String(filters.start) : null,
    [FILTER_PARAMS.end]: openEnd ? null : String(filters.end),
    [FILTER_PARAMS.taskId]: filters.taskId.trim() || null,
    [FILTER_PARAMS.channel]: filters.channel.replace(/\D/g, '') || null,
  };
}
