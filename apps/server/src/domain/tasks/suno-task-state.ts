import { isProgressText, knownStatus, type SunoTaskItem } from '../../providers/suno/suno-wire.js';
import { taskDataOf, type TaskChange, type TaskRow } from './task-repository.js';

const now = () => Math.floor(Date.now() / 1000);

/** new-api's TaskDto, as /suno/fetch answers a task. */
export interface SunoTaskDto {
  task_id: string;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  data: unknown;
}

export const toSunoTaskDto = (row: TaskRow): SunoTaskDto => ({
  task_id: row.task_id,
  action: row.action,
  status: row.status,
  fail_reason: row.fail_reason,
  submit_time: Number(row.submit_time),
  start_time: Number(row.start_time),
  finish_time: Number(row.finish_time),
  progress: row.progress,
  data: taskDataOf(row.data),
});

/**
 * What an upstream's report changes in a task (new-api's updateSunoTaskAll): status, fail reason
 * and times where the report has them; progress as reported, 100% once finished; data as reported.
 * Undefined when nothing changes.
 */
export function sunoTaskChange(row: TaskRow, item: SunoTaskItem, at = now()): TaskChange | undefined {
  const reported = item.status === undefined || item.status === '' ? undefined : (knownStatus(item.status) ?? 'UNKNOWN');
  const status = reported ?? row.status;
  const finished = status === 'SUCCESS' || status === 'FAILURE';
  const change: TaskChange = {
    status,
    failReason: item.fail_reason ? item.fail_reason : row.fail_reason,
    submitTime: item.submit_time ? item.submit_time : Number(row.submit_time),
    startTime: item.start_time ? item.start_time : Number(row.start_time),
    finishTime: item.finish_time ? item.finish_time : Number(row.finish_time),
    progress: finished ? '100%' : isProgressText(item.progress) ? item.progress : row.progress,
    data: item.data === undefined || item.data === null ? row.data : JSON.stringify(item.data),
  };
  if (finished && change.finishTime === 0) change.finishTime = at;
  if (status === 'IN_PROGRESS' && change.startTime === 0) change.startTime = at;
  if (status === 'FAILURE' && change.failReason === '') change.failReason = '任务执行失败 (the task failed upstream)';
  const same =
    change.status === row.status &&
    change.failReason === row.fail_reason &&
    change.submitTime === Number(row.submit_time) &&
    change.startTime === Number(row.start_time) &&
    change.finishTime === Number(row.finish_time) &&
    change.progress === row.progress &&
    change.data === row.data;
  return same ? undefined : change;
}
