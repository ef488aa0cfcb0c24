import { InputNumber } from '@douyinfe/semi-ui';
import { useEffect, useState } from 'react';
import { rethrowUnlessApiError } from '../api';
import { parseRowNumber, PRIORITY_MIN, WEIGHT_MIN, type RowNumberField } from '../channel-rules';

interface RowNumberInputProps {
  field: RowNumberField;
  /** null for a tag whose channels differ. */
  value: number | null;
  placeholder?: string;
  onCommit: (value: number) => Promise<void>;
  testId?: string;
}

/**
 * Inline priority/weight edit (spec 02 §5): saved on blur or Enter when the parsed value changed;
 * an empty value is ignored, priority stops at -999 and a negative weight becomes 0.
 */
export function RowNumberInput({ field, value, placeholder, onCommit, testId }: RowNumberInputProps) {
  const [draft, setDraft] = useState<number | string>(value ?? '');
  const [saving, setSaving] = useState(false);

  useEffect(() => setDraft(value ?? ''), [value]);

  const commit = async () => {
    const parsed = parseRowNumber(draft, field);
    if (parsed === null || parsed === value) {
      setDraft(value ?? '');
      return;
    }
    setDraft(parsed);
    setSaving(true);
    try {
      await onCommit(parsed);
    } catch (error) {
      setDraft(value ?? '');
      rethrowUnlessApiError(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <InputNumber
      className="mg-row-number"
      size="small"
      value={draft}
      min={field === 'priority' ? PRIORITY_MIN : WEIGHT_MIN}
      precision={0}
      placeholder={placeholder}
      disabled={saving}
      onChange={(next) => setDraft(next)}
      onBlur={() => void commit()}
      onKeyDown={(event) => {
        if (event.key === 'Enter') (event.target as HTMLInputElement).blur();
      }}
      data-testid={testId}
    />
  );
}
