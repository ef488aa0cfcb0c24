import { DRAWING_ACTIONS, type DrawingAction } from '@modelgate/contract';
import type { TagColour, TagSpec } from '../tasks/task-rules';

// Spec 02 §4's drawing actions (the contract), tagged below in new-api's colours (mj-logs MjLogsColumnDefs).
export { DRAWING_ACTIONS, type DrawingAction };
export type DrawingActionKey = DrawingAction | 'UNKNOWN';

const ACTION_COLOURS: Record<DrawingAction, TagColour> = {
  IMAGINE: 'blue',
  UPSCALE: 'orange',
  VARIATION: 'purple',
  HIGH_VARIATION: 'purple',
  LOW_VARIATION: 'purple',
  PAN: 'cyan',
  DESCRIBE: 'yellow',
  BLEND: 'lime',
  UPLOAD: 'blue',
  SHORTEN: 'pink',
  REROLL: 'indigo',
  INPAINT: 'violet',
  ZOOM: 'teal',
  CUSTOM_ZOOM: 'teal',
  MODAL: 'green',
  SWAP_FACE: 'light-green',
};

function isDrawingAction(value: string): value is DrawingAction {
  return (DRAWING_ACTIONS as readonly string[]).includes(value);
}

export function drawingActionTag(action: string | null | undefined): TagSpec<DrawingActionKey> {
  const value = action ?? '';
  return isDrawingAction(value) ? { key: value, colour: ACTION_COLOURS[value] } : { key: 'UNKNOWN', colour: 'white' };
}

/** Spec 02 §4: submit codes 1 submitted, 21 waiting, 22 duplicate, 0 not submitted. */
export type SubmitCodeKey = 'submitted' | 'waiting' | 'duplicate' | 'notSubmitted' | 'unknown';

export function submitCodeTag(code: number | null | undefined): TagSpec<SubmitCodeKey> {
  switch (code) {
    case 1:
      return { key: 'submitted', colour: 'green' };
    case 21:
      return { key: 'waiting', colour: 'lime' };
    case 22:
      return { key: 'duplicate', colour: 'orange' };
    case 0:
      return { key: 'notSubmitted', colour: 'yellow' };
    default:
      return { key: 'unknown', colour: 'white' };
  }
}

/**
 * The name a downloaded drawing is saved under: its task id and the picture's own extension
 * (png when the address does not say), so a download is never an anonymous "image".
 */
export function drawingFileName(mjId: string, imageUrl: string): string {
  let extension = 'png';
  try {
    const path = new URL(imageUrl, 'http://local').pathname;
    const match = /\.(png|jpe?g|webp|gif)$/i.exec(path);
    if (match) extension = match[1].toLowerCase();
  } catch {
    /* keep png */
  }
  const base = mjId.replace(/[^\w.-]+/g, '_') || 'drawing';
  return `${base}.${extension}`;
}
