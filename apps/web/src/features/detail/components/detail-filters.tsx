import { Button, DatePicker, Input, Radio, RadioGroup, Typography } from '@douyinfe/semi-ui';
import { IconSearch } from '@douyinfe/semi-icons';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { GRANULARITIES, rangeProblem, type Granularity, type RangeProblem, type TimeRange } from '../detail-rules';

export interface DetailFilters extends TimeRange {
  username: string;
}

interface DetailFilterBarProps {
  filters: DetailFilters;
  granularity: Granularity;
  admin: boolean;
  searching: boolean;
  /** A problem of the range in the URL (a link shared by an admin may exceed a user's limit). */
  urlProblem: RangeProblem | null;
  onSubmit: (filters: DetailFilters) => void;
  onGranularity: (granularity: Granularity) => void;
}

const toSeconds = (value: unknown) => (value instanceof Date ? Math.floor(value.getTime() / 1000) : 0);

/** Range and username apply on 查询, after the range is checked; the granularity applies at once (no new request). */
export function DetailFilterBar({ filters, granularity, admin, searching, urlProblem, onSubmit, onGranularity }: DetailFilterBarProps) {
  const { t } = useTranslation('detail');
  const [draft, setDraft] = useState(filters);
  const [problem, setProblem] = useState<RangeProblem | null>(null);
  useEffect(() => setDraft(filters), [filters]);
  const shownProblem = problem ?? urlProblem;

  return (
    <form
      className="mg-detail-filters"
      onSubmit={(event) => {
        event.preventDefault();
        const next = { ...draft, username: draft.username.trim() };
        const found = rangeProblem(next, admin);
        setProblem(found);
        if (!found) onSubmit(next);
      }}
    >
      <div className="mg-detail-filter-row">
        <DatePicker
          type="dateTimeRange"
          className="mg-detail-range"
          placeholder={[t('filters.start'), t('filters.end')]}
          value={[new Date(draft.start * 1000), new Date(draft.end * 1000)].filter((date) => date.getTime() > 0)}
          onChange={(value) => {
            const [start, end] = Array.isArray(value) ? value : [];
            setDraft((current) => ({ ...current, start: toSeconds(start), end: toSeconds(end) }));
            setProblem(null);
          }}
          data-testid="detail-range"
        />
        {admin && (
          <Input
            className="mg-detail-username"
            prefix={t('filters.username')}
            placeholder={t('filters.usernamePlaceholder')}
            value={draft.username}
            onChange={(value) => setDraft((current) => ({ ...current, username: value }))}
            showClear
            data-testid="detail-username"
          />
        )}
        <Button htmlType="submit" type="primary" theme="solid" icon={<IconSearch />} loading={searching} data-testid="detail-submit">
          {t('filters.submit')}
        </Button>
        <span className="mg-detail-granularity">
          <Typography.Text type="tertiary">{t('filters.granularity')}</Typography.Text>
          <RadioGroup
            type="button"
            value={granularity}
            onChange={(event) => onGranularity(event.target.value as Granularity)}
            aria-label={t('filters.granularity')}
            data-testid="detail-granularity"
          >
            {GRANULARITIES.map((value) => (
              <Radio key={value} value={value} data-testid={`detail-granularity-${value}`}>
                {t(`granularity.${value}`)}
              </Radio>
            ))}
          </RadioGroup>
        </span>
      </div>
      {shownProblem && (
        <Typography.Text type="danger" role="alert" data-testid="detail-range-problem">
          {t(`rangeProblem.${shownProblem}`)}
        </Typography.Text>
      )}
    </form>
  );
}
