import { channelTypeInfo } from '@modelgate/contract';
/** Validation rules of spec 02 §5 for channels, shared by the row edits, the drawer and the tag dialog. */

export const PRIORITY_MIN = -999;
export const WEIGHT_MIN = 0;

export type RowNumberField = 'priority' | 'weight';

/**
 * A row's priority or weight as typed: parsed as an integer, priority not below -999, a negative
 * weight becomes 0. Empty or non-numeric text gives null, meaning "ignore the edit".
 */
export function parseRowNumber(raw: string | number | null | undefined, field: RowNumberField): number | null {
  const text = String(raw ?? '').trim();
  if (text === '') return null;
  const value = Number.parseInt(text, 10);
  if (!Number.isFinite(value)) return null;
  if (field === 'priority') return Math.max(PRIORITY_MIN, value);
  return Math.max(WEIGHT_MIN, value);
}

const INTEGER = /^-?\d+$/;

/** For the tag dialog: undefined when empty, the integer when valid, 'invalid' otherwise. */
export function parseOptionalInteger(raw: string | number | null | undefined, nonNegative: boolean): number | undefined | 'invalid' {
  const text = String(raw ?? '').trim();
  if (text === '') return undefined;
  if (!INTEGER.test(text)) return 'invalid';
  const value = Number(text);
  if (!Number.isSafeInteger(value) || (nonNegative && value < 0)) return 'invalid';
  return value;
}

/** An empty text passes; otherwise it must be a JSON object. */
export function isJsonObjectOrEmpty(text: string | null | undefined): boolean {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return true;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/** Splits the custom-model box: comma separated, trimmed, empties dropped. */
export function parseCustomModels(text: string): string[] {
  return text
    .split(',')
    .map((model) => model.trim())
    .filter((model) => model !== '');
}

/** Adds custom names to the selection; any name already selected (or typed twice) makes it fail. */
export function addCustomModels(selected: string[], text: string): { models: string[]; duplicate: boolean } {
  const names = parseCustomModels(text);
  const seen = new Set(selected);
  for (const name of names) {
    if (seen.has(name)) return { models: selected, duplicate: true };
    seen.add(name);
  }
  return { models: [...selected, ...names], duplicate: false };
}

/** Batch mode: one key per line (spec 02 §5); blank lines do not count. */
export const keyLines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

export const DEFAULT_MODEL_MAPPING = JSON.stringify({ 'gpt-3.5-turbo': 'gpt-3.5-turbo-0125' }, null, 2);

/** The models a type's form fills in instead of the catalogue's (its contract row: Midjourney's action "models"). */
export function presetModelsFor(type: number): string[] | null {
  const preset = channelTypeInfo(type)?.form?.presetModels;
  return preset ? [...preset] : null;
}
