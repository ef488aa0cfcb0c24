import { Banner, Empty, Input, Pagination, Radio, RadioGroup, Select, Spin, Table, Typography } from '@douyinfe/semi-ui';
import { IconGridView, IconList, IconSearch } from '@douyinfe/semi-icons';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyWithFeedback } from '../../lib/clipboard';
import { useSessionUser } from '../../lib/session';
import { readString, StorageKey, writeString } from '../../lib/storage';
import { useNarrowScreen } from '../../lib/use-narrow-screen';
import { useUrlFilters } from '../../lib/use-url-filters';
import type { PricedModel, PricingVendor } from './api';
import { PricingCard } from './components/pricing-card';
import { pricingColumns } from './components/pricing-columns';
import { PricingFilters } from './components/pricing-filters';
import { filterModels, initialGroup, tagChoices, vendorChoices, type PricingFilter } from './pricing-rules';
import { usePricing } from './queries';
import './pricing.css';
import { useTablePagination } from '../../components/shared/table-pagination';

const readFilters = (params: URLSearchParams) => ({
  search: params.get('q') ?? '',
  group: params.get('group'),
  vendor: params.get('vendor') ?? '',
  tag: params.get('tag') ?? '',
});

type PricingView = 'table' | 'card';

/** The view last chosen on this browser; phones start with cards, wider screens with the table. */
function useStoredView(narrow: boolean): [PricingView, (view: PricingView) => void] {
  const [stored, setStored] = useState(() => readString(StorageKey.pricingView));
  const view: PricingView = stored === 'table' || stored === 'card' ? stored : narrow ? 'card' : 'table';
  const choose = useCallback((next: PricingView) => {
    writeString(StorageKey.pricingView, next);
    setStored(next);
  }, []);
  return [view, choose];
}

export default function PricingPage() {
  const { t } = useTranslation('pricing');
  const user = useSessionUser();
  const pricing = usePricing();
  // Replaced, not pushed: the search changes with every keystroke.
  const { filters, page, pageSize, setFilters, setPage, setPageSize } = useUrlFilters(readFilters, { replace: true });
  const narrow = useNarrowScreen();
  const [view, setView] = useStoredView(narrow);

  const { search, group: requestedGroup, vendor, tag } = filters;

  const groups = useMemo(() => Object.keys(pricing.data?.usableGroup ?? {}), [pricing.data]);
  const group = requestedGroup && groups.includes(requestedGroup) ? requestedGroup : initialGroup(groups, user?.group);
  const groupRatio = pricing.data?.groupRatio[group] ?? 1;

  const allModels = pricing.data?.models ?? [];
  const vendors = pricing.data?.vendors ?? [];
  const filter: PricingFilter = { search, vendor, tag };
  const models = useMemo(
    () => filterModels(pricing.data?.models ?? [], pricing.data?.vendors ?? [], { search, vendor, tag }),
    [pricing.data, search, vendor, tag],
  );
  const vendorById = useMemo(() => new Map((pricing.data?.vendors ?? []).map((item) => [item.id, item])), [pricing.data]);
  const vendorOf = useCallback(
    (model: PricedModel): PricingVendor | undefined => (model.vendor_id === undefined ? undefined : vendorById.get(model.vendor_id)),
    [vendorById],
  );
  const onCopy = useCallback((model: PricedModel) => void copyWithFeedback(model.model_name, t('copied', { model: model.model_name })), [t]);
  const columns = useMemo(() => pricingColumns({ t, groupRatio, userGroup: user?.group, onCopy, vendorOf }), [t, groupRatio, user?.group, onCopy, vendorOf]);
  const vendorList = vendorChoices(allModels, vendors, filter);
  const tagList = tagChoices(allModels, vendors, filter);
  const empty = <Empty description={search || vendor || tag ? t('empty.search') : t('empty.none')} />;
  const cardPage = models.slice((page - 1) * pageSize, page * pageSize);

  const pagination = useTablePagination({ page, pageSize, total: models.length, onPageChange: setPage, onPageSizeChange: setPageSize });
  const { formatPageText: _pageText, ...cardPagination } = pagination;
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
        <RadioGroup
          type="button"
          value={view}
          onChange={(event) => setView(event.target.value as PricingView)}
          className="mg-pricing-view"
          aria-label={t('view.label')}
          data-testid="pricing-view"
        >
          <Radio value="table" aria-label={t('view.table')} data-testid="pricing-view-table">
            <IconList /> {t('view.table')}
          </Radio>
          <Radio value="card" aria-label={t('view.card')} data-testid="pricing-view-card">
            <IconGridView /> {t('view.card')}
          </Radio>
        </RadioGroup>
      </div>
      <PricingFilters
        vendors={vendorList}
        tags={tagList}
        vendorTotal={vendorList.reduce((sum, choice) => sum + choice.count, 0)}
        tagTotal={filterModels(allModels, vendors, { ...filter, tag: '' }).length}
        vendor={vendor}
        tag={tag}
        onVendor={(value) => setFilters({ vendor: value || null })}
        onTag={(value) => setFilters({ tag: value || null })}
      />
      {view === 'card' ? (
        <Spin spinning={pricing.isLoading}>
          {models.length === 0 ? (
            empty
          ) : (
            <div className="mg-pricing-cards" data-testid="pricing-cards">
              {cardPage.map((model) => (
                <PricingCard key={model.model_name} model={model} vendor={vendorOf(model)} groupRatio={groupRatio} userGroup={user?.group} onCopy={onCopy} />
              ))}
            </div>
          )}
          {models.length > 0 && <Pagination className="mg-pricing-pagination" {...cardPagination} />}
        </Spin>
      ) : (
        <Table<PricedModel>
          rowKey="model_name"
          columns={columns}
          dataSource={models}
          loading={pricing.isLoading}
          size="small"
          // Wide screens fit every column; phones scroll the table sideways instead of squeezing prices.
          scroll={narrow ? { x: 900 } : undefined}
          empty={empty}
          onRow={(model) => ({ 'data-testid': model ? `pricing-row-${model.model_name}` : undefined }) as object}
          pagination={pagination}
        />
      )}
      <Typography.Text type="tertiary" size="small" className="mg-pricing-note">
        {t('note')}
      </Typography.Text>
    </div>
  );
}
