import { DRAWING_ACTIONS, type DrawingAction } from '@modelgate/contract';
import type { MjSubmitRequest } from './midjourney-wire.js';

/** The drawing actions (spec 02 §4), from the contract the console shares. */
export const MJ_ACTIONS = DRAWING_ACTIONS;
export type MjAction = DrawingAction;

const isAction = (value: string): value is MjAction => (MJ_ACTIONS as readonly string[]).includes(value);

/** The submit endpoints under /mj/submit/ (and /mj/insight-face/swap). */
export type MjSubmitKind =
  | 'imagine'
  | 'change'
  | 'simple-change'
  | 'describe'
  | 'blend'
  | 'action'
  | 'modal'
  | 'shorten'
  | 'upload-discord-images'
  | 'swap-face';

/** new-api's CovertMjpActionToModelName: `mj_<action>`, and `swap_face` for face swaps. */
export function priceKeyOf(action: MjAction): string {
  return action === 'SWAP_FACE' ? 'swap_face' : `mj_${action.toLowerCase()}`;
}

/**
 * INPAINT and CUSTOM_ZOOM are submitted through MODAL, which carries the price (new-api does not
 * charge them; their default prices are 0).
 */
export const isFreeAction = (action: MjAction): boolean => action === 'INPAINT' || action === 'CUSTOM_ZOOM';

/** What a submit asks for: the action, and the earlier task it works on (the follow-ups). */
export interface MjSubmitPlan {
  action: MjAction;
  /** The task whose channel must take this one (upscale, variation, modal...). */
  originTaskId: string | undefined;
  /** The index the plus `customId` names, written into the upstream body for /submit/change. */
  index?: number;
}

/** A refusal in midjourney-proxy's words (new-api's descriptions). */
export class MjRequestRefusal extends Error {}

/**
 * new-api's CoverPlusActionToNormalAction: `MJ::JOB::upsample::2::<hash>` → UPSCALE index 2,
 * `MJ::JOB::variation::3::…`, `low_variation`, `high_variation`, `pan_*`, `reroll`, and the
 * modal ones `MJ::Outpaint::…` (ZOOM), `MJ::CustomZoom::…`, `MJ::Inpaint::…`.
 */
export function actionOfCustomId(customId: string): { action: MjAction; index: number } {
  if (customId === '') throw new MjRequestRefusal('custom_id_is_required');
  const parts = customId.split('::');
  const name = (parts[1] === 'JOB' ? parts[2] : parts[1]) ?? '';
  if (name === '') throw new MjRequestRefusal('unknown_action');
  const indexAt = (position: number): number => {
    const index = Number(parts[position]);
    if (!Number.isInteger(index)) throw new MjRequestRefusal('index_parse_failed');
    return index;
  };
  if (name.includes('upsample')) return { action: 'UPSCALE', index: indexAt(3) };
  if (name.includes('variation')) {
    if (name === 'variation') return { action: 'VARIATION', index: indexAt(3) };
    if (name === 'low_variation') return { action: 'LOW_VARIATION', index: 1 };
    if (name === 'high_variation') return { action: 'HIGH_VARIATION', index: 1 };
  }
  if (name.includes('pan')) return { action: 'PAN', index: 1 };
  if (name.includes('reroll')) return { action: 'REROLL', index: 1 };
  if (name === 'Outpaint') return { action: 'ZOOM', index: 1 };
  if (name === 'CustomZoom') return { action: 'CUSTOM_ZOOM', index: 1 };
  if (name === 'Inpaint') return { action: 'INPAINT', index: 1 };
  throw new MjRequestRefusal(`unknown_action:${customId}`);
}

/** new-api's ConvertSimpleChangeParams: `"<taskId> U2"`, `V1`..`V4`, `R`. */
export function parseSimpleChange(content: string): { taskId: string; action: MjAction; index: number } | undefined {
  const parts = content.split(' ');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  const [taskId, command] = [parts[0]!, parts[1]!.toLowerCase()];
  if (command === 'r') return { taskId, action: 'REROLL', index: 0 };
  const action: MjAction | undefined = command[0] === 'u' ? 'UPSCALE' : command[0] === 'v' ? 'VARIATION' : undefined;
  const index = Number(command.slice(1, 2));
  if (!action || command.length !== 2 || !Number.isInteger(index) || index < 1 || index > 4) return undefined;
  return { taskId, action, index };
}

/** Reads what a submit asks for; throws MjRequestRefusal with new-api's description. */
export function planSubmit(kind: MjSubmitKind, request: MjSubmitRequest): MjSubmitPlan {
  switch (kind) {
    case 'imagine':
      if (!request.prompt) throw new MjRequestRefusal('prompt_is_required');
      return { action: 'IMAGINE', originTaskId: undefined };
    case 'describe':
      return { action: 'DESCRIBE', originTaskId: undefined };
    case 'blend':
      return { action: 'BLEND', originTaskId: undefined };
    case 'shorten':
      return { action: 'SHORTEN', originTaskId: undefined };
    case 'upload-discord-images':
      return { action: 'UPLOAD', originTaskId: undefined };
    case 'swap-face':
      if (!request.sourceBase64 || !request.targetBase64) throw new MjRequestRefusal('sour_base64_and_target_base64_is_required');
      return { action: 'SWAP_FACE', originTaskId: undefined };
    case 'change': {
      if (!request.taskId) throw new MjRequestRefusal('task_id_is_required');
      if (!request.action) throw new MjRequestRefusal('action_is_required');
      const action = request.action.toUpperCase();
      if (!isAction(action)) throw new MjRequestRefusal(`unknown_action:${request.action}`);
      if (action !== 'REROLL' && !request.index) throw new MjRequestRefusal('index_is_required');
      return { action, originTaskId: request.taskId };
    }
    case 'simple-change': {
      if (!request.content) throw new MjRequestRefusal('content_is_required');
      const parsed = parseSimpleChange(request.content);
      if (!parsed) throw new MjRequestRefusal('content_parse_failed');
      return { action: parsed.action, originTaskId: parsed.taskId };
    }
    case 'modal':
      if (!request.taskId) throw new MjRequestRefusal('task_id_is_required');
      return { action: 'MODAL', originTaskId: request.taskId };
    case 'action': {
      const { action, index } = actionOfCustomId(request.customId ?? '');
      if (!request.taskId) throw new MjRequestRefusal('task_id_is_required');
      return { action, originTaskId: request.taskId, index };
    }
    default: {
      const unknown: never = kind;
      throw new MjRequestRefusal(`unknown_relay_action:${String(unknown)}`);
    }
  }
}

/** MjModeClearEnabled: the speed flags come out of the prompt (new-api strips them as written). */
export const clearModeFlags = (prompt: string): string => prompt.replaceAll('--fast', '').replaceAll('--relax', '').replaceAll('--turbo', '');
