import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { OptionValues } from '../options/options-api';
import { useFieldLabel, useNumberCheck, type FieldKey } from './option-fields';
import type { JsonShapeIssue, NumberOptionKey } from './operation-rules';

export type ShapeChecks = Partial<Record<FieldKey, (text: string) => JsonShapeIssue | null>>;

/**
 * A model-settings card's check before saving: its numbers (range), then each JSON option's
 * shape, answered as "<field name>中 <entry> …" the way the other operation cards word it.
 * Syntax is checked by the card itself through jsonNames.
 */
export function useModelSettingsCheck(numbers: readonly NumberOptionKey[], shapes: ShapeChecks) {
  const { t } = useTranslation('settings-operation');
  const label = useFieldLabel();
  const numberCheck = useNumberCheck(numbers);
  const validate = useCallback(
    (values: OptionValues): string | null => {
      const numberProblem = numberCheck(values);
      if (numberProblem) return numberProblem;
      for (const [key, check] of Object.entries(shapes) as [FieldKey, (text: string) => JsonShapeIssue | null][]) {
        const issue = check(values[key] ?? '');
        if (issue) return t(`json.${issue.problem}`, { name: label(key), entry: issue.entry });
      }
      return null;
    },
    [numberCheck, shapes, t, label],
  );
  const jsonNames = Object.fromEntries((Object.keys(shapes) as FieldKey[]).map((key) => [key, label(key)]));
  return { validate, jsonNames, label };
}
