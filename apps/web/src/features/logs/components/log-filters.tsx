import { Button, DatePicker, Input, Radio, RadioGroup } from '@douyinfe/semi-ui';
import { IconSearch } from '@douyinfe/semi-icons';
import { type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { LogFilters } from '../api';
import { LOG_TYPES, typeFilterKey } from '../log-rules';

interface LogFilterBarProps {
  filters: LogFilters;
  admin: boolean;
  searching: boolean;
  onSubmit: (filters: LogFilters) => void;
  /** Beside 查询: actions on the applied filters (the CSV export). */
  actions?: ReactNode;
}

const toDate = (seconds: number) => (seconds ? new Date(seconds * 1000) : undefined);
const toSeconds = (value: unknown) => (value instanceof Date ? Math.floor(value.getTime() / 1000) : 0);

/** The text filters apply on 查询; the type applies at once, as a tab would. */
export function LogFilterBar({ filters, admin, searching, onSubmit, actions }: LogFilterBarProps) {
  const { t } = useTranslation('logs');
  const [draft, setDraft] = useState(filters);
  useEffect(() => setDraft(filters), [filters]);
  const set = (changes: Partial<LogFilters>) => setDraft((current) => ({ ...current, ...changes }));
  const text = (name: 'tokenName' | 'modelName' | 'group' | 'channel' | 'username', testId: string) => (
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
    <div className="mg-log-filters">
      <form
        className="mg-log-filter-grid"
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit({
            ...draft,
            tokenName: draft.tokenName.trim(),
            modelName: draft.modelName.trim(),
            group: draft.group.trim(),
            channel: draft.channel.trim(),
            username: draft.username.trim(),
          });
        }}
      >
        <DatePicker
          type="dateTimeRange"
          className="mg-log-range"
          placeholder={[t('filters.start'), t('filters.end')]}
          value={draft.start || draft.end ? [toDate(draft.start), toDate(draft.end)].filter((date): date is Date => !!date) : undefined}
          onChange={(value) => {
            const [start, end] = Array.isArray(value) ? value : [];
            set({ start: toSeconds(start), end: toSeconds(end) });
          }}
          data-testid="log-filter-range"
        />
        {text('tokenName', 'log-filter-token')}
        {text('modelName', 'log-filter-model')}
        {text('group', 'log-filter-group')}
        {admin && text('channel', 'log-filter-channel')}
        {admin && text('username', 'log-filter-username')}
        <Button htmlType="submit" type="primary" theme="solid" icon={<IconSearch />} loading={searching} data-testid="log-filter-submit">
          {t('filters.submit')}
        </Button>
        {actions}
      </form>
      <RadioGroup
        type="button"
        value={filters.type}
        onChange={(event) => onSubmit({ ...filters, type: Number(event.target.value) })}
        data-testid="log-filter-type"
      >
        {LOG_TYPES.map((type) => (
          <Radio key={type} value={type} data-testid={`log-type-${type}`}>
            {t(`types.${typeFilterKey(type)}`)}
          </Radio>
        ))}
      </RadioGroup>
    </div>
  );
}
