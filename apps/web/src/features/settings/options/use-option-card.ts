import { Toast } from '@douyinfe/semi-ui';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionRoles } from '../../../lib/session';
import { statusKeys } from '../../status/queries';
import { fetchOptions, updateOption, type OptionValues } from './options-api';
import { changedOptions, isValidJson, JSON_OPTION_KEYS, saveOptionChanges, type SaveReport } from './option-rules';

export const optionKeys = { all: ['options'] as const };

/** Every readable option of the deployment (super administrators only). */
export function useOptions() {
  const { root } = useSessionRoles();
  return useQuery({ queryKey: optionKeys.all, queryFn: fetchOptions, enabled: root, staleTime: 30_000 });
}

export interface OptionCardOptions {
  /**
   * Checks the card's values before anything is sent; answers the message to show, or null.
   * JSON keys are checked by the card itself with `jsonNames` (spec 01 §5).
   */
  validate?: (values: OptionValues) => string | null;
  /** The name each JSON option goes by in its "... 不是合法的 JSON 字符串" message. */
  jsonNames?: Record<string, string>;
}

export interface OptionCard {
  /** The server's values were not loaded yet (or failed to). */
  loading: boolean;
  error: boolean;
  /** The stored value, or what was typed since. */
  value: (key: string) => string;
  bool: (key: string) => boolean;
  set: (key: string, value: string | boolean) => void;
  /** Something was typed that differs from the stored value. */
  dirty: boolean;
  saving: boolean;
  /** Saves the card's changed keys, one call each, and shows the outcome (spec 01 §7). */
  save: () => Promise<SaveReport | null>;
  /** Drops what was typed. */
  discard: () => void;
}

/**
 * One settings card's keys: what is shown, what was typed, and the save with its four outcomes
 * (你似乎并没有修改什么, 保存成功, 部分保存失败，请重试, 保存失败，请重试).
 */
export function useOptionCard(keys: readonly string[], options: OptionCardOptions = {}): OptionCard {
  const { t } = useTranslation('settings');
  const queryClient = useQueryClient();
  const query = useOptions();
  const [draft, setDraft] = useState<OptionValues>({});
  const [saving, setSaving] = useState(false);
  const stored = query.data;

  const value = useCallback((key: string) => draft[key] ?? stored?.[key] ?? '', [draft, stored]);
  const set = useCallback((key: string, next: string | boolean) => {
    setDraft((previous) => ({ ...previous, [key]: typeof next === 'boolean' ? String(next) : next }));
  }, []);

  const dirty = useMemo(() => stored !== undefined && changedOptions(stored, draft, keys).length > 0, [stored, draft, keys]);

  const save = useCallback(async (): Promise<SaveReport | null> => {
    if (!stored) return null;
    const current: OptionValues = {};
    for (const key of keys) current[key] = draft[key] ?? stored[key] ?? '';
    for (const key of keys) {
      if (JSON_OPTION_KEYS.has(key) && draft[key] !== undefined && !isValidJson(draft[key])) {
        Toast.error(t('options.invalidJson', { name: options.jsonNames?.[key] ?? key }));
        return null;
      }
    }
    const problem = options.validate?.(current) ?? null;
    if (problem) {
      Toast.error(problem);
      return null;
    }
    const changes = changedOptions(stored, draft, keys);
    if (changes.length === 0) {
      Toast.warning(t('options.unchanged'));
      return { outcome: 'unchanged', saved: [], failed: [] };
    }
    setSaving(true);
    try {
      const report = await saveOptionChanges(changes, updateOption);
      if (report.outcome === 'saved') Toast.success(t('options.saved'));
      else {
        Toast.error(t(report.outcome === 'partial' ? 'options.partial' : 'options.failed'));
        for (const message of new Set(report.failed.map((failure) => failure.message))) Toast.error(message);
      }
      // What was stored goes into the cached options at once, so the field does not flash its old
      // value while they are fetched again; secrets stay out (the server never sends them).
      const storedNow = new Map(changes);
      queryClient.setQueryData<OptionValues>(optionKeys.all, (previous) => {
        if (!previous) return previous;
        const next = { ...previous };
        for (const key of report.saved) if (key in previous) next[key] = storedNow.get(key)!;
        return next;
      });
      // What was stored leaves the draft (a secret's field empties); what failed stays to be fixed.
      setDraft((previous) => {
        const next = { ...previous };
        for (const key of report.saved) delete next[key];
        return next;
      });
      await Promise.all([queryClient.invalidateQueries({ queryKey: optionKeys.all }), queryClient.invalidateQueries({ queryKey: statusKeys.all })]);
      return report;
    } finally {
      setSaving(false);
    }
  }, [stored, draft, keys, options, queryClient, t]);

  const discard = useCallback(() => setDraft({}), []);

  return {
    loading: query.isPending,
    error: query.isError,
    value,
    bool: (key: string) => value(key) === 'true',
    set,
    dirty,
    saving,
    save,
    discard,
  };
}
