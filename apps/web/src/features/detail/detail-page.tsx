import { Button, Empty, Spin, Tag, Typography } from '@douyinfe/semi-ui';
import { IconBarChartHStroked } from '@douyinfe/semi-icons';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatQuota } from '../../lib/quota';
import { useSessionRoles } from '../../lib/session';
import { useUrlParams } from '../../lib/use-url-filters';
import { useStatus } from '../status/queries';
import { useChartPalette } from './chart-palette';
import { DetailFilterBar, type DetailFilters } from './components/detail-filters';
import { SummaryCards } from './components/summary-cards';
import { CallsChart, QuotaChart, TokensChart } from './components/usage-charts';
import { buildChartData, defaultRange, fitView, GRANULARITIES, parseGranularity, rangeProblem, summarize, type Granularity } from './detail-rules';
import { useQuotaData } from './queries';
import './detail.css';

const positive = (text: string | null) => {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : 0;
};

/**
 * The dashboard (new-api's /detail): usage summed per model and hour from quota_data, shown for a
 * range and re-bucketed per hour, day or week in the browser. The applied range, username and
 * granularity live in the URL; without them the default range of the status granularity is fetched
 * and the range and granularity shown fit the rows (fitView).
 */
export default function DetailPage() {
  const { t } = useTranslation('detail');
  const { admin } = useSessionRoles();
  const status = useStatus();
  const palette = useChartPalette();
  const { params, update: updateParams } = useUrlParams();
  const statusGranularity = parseGranularity(status.data_export_default_time);
  // Fixed at the first render, so the query key does not move with the clock.
  const [initialRange] = useState(() => defaultRange(statusGranularity, Date.now() / 1000));

  // What is fetched: the URL's range, else the default one.
  const fetched = useMemo<DetailFilters>(
    () => ({
      start: positive(params.get('start')) || initialRange.start,
      end: positive(params.get('end')) || initialRange.end,
      username: admin ? (params.get('username') ?? '').trim() : '',
    }),
    [params, initialRange, admin],
  );
  const explicitRange = positive(params.get('start')) > 0 || positive(params.get('end')) > 0;
  const requested = params.get('granularity');
  const explicitGranularity = (GRANULARITIES as readonly string[]).includes(requested ?? '') ? (requested as Granularity) : undefined;

  const problem = rangeProblem(fetched, admin);
  const query = useQuotaData({ ...fetched, admin }, problem === null);
  const rows = useMemo(() => query.data ?? [], [query.data]);
  // What is shown: the user's choices, and for what they left open the view that fits the rows (fitView).
  const fitted = useMemo(() => fitView(rows, fetched, statusGranularity), [rows, fetched, statusGranularity]);
  const filters = useMemo<DetailFilters>(() => (explicitRange ? fetched : { ...fetched, ...fitted.range }), [explicitRange, fetched, fitted]);
  const granularity: Granularity = explicitGranularity ?? fitted.granularity;
  const summary = useMemo(() => summarize(rows, filters), [rows, filters]);
  const chartData = useMemo(() => buildChartData(rows, filters, granularity), [rows, filters, granularity]);
  const money = useCallback((quota: number, digits = 2) => formatQuota(quota, status, digits), [status]);

  const apply = (next: DetailFilters) => {
    const sameRange = next.start === filters.start && next.end === filters.end;
    // 查询 on an unchanged range asks again: the last hour fills up while the page is open.
    if (sameRange && next.username === filters.username) void query.refetch();
    // A fitted range left as it was stays unset, so another user's rows get their own fit.
    else if (sameRange && !explicitRange) updateParams({ username: admin ? next.username : null });
    else updateParams({ start: String(next.start), end: String(next.end), username: admin ? next.username : null });
  };

  const scope = !admin ? t('scope.self') : filters.username ? t('scope.user', { username: filters.username }) : t('scope.all');
  const emptyImage = <IconBarChartHStroked className="mg-detail-empty-icon" />;

  return (
    <div className="mg-page mg-detail-page">
      <div className="mg-detail-header">
        <Typography.Title heading={4}>{t('title')}</Typography.Title>
        <Tag size="large" color="blue" data-testid="detail-scope">
          {scope}
        </Tag>
      </div>
      <DetailFilterBar
        filters={filters}
        granularity={granularity}
        admin={admin}
        searching={query.isFetching}
        urlProblem={problem}
        onSubmit={apply}
        onGranularity={(value) => updateParams({ granularity: value })}
      />
      <Spin spinning={query.isLoading} size="large" wrapperClassName="mg-detail-body">
        <SummaryCards summary={summary} />
        {query.isError && !query.data ? (
          <Empty className="mg-detail-empty" image={emptyImage} title={t('error')} description={query.error.message} data-testid="detail-error">
            <Button onClick={() => void query.refetch()}>{t('retry')}</Button>
          </Empty>
        ) : query.isSuccess && rows.length === 0 ? (
          <Empty className="mg-detail-empty" image={emptyImage} title={t('empty')} description={t('emptyHint')} data-testid="detail-empty" />
        ) : rows.length > 0 ? (
          <div className="mg-detail-charts" data-testid="detail-charts" data-granularity={granularity} data-buckets={chartData.buckets.length}>
            <div className="mg-detail-chart-wide">
              <QuotaChart data={chartData} palette={palette} total={summary.quota} formatQuota={money} />
            </div>
            <CallsChart data={chartData} palette={palette} total={summary.count} />
            <TokensChart data={chartData} palette={palette} total={summary.tokens} />
          </div>
        ) : null}
      </Spin>
    </div>
  );
}
