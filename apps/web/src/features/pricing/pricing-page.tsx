import { Banner, Empty, Input, Select, Table, Typography } from '@douyinfe/semi-ui';
import { IconSearch } from '@douyinfe/semi-icons';
import { useCallback, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../lib/clipboard';
import { useSessionUser } from '../../lib/session';
import { useNarrowScreen } from '../../lib/use-narrow-screen';
import { useUrlFilters } from '../../lib/use-url-filters';
import type { PricedModel } from './api';
import { pricingColumns } from './components/pricing-columns';
import { initialGroup, matchesSearch } from './pricing-rules';
import { usePricing } from './queries';
import './pricing.css';
import { useTablePagination } from '../../components/shared/table-pagination';

const readFilters = (params: URLSearchParams) => ({ search: params.get('q') ?? '', group: params.get('group') });

export default function PricingPage() {
  const { t } = useTranslation('pricing');
  const user = useSessionUser();
  const pricing = usePricing();
  // Replaced, not pushed: the search changes with every keystroke.
  const { filters, page, pageSize, setFilters, setPage, setPageSize } = useUrlFilters(readFilters, { replace: true });
  const narrow = useNarrowScreen();

  const { search, group: requestedGroup } = filters;

  const groups = useMemo(() => Object.keys(pricing.data?.usableGroup ?? {}), [pricing.data]);
  const group = requestedGroup && groups.includes(requestedGroup) ? requestedGroup : initialGroup(groups, user?.group);
  const groupRatio = pricing.data?.groupRatio[group] ?? 1;

  const models = useMemo(() => (pricing.data?.models ?? []).filter((model) => matchesSearch(model, search)), [pricing.data, search]);
  const onCopy = useCallback((model: PricedModel) => void copyWithFeedback(model.model_name, t('copied', { model: model.model_name })), [t]);
  const columns = useMemo(() => pricingColumns({ t, groupRatio, userGroup: user?.group, onCopy }), [t, groupRatio, user?.group, onCopy]);

  const pagination = useTablePagination({ page, pageSize, total: models.length, onPageChange: setPage, onPageSizeChange: setPageSize });
  return (
    <div className="mg-pricing-page">
      <Typography.Title heading={4} className="mg-pricing-title">
        {t('title')}
      </Typography.Title>
      <Banner
        type="info"
        closeIcon={null}
        className="mg-pricing-banner"
        description={user ? t('banner.signedIn', { group: user.group || '-' }) : t('banner.signedOut')}
        data-testid="pricing-banner"
      />
      <div className="mg-pricing-toolbar">
        <Input
          prefix={<IconSearch />}
          placeholder={t('search')}
          value={search}
          onChange={(value) => setFilters({ q: value })}
          showClear
          className="mg-pricing-search"
          data-testid="pricing-search"
        />
        <Select
          prefix={t('group.label')}
          value={group || undefined}
          placeholder={t('group.none')}
          disabled={groups.length === 0}
          onChange={(value) => setFilters({ group: String(value) })}
          optionList={groups.map((name) => ({
            value: name,
            label: t('group.option', { name, desc: pricing.data?.usableGroup[name] ?? '', ratio: pricing.data?.groupRatio[name] ?? 1 }),
          }))}
          className="mg-pricing-group"
          data-testid="pricing-group"
        />
        {group && (
          <Typography.Text type="tertiary" data-testid="pricing-group-ratio">
            {t('group.ratio', { ratio: groupRatio })}
          </Typography.Text>
        )}
      </div>
      <Table<PricedModel>
        rowKey="model_name"
        columns={columns}
        dataSource={models}
        loading={pricing.isLoading}
        size="small"
        // Wide screens fit every column; phones scroll the table sideways instead of squeezing prices.
        scroll={narrow ? { x: 900 } : undefined}
        empty={<Empty description={search ? t('empty.search') : t('empty.none')} />}
        onRow={(model) => ({ 'data-testid': model ? `pricing-row-${model.model_name}` : undefined }) as object}
        pagination={pagination}
      />
      <Typography.Text type="tertiary" size="small" className="mg-pricing-note">
        {t('note')}
      </Typography.Text>
    </div>
  );
}
