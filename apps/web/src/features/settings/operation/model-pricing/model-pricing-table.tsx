import { Button, Empty, Input, Pagination, Popconfirm, Space, Table, Tag, Tooltip, Typography } from '@douyinfe/semi-ui';
import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';
import { IconDelete, IconEdit, IconPlus, IconSearch } from '@douyinfe/semi-icons';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNarrowScreen } from '../../../../lib/use-narrow-screen';
import { ModelPricingModal } from './model-pricing-modal';
import {
  clampPage,
  filterRows,
  formatUsd,
  hasConflict,
  pageOf,
  pageRows,
  cachedTokenPrice,
  cacheWriteTokenPrice,
  PRICING_PAGE_SIZE,
  tokenPrices,
  type ModelPricingRow,
} from './model-pricing-rules';

interface ModelPricingTableProps {
  rows: readonly ModelPricingRow[];
  /** Adds (previousName null) or edits a row in the card's draft. */
  onUpsert: (row: ModelPricingRow, previousName: string | null) => void;
  onDelete: (name: string) => void;
}

/** The visual tab: one row per model, search, 10 a page, add and edit in a modal, delete with a confirm. */
export function ModelPricingTable({ rows, onUpsert, onDelete }: ModelPricingTableProps) {
  const { t } = useTranslation('settings-model-pricing');
  const narrow = useNarrowScreen();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<ModelPricingRow | 'new' | null>(null);
  // The row just added or edited, found for the admin (it may be on another page) and marked.
  const [touched, setTouched] = useState<string | null>(null);

  const filtered = useMemo(() => filterRows(rows, search), [rows, search]);
  const current = clampPage(page, filtered.length);
  const visible = useMemo(() => pageRows(filtered, current), [filtered, current]);

  useEffect(() => {
    if (!touched) return;
    const timer = window.setTimeout(() => setTouched(null), 4000);
    return () => window.clearTimeout(timer);
  }, [touched]);

  // After an add or edit the row is shown where it now sits (it may be on another page).
  const reveal = useRef<string | null>(null);
  useEffect(() => {
    const name = reveal.current;
    if (!name || !filtered.some((row) => row.name === name)) return;
    reveal.current = null;
    setPage(pageOf(filtered, name));
  }, [filtered]);

  const submit = (row: ModelPricingRow, previousName: string | null) => {
    onUpsert(row, previousName);
    setEditing(null);
    setTouched(row.name);
    reveal.current = row.name;
    // The search is kept when it still finds the row.
    if (filterRows([row], search).length === 0) setSearch('');
  };

  // Fixed widths (ellipsis makes the layout fixed): the name takes what is left and a long one is
  // cut with a tooltip, so the actions never leave the card.
  const columns: ColumnProps<ModelPricingRow>[] = [
    {
      title: t('table.name'),
      dataIndex: 'name',
      ellipsis: true,
      render: (_: unknown, row: ModelPricingRow) => (
        <span className="mg-pricing-name">
          <Typography.Text strong ellipsis={{ showTooltip: true }} className="mg-pricing-name-text">
            {row.name}
          </Typography.Text>
          {hasConflict(row) && (
            <Tooltip content={t('table.conflictTip')}>
              <Tag color="orange" size="small" data-testid="model-pricing-conflict">
                {t('table.conflict')}
              </Tag>
            </Tooltip>
          )}
        </span>
      ),
    },
    {
      title: t('table.price'),
      dataIndex: 'price',
      width: 108,
      render: (_: unknown, row: ModelPricingRow) =>
        row.price === undefined ? <Typography.Text type="quaternary">-</Typography.Text> : t('table.perCall', { price: formatUsd(row.price) }),
    },
    {
      title: t('table.ratio'),
      dataIndex: 'ratio',
      width: 84,
      render: (_: unknown, row: ModelPricingRow) => <RatioValue value={row.ratio} muted={row.price !== undefined} />,
    },
    {
      title: t('table.completionRatio'),
      dataIndex: 'completionRatio',
      width: 116,
      render: (_: unknown, row: ModelPricingRow) =>
        row.completionRatio === undefined && row.price === undefined && row.ratio !== undefined ? (
          <Typography.Text type="tertiary">{t('table.defaultCompletion')}</Typography.Text>
        ) : (
          <RatioValue value={row.completionRatio} muted={row.price !== undefined} />
        ),
    },
    {
      title: t('table.cacheRatio'),
      dataIndex: 'cacheRatio',
      width: 80,
      render: (_: unknown, row: ModelPricingRow) => <RatioValue value={row.cacheRatio} muted={row.price !== undefined} />,
    },
    {
      title: t('table.createCacheRatio'),
      dataIndex: 'createCacheRatio',
      width: 88,
      render: (_: unknown, row: ModelPricingRow) => <RatioValue value={row.createCacheRatio} muted={row.price !== undefined} />,
    },
    {
      title: t('table.tokenPrice'),
      key: 'tokenPrice',
      width: 156,
      render: (_: unknown, row: ModelPricingRow) => <TokenPrice row={row} />,
    },
    {
      title: t('table.actions'),
      key: 'actions',
      width: 96,
      render: (_: unknown, row: ModelPricingRow) => (
        <Space spacing={4}>
          {/* Icons with their names as tooltips: seven columns leave the model name too little room for worded buttons. */}
          <Tooltip content={t('table.edit')}>
            <Button size="small" theme="borderless" icon={<IconEdit />} onClick={() => setEditing(row)} aria-label={`${t('table.edit')} ${row.name}`} />
          </Tooltip>
          <Popconfirm
            title={t('table.deleteTitle', { name: row.name })}
            content={t('table.deleteContent')}
            okType="danger"
            okText={t('table.delete')}
            cancelText={t('modal.cancel')}
            onConfirm={() => onDelete(row.name)}
          >
            <span>
              <Tooltip content={t('table.delete')}>
                <Button size="small" theme="borderless" type="danger" icon={<IconDelete />} aria-label={`${t('table.delete')} ${row.name}`} />
              </Tooltip>
            </span>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  return (
    <div className="mg-pricing-visual">
      <div className="mg-pricing-toolbar">
        <Button icon={<IconPlus />} theme="light" type="primary" onClick={() => setEditing('new')} data-testid="model-pricing-add">
          {t('table.add')}
        </Button>
        <Input
          prefix={<IconSearch />}
          placeholder={t('table.search')}
          value={search}
          showClear
          onChange={(value) => {
            reveal.current = null;
            setSearch(value);
            setPage(1);
          }}
          className="mg-pricing-search"
          aria-label={t('table.search')}
          data-testid="model-pricing-search"
        />
        <Typography.Text type="tertiary" size="small" data-testid="model-pricing-total">
          {t('table.total', { count: filtered.length })}
        </Typography.Text>
      </div>
      <Table<ModelPricingRow>
        rowKey="name"
        columns={columns}
        dataSource={visible}
        pagination={false}
        size="small"
        // Phones scroll the table sideways instead of squeezing or overflowing the card.
        scroll={narrow ? { x: 1160 } : undefined}
        empty={<Empty description={search.trim() ? t('table.emptySearch') : t('table.empty')} />}
        onRow={(row) =>
          ({
            'data-testid': row ? `model-pricing-row-${row.name}` : undefined,
            className: row && row.name === touched ? 'mg-pricing-row-touched' : undefined,
          }) as object
        }
      />
      {filtered.length > PRICING_PAGE_SIZE && (
        <div className="mg-pricing-pagination">
          <Pagination
            total={filtered.length}
            pageSize={PRICING_PAGE_SIZE}
            currentPage={current}
            onPageChange={setPage}
            size={narrow ? 'small' : 'default'}
            data-testid="model-pricing-pagination"
          />
        </div>
      )}
      <ModelPricingModal editing={editing} rows={rows} onCancel={() => setEditing(null)} onSubmit={submit} />
    </div>
  );
}

function RatioValue({ value, muted }: { value: number | undefined; muted: boolean }) {
  if (value === undefined) return <Typography.Text type="quaternary">-</Typography.Text>;
  return (
    <Typography.Text type={muted ? 'tertiary' : undefined} delete={muted}>
      {String(value)}
    </Typography.Text>
  );
}

function TokenPrice({ row }: { row: ModelPricingRow }) {
  const { t } = useTranslation('settings-model-pricing');
  if (row.price !== undefined)
    return (
      <Tag size="small" color="violet">
        {t('table.byCall')}
      </Tag>
    );
  const prices = tokenPrices(row);
  if (!prices)
    return (
      <Typography.Text type="warning" size="small">
        {t('table.noRatio')}
      </Typography.Text>
    );
  const cached = cachedTokenPrice(row);
  const written = cacheWriteTokenPrice(row);
  return (
    <span className="mg-pricing-token-price" data-testid="model-pricing-token-price">
      <Typography.Text size="small">{t('table.input', { price: formatUsd(prices.input) })}</Typography.Text>
      <Typography.Text size="small" type="secondary">
        {t('table.output', { price: formatUsd(prices.output) })}
      </Typography.Text>
      {cached !== null && (
        <Typography.Text size="small" type="tertiary">
          {t('table.cached', { price: formatUsd(cached) })}
        </Typography.Text>
      )}
      {written !== null && (
        <Typography.Text size="small" type="tertiary">
          {t('table.cacheWrite', { price: formatUsd(written) })}
        </Typography.Text>
      )}
    </span>
  );
}
