import { AppError } from '../../errors/app-error.js';
import type { MidjourneyRow } from '../../domain/tasks/midjourney-repository.js';
import { imageUrlOf, NOTIFY_HOOK_PROPERTY, propertiesOf } from '../../domain/tasks/midjourney-task-state.js';
import { MJ_ERROR_UNKNOWN, MJ_REQUEST_ERROR } from '../../providers/midjourney/midjourney-wire.js';

/**
 * A refusal in midjourney-proxy's shape as new-api answers it: HTTP 400 (429 for code 30) with
 * `{code, description, type, result}`; the gateway's own refusals (key, balance) keep their status.
 */
export class MjReply extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly description: string,
    readonly type = 'upstream_error',
  ) {
    super(description);
  }

  get body() {
    return { code: this.code, description: this.description, type: this.type, result: '' };
  }
}

export const mjRefusal = (description: string) => new MjReply(400, MJ_REQUEST_ERROR, description);
export const mjUpstreamError = (description: string, status = 502) => new MjReply(status, MJ_ERROR_UNKNOWN, description);

/** Any error as an MjReply: our AppErrors (auth, balance, body) keep their status and message. */
export function toMjReply(error: unknown): MjReply {
  if (error instanceof MjReply) return error;
  if (error instanceof AppError) return new MjReply(error.status, MJ_REQUEST_ERROR, error.message, 'new_api_error');
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return new MjReply(status, MJ_REQUEST_ERROR, (error as Error).message, 'new_api_error');
  return new MjReply(500, MJ_ERROR_UNKNOWN, 'internal_error', 'new_api_error');
}

const parseJson = (text: string): unknown => {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** A task as /mj/task/{id}/fetch answers it (midjourney-proxy's Task), and as callers' notifyHooks get it. */
export function taskDto(row: MidjourneyRow, forward: boolean, serverAddress: string, secret: string) {
  const properties = propertiesOf(row);
  delete properties[NOTIFY_HOOK_PROPERTY];
  return {
    id: row.mj_id,
    action: row.action,
    customId: '',
    botType: '',
    prompt: row.prompt,
    promptEn: row.prompt_en,
    description: row.description,
    state: row.state,
    submitTime: Number(row.submit_time),
    startTime: Number(row.start_time),
    finishTime: Number(row.finish_time),
    imageUrl: imageUrlOf(row, forward, serverAddress, secret),
    videoUrl: row.video_url,
    status: row.status,
    progress: row.progress,
    failReason: row.fail_reason,
    buttons: parseJson(row.buttons) ?? null,
    properties: Object.keys(properties).length > 0 ? properties : null,
  };
}
