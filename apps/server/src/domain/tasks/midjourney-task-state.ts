import { createHmac, timingSafeEqual } from 'node:crypto';
import type { MjTaskDto } from '../../providers/midjourney/midjourney-wire.js';
import type { MidjourneyProgress, MidjourneyRow } from './midjourney-repository.js';

/** A task running longer than this without finishing is failed (new-api: an hour). */
export const MJ_TASK_TIMEOUT_MS = 3_600_000;

/** Reads a row's properties JSON (an object), {} when empty or not one. */
export function propertiesOf(row: Pick<MidjourneyRow, 'properties'>): Record<string, unknown> {
  if (!row.properties) return {};
  try {
    const value: unknown = JSON.parse(row.properties);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The caller's own notifyHook, kept in the row's properties while the proxy calls ours. */
export const NOTIFY_HOOK_PROPERTY = 'notifyHook';

/**
 * The row's new state from what the proxy reports (new-api's UpdateMidjourneyTaskBulk), or
 * undefined when nothing changed. A failure (a fail reason before 100%, or FAILURE) ends at 100%
 * with status FAILURE, which the refund sweep then pays back once.
 */
export function nextState(row: MidjourneyRow, reported: MjTaskDto, now: number): MidjourneyProgress | undefined {
  let { status, failReason } = reported;
  if (now - Number(row.submit_time) > MJ_TASK_TIMEOUT_MS && reported.progress !== '100%' && status !== 'SUCCESS') {
    status = 'FAILURE';
    failReason = '上游任务超时（超过1小时）';
  }
  const oldProperties = propertiesOf(row);
  const properties = reported.properties ? { ...reported.properties } : { ...oldProperties };
  const hook = oldProperties[NOTIFY_HOOK_PROPERTY];
  if (typeof hook === 'string') properties[NOTIFY_HOOK_PROPERTY] = hook;
  const next: MidjourneyProgress = {
    code: 1,
    progress: reported.progress,
    prompt_en: reported.promptEn,
    state: reported.state,
    submit_time: reported.submitTime || Number(row.submit_time),
    start_time: reported.startTime,
    finish_time: reported.finishTime,
    image_url: reported.imageUrl,
    status,
    fail_reason: failReason,
    properties: Object.keys(properties).length > 0 ? JSON.stringify(properties) : '',
    buttons: reported.buttons ? JSON.stringify(reported.buttons) : row.buttons,
  };
  if ((next.progress !== '100%' && failReason !== '') || status === 'FAILURE') {
    next.progress = '100%';
    next.status = 'FAILURE';
  }
  const changed = (Object.keys(next) as Array<keyof MidjourneyProgress>).some((key) => String(row[key]) !== String(next[key]));
  return changed ? next : undefined;
}

/**
 * The signature `/mj/image/{id}?sig=` carries (as new-api's SignMjImage): task ids are nearly
 * sequential, so without it anyone could walk through every user's drawings.
 */
export function signMjImage(secret: string, mjId: string): string {
  return createHmac('sha256', secret).update(`mj-image:${mjId}`).digest('base64url').slice(0, 32);
}

export function verifyMjImage(secret: string, mjId: string, sig: unknown): boolean {
  if (typeof sig !== 'string' || sig.length !== 32) return false;
  return timingSafeEqual(Buffer.from(sig), Buffer.from(signMjImage(secret, mjId)));
}

/**
 * Where clients see a task's image: the proxy's address, or with MjForwardUrlEnabled ours
 * (`<ServerAddress>/mj/image/<id>?sig=…`, new-api's coverMidjourneyTaskDto; an unfinished task's
 * address changes each time, so no cache keeps a stale picture).
 */
export function imageUrlOf(row: Pick<MidjourneyRow, 'image_url' | 'mj_id' | 'status'>, forward: boolean, serverAddress: string, secret: string): string {
  if (row.image_url === '' || !forward) return row.image_url;
  const url = `${serverAddress.replace(/\/+$/, '')}/mj/image/${encodeURIComponent(row.mj_id)}?sig=${signMjImage(secret, row.mj_id)}`;
  return row.status === 'SUCCESS' ? url : `${url}&rand=${Date.now()}${Math.floor(Math.random() * 1000)}`;
}
