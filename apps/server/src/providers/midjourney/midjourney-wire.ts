import { z } from 'zod';

/**
 * midjourney-proxy's wire (novicezk/midjourney-proxy docs/api.md, and the Plus variant new-api
 * relays): submit answers `{code, description, result, properties}`, tasks are MidjourneyDto.
 */

/** Submit codes: 1 submitted, 21 already exists, 22 queued (all accepted); the rest refuse. */
export const MJ_ACCEPTED_CODES: ReadonlySet<number> = new Set([1, 21, 22]);
/** new-api's constant.MjRequestError (a bad request) and MjErrorUnknown. */
export const MJ_REQUEST_ERROR = 4;
export const MJ_ERROR_UNKNOWN = 5;
/** No account instance available: new-api disables the channel (with auto-ban on). */
export const MJ_NO_INSTANCE = 3;

export const MjSubmitAnswer = z.looseObject({
  code: z.coerce.number().int(),
  description: z.string().optional().default(''),
  // Uploads answer a list of addresses; everything else a task id.
  result: z.union([z.string(), z.number().transform(String), z.array(z.string()), z.null()]).optional(),
  properties: z.unknown().optional(),
});
export type MjSubmitAnswer = z.infer<typeof MjSubmitAnswer>;

const int = z.coerce.number().int().catch(0);
const str = z
  .string()
  .nullish()
  .transform((value) => value ?? '');

export const MjTaskDto = z.looseObject({
  id: z.coerce.string(),
  action: str,
  prompt: str,
  promptEn: str,
  description: str,
  state: str,
  submitTime: int.optional().default(0),
  startTime: int.optional().default(0),
  finishTime: int.optional().default(0),
  imageUrl: str,
  status: str,
  progress: str,
  failReason: str,
  buttons: z.array(z.unknown()).nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
});
export type MjTaskDto = z.infer<typeof MjTaskDto>;

export const MjTaskList = z.array(MjTaskDto);

/** The request fields the relay reads; the rest go upstream as the caller sent them. */
export const MjSubmitRequest = z.looseObject({
  prompt: z.string().optional(),
  taskId: z.string().optional(),
  action: z.string().optional(),
  index: z.coerce.number().int().optional(),
  content: z.string().optional(),
  customId: z.string().optional(),
  notifyHook: z.string().optional(),
  accountFilter: z.unknown().optional(),
  sourceBase64: z.string().optional(),
  targetBase64: z.string().optional(),
});
export type MjSubmitRequest = z.infer<typeof MjSubmitRequest>;
