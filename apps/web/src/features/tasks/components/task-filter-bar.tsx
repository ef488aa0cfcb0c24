import { Button, DatePicker, Input } from '@douyinfe/semi-ui';
import { IconSearch } from '@douyinfe/semi-icons';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TaskFilters } from '../task-rules';

interface TaskFilterBarProps {
  filters: TaskFilters;
  admin: boolean;
  searching: boolean;
  /** Prefix of the test ids: "mj" or "task". */
  testIdPrefix: string;
  onSubmit: (filters: TaskFilters) => void;
  onReset: () => void;
}

const toDate = (seconds: number) => (seconds ? new Date(seconds * 1000) : undefined);
const toSeconds = (value: unknown) => (value instanceof Date ? Math.floor(value.getTime() / 1000) : 0);

/** Time range, task id and (admins) channel id; applied on 查询, as the log screen does. */
export function TaskFilterBar({ filters, admin, searching, testIdPrefix, onSubmit, onReset }: TaskFilterBarProps) {
  const { t } = useTranslation('tasks');
  const [draft, setDraft] = useState(filters);
  useEffect(() => setDraft(filters), [filters]);
  const set = (changes: Partial<TaskFilters>) => setDraft((current) => ({ ...current, ...changes }));

  return (
    <form
      className="mg-task-filters"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit({ ...draft, taskId: draft.taskId.trim(), channel: draft.channel.trim() });
      }}
    >
      <DatePicker
        type="dateTimeRange"
        className="mg-task-range"
        placeholder={[t('filters.start'), t('filters.end')]}
        value={draft.start || draft.end ? [toDate(draft.start), toDate(draft.end)].filter((date): date is Date => !!date) : undefined}
        onChange={(value) => {
          const [start, end] = Array.isArray(value) ? value : [];
          set({ start: toSeconds(start), end: toSeconds(end) });
        }}
        data-testid={`${testIdPrefix}-filter-range`}
      />
      <Input
        placeholder={t('filters.taskId')}
        aria-label={t('filters.taskId')}
        value={draft.taskId}
        onChange={(value) => set({ taskId: value })}
        showClear
        data-testid={`${testIdPrefix}-filter-id`}
      />
      {admin && (
        <Input
          placeholder={t('filters.channel')}
          aria-label={t('filters.channel')}
          value={draft.channel}
          onChange={(value) => set({ channel: value.replace(/\D/g, '') })}
          showClear
          data-testid={`${testIdPrefix}-filter-channel`}
        />
      )}
      <div className="mg-task-filter-actions">
        <Button htmlType="submit" type="primary" theme="solid" icon={<IconSearch />} loading={searching} data-testid={`${testIdPrefix}-filter-submit`}>
          {t('filters.submit')}
        </Button>
        <Button htmlType="button" onClick={onReset} data-testid={`${testIdPrefix}-filter-reset`}>
          {t('filters.reset')}
        </Button>
      </div>
    </form>
  );
}
