import { z } from 'zod';

/**
 * The Suno relay's wire formats, as new-api speaks them (dto/suno.go) to a Suno-API server
 * (github.com/Suno-API/Suno-API): POST {base}/suno/submit/{music,lyrics} answers
 * {code:'success', message, data:<task id>}; POST {base}/suno/fetch {ids} answers
 * {code:'success', data:[task]} where a task carries task_id, action, status, fail_reason, the
 * Unix-second times and data (the clips of a song, or {id, status, title, text} for lyrics).
 */

export type SunoAction = 'MUSIC' | 'LYRICS';

/** The action of a submit path's last part (new-api upper-cases it); undefined for another. */
export const sunoActionOf = (pathPart: string): SunoAction | undefined => {
  const action = pathPart.toUpperCase();
  return action === 'MUSIC' || action === 'LYRICS' ? action : undefined;
};

/** The ModelPrice key an action is priced, routed and logged by (new-api's CoverTaskActionToModelName). */
export const sunoPriceKey = (action: SunoAction): string => {
  switch (action) {
    case 'MUSIC':
      return 'suno_music';
    case 'LYRICS':
      return 'suno_lyrics';
    default: {
      const unreachable: never = action;
      return unreachable;
    }
  }
};

/** The task statuses (spec 02 §4; Suno-API's po/task.go). */
export const SUNO_TASK_STATUSES = ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'FAILURE', 'SUCCESS', 'UNKNOWN'] as const;
export type SunoTaskStatus = (typeof SUNO_TASK_STATUSES)[number];
/** A task in one of these is over: the poller stops asking about it (new-api polls UNKNOWN on). */
export const FINISHED_STATUSES: readonly SunoTaskStatus[] = ['SUCCESS', 'FAILURE'];

const optionalText = z.string().optional();

/**
 * new-api's SunoSubmitReq. Wrong types are refused; unknown fields are dropped, since new-api
 * re-encodes the struct before sending it on.
 */
export const sunoSubmitRequestSchema = z.object({
  gpt_description_prompt: optionalText,
  prompt: optionalText,
  mv: optionalText,
  title: optionalText,
  tags: optionalText,
  continue_at: z.number().optional(),
  task_id: optionalText,
  continue_clip_id: optionalText,
  make_instrumental: z.boolean().optional(),
  instrumental: z.boolean().optional(),
  model: optionalText,
  callBackUrl: optionalText,
  customMode: z.boolean().optional(),
});
export type SunoSubmitRequest = z.infer<typeof sunoSubmitRequestSchema>;

/**
 * The body sent upstream, byte for byte as new-api's json.Marshal of SunoSubmitReq writes it:
 * the `omitempty` fields only when set, the four others always.
 */
export function upstreamSubmitBody(request: SunoSubmitRequest): string {
  const body: Record<string, unknown> = {};
  const put = (name: keyof SunoSubmitRequest, value: string | number | undefined) => {
    if (value !== undefined && value !== '' && value !== 0) body[name] = value;
  };
  put('gpt_description_prompt', request.gpt_description_prompt);
  put('prompt', request.prompt);
  put('mv', request.mv);
  put('title', request.title);
  put('tags', request.tags);
  put('continue_at', request.continue_at);
  put('task_id', request.task_id);
  put('continue_clip_id', request.continue_clip_id);
  body.make_instrumental = request.make_instrumental ?? false;
  body.instrumental = request.instrumental ?? false;
  put('model', request.model);
  body.callBackUrl = request.callBackUrl ?? '';
  body.customMode = request.customMode ?? false;
  return JSON.stringify(body);
}

/** What a Suno-API server answers a submit with. */
export const sunoSubmitAnswerSchema = z.looseObject({
  code: z.string(),
  message: z.string().optional(),
  data: z.unknown(),
});

/** One task in a fetch answer. `progress` is not Suno-API's, but taken when a server reports it. */
export const sunoTaskItemSchema = z.looseObject({
  task_id: z.string(),
  action: z.string().optional(),
  status: z.string().optional(),
  fail_reason: z.string().nullish(),
  submit_time: z.number().optional(),
  start_time: z.number().optional(),
  finish_time: z.number().optional(),
  progress: z.string().optional(),
  data: z.unknown().optional(),
});
export type SunoTaskItem = z.infer<typeof sunoTaskItemSchema>;

export const sunoFetchAnswerSchema = z.looseObject({
  code: z.string(),
  message: z.string().optional(),
  data: z.array(z.unknown()).nullish(),
});

/** The caller's POST /suno/fetch body (new-api reads ids as []any; a task id is text). */
export const sunoFetchRequestSchema = z.object({
  ids: z.array(z.string()).max(1000).optional(),
  action: z.string().optional(),
});

/** A known status, or undefined for one this version does not know. */
export const knownStatus = (status: string | undefined): SunoTaskStatus | undefined => SUNO_TASK_STATUSES.find((known) => known === status?.toUpperCase());

/** "0%".."100%", as the tasks table keeps progress. */
export const isProgressText = (text: string | undefined): text is string => text !== undefined && /^(\d{1,2}|100)%$/.test(text);
