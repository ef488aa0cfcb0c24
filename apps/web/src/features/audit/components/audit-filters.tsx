import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from '@modelgate/contract';
import { Button, DatePicker, Input, Select } from '@douyinfe/semi-ui';
import { IconSearch } from '@douyinfe/semi-icons';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AuditFilters } from '../api';
import { actionName } from '../audit-rules';

interface AuditFilterBarProps {
  filters: AuditFilters;
  searching: boolean;
  onSubmit: (filters: AuditFilters) => void;
}

const EMPTY: AuditFilters = { action: '', actor: '', targetType: '', targetId: '', ip: '', start: 0, end: 0 };
const toDate = (seconds: number) => (seconds ? new Date(seconds * 1000) : undefined);
const toSeconds = (value: unknown) => (value instanceof Date ? Math.floor(value.getTime() / 1000) : 0);

/** The filters apply on 查询 (the action and target type selects too), so a search is one step. */
export function AuditFilterBar({ filters, searching, onSubmit }: AuditFilterBarProps) {
  const { t } = useTranslation('audit');
  const [draft, setDraft] = useState(filters);
  useEffect(() => setDraft(filters), [filters]);
  const set = (changes: Partial<AuditFilters>) => setDraft((current) => ({ ...current, ...changes }));
  const text = (name: 'actor' | 'targetId' | 'ip', testId: string) => (
    <Input
      placeholder={t(`filters.${name}`)}
      aria-label={t(`filters.${name}`)}
      value={draft[name]}
      onChange={(value) => set({ [name]: value })}
      showClear
      data-testid={testId}
    />
  );

  return (
    <form
      className="mg-audit-filters"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit({ ...draft, actor: draft.actor.trim(), targetId: draft.targetId.trim(), ip: draft.ip.trim() });
      }}
    >
      <Select
        placeholder={t('filters.action')}
        aria-label={t('filters.action')}
        value={draft.action || undefined}
        onChange={(value) => set({ action: typeof value === 'string' ? value : '' })}
        optionList={AUDIT_ACTIONS.map((code) => ({ value: code, label: actionName(t, code) }))}
        filter
        showClear
        data-testid="audit-filter-action"
      />
      {text('actor', 'audit-filter-actor')}
      <Select
        placeholder={t('filters.targetType')}
        aria-label={t('filters.targetType')}
        value={draft.targetType || undefined}
        onChange={(value) => set({ targetType: typeof value === 'string' ? value : '' })}
        optionList={AUDIT_TARGET_TYPES.map((type) => ({ value: type, label: t(`targets.${type}`) }))}
        showClear
        data-testid="audit-filter-target-type"
      />
      {text('targetId', 'audit-filter-target-id')}
      {text('ip', 'audit-filter-ip')}
      <DatePicker
        type="dateTimeRange"
        className="mg-audit-range"
        placeholder={[t('filters.start'), t('filters.end')]}
        value={draft.start || draft.end ? [toDate(draft.start), toDate(draft.end)].filter((date): date is Date => !!date) : undefined}
        onChange={(value) => {
          const [start, end] = Array.isArray(value) ? value : [];
          set({ start: toSeconds(start), end: toSeconds(end) });
        }}
        data-testid="audit-filter-range"
      />
      <div className="mg-audit-filter-buttons">
        <Button htmlType="submit" type="primary" theme="solid" icon={<IconSearch />} loading={searching} data-testid="audit-filter-submit">
          {t('filters.submit')}
        </Button>
        <Button onClick={() => onSubmit(EMPTY)} data-testid="audit-filter-reset">
          {t('filters.reset')}
        </Button>
      </div>
    </form>
  );
}
